// Deciders against a history exported from SWF (GetWorkflowExecutionHistory's JSON; this one
// newest first, as `reverseOrder` exports it).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Decision } from '../src/index.js';
import { loadHistory } from '../src/testing/index.js';

const exported = readFileSync(new URL('./fixtures/hello-history.json', import.meta.url), 'utf8');

/** The decider that ran: greets, then completes with the greeting. */
function hello(history) {
  const greet = history.activity('greet');
  if (!greet) {
    return [Decision.scheduleActivity('greet', 'Greet', '1.0', { input: history.input(), taskList: 'hello-activities', startToClose: 30 })];
  }
  if (greet.isOpen()) return [];
  return greet.kind === 'completed' ? [Decision.complete(greet.result)] : [Decision.fail('greet failed', greet.reason)];
}

test('an exported history gives each decision task as its decider saw it', () => {
  const recorded = loadHistory(exported, { workflowExecution: { workflowId: 'hello-1', runId: 'r' } });
  assert.deepEqual(recorded.workflowType, { name: 'Hello', version: '1.0' });
  const tasks = recorded.completedTasks();
  assert.equal(tasks.length, 2);
  assert.ok(tasks[0].history.isFirstDecision());
  const second = tasks[1].history;
  assert.equal(second.task.previousStartedEventId, 3);
  assert.equal(second.task.startedEventId, 9);
  assert.equal(second.activity('greet').result, '"hello, world"');
  assert.equal(second.workflowExecution.workflowId, 'hello-1');
  assert.deepEqual(tasks[1].recorded.map((e) => e.eventType), ['WorkflowExecutionCompleted']);
  assert.equal(recorded.decisionTask().task.startedEventId, 9);
});

test('replay checks a decider against the decisions recorded', () => {
  assert.deepEqual(loadHistory(exported).replay(hello), []);
  const changed = (history) => hello(history).map((d) =>
    d.decisionType === 'ScheduleActivityTask'
      ? Decision.scheduleActivity('greet', 'Greet', '2.0', { input: history.input(), taskList: 'hello-activities', startToClose: 30 })
      : d);
  assert.deepEqual(loadHistory(exported).replay(changed), [
    'decision task 3: decision 1 (ScheduleActivityTask) vs event 5: activityType is {"name":"Greet","version":"2.0"}, recorded {"name":"Greet","version":"1.0"}',
  ]);
  assert.deepEqual(loadHistory(exported).replay(() => []), [
    'decision task 3: 0 decisions (), but 1 recorded after event 4 (ActivityTaskScheduled)',
    'decision task 9: 0 decisions (), but 1 recorded after event 10 (WorkflowExecutionCompleted)',
  ]);
  assert.deepEqual(loadHistory(exported).replay(() => { throw new Error('boom'); }).length, 2);
});

test('ISO timestamps (the AWS CLI default) are read as epoch seconds', () => {
  const json = JSON.parse(exported);
  json.events[0].eventTimestamp = '2023-11-14T22:13:31.123000+00:00';
  const last = loadHistory(json).events.at(-1);
  assert.equal(last.eventTimestamp, 1700000011.123);
});
