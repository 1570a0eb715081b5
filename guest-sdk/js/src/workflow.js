// Workflows as ordinary code, replayed over the history on every decision task: a generator
// function that `yield`s what it waits for, as the Rust SDK's `async fn` awaits it and the
// Python SDK's `async def` does.
//
// A generator rather than an `async function`: an async function resumes from the engine's
// job queue, which ComponentizeJS's StarlingMonkey runs after an export returns, not within
// the one synchronous `decide` call a decision task is; a generator is resumed by the SDK
// itself, at once and in order. Helpers are generators too, called with `yield*`.
//
//   export function* greet(wf) {
//     const greeting = yield wf.activity('Greet', '1.0', { input: wf.input() });
//     yield wf.sleep(1);
//     return greeting;
//   }
//   export default workflow(greet);
//
// Each yielded activity, timer, function or child issues its decision when first yielded and
// resumes with its result (or throws `ActivityError`) once the history records how it ended;
// an activity, timer or child can be cancelled (`cancel()`), a Lambda function cannot.
// What the code issues for each earlier decision task must be what the history recorded (the
// same decision types, ids and types run); anything else throws `NondeterminismError`, which
// fails the decision task.

import { Decision } from './decisions.js';
import { Failure } from './activity.js';
import { History } from './history.js';
import { decisionFailure, host, sourceLines } from './host.js';
import { parseJson } from './json.js';
import { decisionTaskToWire, responseFromWire } from './wit.js';
import {
  ActivityError, Canceled, ContinueAsNew, NondeterminismError, PENDING, State, replay,
} from './replay.js';

export { ActivityError, Canceled, ContinueAsNew, NondeterminismError };

/** Replays the workflow `fn` (an async or generator function of a {@link Workflow}) over
 * `history`. */
export function run(history, fn) {
  const h = history instanceof History ? history : new History(history);
  return replayOn(new State(h.task), fn);
}

function replayOn(state, fn) {
  const wf = new Workflow(state);
  // Called at the first task, not before: an async function runs at once to its first await,
  // and what it reads there (the time, patches) is the first task's.
  let code;
  const task = { poll: () => (code ??= started(fn, wf)).poll() };
  return replay(state, task, (value) => forgotten(state, value));
}

/** The workflow `fn` called, as something to poll. */
function started(fn, wf) {
  const code = fn(wf);
  if (code instanceof Coroutine) return code;
  if (typeof code?.next === 'function' && typeof code.throw === 'function') return new Task(code);
  const name = fn.name ? ` ${fn.name}` : '';
  if (code instanceof Promise) {
    throw new TypeError(`the workflow${name} is an async function not compiled for workflows: build it with ` +
      'weft-js-build, and run its tests with `node --import @weft/guest/register --test`');
  }
  throw new TypeError(`the workflow${name} is neither an async function nor a generator function`);
}

/** Why the code that returned `value` forgot a command (an activity, timer, ... it neither
 * awaited nor yielded), if it did: the command's call and line. */
function forgotten(state, value) {
  const command = state.unpolled.values().next().value;
  const site = command && ` at ${command.site()}`;
  if (waits(value)) return `the workflow returned what it did not await or yield${site ?? ''}`;
  if (command) return `${describe(command.decision)}${site} was neither awaited nor yielded`;
  return undefined;
}

/** Whether `value` is something to wait for: what a Workflow answers, or a promise. */
function waits(value) {
  return typeof value?.poll === 'function' || typeof value?.then === 'function';
}

/** A decision as the code asked for it: `wf.activity('Greet')`. */
function describe(decision) {
  const a = Object.values(decision).find((v) => typeof v === 'object') ?? {};
  const named = a.activityType?.name ?? a.workflowType?.name ?? a.name ?? a.timerId ?? '';
  const call = {
    ScheduleActivityTask: 'activity', StartTimer: 'sleep', StartChildWorkflowExecution: 'child',
    ScheduleLambdaFunction: 'lambda', SignalExternalWorkflowExecution: 'signalExternal',
    RequestCancelExternalWorkflowExecution: 'requestCancelExternal',
  }[decision.decisionType] ?? decision.decisionType;
  return `wf.${call}(${named ? JSON.stringify(named) : ''})`;
}

/**
 * Drives the generator of an async function of the guest's code, which weft-js-build (or
 * `@weft/guest/register`) made of it: at once, as a workflow's code is run, when polled; or
 * through promises, as an async function's caller expects, when awaited as a promise.
 *
 * @param {unknown} self the function's `this`
 * @param {ArrayLike<unknown> | null} args its arguments
 * @param {Function} body the generator function of its body
 */
export function __weftAsync(self, args, body) {
  return new Coroutine(body.apply(self, args ?? []));
}

/**
 * Makes a decider of the workflow `fn`: export the result as the module's default. Its `fn`
 * (for `HistoryBuilder.decide`) replays the workflow.
 */
export function workflow(fn) {
  return deciderOf(() => fn);
}

/**
 * Makes one decider of several workflows, each serving the workflow type its key names
 * (`workflows({Order: order, Ship: ship})`): a parent and its child bound to one module, say.
 * A type it does not name fails the decision task, saying which it serves.
 *
 * @param {Record<string, Function>} byType
 */
export function workflows(byType) {
  return deciderOf((type) => {
    if (Object.hasOwn(byType, type.name)) return byType[type.name];
    throw new TypeError(`this module serves no workflow type ${type.name}: it serves ${Object.keys(byType).join(', ')}`);
  });
}

/** The decider of the workflow `choose(workflowType)` answers. */
function deciderOf(choose) {
  const replayTask = (state) => replayOn(state, choose(state.workflowType));
  const decide = (history) => {
    const h = history instanceof History ? history : new History(history);
    return replayTask(new State(h.task));
  };
  return {
    fn: decide,
    decide(task) {
      try {
        // In a component the workflow core has the task from the host: JavaScript need not
        // read it.
        const decisions = host.replayCall
          ? replayTask(new State())
          : decide(new History(decisionTaskToWire(task)));
        return responseFromWire({ decisions });
      } catch (e) {
        throw decisionFailure(e);
      }
    },
  };
}

/** The SDK's own files, whose frames a command's site skips. */
const SDK_FILES = /(@weft\/guest|guest-sdk\/js)\/src\//;

/** An operation being waited for: issues its decision when first polled, then is ready with
 * the outcome the history records for it. */
class Command {
  constructor(state, decision) {
    // Where the code made it, to name if it is never awaited.
    Object.assign(this, { state, decision, slot: undefined, made: new Error() });
    state.unpolled.add(this);
  }

  poll() {
    if (this.slot === undefined) {
      this.slot = this.state.issue(this.decision, true);
      this.state.unpolled.delete(this);
    }
    return this.state.outcome(this.slot);
  }

  /** The file and line of the code that made it: its first frame outside this SDK. */
  site() {
    const frames = sourceLines(this.made.stack ?? '').split('\n');
    const place = (frame) => frame.match(/((?:file:\/\/)?[^\s()@]+?:\d+)(?::\d+)?\)?$/)?.[1];
    const own = frames.map(place).find((p) => p && !SDK_FILES.test(p));
    return own?.replace(/^file:\/\//, '') ?? 'an unknown line';
  }
}

/** A command SWF can cancel: an activity, a timer or a child. */
class Cancellable extends Command {
  /**
   * Asks SWF to stop it (once) if it was issued and has not ended (`CancelTimer`,
   * `RequestCancelActivityTask`, `RequestCancelExternalWorkflowExecution`): its yield then
   * throws `ActivityError` kind `canceled` (a child: if its code closes it so), or resumes with
   * the result if it ended anyway.
   */
  cancel() {
    if (this.slot !== undefined) this.state.cancel({ slot: this.slot });
  }
}

/** A timer: yield it, or `cancel()` it. */
class Timer extends Cancellable {
  /** Cancels it if it was started and has not fired: its yield then throws (canceled) at the
   * next decision task (SWF schedules none for the cancel itself). */
  cancel() {
    // `cancelTimer`, which hosts whose core predates `cancel` know too.
    if (this.slot !== undefined) this.state.cancelTimer(undefined, this.slot);
  }
}

/** A child workflow: yield it for its result, yield `start()` for the started run, or
 * `cancel()` it. */
class Child extends Cancellable {
  /**
   * Ready with the started run, `{execution, result}` (yield `result` for its outcome), or
   * throws (not started) if it could not start.
   */
  start() {
    return new Poll(() => {
      const outcome = this.poll();
      const execution = this.state.child(this.slot);
      if (execution) return { ok: true, value: { execution, result: this } };
      return outcome !== PENDING && !outcome.ok ? outcome : PENDING;
    });
  }
}

/** Ready once `ready()` answers an outcome rather than PENDING; it keeps that outcome (a
 * signal is taken once, however often a `gather` polls). */
class Poll {
  constructor(ready) {
    Object.assign(this, { ready, outcome: undefined });
  }

  poll() {
    if (this.outcome === undefined) {
      const outcome = this.ready();
      if (outcome === PENDING) return PENDING;
      this.outcome = outcome;
    }
    return this.outcome;
  }
}

/** Drives a generator: runs it until it yields something not ready, feeding it outcomes. */
class Task {
  constructor(generator) {
    Object.assign(this, { generator, started: false, waiting: undefined, outcome: undefined });
  }

  poll() {
    for (;;) {
      if (this.outcome) return this.outcome;
      let step;
      if (!this.started) {
        this.started = true;
        step = () => this.generator.next();
      } else {
        const ready = this.waiting.poll();
        if (ready === PENDING) return PENDING;
        step = ready.ok ? () => this.generator.next(ready.value) : () => this.generator.throw(ready.error);
      }
      try {
        const result = step();
        if (result.done) {
          this.outcome = { ok: true, value: result.value };
        } else {
          this.waiting = waitable(result.value);
        }
      } catch (error) {
        if (error instanceof NondeterminismError) throw error;
        this.outcome = { ok: false, error };
      }
    }
  }
}

/** An activity retried by a {@link RetryPolicy}: yield it, or `cancel()` it. */
class Retrying extends Task {
  constructor(wf, retry, attempt) {
    super(undefined);
    Object.assign(this, { current: undefined, canceled: false });
    this.generator = this.attempts(wf, retry, attempt);
  }

  *attempts(wf, retry, attempt) {
    for (let n = 1; ; n += 1) {
      this.current = attempt(n);
      try {
        return yield this.current;
      } catch (error) {
        if (this.canceled || !(error instanceof ActivityError) || !retry.retries(n, error)) throw error;
      }
      this.current = wf.sleep(retry.interval(n));
      try {
        yield this.current;
      } catch (error) {
        // The wait cancelled (or refused): the next attempt at once.
        if (!(error instanceof ActivityError)) throw error;
      }
    }
  }

  /**
   * Cancels the current attempt (as an activity's `cancel()`) and stops retrying: its yield
   * then throws `ActivityError` kind `canceled`, or resumes with the result if the attempt
   * completed anyway. Cancelled while waiting to retry, it cancels the wait and ends canceled
   * at once. Before its first yield, nothing.
   */
  cancel() {
    if (this.current === undefined) return;
    this.canceled = true;
    this.current.cancel();
    if (this.current instanceof Timer) {
      // Now, not once the wait's cancel is recorded: SWF schedules no decision task for that.
      this.outcome ??= { ok: false, error: new ActivityError('canceled') };
    }
  }
}

/**
 * An async function's run (see {@link __weftAsync}). Made, it runs at once to its first
 * `await`, as an async function does. Polled, it is a workflow's code: it resumes at once when
 * what it awaits is ready. Awaited, or used as a promise in any other way, it is the async
 * function's promise (activity code awaiting promises): a Promise, to whatever checks.
 */
class Coroutine extends Promise {
  // What `then` and `catch` make are plain promises.
  static get [Symbol.species]() {
    return Promise;
  }

  constructor(generator) {
    let settle;
    super((resolve, reject) => {
      settle = { resolve, reject };
    });
    Object.assign(this, { generator, settle, outcome: undefined, awaited: undefined, waiting: undefined });
    this.resume(() => generator.next());
  }

  /** Runs the body one step: to its end, or to what it awaits next. */
  resume(step) {
    this.waiting = undefined;
    try {
      const result = step();
      // `return wf.activity(...)` returns what the activity ends with, as returning a promise
      // from an async function does.
      this.returning = result.done && typeof result.value?.poll === 'function';
      if (result.done && !this.returning) this.outcome = { ok: true, value: result.value };
      else this.awaited = result.value;
    } catch (error) {
      if (error instanceof NondeterminismError) throw error;
      this.outcome = { ok: false, error };
    }
  }

  poll() {
    while (!this.outcome) {
      if (this.driven) throw new TypeError('an async function awaited as a promise cannot be awaited in a workflow');
      try {
        this.waiting ??= waitable(this.awaited);
      } catch (error) {
        this.resume(() => this.generator.throw(error));
        continue;
      }
      const ready = this.waiting.poll();
      if (ready === PENDING) return PENDING;
      if (this.returning) this.outcome = ready;
      else this.resume(ready.ok ? () => this.generator.next(ready.value) : () => this.generator.throw(ready.error));
    }
    return this.outcome;
  }

  then(onFulfilled, onRejected) {
    this.drive();
    return super.then(onFulfilled, onRejected);
  }

  /** Runs the body as a promise does: each await resumes once what it awaits settles. */
  drive() {
    if (this.driven) return;
    this.driven = true;
    const settle = () => {
      if (this.outcome) {
        return this.outcome.ok ? this.settle.resolve(this.outcome.value) : this.settle.reject(this.outcome.error);
      }
      // What a Workflow answers, which only a workflow's polling resolves.
      if (typeof this.awaited?.poll === 'function' && !(this.awaited instanceof Promise)) {
        const misplaced = new TypeError('what a Workflow answers is awaited only in the workflow\'s own code, not in a promise');
        this.resume(() => this.generator.throw(misplaced));
        return settle();
      }
      Promise.resolve(this.awaited).then(
        (value) => { this.resume(() => this.generator.next(value)); settle(); },
        (error) => { this.resume(() => this.generator.throw(error)); settle(); });
    };
    settle();
  }
}

/** What the code awaited or yielded (or gave `first`, `gather`, `settled`), as something to
 * poll. */
function waitable(value) {
  // Awaited, if not polled (`first` stops at the first that is ready).
  if (value instanceof Command) value.state.unpolled.delete(value);
  if (value && typeof value.poll === 'function') return value;
  if (value && typeof value.next === 'function' && typeof value.throw === 'function') {
    return new Task(value);
  }
  if (typeof value?.then === 'function') {
    throw new TypeError('a workflow awaits only what its Workflow, gather, first, settled and waitUntil answer, ' +
      'or its own async functions: not a promise, whose time is not the history\'s');
  }
  // A plain value, as `await` takes one.
  return { poll: () => ({ ok: true, value }) };
}

/** How often and how soon to retry an activity that failed or timed out. */
export class RetryPolicy {
  /**
   * @param {number} maximumAttempts attempts in all (0: no limit)
   * @param {{initialInterval?: number, backoff?: number, maximumInterval?: number,
   *   nonRetryable?: string[]}} [o] seconds, and failure reasons not to retry
   */
  constructor(maximumAttempts, o = {}) {
    this.maximumAttempts = maximumAttempts;
    this.initialInterval = o.initialInterval ?? 1;
    this.backoff = Math.max(o.backoff ?? 2, 1);
    this.maximumInterval = o.maximumInterval;
    this.nonRetryable = o.nonRetryable ?? [];
  }

  /** The wait in seconds after attempt `attempt` (from 1) failed. */
  interval(attempt) {
    const wait = this.initialInterval * this.backoff ** (attempt - 1);
    return this.maximumInterval === undefined ? wait : Math.min(wait, this.maximumInterval);
  }

  /** Whether to try again after attempt `attempt` ended with `error`. */
  retries(attempt, error) {
    const retryable = error.kind === 'timed_out' || (error.kind === 'failed' && !this.nonRetryable.includes(error.reason));
    return retryable && (this.maximumAttempts === 0 || attempt < this.maximumAttempts);
  }
}

/** The running workflow: its input, clock and randomness, and what it waits for. */
export class Workflow {
  constructor(state) {
    this.state = state;
  }

  /** The run's input. */
  input() {
    return this.state.input;
  }

  /** The run's input parsed as JSON (a `Failure` if it is not). */
  inputJson() {
    try {
      return parseJson(this.state.input ?? '');
    } catch (e) {
      throw new Failure(`the workflow's input is not JSON: ${e.message}`);
    }
  }

  /** The run: `{workflowId, runId}`. */
  get execution() {
    return this.state.execution;
  }

  /** The time of the decision task being replayed, in seconds: the same on every replay. */
  now() {
    return this.state.now;
  }

  /** The next number (a 64-bit BigInt) of a sequence seeded by the run, as the other SDKs draw it. */
  random() {
    return this.state.random();
  }

  /** Whether the code runs through a decision task the history already recorded. */
  isReplaying() {
    return this.state.replaying;
  }

  /**
   * An activity of type `name`/`version` to yield, or to `cancel()`; options as
   * `Decision.scheduleActivity`'s, plus `id` and `retry` (a {@link RetryPolicy}: failed attempts
   * retried after a timer).
   */
  activity(name, version, o = {}) {
    const { id, retry, ...options } = o;
    const attempt = (n) => new Cancellable(this.state, Decision.scheduleActivity(
      id === undefined ? '' : n === 1 ? id : `${id}-${n}`, name, version, options));
    return retry ? new Retrying(this, retry, attempt) : attempt(1);
  }

  /** The Lambda function `name` to yield (`id`, `input`, `startToClose`). It cannot be
   * canceled: SWF has no decision for it. */
  lambda(name, o = {}) {
    const { id, ...options } = o;
    return new Command(this.state, Decision.scheduleLambda(id ?? '', name, options));
  }

  /** A timer of `seconds` (whole, rounded up), started when first yielded. */
  sleep(seconds, o = {}) {
    return new Timer(this.state, Decision.startTimer(o.id ?? '', Math.ceil(seconds)));
  }

  /** Cancels the timer `id` if it was started and has neither fired nor been cancelled. */
  cancelTimer(id) {
    this.state.cancelTimer(id);
  }

  /**
   * Asks SWF to cancel the activity `id` (`RequestCancelActivityTask`, once) if it was
   * scheduled and has not ended: its yield then throws `ActivityError` kind `canceled` once the
   * worker reports it canceled, or resumes with the result if it completed anyway. A retried
   * activity's attempts are `ID`, `ID-2`, ...; a canceled attempt is not retried.
   */
  cancelActivity(id) {
    this.state.cancel({ activityId: id });
  }

  /**
   * Asks the child `workflowId` to cancel (`RequestCancelExternalWorkflowExecution`, once) if
   * this run started it and it has not closed: its yield then throws `ActivityError` kind
   * `canceled` if the child's code closes it as canceled, or ends as the child closed otherwise.
   */
  cancelChild(workflowId) {
    this.state.cancel({ childWorkflowId: workflowId });
  }

  /** A child workflow of type `name`/`version` to yield for its result, to `start()`, or to
   * `cancel()`. */
  child(name, version, o = {}) {
    const { id, ...options } = o;
    return new Child(this.state, Decision.startChild(id ?? '', name, version, options));
  }

  /** Sends the signal `name` to the workflow `workflowId` (`runId`, `input`); yield it. */
  signalExternal(workflowId, name, o = {}) {
    return new Command(this.state, Decision.signalExternal(workflowId, name, o));
  }

  /** Asks the workflow `workflowId` (`runId`) to cancel; yield it. */
  requestCancelExternal(workflowId, o = {}) {
    return new Command(this.state, Decision.requestCancelExternal(workflowId, o));
  }

  /** Yields the input of the next signal `name` (each signal is taken once). */
  signal(name) {
    return new Poll(() => this.state.takeSignal(name));
  }

  /** Ready once the run is asked to cancel. */
  cancellation() {
    return new Poll(() => (this.state.cancelRequested ? { ok: true } : PENDING));
  }

  /** Whether the run has been asked to cancel, as of the decision task being replayed. */
  cancelRequested() {
    return this.state.cancelRequested;
  }

  /** Records a marker in the history. */
  recordMarker(name, details) {
    this.state.issue(Decision.recordMarker(name, details), false);
  }

  /**
   * Whether the run takes the code of change `change`: true where a run reaches this point for
   * the first time with the change deployed (a marker records it), and on replays of those
   * runs; false on replays of runs that passed it before. Stable for the run.
   */
  patched(change) {
    return this.state.patched(change);
  }

  /** Every open run took change `change`: always the new path; old markers are accepted. */
  deprecatePatch(change) {
    this.state.deprecatePatch(change);
  }

  /** The error that, thrown by the workflow, continues the run as new (`Decision.continueAsNew`'s options). */
  continueAsNew(o = {}) {
    return new ContinueAsNew(Decision.continueAsNew(o));
  }
}

/** Waits for all of `waitables` (started in the order given): their results, in that order;
 * the first to throw (in that order) throws. */
export function gather(...waitables) {
  const tasks = waitables.map(waitable);
  return new Poll(() => {
    const outcomes = tasks.map((t) => t.poll());
    const failed = outcomes.find((o) => o !== PENDING && !o.ok);
    if (failed) return failed;
    if (outcomes.includes(PENDING)) return PENDING;
    return { ok: true, value: outcomes.map((o) => o.value) };
  });
}

/** Waits for whichever of `waitables` ends first (of several at one decision task, the earliest
 * given): `[index, result]`, or throws what it threw. The others are dropped. */
export function first(...waitables) {
  const tasks = waitables.map(waitable);
  return new Poll(() => {
    for (const [index, task] of tasks.entries()) {
      const outcome = task.poll();
      if (outcome === PENDING) continue;
      return outcome.ok ? { ok: true, value: [index, outcome.value] } : outcome;
    }
    return PENDING;
  });
}

/** Waits for `w`: its result, or the `ActivityError` it threw (as `Promise.allSettled` keeps
 * failures), for what may end either way. */
export function settled(w) {
  const task = waitable(w);
  return new Poll(() => {
    const outcome = task.poll();
    if (outcome === PENDING || outcome.ok || !(outcome.error instanceof ActivityError)) return outcome;
    return { ok: true, value: outcome.error };
  });
}

/** Ready once `condition()` is true: the workflow's own state, changed by its other waits. */
export function waitUntil(condition) {
  return new Poll(() => (condition() ? { ok: true } : PENDING));
}
