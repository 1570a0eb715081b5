// Runs a whole workflow natively, without a server: activities, functions and children
// replaced by functions, timers fired by skipping time, signals delivered at chosen times. The
// Rust SDK's `testing::Environment`, in JavaScript.

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
 * A workflow run from start to close on a {@link HistoryBuilder}, in no real time: each activity
 * (Lambda function, child workflow) is answered at once by the function given for its type (a
 * result, or throw a `Failure`); when nothing else can happen, time skips to the next signal or
 * timer, so a 30-day timer takes no time.
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
    this.signals = [];
    this.maxTasks = 1000;
  }

  /** Answers every activity of type `name` with `run(input)`. */
  activity(name, run) {
    this.standIns.set(`activity:${name}`, run);
    return this;
  }

  /** Answers every call of the Lambda function `name` with `run(input)`. */
  lambda(name, run) {
    this.standIns.set(`lambda:${name}`, run);
    return this;
  }

  /** Runs every child workflow of type `name` as `run(input)`. */
  child(name, run) {
    this.standIns.set(`child:${name}`, run);
    return this;
  }

  /** Sends the signal `name` `after` seconds into the run. */
  signal(after, name, input) {
    this.signals.push([after, name, input]);
    return this;
  }

  /**
   * Runs the run with `decider` (what `workflow(fn)` makes, or any decider) until it closes or
   * nothing is left to happen: `{close, events, elapsed, result, failure}`. A decider's error
   * (such as a `NondeterminismError`) propagates.
   */
  run(decider) {
    const h = this.history;
    const start = h.events[0].eventTimestamp;
    const signals = [...this.signals].sort((a, b) => a[0] - b[0]);
    const timers = new Map();
    const finished = (close) => finish(close, h.events, h.events.at(-1).eventTimestamp - start);
    for (let turn = 0; turn < this.maxTasks; turn++) {
      const decisions = h.decide(decider);
      const now = h.events.at(-1).eventTimestamp;
      let answered = false;
      for (const d of decisions) {
        const a = decisionAttributes(d);
        if (d.decisionType === 'StartTimer') timers.set(a.timerId, now + Number(a.startToFireTimeout));
        else if (d.decisionType === 'CancelTimer') timers.delete(a.timerId);
        else answered = this.answer(d.decisionType, a) || answered;
        if (isClose(d)) return finished(d);
      }
      if (answered) continue;
      const timer = [...timers].sort((x, y) => x[1] - y[1])[0];
      const at = h.events.at(-1).eventTimestamp;
      if (signals.length && (!timer || start + signals[0][0] <= timer[1])) {
        const [after, name, input] = signals.shift();
        h.advance(Math.max(start + after - at, 0));
        h.signal(name, input);
      } else if (timer) {
        timers.delete(timer[0]);
        h.advance(Math.max(timer[1] - at, 0));
        h.timerFired(timer[0]);
      } else {
        return finished(undefined);
      }
    }
    throw new Error(`the run did not close in ${this.maxTasks} decision tasks`);
  }

  answer(kind, a) {
    const what = STAND_INS[kind];
    if (!what) return false;
    const [standIn, nameOf, idKey] = what;
    const run = this.standIns.get(`${standIn}:${nameOf(a)}`);
    if (!run) throw new Error(`no stand-in for the ${standIn} ${nameOf(a)}: give one to the Environment`);
    const h = this.history;
    try {
      h[`${standIn}Completed`](a[idKey], payload(run(a.input)));
    } catch (e) {
      if (!(e instanceof Failure)) throw e;
      h[`${standIn}Failed`](a[idKey], e.reason, e.details);
    }
    return true;
  }
}

function finish(close, events, elapsed) {
  const a = close && decisionAttributes(close);
  return {
    close,
    events,
    elapsed,
    result: close?.decisionType === 'CompleteWorkflowExecution' ? a.result : undefined,
    failure: close?.decisionType === 'FailWorkflowExecution' ? [a.reason, a.details] : undefined,
  };
}
