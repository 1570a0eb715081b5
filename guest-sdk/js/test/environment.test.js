// The testing Environment's simulated time: cancel requests and termination at chosen times,
// activities that take time and may be cancelled, and a retried activity cancelled between
// attempts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ActivityError, Canceled, Failure, RetryPolicy, first, workflow } from '../src/index.js';
import { Environment } from '../src/testing/index.js';

const isCanceled = (e) => e instanceof ActivityError && e.kind === 'canceled';
const ofType = (run, type) => run.events.filter((e) => e.eventType === type);
/** Seconds from the run's start to the event of type `type`. */
const when = (run, type) => ofType(run, type)[0].eventTimestamp - run.events[0].eventTimestamp;

function* cancellable(wf) {
  const [index, result] = yield first(wf.activity('Work', '1.0'), wf.cancellation());
  if (index === 0) return result;
  yield wf.activity('Cleanup', '1.0');
  throw new Canceled('cleaned up');
}

function* stoppable(wf) {
  const work = wf.activity('Work', '1.0', { id: 'work' });
  const [index, result] = yield first(work, wf.signal('stop'));
  if (index === 0) return result;
  work.cancel();
  try {
    return yield work;
  } catch (e) {
    if (!isCanceled(e)) throw e;
    yield wf.activity('Undo', '1.0');
    return 'undone';
  }
}

function* stoppableRetry(wf) {
  const charge = wf.activity('Charge', '1.0', { id: 'charge', retry: new RetryPolicy(5, { initialInterval: 60 }) });
  const [index, result] = yield first(charge, wf.signal('stop'));
  if (index === 0) return result;
  charge.cancel();
  try {
    return yield charge;
  } catch (e) {
    return e.message;
  }
}

test('a cancel request at a chosen time reaches wf.cancellation(), and the workflow compensates', () => {
  const run = new Environment('Job', '1.0')
    .activity('Work', () => 'worked', { seconds: 60 })
    .activity('Cleanup', () => undefined)
    .cancelRequest(10)
    .run(workflow(cancellable));
  assert.equal(run.close.decisionType, 'CancelWorkflowExecution');
  assert.equal(run.close.cancelWorkflowExecutionDecisionAttributes.details, 'cleaned up');
  assert.equal(run.terminated, false);
  assert.ok([10, 11].includes(when(run, 'WorkflowExecutionCancelRequested')), 'requested at 10 s');
  assert.equal(ofType(run, 'ActivityTaskCompleted').length, 1, 'Cleanup ran, Work did not end');
  assert.ok(run.elapsed < 60);
});

test('an activity without seconds is answered at once, before a later cancel request', () => {
  const run = new Environment('Job', '1.0')
    .activity('Work', () => 'worked')
    .cancelRequest(10)
    .run(workflow(cancellable));
  assert.equal(run.result, 'worked');
  assert.equal(ofType(run, 'WorkflowExecutionCancelRequested').length, 0);
});

test('signals and cancel requests arrive in the order of their times', () => {
  function* noted(wf) {
    const [index, note] = yield first(wf.signal('note'), wf.cancellation());
    if (index === 1) throw new Canceled();
    yield wf.cancellation();
    throw new Canceled(note);
  }
  const run = new Environment('Job', '1.0').cancelRequest(20).signal(5, 'note', 'first').run(workflow(noted));
  assert.equal(run.close.cancelWorkflowExecutionDecisionAttributes.details, 'first');
});

test('a terminate at a chosen time ends the run there, terminated', () => {
  function* slow(wf) {
    yield wf.sleep(3600);
    return 'woke';
  }
  const run = new Environment('Job', '1.0').terminate(600, 'enough').run(workflow(slow));
  assert.equal(run.terminated, true);
  assert.equal(run.close, undefined);
  assert.equal(run.result, undefined);
  const [ended] = ofType(run, 'WorkflowExecutionTerminated');
  assert.equal(ended, run.events.at(-1));
  assert.equal(ended.workflowExecutionTerminatedEventAttributes.reason, 'enough');
  assert.ok([600, 601].includes(when(run, 'WorkflowExecutionTerminated')), 'terminated at 600 s');
  assert.equal(ofType(run, 'TimerFired').length, 0);
});

test('a terminate falls due while the workflow is busy with activities answered at once', () => {
  function* busy(wf) {
    for (let i = 0; i < 50; i++) yield wf.activity('Step', '1.0');
    return 'all done';
  }
  const run = new Environment('Job', '1.0').activity('Step', () => undefined).terminate(30).run(workflow(busy));
  assert.equal(run.terminated, true);
  assert.ok(ofType(run, 'ActivityTaskCompleted').length < 50);
});

test('a slow activity the workflow cancels ends canceled at its yield', () => {
  const run = new Environment('Job', '1.0')
    .activity('Work', () => 'done', { seconds: 60 })
    .activity('Undo', () => undefined)
    .signal(10, 'stop')
    .run(workflow(stoppable));
  assert.equal(run.result, 'undone');
  assert.equal(ofType(run, 'ActivityTaskCancelRequested').length, 1);
  assert.equal(ofType(run, 'ActivityTaskCanceled').length, 1);
  assert.ok(run.elapsed < 60, 'canceled before it was due');
});

test('a slow activity that ignores the cancel delivers its result when due', () => {
  const run = new Environment('Job', '1.0')
    .activity('Work', () => 'done', { seconds: 60, ignoresCancel: true })
    .signal(10, 'stop')
    .run(workflow(stoppable));
  assert.equal(run.result, 'done');
  assert.equal(ofType(run, 'ActivityTaskCancelRequested').length, 1);
  assert.equal(ofType(run, 'ActivityTaskCanceled').length, 0);
  assert.ok(run.elapsed >= 60);
});

test('a retried activity cancelled during its backoff wait ends canceled without another attempt', () => {
  const run = new Environment('Job', '1.0')
    .activity('Charge', () => { throw new Failure('declined'); })
    .signal(10, 'stop')
    .run(workflow(stoppableRetry));
  assert.equal(run.result, 'canceled');
  assert.equal(ofType(run, 'ActivityTaskScheduled').length, 1);
  assert.equal(ofType(run, 'TimerCanceled').length, 1);
  assert.ok(run.elapsed < 60);
});

test('a retried activity cancelled while an attempt runs ends canceled without another attempt', () => {
  const run = new Environment('Job', '1.0')
    .activity('Charge', () => { throw new Failure('declined'); }, { seconds: 30 })
    .signal(10, 'stop')
    .run(workflow(stoppableRetry));
  assert.equal(run.result, 'canceled');
  assert.equal(ofType(run, 'ActivityTaskScheduled').length, 1);
  assert.equal(ofType(run, 'ActivityTaskCanceled').length, 1);
  const failedAnyway = new Environment('Job', '1.0')
    .activity('Charge', () => { throw new Failure('declined'); }, { seconds: 30, ignoresCancel: true })
    .signal(10, 'stop')
    .run(workflow(stoppableRetry));
  assert.equal(failedAnyway.result, 'declined', 'its failure, not retried');
  assert.equal(ofType(failedAnyway, 'ActivityTaskScheduled').length, 1);
});

test('a retried activity not cancelled keeps retrying', () => {
  const run = new Environment('Job', '1.0')
    .activity('Charge', () => { throw new Failure('declined'); })
    .run(workflow(stoppableRetry));
  assert.deepEqual(run.failure, ['declined', undefined]);
  assert.equal(ofType(run, 'ActivityTaskScheduled').length, 5);
});
