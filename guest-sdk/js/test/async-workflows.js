// Every workflow of workflow.test.js again, as the async functions JavaScript developers write:
// the runner plays each scenario with both and expects the same decisions. Loaded through
// `@weft/guest/register` (`node --import ./src/register.js --test`), which compiles these async
// functions for workflows as weft-js-build does in a component.

import {
  ActivityError, Canceled, Failure, RetryPolicy, first, gather, settled, waitUntil,
} from '../src/index.js';

async function greet(wf) {
  const greeting = await wf.activity('Greet', '1.0', { input: wf.input() ?? 'world' });
  await wf.sleep(1);
  return greeting;
}

async function longer(wf) {
  await wf.activity('Greet', '1.0', { input: 'someone else' });
  await wf.sleep(60);
}

async function chargeOrRelease(wf) {
  await wf.activity('Reserve', '1.0');
  try {
    return await wf.activity('Charge', '1.0');
  } catch (e) {
    await wf.activity('Release', '1.0');
    throw e;
  }
}

async function flaky(wf) {
  return await wf.activity('Flaky', '1.0', { retry: new RetryPolicy(5, { initialInterval: 2 }) });
}

async function strict(wf) {
  return await wf.activity('Charge', '1.0', { retry: new RetryPolicy(0, { nonRetryable: ['card declined'] }) });
}

async function backoff(wf) {
  const retry = new RetryPolicy(4, { initialInterval: 2, backoff: 1.5, maximumInterval: 4 });
  return await wf.activity('Charge', '1.0', { id: 'charge', retry });
}

async function hurriedRetry(wf) {
  const charge = wf.activity('Charge', '1.0', { retry: new RetryPolicy(2, { initialInterval: 60 }) });
  const hurry = (async function hurrying() {
    await wf.signal('hurry');
    wf.cancelTimer('timer-1');
  })();
  const [charged] = await gather(charge, hurry);
  return charged;
}

async function uncaught(wf) {
  await wf.activity('Part', '1.0');
  return await wf.child('Item', '1.0');
}

async function cancellable(wf) {
  const [index, result] = await first(wf.activity('Work', '1.0'), wf.cancellation());
  if (index === 0) return result;
  await wf.activity('Cleanup', '1.0');
  throw new Canceled('cleaned up');
}

async function beforeChange(wf) {
  await wf.activity('Charge', '1.0');
  return await wf.activity('Ship', '1.0');
}

async function afterChange(wf) {
  await wf.activity('Charge', '1.0');
  if (wf.patched('fraud-check')) await wf.activity('CheckFraud', '1.0');
  return await wf.activity('Ship', '1.0');
}

async function deprecated(wf) {
  await wf.activity('Charge', '1.0');
  wf.deprecatePatch('fraud-check');
  await wf.activity('CheckFraud', '1.0');
  return await wf.activity('Ship', '1.0');
}

async function swapped(wf) {
  await wf.activity('Ship', '1.0');
  return await wf.activity('Charge', '1.0');
}

async function quoted(wf) {
  return await wf.activity('Charge', '1.0', { id: 'say "hi"' });
}

async function nothing() {
  await waitUntil(() => false);
}

async function bothAtOnce(wf) {
  return await gather(wf.activity('Charge', '1.0'), wf.activity('Ship', '1.0'));
}

async function race(wf) {
  const [index, result] = await first(wf.activity('A', '1.0'), wf.activity('B', '1.0'));
  await wf.sleep(1);
  return `${'AB'[index]} ${result}`;
}

async function fanOut(wf) {
  const parts = await gather(...['x', 'y', 'z'].map((p) => wf.activity('Part', '1.0', { input: p })));
  return parts.join(',');
}

/** Each outcome in words: a result as it is, an error by its message. */
const inWords = (outcomes) => outcomes.map((end) => (end instanceof ActivityError ? end.message : end)).join(' | ');

async function activityEnds(wf) {
  const parts = [1, 2, 3, 4, 5].map(() => settled(wf.activity('Part', '1.0')));
  return inWords(await gather(...parts, settled(wf.child('Nope', '1.0', { id: 'nope' }))));
}

async function childAndFunctionEnds(wf) {
  const children = [1, 2, 3, 4].map(() => settled(wf.child('Item', '1.0')));
  const functions = [1, 2].map(() => settled(wf.lambda('price')));
  return inWords(await gather(...children, ...functions));
}

async function approval(wf) {
  const [index, by] = await first(wf.signal('approve'), wf.sleep(3600));
  if (index === 1) throw new Failure('not approved in time');
  return by;
}

async function twoSignals(wf) {
  const one = await wf.signal('step');
  return `${one} ${await wf.signal('step')}`;
}

async function half(wf) {
  await wf.sleep(1.5);
}

async function reminder(wf) {
  const timer = wf.sleep(60);
  const [index] = await first(wf.signal('done'), timer);
  if (index === 1) return 'reminded';
  timer.cancel();
  await waitUntil(() => false);
}

async function everything(wf) {
  wf.recordMarker('began', '1');
  const price = await wf.lambda('price', { input: 'sku-1' });
  const child = await wf.child('Ship', '1.0').start();
  await wf.signalExternal(child.execution.workflowId, 'hurry');
  const shipped = await child.result;
  await wf.requestCancelExternal('other');
  return `${price} ${shipped}`;
}

async function childRun(wf) {
  const run = await wf.child('Ship', '1.0', { id: 'ship' }).start();
  wf.recordMarker('child', run.execution.runId);
  return await run.result;
}

async function childNotStarted(wf) {
  try {
    await wf.child('Nope', '1.0', { id: 'nope' }).start();
  } catch (e) {
    return `${e.kind} ${e.reason}`;
  }
}

const isCanceled = (e) => e instanceof ActivityError && e.kind === 'canceled';

async function stoppable(wf) {
  const work = wf.activity('Work', '1.0', { id: 'work' });
  try {
    const [index, result] = await first(work, wf.signal('stop'));
    if (index === 0) return result;
    // Asked twice, issued once.
    wf.cancelActivity('work');
    work.cancel();
    return await work;
  } catch (e) {
    if (!isCanceled(e)) throw e;
    await wf.activity('Undo', '1.0');
    return 'undone';
  }
}

async function stoppableChild(wf) {
  const ship = wf.child('Ship', '1.0', { id: 'ship' });
  const [index, result] = await first(ship, wf.signal('stop'));
  if (index === 0) return result;
  wf.cancelChild('ship');
  try {
    return await ship;
  } catch (e) {
    if (isCanceled(e)) return 'stopped';
    throw e;
  }
}

async function again(wf) {
  throw wf.continueAsNew({ input: 'next' });
}

async function quick() {
  return 'done';
}

async function stamp(wf) {
  const before = `${Math.trunc(wf.now())} ${wf.random()}`;
  await wf.sleep(5);
  return `${before} ${Math.trunc(wf.now())} ${wf.random()}`;
}

async function draw(wf) {
  return `${wf.random()} ${wf.random()} ${wf.random()}`;
}

/** The shared file's workflow names, each to its async function here. */
export const ASYNC_WORKFLOWS = {
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
