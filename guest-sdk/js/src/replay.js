// Runs workflow code over a history on the workflow core (`core.js`), which walks the history
// task by task, matches what the code issues with what the history recorded, and keeps what
// the code shares: its commands' outcomes, signals, the clock, randomness and patches. Here is
// only what is JavaScript's: driving the code's generator at each task the core begins, and
// the errors a yield throws.

import { Decision } from './decisions.js';
import { Failure } from './activity.js';
import { ask } from './core.js';

/** What a poll answers while an await is not resolved. */
export const PENDING = Symbol('pending');

/** The workflow code issued other commands than the history recorded. */
export class NondeterminismError extends Error {
  constructor(message) {
    super(message);
    this.name = 'NondeterminismError';
  }
}

/**
 * An activity, function or child that did not complete, thrown at its `yield`. `kind` is
 * `failed`, `timed_out`, `canceled`, `terminated` or `not_started`; `reason` the failure's
 * reason, the timeout type or SWF's cause. Its message says how it ended in the words every
 * SDK uses (the core's): `REASON: DETAILS` (or `REASON`, or `failed`), `timed out (TYPE)`,
 * `could not be scheduled (CAUSE)`, `canceled`, `terminated`.
 */
export class ActivityError extends Error {
  constructor(kind, reason, details, words = kind) {
    super(words);
    this.name = 'ActivityError';
    Object.assign(this, { kind, reason, details });
  }
}

/** Thrown by the workflow: the run closes as canceled. */
export class Canceled extends Error {
  constructor(details) {
    super('canceled');
    this.name = 'Canceled';
    this.details = details;
  }
}

/** Thrown by the workflow (`throw wf.continueAsNew(...)`): the run continues as new. */
export class ContinueAsNew extends Error {
  constructor(decision) {
    super('continue as new');
    this.name = 'ContinueAsNew';
    this.decision = decision;
  }
}

/**
 * One replay on the core: what the workflow handle and every await ask. What the code reads
 * (outcomes, started children, signals) the core hands over at each task; what it does goes to
 * the core in the batch of the next request, so that a task costs few crossings.
 */
export class State {
  /** Without a task (in a component): the task being decided, which the host holds. */
  constructor(task) {
    const begun = ask(task === undefined ? { op: 'begin' } : {
      op: 'begin',
      task: {
        events: task.events ?? [],
        workflowExecution: task.workflowExecution,
        startedEventId: task.startedEventId,
      },
    });
    this.input = begun.input ?? undefined;
    this.execution = { workflowId: begun.workflowId, runId: begun.runId };
    this.workflowType = begun.workflowType;
    Object.assign(this, { now: 0, replaying: true, cancelRequested: false });
    Object.assign(this, { batch: [], slots: 0, outcomes: new Map(), children: new Map(), signals: new Map() });
    /** The commands made and never polled (awaited, yielded). */
    this.unpolled = new Set();
  }

  /** Asks the core, after it applies the batch. */
  ask(request, failure) {
    const batch = this.batch;
    this.batch = [];
    return ask(batch.length ? { ...request, batch } : request, failure);
  }

  /** Issues `decision` (with a default id if it names none); `awaited`: its slot. */
  issue(decision, awaited) {
    this.batch.push({ op: 'issue', decision, awaited });
    return awaited ? this.slots++ : undefined;
  }

  /** How the command of `slot` ended: `{ok, value}`, `{ok: false, error}`, or PENDING. */
  outcome(slot) {
    return this.outcomes.get(slot) ?? PENDING;
  }

  /** The child run the command of `slot` started, once it has. */
  child(slot) {
    return this.children.get(slot);
  }

  /** The oldest signal `name` not taken yet: `{ok, value}` (its input), or PENDING. */
  takeSignal(name) {
    const queue = this.signals.get(name);
    return queue?.length ? { ok: true, value: queue.shift() } : PENDING;
  }

  /** Cancels the timer `id`, or the one awaited in `slot`. */
  cancelTimer(id, slot) {
    this.batch.push(slot === undefined ? { op: 'cancelTimer', id } : { op: 'cancelTimer', slot });
  }

  /** Cancels the command awaited in `{slot}`, or the latest `{activityId}` or
   * `{childWorkflowId}`: the core issues its cancel once, while it has not ended. */
  cancel(target) {
    this.batch.push({ op: 'cancel', ...target });
  }

  patched(change) {
    return this.ask({ op: 'patched', change });
  }

  deprecatePatch(change) {
    this.batch.push({ op: 'deprecatePatch', change });
  }

  /** The next number of the run's seeded sequence: a BigInt of 64 bits. */
  random() {
    return BigInt(this.ask({ op: 'random' }));
  }

  /** Begins the next decision task, taking what the core hands over; false once done. */
  next() {
    const begun = this.ask({ op: 'next' }, NondeterminismError);
    if (begun === null) return false;
    const { now, replaying, cancelRequested, outcomes, children, signals } = begun;
    Object.assign(this, { now, replaying, cancelRequested });
    for (const [slot, outcome] of outcomes) this.outcomes.set(slot, settle(outcome));
    for (const [slot, run] of children) this.children.set(slot, run);
    for (const [name, input] of signals) {
      if (!this.signals.has(name)) this.signals.set(name, []);
      this.signals.get(name).push(input ?? undefined);
    }
    return true;
  }
}

/** An outcome as the core says it, as a yield resumes with it. */
function settle(outcome) {
  if ('result' in outcome) return { ok: true, value: outcome.result ?? undefined };
  const f = outcome.failure;
  return { ok: false, error: new ActivityError(f.ending, f.reason ?? undefined, f.details ?? undefined, f.words) };
}

/**
 * Replays `task` (the workflow's code, a task over its generator, not yet started, on `state`)
 * over the decision task's history and answers the decisions of the task being decided now.
 * `mistake(value)` says what is wrong with code that completed with `value`, if anything: the
 * decision task then fails with it.
 */
export function replay(state, task, mistake = () => undefined) {
  while (state.next()) {
    const outcome = task.poll();
    if (outcome === PENDING) continue;
    const wrong = outcome.ok ? mistake(outcome.value) : undefined;
    if (wrong) throw new TypeError(wrong);
    state.batch.push({ op: 'close', decision: closeOf(outcome) });
  }
  return state.ask({ op: 'answer' });
}

/** The decision that closes the run the code ended so. Other errors fail the decision task. */
function closeOf(outcome) {
  if (outcome.ok) return Decision.complete(outcome.value);
  const e = outcome.error;
  if (e instanceof ContinueAsNew) return e.decision;
  if (e instanceof Canceled) return Decision.cancel(e.details);
  if (e instanceof Failure) return Decision.fail(e.reason, e.details);
  if (e instanceof ActivityError) {
    return e.kind === 'canceled' ? Decision.cancel(e.details) : Decision.fail(e.reason ?? e.kind, e.details);
  }
  throw e;
}
