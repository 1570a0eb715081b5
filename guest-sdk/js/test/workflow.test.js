// The workflow runtime against histories that HistoryBuilder records as SWF would: every scenario
// of guest-sdk/workflows.json, which the Rust and Python SDKs' tests play too, with the
// workflows it names written here; then what only this SDK has (workflow(), the Environment).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  ActivityError, Canceled, Decision, Failure, NondeterminismError, RetryPolicy, first, gather,
  runWorkflow, settled, waitUntil, workflow, workflows,
} from '../src/index.js';
import { Environment, HistoryBuilder, taskFromWire } from '../src/testing/index.js';
import { ASYNC_WORKFLOWS } from './async-workflows.js';

const SCENARIOS = JSON.parse(readFileSync(new URL('../../workflows.json', import.meta.url), 'utf8')).scenarios;

// The workflows the scenarios name.

function* greet(wf) {
  const greeting = yield wf.activity('Greet', '1.0', { input: wf.input() ?? 'world' });
  yield wf.sleep(1);
  return greeting;
}

function* longer(wf) {
  yield wf.activity('Greet', '1.0', { input: 'someone else' });
  yield wf.sleep(60);
}

function* chargeOrRelease(wf) {
  yield wf.activity('Reserve', '1.0');
  try {
    return yield wf.activity('Charge', '1.0');
  } catch (e) {
    yield wf.activity('Release', '1.0');
    throw e;
  }
}

function* flaky(wf) {
  return yield wf.activity('Flaky', '1.0', { retry: new RetryPolicy(5, { initialInterval: 2 }) });
}

function* strict(wf) {
  return yield wf.activity('Charge', '1.0', { retry: new RetryPolicy(0, { nonRetryable: ['card declined'] }) });
}

function* backoff(wf) {
  const retry = new RetryPolicy(4, { initialInterval: 2, backoff: 1.5, maximumInterval: 4 });
  return yield wf.activity('Charge', '1.0', { id: 'charge', retry });
}

function* hurriedRetry(wf) {
  const charge = wf.activity('Charge', '1.0', { retry: new RetryPolicy(2, { initialInterval: 60 }) });
  const hurry = (function* hurrying() {
    yield wf.signal('hurry');
    wf.cancelTimer('timer-1');
  })();
  const [charged] = yield gather(charge, hurry);
  return charged;
}

function* uncaught(wf) {
  yield wf.activity('Part', '1.0');
  return yield wf.child('Item', '1.0');
}

function* cancellable(wf) {
  const [index, result] = yield first(wf.activity('Work', '1.0'), wf.cancellation());
  if (index === 0) return result;
  yield wf.activity('Cleanup', '1.0');
  throw new Canceled('cleaned up');
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

function* deprecated(wf) {
  yield wf.activity('Charge', '1.0');
  wf.deprecatePatch('fraud-check');
  yield wf.activity('CheckFraud', '1.0');
  return yield wf.activity('Ship', '1.0');
}

function* swapped(wf) {
  yield wf.activity('Ship', '1.0');
  return yield wf.activity('Charge', '1.0');
}

function* quoted(wf) {
  return yield wf.activity('Charge', '1.0', { id: 'say "hi"' });
}

function* nothing() {
  yield waitUntil(() => false);
}

function* bothAtOnce(wf) {
  return yield gather(wf.activity('Charge', '1.0'), wf.activity('Ship', '1.0'));
}

function* race(wf) {
  const [index, result] = yield first(wf.activity('A', '1.0'), wf.activity('B', '1.0'));
  yield wf.sleep(1);
  return `${'AB'[index]} ${result}`;
}

function* fanOut(wf) {
  const parts = yield gather(...['x', 'y', 'z'].map((p) => wf.activity('Part', '1.0', { input: p })));
  return parts.join(',');
}

/** Each outcome in words: a result as it is, an error by its message. */
const inWords = (outcomes) => outcomes.map((end) => (end instanceof ActivityError ? end.message : end)).join(' | ');

function* activityEnds(wf) {
  const parts = [1, 2, 3, 4, 5].map(() => settled(wf.activity('Part', '1.0')));
  return inWords(yield gather(...parts, settled(wf.child('Nope', '1.0', { id: 'nope' }))));
}

function* childAndFunctionEnds(wf) {
  const children = [1, 2, 3, 4].map(() => settled(wf.child('Item', '1.0')));
  const functions = [1, 2].map(() => settled(wf.lambda('price')));
  return inWords(yield gather(...children, ...functions));
}

function* approval(wf) {
  const [index, by] = yield first(wf.signal('approve'), wf.sleep(3600));
  if (index === 1) throw new Failure('not approved in time');
  return by;
}

function* twoSignals(wf) {
  const one = yield wf.signal('step');
  return `${one} ${yield wf.signal('step')}`;
}

function* half(wf) {
  yield wf.sleep(1.5);
}

function* reminder(wf) {
  const timer = wf.sleep(60);
  const [index] = yield first(wf.signal('done'), timer);
  if (index === 1) return 'reminded';
  timer.cancel();
  yield waitUntil(() => false);
}

function* everything(wf) {
  wf.recordMarker('began', '1');
  const price = yield wf.lambda('price', { input: 'sku-1' });
  const child = yield wf.child('Ship', '1.0').start();
  yield wf.signalExternal(child.execution.workflowId, 'hurry');
  const shipped = yield child.result;
  yield wf.requestCancelExternal('other');
  return `${price} ${shipped}`;
}

function* childRun(wf) {
  const run = yield wf.child('Ship', '1.0', { id: 'ship' }).start();
  wf.recordMarker('child', run.execution.runId);
  return yield run.result;
}

function* childNotStarted(wf) {
  try {
    yield wf.child('Nope', '1.0', { id: 'nope' }).start();
  } catch (e) {
    return `${e.kind} ${e.reason}`;
  }
}

const isCanceled = (e) => e instanceof ActivityError && e.kind === 'canceled';

function* stoppable(wf) {
  const work = wf.activity('Work', '1.0', { id: 'work' });
  try {
    const [index, result] = yield first(work, wf.signal('stop'));
    if (index === 0) return result;
    // Asked twice, issued once.
    wf.cancelActivity('work');
    work.cancel();
    return yield work;
  } catch (e) {
    if (!isCanceled(e)) throw e;
    yield wf.activity('Undo', '1.0');
    return 'undone';
  }
}

function* stoppableChild(wf) {
  const ship = wf.child('Ship', '1.0', { id: 'ship' });
  const [index, result] = yield first(ship, wf.signal('stop'));
  if (index === 0) return result;
  wf.cancelChild('ship');
  try {
    return yield ship;
  } catch (e) {
    if (isCanceled(e)) return 'stopped';
    throw e;
  }
}

// eslint-disable-next-line require-yield
function* again(wf) {
  throw wf.continueAsNew({ input: 'next' });
}

// eslint-disable-next-line require-yield
function* quick() {
  return 'done';
}

function* stamp(wf) {
  const before = `${Math.trunc(wf.now())} ${wf.random()}`;
  yield wf.sleep(5);
  return `${before} ${Math.trunc(wf.now())} ${wf.random()}`;
}

// eslint-disable-next-line require-yield
function* draw(wf) {
  return `${wf.random()} ${wf.random()} ${wf.random()}`;
}

/** The file's workflow names, each to its workflow here. */
const WORKFLOWS = {
  greet,
  longer,
  charge_or_release: chargeOrRelease,
  flaky,
  strict,
  backoff,
  hurried_retry: hurriedRetry,
  uncaught,
  cancellable,
  before_change: beforeChange,
  after_change: afterChange,
  deprecated,
  swapped,
  quoted,
  nothing,
  both_at_once: bothAtOnce,
  race,
  fan_out: fanOut,
  activity_ends: activityEnds,
  child_and_function_ends: childAndFunctionEnds,
  approval,
  two_signals: twoSignals,
  half,
  reminder,
  everything,
  child_run: childRun,
  child_not_started: childNotStarted,
  stoppable,
  stoppable_child: stoppableChild,
  again,
  quick,
  stamp,
  draw,
};

// The runner.

/** A decision in the file's words: ids and names as they are, payloads as JSON. */
function short(d) {
  const a = Object.entries(d).find(([k]) => k !== 'decisionType')[1];
  const json = (value) => JSON.stringify(value ?? null);
  const withInput = (words) => (a.input == null ? words : `${words} ${json(a.input)}`);
  switch (d.decisionType) {
    case 'ScheduleActivityTask': return withInput(`activity ${a.activityId}`);
    case 'ScheduleLambdaFunction': return withInput(`lambda ${a.id} ${a.name}`);
    case 'StartTimer': return `timer ${a.timerId} ${a.startToFireTimeout}s`;
    case 'CancelTimer': return `cancel timer ${a.timerId}`;
    case 'RequestCancelActivityTask': return `cancel activity ${a.activityId}`;
    case 'StartChildWorkflowExecution': return `child ${a.workflowId}`;
    case 'SignalExternalWorkflowExecution': return `signal ${a.workflowId} ${a.signalName}`;
    case 'RequestCancelExternalWorkflowExecution': return `cancel external ${a.workflowId}`;
    case 'RecordMarker': return `marker ${a.markerName} ${json(a.details)}`;
    case 'CompleteWorkflowExecution': return `complete ${json(a.result)}`;
    case 'FailWorkflowExecution': return `fail ${json(a.reason)} ${json(a.details)}`;
    case 'CancelWorkflowExecution': return `cancel ${json(a.details)}`;
    case 'ContinueAsNewWorkflowExecution': return `continue ${json(a.input)}`;
    default: throw new Error(`no short form for ${d.decisionType}`);
  }
}

/** The workflows a scenario runs: its own, and those its steps decide `with`. */
const namedWorkflows = (scenario) => [scenario.workflow, ...scenario.steps.flatMap((s) => s.with ?? [])];

/** `activity_completed` → `activityCompleted`. */
const camel = (name) => name.replace(/_(.)/g, (_, c) => c.toUpperCase());

/** The workflow's decisions on `task`, and in short (or the nondeterminism it fails with). */
function answer(task, fn) {
  try {
    const decisions = runWorkflow(task, fn);
    return [decisions, { decisions: decisions.map(short) }];
  } catch (e) {
    if (!(e instanceof NondeterminismError)) throw e;
    return [undefined, { nondeterminism: e.message }];
  }
}

function step(h, scenario, s, workflows) {
  if ('decide' in s) {
    const task = h.decisionTask();
    for (const arriving of s.meanwhile ?? []) step(h, scenario, arriving, workflows);
    const fn = workflows[s.with ?? scenario.workflow];
    const [decisions, once] = answer(task, fn);
    assert.deepEqual(answer(task, fn)[1], once, 'the same answer on every replay');
    assert.deepEqual(once, Array.isArray(s.decide) ? { decisions: s.decide } : s.decide);
    if (decisions) h.respond(decisions);
  } else if ('count' in s) {
    const counted = Object.fromEntries(Object.keys(s.count).map(
      (type) => [type, h.events.filter((e) => e.eventType === type).length]));
    assert.deepEqual(counted, s.count, 'events in the history');
  } else {
    const calls = Object.entries(s);
    assert.equal(calls.length, 1, 'a step is one builder call');
    const [[method, args]] = calls;
    const call = h[camel(method)];
    assert.equal(typeof call, 'function', `HistoryBuilder has no ${camel(method)}`);
    call.apply(h, args.map((arg) => arg ?? undefined));
  }
}

// Each scenario with the generator functions, then with the async functions: the same answers.
for (const [style, workflows] of [['', WORKFLOWS], [' (async functions)', ASYNC_WORKFLOWS]]) {
  for (const scenario of SCENARIOS) {
    test(`${scenario.name}${style}`, () => {
      const missing = namedWorkflows(scenario).filter((name) => !(name in workflows));
      assert.deepEqual(missing, [], 'workflows missing');
      const { workflow: [name, version], input } = scenario.start;
      const h = new HistoryBuilder(name, version, input ?? undefined);
      if (scenario.execution) h.withExecution(...scenario.execution);
      for (const [i, s] of scenario.steps.entries()) {
        try {
          step(h, scenario, s, workflows);
        } catch (e) {
          e.message = `step ${i + 1}: ${e.message}`;
          throw e;
        }
      }
    });
  }
}

test('every workflow of WORKFLOWS is named by a scenario, and written as an async function too', () => {
  const named = new Set(SCENARIOS.flatMap(namedWorkflows));
  assert.deepEqual(Object.keys(WORKFLOWS).filter((name) => !named.has(name)), []);
  assert.deepEqual(Object.keys(ASYNC_WORKFLOWS), Object.keys(WORKFLOWS));
});

// What only this SDK has.

test('workflow() makes a decider whose fn replays the workflow', () => {
  const decider = workflow(greet);
  const h = new HistoryBuilder('Hello', '1.0', 'Ada');
  assert.deepEqual(h.decide(decider).map(short), ['activity Greet-1 "Ada"']);
  assert.equal(typeof decider.decide, 'function');
});

test('a child cancelled by its cancel() is asked once, with the run it started', () => {
  function* shipOrStop(wf) {
    const run = yield wf.child('Ship', '1.0', { id: 'ship' }).start();
    yield wf.signal('stop');
    run.result.cancel();
    run.result.cancel();
    try {
      return yield run.result;
    } catch (e) {
      return e.message;
    }
  }
  const decider = workflow(shipOrStop);
  const h = new HistoryBuilder('Job', '1.0');
  assert.deepEqual(h.decide(decider).map(short), ['child ship']);
  h.childStarted('ship');
  assert.deepEqual(h.decide(decider), []);
  h.signal('stop');
  const { runId } = h.events.findLast((e) => e.eventType === 'ChildWorkflowExecutionStarted')
    .childWorkflowExecutionStartedEventAttributes.workflowExecution;
  assert.deepEqual(h.decide(decider), [Decision.requestCancelExternal('ship', { runId })]);
  h.externalCancelRequested('ship');
  h.childCanceled('ship');
  assert.deepEqual(h.decide(decider).map(short), ['complete "canceled"']);
});

test('one module serves a parent and a child workflow type, by the workflow type of the task', () => {
  function* order(wf) {
    return yield wf.child('Ship', '1.0', { id: 'ship', input: wf.input() });
  }
  function* ship(wf) {
    return yield wf.activity('Pack', '1.0', { input: wf.input() });
  }
  const guest = workflows({ Order: order, Ship: ship });
  assert.deepEqual(new HistoryBuilder('Order', '1.0', 'box').decide(guest).map(short), ['child ship']);
  const [packed] = guest.decide(taskFromWire(new HistoryBuilder('Ship', '1.0', 'box').decisionTask())).decisions;
  assert.deepEqual([packed.tag, packed.val.activityType.name, packed.val.input], ['schedule-activity-task', 'Pack', 'box']);
  const other = taskFromWire(new HistoryBuilder('Other', '1.0').decisionTask());
  assert.throws(() => guest.decide(other), (e) => e === 'this module serves no workflow type Other: it serves Order, Ship');
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
  function* chargedApproval(wf) {
    const by = yield* approval(wf);
    yield wf.activity('Charge', '1.0', { retry: new RetryPolicy(2) });
    return by;
  }
  const approved = new Environment('Approval', '1.0').signal(600, 'approve', 'ada')
    .activity('Charge', () => undefined).run(workflow(chargedApproval));
  assert.equal(approved.result, 'ada');
  const late = new Environment('Approval', '1.0').signal(7200, 'approve').run(workflow(chargedApproval));
  assert.deepEqual(late.failure, ['not approved in time', undefined]);
  const declined = new Environment('Approval', '1.0').signal(1, 'approve', 'ada')
    .activity('Charge', () => { throw new Failure('card declined'); }).run(workflow(chargedApproval));
  assert.deepEqual(declined.failure, ['card declined', undefined]);
  assert.equal(declined.events.filter((e) => e.eventType === 'ActivityTaskScheduled').length, 2, 'retried once');
});
