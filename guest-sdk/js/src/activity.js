// Activity workers and functions: tasks, outcomes, failures, and dispatch by activity type.

import { heartbeat, log } from './host.js';
import { parseJson, payload } from './json.js';
import { recordToWire } from './wit.js';

/**
 * Why an activity or a function failed: a short reason (at most 256 characters) and optional
 * details. Throw it or return it from a handler.
 *
 * @example
 * throw new Failure('card declined', 'card ending 0000');
 */
export class Failure extends Error {
  /**
   * @param {string} [reason]
   * @param {string} [details]
   */
  constructor(reason, details) {
    super(reason ?? 'failed');
    this.name = 'Failure';
    /** @type {string|undefined} */
    this.reason = reason;
    /** @type {string|undefined} */
    this.details = details;
  }

  /** Any thrown value as a Failure: an Error's message is the reason, its stack the details. */
  static from(error) {
    if (error instanceof Failure) return error;
    if (error instanceof Error) return new Failure(error.message, error.stack);
    return new Failure(String(error));
  }
}

/**
 * How an activity task ended, as wire-like objects: `{outcome: 'completed', result}`,
 * `{outcome: 'failed', reason, details}` or `{outcome: 'canceled', details}`. A handler may return
 * one to say exactly what it wants (a raw, non-JSON result, or a cancellation).
 */
export const Outcome = {
  /** Completed with this result text, as is (not JSON-encoded). @param {string} [result] */
  completed: (result) => ({ outcome: 'completed', result }),
  /** Failed. @param {string} [reason] @param {string} [details] */
  failed: (reason, details) => ({ outcome: 'failed', reason, details }),
  /** Stopped because cancellation was requested. @param {string} [details] */
  canceled: (details) => ({ outcome: 'canceled', details }),
};

/**
 * What a handler's return value means: an Outcome as is, a Failure as failed, anything else as
 * completed with it as {@link payload} makes it (`undefined`/`null`: no result; a string as is;
 * other values as canonical JSON).
 */
export function toOutcome(value) {
  if (value instanceof Failure) return Outcome.failed(value.reason, value.details);
  if (value && typeof value === 'object' && typeof value.outcome === 'string') return value;
  return Outcome.completed(payload(value));
}

/** An activity task: `activityId`, `activityType`, `workflowExecution`, `input`, `startedEventId`. */
export class ActivityTask {
  /** @param {{activityId: string, activityType: {name: string, version: string},
   *   workflowExecution: {workflowId: string, runId: string}, input?: string,
   *   startedEventId: number}} task  wire JSON (the shape of `PollForActivityTask`'s answer) */
  constructor(task) {
    Object.assign(this, task);
  }

  /**
   * The input parsed as JSON (serde_json's rules). Throws `Failure('the activity needs an
   * input')` without input and `Failure('the input is not JSON', <serde_json's message>)` if it
   * is not JSON: thrown from a handler, either fails the task.
   */
  inputJson() {
    if (this.input === undefined) throw new Failure('the activity needs an input');
    try {
      return parseJson(this.input);
    } catch (e) {
      throw new Failure('the input is not JSON', e.message);
    }
  }

  /** Records a heartbeat; answers whether cancellation was requested. See `heartbeat`. */
  heartbeat(details) {
    return heartbeat(details);
  }
}

/**
 * An activity worker that runs each task with the handler registered for its activity type.
 *
 * @example
 * const worker = new ActivityWorker();
 * worker.activity('Echo', '1.0', (task) => task.inputJson());
 * export default worker;
 */
export class ActivityWorker {
  constructor() {
    /** @type {Map<string, Map<string, Function>>} name → version → handler */
    this.handlers = new Map();
  }

  /**
   * Registers the handler for activity type `name`/`version` (`'*'` for any version). The
   * handler gets an {@link ActivityTask}; see {@link toOutcome} for what it may return.
   *
   * @param {string} name
   * @param {string} version
   * @param {(task: ActivityTask) => unknown} handler
   * @returns {this}
   */
  activity(name, version, handler) {
    if (!this.handlers.has(name)) this.handlers.set(name, new Map());
    this.handlers.get(name).set(version, handler);
    return this;
  }

  /**
   * Runs a task given as wire JSON and answers its outcome (see {@link Outcome}); never throws.
   * What unit tests call.
   */
  perform(task) {
    const t = task instanceof ActivityTask ? task : new ActivityTask(task);
    const { name, version } = t.activityType;
    const versions = this.handlers.get(name);
    const handler = versions && (versions.get(version) ?? versions.get('*'));
    if (!handler) {
      return Outcome.failed(versions
        ? `unknown version ${version} of activity type ${name}`
        : `unknown activity type ${name}`);
    }
    try {
      return toOutcome(handler(t));
    } catch (e) {
      const failure = Failure.from(e);
      if (!(e instanceof Failure)) log.error(`${name} threw: ${e?.stack ?? e}`);
      return Outcome.failed(failure.reason, failure.details);
    }
  }

  /** The `run` export: jco's activity task in, jco's `activity-outcome` out. */
  run(task) {
    const o = this.perform(recordToWire(task));
    switch (o.outcome) {
      case 'completed': return { tag: 'completed', val: o.result };
      case 'canceled': return { tag: 'canceled', val: o.details };
      default: return { tag: 'failed', val: { reason: o.reason, details: o.details } };
    }
  }
}

/**
 * A function guest (what `ScheduleLambdaFunction` runs): `invoke(input)` gets the optional
 * input text and returns a value (as {@link toOutcome} reads it: a string as is, other values as
 * JSON, `undefined` for no result), or throws/returns a {@link Failure}.
 *
 * @example
 * export default fn((input) => ({ echoed: input }));
 *
 * @param {(input: string|undefined) => unknown} invoke
 */
export function fn(invoke) {
  return {
    /** What unit tests call: answers an Outcome, never throws. */
    perform(input) {
      try {
        return toOutcome(invoke(input ?? undefined));
      } catch (e) {
        const failure = Failure.from(e);
        return Outcome.failed(failure.reason, failure.details);
      }
    },
    /** The `invoke` export: an error result is thrown as a plain `failure` record. */
    invoke(input) {
      const o = this.perform(input);
      if (o.outcome === 'completed') return o.result;
      // A canceled function has no WIT case: it fails, saying so.
      throw { reason: o.outcome === 'canceled' ? 'canceled' : o.reason, details: o.details };
    },
  };
}
