// A typed use of most of the SDK, which test/types.test.js type-checks with tsc (strict): an
// async workflow, a generator workflow, an activity worker, a function, a decider, and their
// tests with the Environment and the HistoryBuilder. `Exactly<typeof x, T>` checks that x has
// the type T itself (not `any`, not a wider type).

import {
  ActivityError, ActivityWorker, Canceled, Decision, Failure, Outcome, RetryPolicy, decider,
  decisionAttributes, first, fn, gather, heartbeat, log, parseJson, payload, response,
  runWorkflow, settled, waitUntil, workflow, workflows,
} from '@weft/guest';
import type {
  ActivityOutcome, Cancellable, ChildWorkflow, History, StartedChild, WireDecision, Workflow,
  WorkflowGenerator,
} from '@weft/guest';
import { Environment, HistoryBuilder, loadHistory, task } from '@weft/guest/testing';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
function exactly<A, B>(_check: Equal<A, B>): void {}

interface Order {
  id: string;
  items: string[];
}

const isCanceled = (e: unknown): e is ActivityError => e instanceof ActivityError && e.kind === 'canceled';

/** An async helper: another workflow function's part, awaited like what `wf` answers. */
async function reserveAll(wf: Workflow, items: string[]): Promise<(string | undefined)[]> {
  const retry = new RetryPolicy(3, { initialInterval: 2, backoff: 1.5, nonRetryable: ['out of stock'] });
  const reservations = items.map((item, i) => wf.activity('Reserve', '1.0', { id: `reserve-${i}`, input: item, retry }));
  const reserved = await gather(...reservations);
  exactly<typeof reserved, (string | undefined)[]>(true);
  return reserved;
}

/** The order workflow, async: activities with retry, a child, a signal with a timeout,
 * cancellation with compensation. */
export async function order(wf: Workflow): Promise<string> {
  const o = wf.inputJson() as Order;
  const reserved = await reserveAll(wf, o.items);

  // Two at once, their results typed one by one.
  const [price, stock] = await gather(
    wf.lambda('price', { input: o.id }),
    wf.activity('Stock', '1.0', { startToClose: 30, heartbeat: '10' }),
  );
  exactly<typeof price, string | undefined>(true);
  exactly<typeof stock, string | undefined>(true);

  const charge = wf.activity('Charge', '1.0', { id: 'charge', input: payload({ id: o.id, price }), taskList: 'payments' });
  exactly<typeof charge, Cancellable<string | undefined>>(true);
  const ship: ChildWorkflow = wf.child('Ship', '1.0', { id: `ship-${o.id}`, input: o.id, childPolicy: 'REQUEST_CANCEL' });
  const run = await ship.start();
  exactly<typeof run, StartedChild>(true);
  wf.recordMarker('shipping', run.execution.runId);

  // Approval by a signal, with a timeout, unless the run is asked to cancel.
  const ended = await first(wf.signal('approve'), wf.sleep(3600), wf.cancellation());
  exactly<typeof ended, [0, string | undefined] | [1, void] | [2, void]>(true);
  const [index, approver] = ended;
  try {
    if (index === 1) throw new Failure('not approved in time', `${reserved.length} items reserved`);
    if (index === 2) throw new Canceled('asked to');
    log.info(`approved by ${approver}`);
    const [charged, shipped] = await gather(charge, run.result);
    exactly<typeof charged, string | undefined>(true);
    return `${charged} ${shipped} ${stock}`;
  } catch (e) {
    // Compensation: stop what runs, undo what was done, then close as the error says.
    wf.cancelActivity('charge');
    charge.cancel();
    ship.cancel();
    wf.cancelChild(`ship-${o.id}`);
    const undone = await settled(wf.activity('Release', '1.0', { input: o.id }));
    exactly<typeof undone, string | undefined | ActivityError>(true);
    if (undone instanceof ActivityError) log.warn(undone.kind, undone.reason ?? '', undone.message);
    if (isCanceled(e) || e instanceof Canceled) throw new Canceled(o.id);
    throw e;
  }
}

/** A generator helper, for `yield*`. */
function* remindUntilDone(wf: Workflow): WorkflowGenerator<number> {
  let reminders = 0;
  let done = false;
  const signal = (function* () {
    yield wf.signal('done');
    done = true;
  })();
  while (!done) {
    const timer = wf.sleep(wf.patched('faster-reminders') ? 60 : 120, { id: `remind-${reminders}` });
    const [index]: [number, unknown] = yield first(signal, timer, waitUntil(() => done));
    if (index === 0) timer.cancel();
    else reminders += 1;
  }
  return reminders;
}

/** The same API from a generator workflow: each `yield` resumes with `any`. */
export function* reminder(wf: Workflow): WorkflowGenerator<string> {
  const reminders = yield* remindUntilDone(wf);
  exactly<typeof reminders, number>(true);
  const greeting: string | undefined = yield wf.activity('Greet', '1.0', { input: wf.input() ?? 'world' });
  yield wf.signalExternal('other', 'greeted', { input: greeting });
  yield wf.requestCancelExternal('other');
  if (wf.cancelRequested()) throw new Canceled();
  if (wf.now() > 2_000_000_000 && wf.random() % 2n === 0n) throw wf.continueAsNew({ input: 'again', tags: ['x'] });
  if (!wf.isReplaying()) log.debug(wf.execution.workflowId);
  wf.deprecatePatch('old');
  wf.cancelTimer('remind-0');
  return `${greeting}, reminded ${reminders} times`;
}

export const orderDecider = workflow(order);
export const reminderDecider = workflow(reminder);
export const both = workflows({ Order: order, Reminder: reminder });
export const inline = workflow(function* (wf) {
  return yield wf.activity('Greet', '1.0');
});

/** A decider written against the History directly. */
export const greetDecider = decider((history: History) => {
  const greet = history.activity('greet');
  if (!greet) return [Decision.scheduleActivity('greet', 'Greet', '1.0', { input: history.input() })];
  if (greet.isOpen()) return response([], { executionContext: 'waiting' });
  const timer = history.timer('t');
  if (timer?.kind === 'fired') return [Decision.startTimer('t2', 5)];
  return greet.kind === 'completed' ? [Decision.complete(greet.resultJson())] : [Decision.fail('greet failed', greet.reason)];
});

/** An activity worker. */
export const worker = new ActivityWorker()
  .activity('Greet', '1.0', (t) => `Hello, ${t.input ?? 'world'}!`)
  .activity('Reserve', '*', (t) => {
    const item: unknown = t.inputJson();
    if (t.heartbeat('reserving') || heartbeat()) return Outcome.canceled('asked to');
    if (item === 'none') throw new Failure('out of stock');
    return { reserved: item };
  });

/** A Lambda-style function. */
export const price = fn((input) => (input === undefined ? new Failure('no sku') : { sku: input, price: 42 }));

// Their tests (not run here: tsc only checks them).

export function testOrder(): void {
  const run = new Environment('Order', '1.0', JSON.stringify({ id: 'o-1', items: ['a', 'b'] }))
    .activity('Reserve', (input) => `reserved ${input}`)
    .activity('Stock', () => 3)
    .activity('Charge', () => 'charged', { seconds: 30, ignoresCancel: false })
    .activity('Release', () => undefined)
    .lambda('price', () => 42)
    .child('Ship', (input) => {
      if (!input) throw new Failure('nothing to ship');
      return 'shipped';
    })
    .signal(10, 'approve', 'ada')
    .cancelRequest(20)
    .terminate(3600, 'too long')
    .run(orderDecider);
  const result: string | undefined = run.result;
  const failure: [string | undefined, string | undefined] | undefined = run.failure;
  const terminated: boolean = run.terminated;
  if (run.close?.decisionType === 'CancelWorkflowExecution') {
    const details: string | undefined = run.close.cancelWorkflowExecutionDecisionAttributes.details;
    log.info(details);
  }
  log.info(result, failure, terminated, run.elapsed, run.events.length);
}

export function testReminder(): void {
  const h = new HistoryBuilder('Reminder', '1.0', 'ada').withExecution('w', 'r');
  const decisions: WireDecision[] = h.decide(reminderDecider);
  const first = decisions[0];
  if (first?.decisionType === 'StartTimer') {
    h.advance(first.startTimerDecisionAttributes.startToFireTimeout.length).timerFired('remind-0');
  }
  h.signal('done').decide(reminderDecider);
  h.activityCompleted('Greet-1', 'hi').externalSignaled('other').externalCancelRequested('other');
  const timer = decisionAttributes(Decision.startTimer('t', 5));
  const seconds: string = timer.startToFireTimeout;
  log.info(seconds, runWorkflow(h.decisionTask(), reminder).length, h.closed());
}

export function testWorker(): void {
  const outcome: ActivityOutcome = worker.perform(task('Reserve', '1.0', '"a"', { activityId: 'r' }));
  if (outcome.outcome === 'failed') log.error(outcome.reason, outcome.details);
  if (outcome.outcome === 'completed') log.info(parseJson(outcome.result ?? 'null'));
  const priced = price.perform('sku-1');
  const problems: string[] = loadHistory({ events: [] }).replay(greetDecider);
  log.info(priced.outcome, problems.length);
}
