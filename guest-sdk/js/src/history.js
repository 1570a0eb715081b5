// A decision task's history, with the queries a decider needs. Events are wire JSON, as
// `GetWorkflowExecutionHistory` returns them, whether they came from the host (through wit.js),
// from testing.HistoryBuilder or from an exported history.

import { parseJson } from './json.js';
import { Marker, Signal, Status, Timer } from './status.js';
import { eventAttributesKey } from './wit.js';

/**
 * The attributes of a wire event (`event.activityTaskCompletedEventAttributes` for an
 * `ActivityTaskCompleted`).
 *
 * @param {object} event
 * @returns {object}
 */
export function attributes(event) {
  return event[eventAttributesKey(event.eventType)] ?? {};
}

const DECISION_TASK_EVENTS = new Set([
  'DecisionTaskScheduled',
  'DecisionTaskStarted',
  'DecisionTaskCompleted',
  'DecisionTaskTimedOut',
]);

/**
 * A decision task, with queries over its execution's history.
 *
 * The history is the whole history so far, oldest first, ending with this task's
 * `DecisionTaskStarted` event. Queries about one activity, child, function or timer follow the
 * latest one with that id (an id may be reused once its previous holder has closed).
 *
 * @example
 * const verify = history.activity('verify');
 * if (verify?.kind === 'completed') console.log(verify.resultJson());
 */
export class History {
  /**
   * @param {{workflowExecution: {workflowId: string, runId: string},
   *          workflowType: {name: string, version: string}, events: object[],
   *          previousStartedEventId?: number, startedEventId: number}} task
   *   a decision task as wire JSON (the shape of `PollForDecisionTask`'s answer)
   */
  constructor(task) {
    /** The decision task itself. */
    this.task = { previousStartedEventId: 0, ...task };
  }

  /** The execution's workflow type: `{name, version}`. */
  get workflowType() {
    return this.task.workflowType;
  }

  /** The execution: `{workflowId, runId}`. */
  get workflowExecution() {
    return this.task.workflowExecution;
  }

  /** Every event so far, oldest first (wire JSON). @type {object[]} */
  get events() {
    return this.task.events;
  }

  /** The events since the previous decision task this decider completed (all on the first). */
  newEvents() {
    return this.events.filter((e) => this.isNew(e.eventId));
  }

  /** Whether `eventId` is one of the new events. */
  isNew(eventId) {
    return eventId > this.task.previousStartedEventId;
  }

  /** Whether this is the execution's first decision task. */
  isFirstDecision() {
    return this.task.previousStartedEventId === 0;
  }

  /** The `WorkflowExecutionStarted` event's attributes: input, timeouts, task list, parent... */
  started() {
    const e = this.events.find((e) => e.eventType === 'WorkflowExecutionStarted');
    return e && attributes(e);
  }

  /** The execution's input, or `undefined`. @returns {string|undefined} */
  input() {
    return this.started()?.input;
  }

  /**
   * The execution's input parsed as JSON (serde_json's rules; throws a `JsonError` with
   * serde_json's message if it is not JSON), or `undefined` without input.
   */
  inputJson() {
    const input = this.input();
    return input === undefined ? undefined : parseJson(input);
  }

  /** The latest event other than the decision tasks' own: usually what woke the decider. */
  lastEvent() {
    return this.events.findLast((e) => !DECISION_TASK_EVENTS.has(e.eventType));
  }

  /** Whether cancellation of the execution was requested (`WorkflowExecutionCancelRequested`). */
  cancelRequested() {
    return this.events.some((e) => e.eventType === 'WorkflowExecutionCancelRequested');
  }

  /** Every signal received, oldest first. @returns {Signal[]} */
  signals() {
    return signalsOf(this.events);
  }

  /** The signals received since the previous decision task. @returns {Signal[]} */
  newSignals() {
    return signalsOf(this.newEvents());
  }

  /** Every marker recorded, oldest first. @returns {Marker[]} */
  markers() {
    return this.events
      .filter((e) => e.eventType === 'MarkerRecorded')
      .map((e) => new Marker(attributes(e).markerName, attributes(e).details, e.eventId));
  }

  /** The latest marker named `name`. @returns {Marker|undefined} */
  marker(name) {
    return this.markers().findLast((m) => m.name === name);
  }

  /** Where the latest activity with this id stands; `undefined` if none was scheduled. */
  activity(id) {
    const start = this.latest((e, a) =>
      (e.eventType === 'ActivityTaskScheduled' || e.eventType === 'ScheduleActivityTaskFailed') &&
      a.activityId === id);
    if (start < 0) return undefined;
    const first = this.events[start];
    if (first.eventType === 'ScheduleActivityTaskFailed') {
      return new Status('not-started', { cause: attributes(first).cause });
    }
    let status = new Status('scheduled');
    for (const e of this.events.slice(start + 1)) {
      const a = attributes(e);
      const mine = a.scheduledEventId === first.eventId;
      switch (e.eventType) {
        case 'ActivityTaskStarted':
          if (mine && status.kind === 'scheduled') status = new Status('started');
          break;
        case 'ActivityTaskCancelRequested':
          if (a.activityId === id) status = new Status('cancel-requested');
          break;
        default: {
          const closed = mine && closedStatus(e.eventType.slice('ActivityTask'.length), a);
          if (closed) return closed;
        }
      }
    }
    return status;
  }

  /** Where the latest child execution with this workflow id stands; `undefined` if none. */
  child(workflowId) {
    const start = this.latest((e, a) =>
      (e.eventType === 'StartChildWorkflowExecutionInitiated' ||
        e.eventType === 'StartChildWorkflowExecutionFailed') && a.workflowId === workflowId);
    if (start < 0) return undefined;
    const first = this.events[start];
    if (first.eventType === 'StartChildWorkflowExecutionFailed') {
      return new Status('not-started', { cause: attributes(first).cause });
    }
    let status = new Status('scheduled');
    for (const e of this.events.slice(start + 1)) {
      const a = attributes(e);
      if (a.initiatedEventId !== first.eventId) continue;
      if (e.eventType === 'StartChildWorkflowExecutionFailed') {
        return new Status('not-started', { cause: a.cause });
      }
      if (e.eventType === 'ChildWorkflowExecutionStarted') status = new Status('started');
      if (e.eventType === 'ChildWorkflowExecutionTerminated') return new Status('terminated');
      if (e.eventType.startsWith('ChildWorkflowExecution')) {
        const closed = closedStatus(e.eventType.slice('ChildWorkflowExecution'.length), a);
        if (closed) return closed;
      }
    }
    return status;
  }

  /** Where the latest Lambda function with this id stands; `undefined` if none. */
  lambda(id) {
    const start = this.latest((e, a) =>
      (e.eventType === 'LambdaFunctionScheduled' || e.eventType === 'ScheduleLambdaFunctionFailed') &&
      a.id === id);
    if (start < 0) return undefined;
    const first = this.events[start];
    if (first.eventType === 'ScheduleLambdaFunctionFailed') {
      return new Status('not-started', { cause: attributes(first).cause });
    }
    let status = new Status('scheduled');
    for (const e of this.events.slice(start + 1)) {
      const a = attributes(e);
      if (a.scheduledEventId !== first.eventId) continue;
      if (e.eventType === 'LambdaFunctionStarted') status = new Status('started');
      if (e.eventType === 'StartLambdaFunctionFailed') {
        return new Status('not-started', { cause: a.cause ?? 'UNKNOWN' });
      }
      if (e.eventType.startsWith('LambdaFunction')) {
        const closed = closedStatus(e.eventType.slice('LambdaFunction'.length), a);
        if (closed) return closed;
      }
    }
    return status;
  }

  /** Where the latest timer with this id stands; `undefined` if none was started. */
  timer(id) {
    const start = this.latest((e, a) =>
      (e.eventType === 'TimerStarted' || e.eventType === 'StartTimerFailed') && a.timerId === id);
    if (start < 0) return undefined;
    const first = this.events[start];
    if (first.eventType === 'StartTimerFailed') {
      return new Timer('start-failed', first.eventId, attributes(first).cause);
    }
    for (const e of this.events.slice(start + 1)) {
      if (attributes(e).startedEventId !== first.eventId) continue;
      if (e.eventType === 'TimerFired') return new Timer('fired', e.eventId);
      if (e.eventType === 'TimerCanceled') return new Timer('canceled', e.eventId);
    }
    return new Timer('started', first.eventId);
  }

  /** The index of the latest event for which `pick(event, attributes)` holds, or -1. */
  latest(pick) {
    return this.events.findLastIndex((e) => pick(e, attributes(e)));
  }
}

/** The status an activity's, child's or function's closing event gives, by its event suffix. */
function closedStatus(suffix, a) {
  switch (suffix) {
    case 'Completed': return new Status('completed', { result: a.result });
    case 'Failed': return new Status('failed', { reason: a.reason, details: a.details });
    // Children and functions have only START_TO_CLOSE timeouts (the attribute is optional).
    case 'TimedOut': return new Status('timed-out', { timeoutType: a.timeoutType ?? 'START_TO_CLOSE' });
    case 'Canceled': return new Status('canceled', { details: a.details });
    default: return undefined;
  }
}

function signalsOf(events) {
  return events
    .filter((e) => e.eventType === 'WorkflowExecutionSignaled')
    .map((e) => new Signal(attributes(e).signalName, attributes(e).input, e.eventId));
}
