// The exports as the host calls them (jco's values: BigInt, variants, kebab-case enums), and the
// decision constructors.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ActivityWorker, Decision, Failure, Outcome, decider, fn, response } from '../src/index.js';
import { HistoryBuilder, task, taskFromWire } from '../src/testing/index.js';

test('decider() turns jco tasks into a History and wire decisions into jco decisions', () => {
  const guest = decider((history) => [
    Decision.startChild('c', 'P', '1', { childPolicy: 'ABANDON', input: history.input() }),
    Decision.startTimer('t', 30),
  ]);
  const h = new HistoryBuilder('Order', '1', 'in');
  const jcoTask = taskFromWire(h.decisionTask());
  assert.equal(typeof jcoTask.startedEventId, 'bigint');
  assert.equal(jcoTask.events[0].attributes.tag, 'workflow-execution-started');
  assert.equal(jcoTask.events[0].attributes.val.childPolicy, 'terminate');
  assert.deepEqual(guest.decide(jcoTask), {
    decisions: [
      { tag: 'start-child-workflow-execution', val: { workflowType: { name: 'P', version: '1' }, workflowId: 'c', input: 'in', childPolicy: 'abandon' } },
      { tag: 'start-timer', val: { timerId: 't', startToFireTimeout: '30' } },
    ],
    executionContext: undefined,
    taskList: undefined,
    taskListScheduleToStartTimeout: undefined,
  });
});

test('a decider may answer a response, and fails its task with a string', () => {
  const jcoTask = taskFromWire(new HistoryBuilder('Order', '1').decisionTask());
  const answered = decider(() => response([], { executionContext: 'step 2', taskList: 'urgent', scheduleToStart: 10 })).decide(jcoTask);
  assert.deepEqual([answered.executionContext, answered.taskList, answered.taskListScheduleToStartTimeout], ['step 2', { name: 'urgent' }, '10']);
  assert.throws(() => decider(() => { throw new Error('no order'); }).decide(jcoTask), (e) => e === 'no order');
  assert.throws(() => decider(() => { throw 'plain'; }).decide(jcoTask), (e) => e === 'plain');
});

test('the decision constructors fill every attribute', () => {
  assert.deepEqual(Decision.scheduleActivity('ship', 'ShipOrder', '1.0', {
    input: '{}', control: 'c', taskList: 'l', taskPriority: 5, scheduleToClose: 600,
    scheduleToStart: 300, startToClose: 30, heartbeat: 'NONE',
  }), {
    decisionType: 'ScheduleActivityTask',
    scheduleActivityTaskDecisionAttributes: {
      activityType: { name: 'ShipOrder', version: '1.0' }, activityId: 'ship', control: 'c', input: '{}',
      scheduleToCloseTimeout: '600', taskList: { name: 'l' }, taskPriority: '5', scheduleToStartTimeout: '300',
      startToCloseTimeout: '30', heartbeatTimeout: 'NONE',
    },
  });
  assert.deepEqual(Decision.continueAsNew({ input: 'p2', executionStartToClose: 3600, taskList: 'l', taskPriority: 0,
    taskStartToClose: 30, childPolicy: 'TERMINATE', tags: ['b'], workflowTypeVersion: '2', lambdaRole: 'r' }).continueAsNewWorkflowExecutionDecisionAttributes, {
    input: 'p2', executionStartToCloseTimeout: '3600', taskList: { name: 'l' }, taskPriority: '0',
    taskStartToCloseTimeout: '30', childPolicy: 'TERMINATE', tagList: ['b'], workflowTypeVersion: '2', lambdaRole: 'r',
  });
  assert.deepEqual(Decision.signalExternal('w', 's', { runId: 'r', input: 'i', control: 'c' }).signalExternalWorkflowExecutionDecisionAttributes,
    { workflowId: 'w', runId: 'r', signalName: 's', input: 'i', control: 'c' });
  assert.deepEqual(Decision.requestCancelExternal('w', { runId: 'r', control: 'c' }).requestCancelExternalWorkflowExecutionDecisionAttributes,
    { workflowId: 'w', runId: 'r', control: 'c' });
  assert.deepEqual(Decision.scheduleLambda('f', 'price', { input: 'i', control: 'c', startToClose: 5 }).scheduleLambdaFunctionDecisionAttributes,
    { id: 'f', name: 'price', control: 'c', input: 'i', startToCloseTimeout: '5' });
  assert.deepEqual(Decision.startTimer('t', 5, { control: 'c' }).startTimerDecisionAttributes, { timerId: 't', control: 'c', startToFireTimeout: '5' });
  assert.deepEqual(Decision.fail('r', 'd').failWorkflowExecutionDecisionAttributes, { reason: 'r', details: 'd' });
  assert.deepEqual(Decision.cancel().cancelWorkflowExecutionDecisionAttributes, {});
  assert.deepEqual(Decision.recordMarker('m', 'd').recordMarkerDecisionAttributes, { markerName: 'm', details: 'd' });
  assert.deepEqual(Decision.cancelTimer('t').cancelTimerDecisionAttributes, { timerId: 't' });
  assert.deepEqual(Decision.requestCancelActivity('a').requestCancelActivityTaskDecisionAttributes, { activityId: 'a' });
  assert.deepEqual(Decision.complete('r').completeWorkflowExecutionDecisionAttributes, { result: 'r' });
});

test('an activity worker dispatches by type and converts what handlers answer', () => {
  const worker = new ActivityWorker()
    .activity('Echo', '1', (t) => t.inputJson())
    .activity('Raw', '*', () => Outcome.completed('not json'))
    .activity('Nothing', '1', () => undefined)
    .activity('Stop', '1', () => Outcome.canceled('asked to'))
    .activity('Decline', '1', () => { throw new Failure('card declined', 'card ending 0000'); })
    .activity('Crash', '1', () => { throw new TypeError('oops'); });
  assert.deepEqual(worker.perform(task('Echo', '1', '{"b":1,"a":[2]}')), { outcome: 'completed', result: '{"a":[2],"b":1}' });
  assert.deepEqual(worker.perform(task('Raw', '7')), { outcome: 'completed', result: 'not json' });
  assert.deepEqual(worker.perform(task('Nothing', '1')), { outcome: 'completed', result: undefined });
  assert.deepEqual(worker.perform(task('Stop', '1')), { outcome: 'canceled', details: 'asked to' });
  assert.deepEqual(worker.perform(task('Decline', '1')), { outcome: 'failed', reason: 'card declined', details: 'card ending 0000' });
  assert.equal(worker.perform(task('Crash', '1')).reason, 'oops');
  assert.deepEqual(worker.perform(task('Teleport', '1', '{}')), { outcome: 'failed', reason: 'unknown activity type Teleport', details: undefined });
  assert.equal(worker.perform(task('Echo', '2')).reason, 'unknown version 2 of activity type Echo');
  assert.deepEqual(worker.perform(task('Echo', '1')), { outcome: 'failed', reason: 'the activity needs an input', details: undefined });
  assert.deepEqual(worker.perform(task('Echo', '1', 'not json')), { outcome: 'failed', reason: 'the input is not JSON', details: 'expected ident at line 1 column 2' });
  // As the host calls it: jco's task (u64 as BigInt) in, jco's activity-outcome out.
  const jcoTask = { activityId: 'a', activityType: { name: 'Echo', version: '1' }, workflowExecution: { workflowId: 'w', runId: 'r' }, input: '[1]', startedEventId: 5n };
  assert.deepEqual(worker.run(jcoTask), { tag: 'completed', val: '[1]' });
  assert.deepEqual(worker.run({ ...jcoTask, activityType: { name: 'Stop', version: '1' } }), { tag: 'canceled', val: 'asked to' });
  assert.deepEqual(worker.run({ ...jcoTask, activityType: { name: 'Decline', version: '1' } }),
    { tag: 'failed', val: { reason: 'card declined', details: 'card ending 0000' } });
});

test('a function answers its result, or throws a failure record', () => {
  const guest = fn((input) => {
    if (input === undefined) throw new Failure('no input');
    return { shout: input.toUpperCase() };
  });
  assert.equal(guest.invoke('hi'), '{"shout":"HI"}');
  assert.throws(() => guest.invoke(undefined), (e) => e.reason === 'no input' && e.details === undefined && !(e instanceof Error));
  assert.deepEqual(guest.perform('a'), { outcome: 'completed', result: '{"shout":"A"}' });
});

test('a decider or workflow that throws logs its stack, the failure details the host keeps', async () => {
  const { setHost } = await import('../src/host.js');
  const { workflow } = await import('../src/workflow.js');
  const logged = [];
  setHost({ write: (level, message) => logged.push([level, message]) });
  try {
    const jcoTask = taskFromWire(new HistoryBuilder('Order', '1').decisionTask());
    assert.throws(() => decider(() => { throw new Error('no order'); }).decide(jcoTask), (e) => e === 'no order');
    const failing = workflow(function* () {
      throw new TypeError('bad input');
    });
    assert.throws(() => failing.decide(jcoTask), (e) => e === 'bad input');
    assert.deepEqual(logged.map(([level]) => level), ['error', 'error']);
    assert.match(logged[0][1], /^Error: no order\n\s+at /);
    assert.match(logged[1][1], /^TypeError: bad input\n\s+at /);
  } finally {
    setHost({ write: undefined });
  }
});
