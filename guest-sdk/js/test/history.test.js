// History's queries and the statuses they derive, on histories of hand-made wire events.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { History } from '../src/index.js';

/** A history of these `[eventType, attributes]`, numbered from 1; the previous task started at `previous`. */
function history(previous, events) {
  return new History({
    workflowExecution: { workflowId: 'w', runId: 'run' },
    workflowType: { name: 'Order', version: '1' },
    events: events.map(([type, a], i) => ({
      eventId: i + 1, eventTimestamp: i, eventType: type,
      [type[0].toLowerCase() + type.slice(1) + 'EventAttributes']: a,
    })),
    previousStartedEventId: previous,
    startedEventId: events.length,
  });
}
const started = (input) => ['WorkflowExecutionStarted', { input, childPolicy: 'TERMINATE', taskList: { name: 'l' }, workflowType: { name: 'Order', version: '1' } }];
const scheduled = (id) => ['ActivityTaskScheduled', { activityId: id, activityType: { name: 'Charge', version: '1' }, taskList: { name: 'l' }, decisionTaskCompletedEventId: 1 }];
const signal = (name, input) => ['WorkflowExecutionSignaled', { signalName: name, input }];
const task = (type) => [type, {}];

test('queries over the execution: input, new events, signals, markers, cancel, last event', () => {
  const h = history(4, [
    started('{"a":1}'), task('DecisionTaskScheduled'), signal('early'), task('DecisionTaskStarted'),
    ['MarkerRecorded', { markerName: 'step', details: '1', decisionTaskCompletedEventId: 5 }],
    ['MarkerRecorded', { markerName: 'step', details: '2', decisionTaskCompletedEventId: 5 }],
    signal('late', '{"why":"x"}'), ['WorkflowExecutionCancelRequested', {}], task('DecisionTaskScheduled'),
    task('DecisionTaskStarted'),
  ]);
  assert.equal(h.input(), '{"a":1}');
  assert.deepEqual(h.inputJson(), { a: 1 });
  assert.equal(h.isFirstDecision(), false);
  assert.deepEqual(h.newEvents().map((e) => e.eventId), [5, 6, 7, 8, 9, 10]);
  assert.deepEqual(h.signals().map((s) => s.name), ['early', 'late']);
  assert.deepEqual(h.newSignals().map((s) => [s.name, s.eventId, s.inputJson()]), [['late', 7, { why: 'x' }]]);
  assert.equal(h.marker('step').details, '2');
  assert.equal(h.marker('step').detailsJson(), 2);
  assert.equal(h.markers().length, 2);
  assert.ok(h.cancelRequested());
  assert.equal(h.lastEvent().eventType, 'WorkflowExecutionCancelRequested');
  assert.equal(h.activity('x'), undefined);
});

test('an activity goes from scheduled to started to cancel requested, and closes every way', () => {
  const open = [started(), scheduled('a')];
  assert.equal(history(0, open).activity('a').kind, 'scheduled');
  open.push(['ActivityTaskStarted', { scheduledEventId: 2 }]);
  assert.equal(history(0, open).activity('a').kind, 'started');
  open.push(['ActivityTaskCancelRequested', { activityId: 'a', decisionTaskCompletedEventId: 1 }]);
  assert.ok(history(0, open).activity('a').isOpen());
  const ends = [
    ['ActivityTaskCompleted', { result: '42' }, 'Completed(Some("42"))'],
    ['ActivityTaskFailed', { reason: 'r', details: 'd' }, 'Failed { reason: Some("r"), details: Some("d") }'],
    ['ActivityTaskTimedOut', { timeoutType: 'HEARTBEAT' }, 'TimedOut("HEARTBEAT")'],
    ['ActivityTaskCanceled', {}, 'Canceled(None)'],
  ];
  for (const [type, a, debug] of ends) {
    const status = history(0, [...open, [type, { ...a, scheduledEventId: 2, startedEventId: 3 }]]).activity('a');
    assert.equal(status.toString(), debug);
    assert.ok(!status.isOpen());
  }
  const done = history(0, [...open, ['ActivityTaskCompleted', { result: '{"x":[1]}', scheduledEventId: 2, startedEventId: 3 }]]).activity('a');
  assert.deepEqual(done.resultJson(), { x: [1] });
  // Another activity's closing event does not count.
  assert.equal(history(0, [...open, ['ActivityTaskCompleted', { scheduledEventId: 9, startedEventId: 3 }]]).activity('a').kind, 'cancel-requested');
});

test('an activity that could not be scheduled, and a reused id', () => {
  const failed = ['ScheduleActivityTaskFailed', { activityId: 'a', activityType: { name: 'Charge', version: '1' }, cause: 'ACTIVITY_TYPE_DOES_NOT_EXIST', decisionTaskCompletedEventId: 1 }];
  const h = history(0, [started(), failed]);
  assert.equal(h.activity('a').toString(), 'NotStarted("ACTIVITY_TYPE_DOES_NOT_EXIST")');
  const again = history(0, [started(), failed, scheduled('a')]);
  assert.equal(again.activity('a').kind, 'scheduled');
});

test('every way a child goes', () => {
  const initiated = ['StartChildWorkflowExecutionInitiated', { workflowId: 'c', workflowType: { name: 'P', version: '1' }, childPolicy: 'TERMINATE', taskList: { name: 'l' }, decisionTaskCompletedEventId: 1 }];
  const child = (...events) => history(0, [started(), initiated, ...events]).child('c');
  const ex = { workflowExecution: { workflowId: 'c', runId: 'r' }, workflowType: { name: 'P', version: '1' }, initiatedEventId: 2 };
  assert.equal(child().kind, 'scheduled');
  assert.equal(child(['ChildWorkflowExecutionStarted', ex]).kind, 'started');
  assert.equal(child(['ChildWorkflowExecutionCompleted', { ...ex, result: 'r', startedEventId: 3 }]).result, 'r');
  assert.equal(child(['ChildWorkflowExecutionFailed', { ...ex, reason: 'no', startedEventId: 3 }]).reason, 'no');
  assert.equal(child(['ChildWorkflowExecutionTimedOut', { ...ex, timeoutType: 'START_TO_CLOSE', startedEventId: 3 }]).timeoutType, 'START_TO_CLOSE');
  assert.equal(child(['ChildWorkflowExecutionCanceled', { ...ex, details: 'd', startedEventId: 3 }]).details, 'd');
  assert.equal(child(['ChildWorkflowExecutionTerminated', { ...ex, startedEventId: 3 }]).kind, 'terminated');
  assert.equal(child(['StartChildWorkflowExecutionFailed', { workflowId: 'c', workflowType: ex.workflowType, cause: 'WORKFLOW_ALREADY_RUNNING', initiatedEventId: 2, decisionTaskCompletedEventId: 1 }]).cause, 'WORKFLOW_ALREADY_RUNNING');
  assert.equal(history(0, [started()]).child('c'), undefined);
});

test('every way a Lambda function goes', () => {
  const sched = ['LambdaFunctionScheduled', { id: 'f', name: 'price', decisionTaskCompletedEventId: 1 }];
  const fn = (...events) => history(0, [started(), sched, ...events]).lambda('f');
  assert.equal(fn().kind, 'scheduled');
  assert.equal(fn(['LambdaFunctionStarted', { scheduledEventId: 2 }]).kind, 'started');
  assert.equal(fn(['LambdaFunctionCompleted', { result: '1', scheduledEventId: 2, startedEventId: 3 }]).result, '1');
  assert.equal(fn(['LambdaFunctionFailed', { reason: 'x', scheduledEventId: 2, startedEventId: 3 }]).kind, 'failed');
  assert.equal(fn(['LambdaFunctionTimedOut', { timeoutType: 'START_TO_CLOSE', scheduledEventId: 2, startedEventId: 3 }]).kind, 'timed-out');
  assert.equal(fn(['StartLambdaFunctionFailed', { scheduledEventId: 2 }]).cause, 'UNKNOWN');
  const refused = history(0, [started(), ['ScheduleLambdaFunctionFailed', { id: 'f', name: 'price', cause: 'ID_ALREADY_IN_USE', decisionTaskCompletedEventId: 1 }]]);
  assert.equal(refused.lambda('f').cause, 'ID_ALREADY_IN_USE');
});

test('every way a timer goes', () => {
  const t = ['TimerStarted', { timerId: 't', startToFireTimeout: '5', decisionTaskCompletedEventId: 1 }];
  const timer = (...events) => history(0, [started(), t, ...events]).timer('t');
  assert.deepEqual([timer().kind, timer().eventId, timer().isOpen()], ['started', 2, true]);
  assert.deepEqual([timer(['TimerFired', { timerId: 't', startedEventId: 2 }]).kind, timer(['TimerFired', { timerId: 't', startedEventId: 2 }]).eventId], ['fired', 3]);
  assert.equal(timer(['TimerCanceled', { timerId: 't', startedEventId: 2, decisionTaskCompletedEventId: 1 }]).kind, 'canceled');
  const failed = history(0, [started(), ['StartTimerFailed', { timerId: 't', cause: 'TIMER_ID_ALREADY_IN_USE', decisionTaskCompletedEventId: 1 }]]).timer('t');
  assert.deepEqual([failed.kind, failed.cause, failed.isOpen()], ['start-failed', 'TIMER_ID_ALREADY_IN_USE', false]);
});
