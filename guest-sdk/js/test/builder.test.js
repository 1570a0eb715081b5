// testing.HistoryBuilder: the events it records for decisions, and how it schedules decision
// tasks (as the Rust SDK's builder does).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Decision } from '../src/index.js';
import { HistoryBuilder } from '../src/testing/index.js';

const types = (h) => h.events.map((e) => e.eventType);

test('every decision is recorded as the event SWF records for it', () => {
  const h = new HistoryBuilder('Order', '1', undefined);
  h.respond([
    Decision.scheduleActivity('a', 'Charge', '1'),
    Decision.startTimer('t', 5),
    Decision.recordMarker('m'),
    Decision.signalExternal('w', 's'),
    Decision.requestCancelExternal('w'),
    Decision.startChild('c', 'Order', '1'),
    Decision.scheduleLambda('f', 'price'),
  ]);
  h.respond([Decision.requestCancelActivity('a'), Decision.cancelTimer('t'), Decision.continueAsNew()]);
  assert.deepEqual(types(h), [
    'WorkflowExecutionStarted', 'DecisionTaskScheduled', 'DecisionTaskStarted', 'DecisionTaskCompleted',
    'ActivityTaskScheduled', 'TimerStarted', 'MarkerRecorded', 'SignalExternalWorkflowExecutionInitiated',
    'RequestCancelExternalWorkflowExecutionInitiated', 'StartChildWorkflowExecutionInitiated',
    'LambdaFunctionScheduled', 'DecisionTaskScheduled', 'DecisionTaskStarted', 'DecisionTaskCompleted',
    'ActivityTaskCancelRequested', 'TimerCanceled', 'WorkflowExecutionContinuedAsNew',
  ]);
  const history = h.decisionTask();
  assert.equal(history.timer('t').kind, 'canceled');
  assert.equal(history.timer('t').eventId, 16);
  assert.equal(history.activity('a').kind, 'cancel-requested');
  assert.deepEqual(h.events[4].activityTaskScheduledEventAttributes, {
    activityType: { name: 'Charge', version: '1' }, activityId: 'a', taskList: { name: 'default' },
    decisionTaskCompletedEventId: 4,
  });
  assert.deepEqual(h.events[16].workflowExecutionContinuedAsNewEventAttributes, {
    newExecutionRunId: 'run-1-next', taskList: { name: 'default' }, childPolicy: 'TERMINATE',
    workflowType: { name: 'Order', version: '1' }, decisionTaskCompletedEventId: 14,
  });
});

test('the next task is scheduled while one is started; a close decision then fails', () => {
  const h = new HistoryBuilder('Order', '1');
  h.respond([Decision.scheduleActivity('a', 'Charge', '1')]);
  const seen = h.decisionTask();
  h.activityCompleted('a', 'ok').signal('s');
  h.respond([Decision.complete()]);
  const next = h.decisionTask();
  assert.deepEqual(h.events.map((e) => [e.eventId, e.eventType]), [
    [1, 'WorkflowExecutionStarted'], [2, 'DecisionTaskScheduled'], [3, 'DecisionTaskStarted'],
    [4, 'DecisionTaskCompleted'], [5, 'ActivityTaskScheduled'], [6, 'DecisionTaskScheduled'],
    [7, 'DecisionTaskStarted'], [8, 'ActivityTaskStarted'], [9, 'ActivityTaskCompleted'],
    [10, 'DecisionTaskScheduled'], [11, 'WorkflowExecutionSignaled'], [12, 'DecisionTaskCompleted'],
    [13, 'CompleteWorkflowExecutionFailed'], [14, 'DecisionTaskStarted'],
  ]);
  assert.equal(seen.task.startedEventId, 7);
  assert.equal(h.events[13].decisionTaskStartedEventAttributes.scheduledEventId, 10);
  assert.equal(h.events[12].completeWorkflowExecutionFailedEventAttributes.cause, 'UNHANDLED_DECISION');
  assert.equal(next.task.previousStartedEventId, 7);
  assert.equal(next.newSignals().length, 1);
});

test('decide runs a decider, records and answers its decisions; a closed execution gets no task', () => {
  const h = new HistoryBuilder('Order', '1', 'x');
  assert.deepEqual(h.decide((history) => [Decision.complete(history.input())]), [Decision.complete('x')]);
  const closed = h.decisionTask();
  assert.equal(closed.events.at(-1).eventType, 'WorkflowExecutionCompleted');
  assert.throws(() => h.respond([]), /closed/);
  assert.throws(() => new HistoryBuilder('O', '1').decide(() => { throw new Error('no'); }), /no/);
});

test('outcomes of children and Lambda functions record their start first', () => {
  const h = new HistoryBuilder('Quote', '1');
  h.respond([Decision.startChild('c', 'PriceItem', '1'), Decision.scheduleLambda('f', 'price')]);
  h.childCompleted('c', '150').lambdaFailed('f', 'unknown sku');
  const history = h.decisionTask();
  assert.deepEqual(types(h).slice(6, 10), [
    'ChildWorkflowExecutionStarted', 'ChildWorkflowExecutionCompleted', 'DecisionTaskScheduled', 'LambdaFunctionStarted',
  ]);
  assert.equal(history.child('c').result, '150');
  assert.equal(history.lambda('f').reason, 'unknown sku');
  assert.throws(() => h.activityCompleted('nope'), /the history has no activity "nope"/);
});

test('withExecution, startedWith and advance shape the history', () => {
  const h = new HistoryBuilder('Quote', '1').withExecution('order-17', 'r1')
    .startedWith((s) => { s.lambdaRole = 'weft'; }).advance(60);
  h.signal('cancel');
  const history = h.decisionTask();
  assert.equal(history.workflowExecution.workflowId, 'order-17');
  assert.equal(history.started().lambdaRole, 'weft');
  assert.equal(history.events[2].eventTimestamp - history.events[1].eventTimestamp, 61);
});
