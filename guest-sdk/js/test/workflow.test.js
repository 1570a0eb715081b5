// The workflow runtime against histories that HistoryBuilder records as SWF would: the same
// cases as the Rust SDK's workflow/tests.rs and the Python SDK's test_workflow.py, with the
// same ids and decisions.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ActivityError, Canceled, Failure, NondeterminismError, RetryPolicy, first, gather, runWorkflow,
  settled, workflow,
} from '../src/index.js';
import { Environment, HistoryBuilder } from '../src/testing/index.js';

const decide = (h, fn) => h.decide((history) => runWorkflow(history, fn));

/** Each decision in short, as the Rust and Python tests write them. */
function names(decisions) {
  return decisions.map((d) => {
    const a = Object.entries(d).find(([k]) => k !== 'decisionType')[1];
    switch (d.decisionType) {
      case 'ScheduleActivityTask': return `activity ${a.activityId}`;
      case 'StartTimer': return `timer ${a.timerId} ${a.startToFireTimeout}s`;
      case 'CancelTimer': return `cancel timer ${a.timerId}`;
      case 'CompleteWorkflowExecution': return `complete ${a.result}`;
      case 'FailWorkflowExecution': return `fail ${a.reason} ${a.details}`;
      case 'CancelWorkflowExecution': return `cancel ${a.details}`;
      case 'RecordMarker': return `marker ${a.markerName} ${a.details}`;
      case 'ScheduleLambdaFunction': return `lambda ${a.id} ${a.name}`;
      case 'StartChildWorkflowExecution': return `child ${a.workflowId}`;
      case 'SignalExternalWorkflowExecution': return `signal ${a.workflowId}`;
      case 'RequestCancelExternalWorkflowExecution': return `cancel ${a.workflowId}`;
      case 'ContinueAsNewWorkflowExecution': return `continue ${a.input}`;
      default: return d.decisionType;
    }
  });
}

function* greet(wf) {
  const greeting = yield wf.activity('Greet', '1.0', { input: wf.input() ?? 'world' });
  yield wf.sleep(1);
  return greeting;
}

function* beforeChange(wf) {
  yield wf.activity('Charge', '1.0');
  return yield wf.activity('Ship', '1.0');
}

function* afterChange(wf) {
  yield wf.activity('Charge', '1.0');
  if (wf.patched('fraud-check')) yield wf.activity('CheckFraud', '1.0');
  return yield wf.activity('Ship', '1.0');
}

test('an activity, then a timer, then the result', () => {
  const h = new HistoryBuilder('Hello', '1.0', 'Ada');
  const firstTask = decide(h, greet);
  assert.deepEqual(names(firstTask), ['activity Greet-1']);
  assert.equal(firstTask[0].scheduleActivityTaskDecisionAttributes.input, 'Ada');
  h.activityCompleted('Greet-1', 'Hello, Ada!');
  assert.deepEqual(names(decide(h, greet)), ['timer timer-1 1s']);
  h.timerFired('timer-1');
  assert.deepEqual(names(decide(h, greet)), ['complete Hello, Ada!']);
});

test('a failure is thrown at its yield and can be compensated', () => {
  function* chargeOrRelease(wf) {
    yield wf.activity('Reserve', '1.0');
    try {
      return yield wf.activity('Charge', '1.0');
    } catch (e) {
      yield wf.activity('Release', '1.0');
      throw e;
    }
  }
  const h = new HistoryBuilder('Order', '1.0');
  decide(h, chargeOrRelease);
  h.activityCompleted('Reserve-1');
  assert.deepEqual(names(decide(h, chargeOrRelease)), ['activity Charge-2']);
  h.activityFailed('Charge-2', 'card declined', 'ending 0000');
  assert.deepEqual(names(decide(h, chargeOrRelease)), ['activity Release-3']);
  h.activityCompleted('Release-3');
  assert.deepEqual(names(decide(h, chargeOrRelease)), ['fail card declined ending 0000']);
});

test('a retry policy succeeds on the third attempt', () => {
  const flaky = function* (wf) {
    return yield wf.activity('Flaky', '1.0', { retry: new RetryPolicy(5, { initialInterval: 2 }) });
  };
  const h = new HistoryBuilder('Retry', '1.0');
  assert.deepEqual(names(decide(h, flaky)), ['activity Flaky-1']);
  h.activityFailed('Flaky-1', 'busy');
  assert.deepEqual(names(decide(h, flaky)), ['timer timer-1 2s']);
  h.timerFired('timer-1');
  assert.deepEqual(names(decide(h, flaky)), ['activity Flaky-2']);
  h.activityTimedOut('Flaky-2');
  assert.deepEqual(names(decide(h, flaky)), ['timer timer-2 4s']);
  h.timerFired('timer-2');
  assert.deepEqual(names(decide(h, flaky)), ['activity Flaky-3']);
  h.activityCompleted('Flaky-3', 'done');
  assert.deepEqual(names(decide(h, flaky)), ['complete done']);
  const kinds = h.events.map((e) => e.eventType);
  assert.equal(kinds.filter((k) => k === 'ActivityTaskScheduled').length, 3);
  assert.equal(kinds.filter((k) => k === 'TimerStarted').length, 2);
});

test('a cancel request reaches the code, which cleans up', () => {
  function* job(wf) {
    const [index, result] = yield first(wf.activity('Work', '1.0'), wf.cancellation());
    if (index === 0) return result;
    yield wf.activity('Cleanup', '1.0');
    throw new Canceled('cleaned up');
  }
  const h = new HistoryBuilder('Job', '1.0');
  assert.deepEqual(names(decide(h, job)), ['activity Work-1']);
  h.cancelRequested();
  assert.deepEqual(names(decide(h, job)), ['activity Cleanup-2']);
  h.activityCompleted('Cleanup-2');
  assert.deepEqual(names(decide(h, job)), ['cancel cleaned up']);
});

test('patched takes the old branch on old histories and the new one on fresh runs', () => {
  const old = new HistoryBuilder('Order', '1.0');
  decide(old, beforeChange);
  old.activityCompleted('Charge-1');
  assert.deepEqual(names(decide(old, beforeChange)), ['activity Ship-2']);
  old.activityCompleted('Ship-2', 'shipped');
  assert.deepEqual(names(decide(old, afterChange)), ['complete shipped']);

  const fresh = new HistoryBuilder('Order', '1.0');
  decide(fresh, afterChange);
  fresh.activityCompleted('Charge-1');
  assert.deepEqual(names(decide(fresh, afterChange)), ['marker weft-patch fraud-check', 'activity CheckFraud-2']);
  fresh.activityCompleted('CheckFraud-2');
  assert.deepEqual(names(decide(fresh, afterChange)), ['activity Ship-3']);
  function* deprecated(wf) {
    yield wf.activity('Charge', '1.0');
    wf.deprecatePatch('fraud-check');
    yield wf.activity('CheckFraud', '1.0');
    return yield wf.activity('Ship', '1.0');
  }
  fresh.activityCompleted('Ship-3', 'shipped');
  assert.deepEqual(names(decide(fresh, deprecated)), ['complete shipped']);
});

test('swapped activities are a nondeterminism naming both', () => {
  function* swapped(wf) {
    yield wf.activity('Ship', '1.0');
    return yield wf.activity('Charge', '1.0');
  }
  const h = new HistoryBuilder('Order', '1.0');
  decide(h, beforeChange);
  h.activityCompleted('Charge-1');
  assert.throws(() => decide(h, swapped), (e) => e instanceof NondeterminismError
    && e.message.startsWith('nondeterminism at event 5')
    && e.message.includes('ScheduleActivityTask "Charge-1" (Charge 1.0)')
    && e.message.includes('ScheduleActivityTask "Ship-1" (Ship 1.0)'));
});

test('a changed duration or input replays as before', () => {
  function* longer(wf) {
    yield wf.activity('Greet', '1.0', { input: 'someone else' });
    yield wf.sleep(60);
  }
  const h = new HistoryBuilder('Hello', '1.0');
  decide(h, greet);
  h.activityCompleted('Greet-1');
  decide(h, greet);
  h.timerFired('timer-1');
  assert.deepEqual(names(decide(h, longer)), ['complete undefined']);
});

test('first takes what its task saw first, and of two at once the first given', () => {
  function* race(wf) {
    const [index, result] = yield first(wf.activity('A', '1.0'), wf.activity('B', '1.0'));
    yield wf.sleep(1);
    return `${'AB'[index]} ${result}`;
  }
  let h = new HistoryBuilder('Race', '1.0');
  assert.deepEqual(names(decide(h, race)), ['activity A-1', 'activity B-2']);
  h.activityCompleted('B-2', 'b');
  assert.deepEqual(names(decide(h, race)), ['timer timer-1 1s']);
  h.activityCompleted('A-1', 'a');
  h.timerFired('timer-1');
  assert.deepEqual(names(decide(h, race)), ['complete B b']);
  for (const [a, b] of [['A-1', 'B-2'], ['B-2', 'A-1']]) {
    h = new HistoryBuilder('Race', '1.0');
    decide(h, race);
    h.activityCompleted(a, a[0].toLowerCase());
    h.activityCompleted(b, b[0].toLowerCase());
    decide(h, race);
    h.timerFired('timer-1');
    assert.deepEqual(names(decide(h, race)), ['complete A a']);
  }
});

test('gather waits for every result in the order given', () => {
  function* fanOut(wf) {
    const parts = yield gather(...['x', 'y', 'z'].map((p) => wf.activity('Part', '1.0', { input: p })));
    return parts.join(',');
  }
  const h = new HistoryBuilder('Fan', '1.0');
  assert.deepEqual(names(decide(h, fanOut)), ['activity Part-1', 'activity Part-2', 'activity Part-3']);
  h.activityCompleted('Part-3', 'Z');
  h.activityCompleted('Part-1', 'X');
  assert.deepEqual(decide(h, fanOut), []);
  h.activityCompleted('Part-2', 'Y');
  assert.deepEqual(names(decide(h, fanOut)), ['complete X,Y,Z']);
});

test('settled answers each end, and an error says it in every SDK\'s words', () => {
  function* ends(wf) {
    const parts = [1, 2, 3, 4, 5].map(() => settled(wf.activity('Part', '1.0')));
    const outcomes = yield gather(...parts, settled(wf.child('Nope', '1.0', { id: 'nope' })));
    return outcomes.map((end) => (end instanceof ActivityError ? end.message : end)).join(' | ');
  }
  const h = new HistoryBuilder('Ends', '1.0');
  decide(h, ends);
  h.activityFailed('Part-1', 'card declined', 'ending 0000');
  h.activityFailed('Part-2');
  h.activityTimedOut('Part-3', 'HEARTBEAT');
  h.activityCanceled('Part-4', 'not needed');
  h.activityCompleted('Part-5', 'done');
  h.childStartFailed('nope', 'WORKFLOW_TYPE_DOES_NOT_EXIST');
  assert.deepEqual(names(decide(h, ends)), [
    'complete card declined: ending 0000 | failed | timed out (HEARTBEAT) | canceled'
    + ' | done | could not be scheduled (WORKFLOW_TYPE_DOES_NOT_EXIST)']);
});

test('a signal is waited for with a timer as its timeout', () => {
  function* approval(wf) {
    const [index, by] = yield first(wf.signal('approve'), wf.sleep(3600));
    if (index === 1) throw new Failure('not approved in time');
    return by;
  }
  let h = new HistoryBuilder('Approval', '1.0');
  assert.deepEqual(names(decide(h, approval)), ['timer timer-1 3600s']);
  h.signal('approve', 'ada');
  assert.deepEqual(names(decide(h, approval)), ['complete ada']);
  h = new HistoryBuilder('Approval', '1.0');
  decide(h, approval);
  h.timerFired('timer-1');
  assert.deepEqual(names(decide(h, approval)), ['fail not approved in time undefined']);
});

test('children, functions, signals, cancel requests and markers', () => {
  function* everything(wf) {
    wf.recordMarker('began', '1');
    const price = yield wf.lambda('price', { input: 'sku-1' });
    const shipped = yield wf.child('Ship', '1.0');
    yield wf.signalExternal('other', 'hurry');
    yield wf.requestCancelExternal('other');
    return `${price} ${shipped}`;
  }
  const h = new HistoryBuilder('All', '1.0');
  h.withExecution('parent', 'run-1');
  assert.deepEqual(names(decide(h, everything)), ['marker began 1', 'lambda price-1 price']);
  h.lambdaCompleted('price-1', '9.99');
  assert.deepEqual(names(decide(h, everything)), ['child parent-Ship-1']);
  h.childCompleted('parent-Ship-1', 'shipped');
  assert.deepEqual(names(decide(h, everything)), ['signal other']);
  const initiated = h.events.filter((e) => e.eventType === 'SignalExternalWorkflowExecutionInitiated').at(-1);
  h.event('ExternalWorkflowExecutionSignaled', {
    workflowExecution: { workflowId: 'other', runId: 'r' }, initiatedEventId: initiated.eventId,
  });
  assert.deepEqual(names(decide(h, everything)), ['cancel other']);
});

test('a child started, then yielded for its result', () => {
  function* parent(wf) {
    const run = yield wf.child('Ship', '1.0', { id: 'ship' }).start();
    wf.recordMarker('child', run.execution.runId);
    return yield run.result;
  }
  const h = new HistoryBuilder('Parent', '1.0');
  assert.deepEqual(names(decide(h, parent)), ['child ship']);
  h.childStarted('ship');
  const started = h.events.filter((e) => e.eventType === 'ChildWorkflowExecutionStarted').at(-1);
  const { runId } = started.childWorkflowExecutionStartedEventAttributes.workflowExecution;
  assert.deepEqual(names(decide(h, parent)), [`marker child ${runId}`]);
  h.childCompleted('ship', 'shipped');
  assert.deepEqual(names(decide(h, parent)), ['complete shipped']);
});

test('a child that cannot start throws at its start', () => {
  function* parent(wf) {
    try {
      yield wf.child('Nope', '1.0', { id: 'nope' }).start();
    } catch (e) {
      return `${e.kind} ${e.reason}`;
    }
  }
  const h = new HistoryBuilder('Parent', '1.0');
  decide(h, parent);
  h.childStartFailed('nope', 'WORKFLOW_TYPE_DOES_NOT_EXIST');
  assert.deepEqual(names(decide(h, parent)), ['complete not_started WORKFLOW_TYPE_DOES_NOT_EXIST']);
});

test('continue as new', () => {
  // eslint-disable-next-line require-yield
  function* again(wf) {
    throw wf.continueAsNew({ input: 'next' });
  }
  assert.deepEqual(names(decide(new HistoryBuilder('Loop', '1.0'), again)), ['continue next']);
});

test('now and random are the same on every replay, and random is the other SDKs\' sequence', () => {
  function* stamp(wf) {
    const before = [wf.now(), wf.random()];
    yield wf.sleep(5);
    return `${before} ${[wf.now(), wf.random()]}`;
  }
  const h = new HistoryBuilder('Stamp', '1.0');
  decide(h, stamp);
  h.advance(5);
  h.timerFired('timer-1');
  const task = h.decisionTask();
  assert.deepEqual(runWorkflow(task, stamp), runWorkflow(task, stamp));
  // The sequence of run-1, as the Rust and Python SDKs' tests pin it too.
  function* draw(wf) {
    return `${wf.random()} ${wf.random()}`;
  }
  const [done] = runWorkflow(new HistoryBuilder('Draw', '1.0').decisionTask(), draw);
  assert.equal(done.completeWorkflowExecutionDecisionAttributes.result, RUN_1_DRAWS);
});

const RUN_1_DRAWS = '16238719912012046523 1765330518796435643';

test('workflow() makes a decider whose fn replays the workflow', () => {
  const decider = workflow(greet);
  const h = new HistoryBuilder('Hello', '1.0', 'Ada');
  assert.deepEqual(names(h.decide(decider)), ['activity Greet-1']);
  assert.equal(typeof decider.decide, 'function');
  assert.ok(ActivityError);
});

test('an environment runs a whole workflow, skipping its timers', () => {
  function* month(wf) {
    const greeting = yield wf.activity('Greet', '1.0', { input: wf.input() });
    yield wf.sleep(30 * 24 * 3600);
    return greeting;
  }
  const run = new Environment('Hello', '1.0', 'Ada')
    .activity('Greet', (name) => `Hello, ${name}!`)
    .run(workflow(month));
  assert.equal(run.result, 'Hello, Ada!');
  assert.ok(run.elapsed >= 30 * 24 * 3600);
  assert.equal(run.events.filter((e) => e.eventType === 'TimerFired').length, 1);
});

test('an environment delivers signals and answers failures', () => {
  function* approval(wf) {
    const [index, by] = yield first(wf.signal('approve'), wf.sleep(3600));
    if (index === 1) throw new Failure('not approved in time');
    yield wf.activity('Charge', '1.0', { retry: new RetryPolicy(2) });
    return by;
  }
  const approved = new Environment('Approval', '1.0').signal(600, 'approve', 'ada')
    .activity('Charge', () => undefined).run(workflow(approval));
  assert.equal(approved.result, 'ada');
  const late = new Environment('Approval', '1.0').signal(7200, 'approve').run(workflow(approval));
  assert.deepEqual(late.failure, ['not approved in time', undefined]);
  const declined = new Environment('Approval', '1.0').signal(1, 'approve', 'ada')
    .activity('Charge', () => { throw new Failure('card declined'); }).run(workflow(approval));
  assert.deepEqual(declined.failure, ['card declined', undefined]);
  assert.equal(declined.events.filter((e) => e.eventType === 'ActivityTaskScheduled').length, 2, 'retried once');
});
