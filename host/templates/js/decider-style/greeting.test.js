// The decider on a hand-built history, and the worker on a task, under node.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HistoryBuilder } from '@weft/guest/testing';
import { decide } from './decider.js';
import worker from './worker.js';

test('greets, waits, then completes with the greeting', () => {
  const h = new HistoryBuilder('Greeting', '1', 'Ada');
  const [schedule] = h.decide(decide);
  assert.equal(schedule.scheduleActivityTaskDecisionAttributes.input, 'Ada');
  h.activityCompleted('greet', 'Hello, Ada!');
  assert.equal(h.decide(decide)[0].decisionType, 'StartTimer');
  h.timerFired('pause');
  const [done] = h.decide(decide);
  assert.equal(done.completeWorkflowExecutionDecisionAttributes.result, 'Hello, Ada!');
});

test('the worker greets by name', () => {
  const task = {
    activityId: 'greet', activityType: { name: 'Greet', version: '1' },
    workflowExecution: { workflowId: 'w', runId: 'r' }, input: 'Ada', startedEventId: 5,
  };
  assert.equal(worker.perform(task).result, 'Hello, Ada!');
});
