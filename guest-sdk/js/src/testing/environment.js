// Runs a whole workflow natively, without a server: activities, functions and children
// replaced by functions, timers fired by skipping time, signals, cancel requests and
// termination at chosen times. The Rust SDK's `testing::Environment`, in JavaScript.

import { Failure } from '../activity.js';
import { decisionAttributes } from '../decisions.js';
import { payload } from '../json.js';
import { HistoryBuilder } from './builder.js';
import { isClose } from './record.js';

const STAND_INS = {
  ScheduleActivityTask: ['activity', (a) => a.activityType.name, 'activityId'],
  ScheduleLambdaFunction: ['lambda', (a) => a.name, 'id'],
  StartChildWorkflowExecution: ['child', (a) => a.workflowType.name, 'workflowId'],
};

/**
 * A workflow run from start to close on a {@link HistoryBuilder}, in simulated time: each
 * activity (Lambda function, child workflow) is answered at once by the function given for its
 * type (a result, or throw a `Failure`), or, for an activity given `seconds`, that long after it
 * was scheduled. When nothing else can happen, time skips to what is due next (a signal, cancel
 * request or termination, a timer, a slow activity's end), so a 30-day timer takes no time; what
 * is due by then happens before the next decision task. Each event takes a second.
 *
 * @example
 * const run = new Environment('Hello', '1.0', 'Ada')
 *   .activity('Greet', (name) => `Hello, ${name}!`)
 *   .run(workflow(greet));
 * assert.equal(run.result, 'Hello, Ada!');
 */
export class Environment {
  constructor(name, version, input) {
    this.history = new HistoryBuilder(name, version, input);
    this.standIns = new Map();
    /** What the outside world does: `[after, record]`, `record` acting on the builder. */
    this.arrivals = [];
    this.maxTasks = 1000;
  }

  /**
   * Answers every activity of type `name` with `run(input)`: at once, or `seconds` after it was
   * scheduled. Until then the workflow can cancel it (`RequestCancelActivityTask`): it then ends
   * canceled at once, unless `ignoresCancel` (it completes when due, as a worker that does not
   * heartbeat would).
   *
   * @param {string} name
   * @param {(input?: string) => unknown} run
   * @param {{seconds?: number, ignoresCancel?: boolean}} [o]
   */
  activity(name, run, o = {}) {
    this.standIns.set(`activity:${name}`, { run, ...o });
    return this;
  }

  /** Answers every call of the Lambda function `name` with `run(input)`. */
  lambda(name, run) {
    this.standIns.set(`lambda:${name}`, { run });
    return this;
  }

  /** Runs every child workflow of type `name` as `run(input)`. */
  child(name, run) {
    this.standIns.set(`child:${name}`, { run });
    return this;
  }

  /** Sends the signal `name` `after` seconds into the run. */
  signal(after, name, input) {
    this.arrivals.push([after, (h) => h.signal(name, input)]);
    return this;
  }

  /** Asks the run to cancel (`WorkflowExecutionCancelRequested`) `after` seconds into it. */
  cancelRequest(after) {
    this.arrivals.push([after, (h) => h.cancelRequested()]);
    return this;
  }

  /** Terminates the run `after` seconds into it (`WorkflowExecutionTerminated`): it ends there. */
  terminate(after, reason) {
    const attrs = { childPolicy: 'TERMINATE' };
    if (reason !== undefined) attrs.reason = reason;
    this.arrivals.push([after, (h) => h.event('WorkflowExecutionTerminated', attrs)]);
    return this;
  }

  /**
   * Runs the run with `decider` (what `workflow(fn)` makes, or any decider) until it closes, is
   * terminated, or nothing is left to happen: `{close, events, elapsed, result, failure,
   * terminated}`. A decider's error (such as a `NondeterminismError`) propagates.
   */
  run(decider) {
    const h = this.history;
    const start = h.events[0].eventTimestamp;
    // What will happen, by key: `{at, act}`. Of several due at once, the first inserted first:
    // the outside world's, in the order given, then timers and activities as started.
    const due = new Map();
    const arrivals = [...this.arrivals].sort((a, b) => a[0] - b[0]);
    for (const [i, [after, record]] of arrivals.entries()) {
      due.set(`arrival ${i}`, { at: start + after, act: () => record(h) });
    }
    const finished = (close) => finish(close, h.events, h.clock - start);
    for (let turn = 0; turn < this.maxTasks; turn++) {
      const decisions = h.decide(decider);
      const now = h.clock;
      let answered = false;
      for (const d of decisions) {
        const a = decisionAttributes(d);
        if (d.decisionType === 'StartTimer') {
          const at = now + Number(a.startToFireTimeout);
          due.set(`timer ${a.timerId}`, { at, act: () => h.timerFired(a.timerId) });
        } else if (d.decisionType === 'CancelTimer') {
          due.delete(`timer ${a.timerId}`);
        } else if (d.decisionType === 'RequestCancelActivityTask') {
          answered = cancelActivity(h, due, a.activityId) || answered;
        } else {
          answered = this.answer(d.decisionType, a, due, now) || answered;
        }
        if (isClose(d)) return finished(d);
      }
      // With nothing answered, time skips to what is due next; either way, what is due by
      // then happens before the next decision task.
      let happened = answered;
      for (let next = earliest(due); next && (!happened || next[1].at <= h.clock); next = earliest(due)) {
        const [key, { at, act }] = next;
        due.delete(key);
        h.advance(Math.max(at - h.clock, 0));
        act();
        if (h.events.at(-1).eventType === 'WorkflowExecutionTerminated') return finished(undefined);
        happened = true;
      }
      if (!happened) return finished(undefined);
    }
    throw new Error(`the run did not close in ${this.maxTasks} decision tasks`);
  }

  /** Answers the activity, function or child decision `kind` (made at `now`) asks for: whether
   * it did at once. */
  answer(kind, a, due, now) {
    const what = STAND_INS[kind];
    if (!what) return false;
    const [standIn, nameOf, idKey] = what;
    const given = this.standIns.get(`${standIn}:${nameOf(a)}`);
    if (!given) throw new Error(`no stand-in for the ${standIn} ${nameOf(a)}: give one to the Environment`);
    const h = this.history;
    const end = () => {
      try {
        h[`${standIn}Completed`](a[idKey], payload(given.run(a.input)));
      } catch (e) {
        if (!(e instanceof Failure)) throw e;
        h[`${standIn}Failed`](a[idKey], e.reason, e.details);
      }
    };
    if (given.seconds === undefined) {
      end();
      return true;
    }
    h.activityStarted(a.activityId);
    due.set(`activity ${a.activityId}`, { at: now + given.seconds, act: end, ignoresCancel: given.ignoresCancel });
    return false;
  }
}

/** The workflow asked to cancel the activity `id` (the builder recorded the request): a slow
 * one that heeds it ends canceled now. Whether it did. */
function cancelActivity(h, due, id) {
  const running = due.get(`activity ${id}`);
  if (!running || running.ignoresCancel) return false;
  due.delete(`activity ${id}`);
  h.activityCanceled(id);
  return true;
}

/** The entry of `due` due first (of several at once, the first inserted). */
function earliest(due) {
  let first;
  for (const entry of due) if (!first || entry[1].at < first[1].at) first = entry;
  return first;
}

function finish(close, events, elapsed) {
  const a = close && decisionAttributes(close);
  return {
    close,
    events,
    elapsed,
    result: close?.decisionType === 'CompleteWorkflowExecution' ? a.result : undefined,
    failure: close?.decisionType === 'FailWorkflowExecution' ? [a.reason, a.details] : undefined,
    terminated: events.at(-1).eventType === 'WorkflowExecutionTerminated',
  };
}
