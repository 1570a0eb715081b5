// What a history says of one activity, child workflow, Lambda function or timer, and of the
// signals and markers it holds: the answers of History's queries.

import { parseJson } from './json.js';

/**
 * Where an activity, a child workflow or a Lambda function stands.
 *
 * `kind` is one of `scheduled` (or, for a child, initiated), `started`, `cancel-requested`
 * (activities only), `completed` (with `result`), `failed` (with `reason` and `details`),
 * `timed-out` (with `timeoutType`, SWF's value such as `START_TO_CLOSE`), `canceled` (with
 * `details`), `terminated` (children only) and `not-started` (the decision failed; with
 * `cause`, SWF's value such as `ACTIVITY_TYPE_DOES_NOT_EXIST`).
 *
 * @example
 * const charge = history.activity('charge');
 * if (!charge) return [Decision.scheduleActivity('charge', 'Charge', '1.0')];
 * if (charge.isOpen()) return [];
 * if (charge.kind === 'completed') return [Decision.complete(charge.result)];
 * return [Decision.fail(charge.reason ?? 'charge failed')];
 */
export class Status {
  /**
   * @param {'scheduled'|'started'|'cancel-requested'|'completed'|'failed'|'timed-out'|'canceled'|'terminated'|'not-started'} kind
   * @param {{result?: string, reason?: string, details?: string, timeoutType?: string, cause?: string}} [fields]
   */
  constructor(kind, fields = {}) {
    /** @type {string} */
    this.kind = kind;
    /** The result, if it completed with one. @type {string|undefined} */
    this.result = fields.result;
    /** Why it failed, in short. @type {string|undefined} */
    this.reason = fields.reason;
    /** More detail of a failure or cancellation. @type {string|undefined} */
    this.details = fields.details;
    /** The SWF timeout type, if it timed out. @type {string|undefined} */
    this.timeoutType = fields.timeoutType;
    /** The SWF cause, if it could not be scheduled or started. @type {string|undefined} */
    this.cause = fields.cause;
  }

  /** Whether it may still make progress: scheduled, started or asked to cancel. */
  isOpen() {
    return this.kind === 'scheduled' || this.kind === 'started' || this.kind === 'cancel-requested';
  }

  /** Whether it completed (with or without a result). */
  isCompleted() {
    return this.kind === 'completed';
  }

  /**
   * The result parsed as JSON (serde_json's rules), or `undefined` if it did not complete or
   * completed without a result. Throws {@link JsonError} if the result is not JSON.
   */
  resultJson() {
    return this.result === undefined ? undefined : parseJson(this.result);
  }

  /** Like Rust's `Debug`: `Completed(Some("42"))`, `TimedOut("HEARTBEAT")`, `Started`. */
  toString() {
    const opt = (s) => (s === undefined ? 'None' : `Some(${JSON.stringify(s)})`);
    switch (this.kind) {
      case 'completed': return `Completed(${opt(this.result)})`;
      case 'failed': return `Failed { reason: ${opt(this.reason)}, details: ${opt(this.details)} }`;
      case 'timed-out': return `TimedOut(${JSON.stringify(this.timeoutType)})`;
      case 'canceled': return `Canceled(${opt(this.details)})`;
      case 'not-started': return `NotStarted(${JSON.stringify(this.cause)})`;
      case 'cancel-requested': return 'CancelRequested';
      default: return this.kind[0].toUpperCase() + this.kind.slice(1);
    }
  }
}

/**
 * Where a timer stands, with the event that put it there: `started` (`TimerStarted`), `fired`
 * (`TimerFired`), `canceled` (`TimerCanceled`) or `start-failed` (`StartTimerFailed`, with the
 * SWF `cause`).
 *
 * @example
 * const window = history.timer('cancel-window');
 * const inTime = !window || window.kind !== 'fired' || signal.eventId < window.eventId;
 */
export class Timer {
  /**
   * @param {'started'|'fired'|'canceled'|'start-failed'} kind
   * @param {number} eventId
   * @param {string} [cause]
   */
  constructor(kind, eventId, cause) {
    /** @type {string} */
    this.kind = kind;
    /** The event that put it in this state. @type {number} */
    this.eventId = eventId;
    /** E.g. `TIMER_ID_ALREADY_IN_USE`, for `start-failed`. @type {string|undefined} */
    this.cause = cause;
  }

  /** Whether it is still running. */
  isOpen() {
    return this.kind === 'started';
  }
}

/** A signal the execution received (`WorkflowExecutionSignaled`). */
export class Signal {
  /**
   * @param {string} name
   * @param {string|undefined} input
   * @param {number} eventId
   */
  constructor(name, input, eventId) {
    /** The signal's name. */
    this.name = name;
    /** Its input. @type {string|undefined} */
    this.input = input;
    /** The event that recorded it. */
    this.eventId = eventId;
  }

  /** Its input parsed as JSON, or `undefined` without one. */
  inputJson() {
    return this.input === undefined ? undefined : parseJson(this.input);
  }
}

/** A marker the decider recorded (`MarkerRecorded`). */
export class Marker {
  /**
   * @param {string} name
   * @param {string|undefined} details
   * @param {number} eventId
   */
  constructor(name, details, eventId) {
    /** The marker's name. */
    this.name = name;
    /** Its details. @type {string|undefined} */
    this.details = details;
    /** The event that recorded it. */
    this.eventId = eventId;
  }

  /** Its details parsed as JSON, or `undefined` without them. */
  detailsJson() {
    return this.details === undefined ? undefined : parseJson(this.details);
  }
}
