// The clock decider under node (real clock and Math.random): its decisions' shape.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HistoryBuilder } from '../../../guest-sdk/js/src/testing/index.js';
import { decide } from './decider.js';

test('records the clock, waits for the timer, then completes with the clock', () => {
  const h = new HistoryBuilder('Clock', '1');
  const first = h.decide(decide);
  assert.deepEqual(first.map((d) => d.decisionType), ['RecordMarker', 'StartTimer']);
  const marker = first[0].recordMarkerDecisionAttributes;
  assert.equal(marker.markerName, 'clock');
  assert.match(marker.details, /^\{"now":\d+(\.\d+)?,"random":[\d.e-]+\}$/);
  assert.ok(Math.abs(JSON.parse(marker.details).now - Date.now() / 1000) < 60);
  assert.deepEqual(first[1].startTimerDecisionAttributes, { timerId: 't', startToFireTimeout: '1' });
  h.signal('poke');
  assert.deepEqual(h.decide(decide), [], 'waits while the timer runs');
  h.timerFired('t');
  const [done] = h.decide(decide);
  assert.match(done.completeWorkflowExecutionDecisionAttributes.result, /^\{"now":[\d.]+,"random":[\d.e-]+\}$/);
});
