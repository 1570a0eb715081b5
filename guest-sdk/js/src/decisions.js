// The 13 decisions, built as wire JSON exactly as `RespondDecisionTaskCompleted` takes them:
// `{decisionType: 'StartTimer', startTimerDecisionAttributes: {...}}`. Optional parts are an
// options object; durations are whole seconds (a number, or a string such as `NONE`).

import { payload } from './json.js';
import { DECISIONS } from './swf.js';

/** Seconds as SWF's duration string. */
function secs(seconds) {
  return seconds === undefined ? undefined : String(seconds);
}

function taskList(name) {
  return name === undefined ? undefined : { name };
}

/** Drops undefined members, so the decision is what the wire would carry. */
function decision(decisionType, attrs) {
  const clean = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) clean[k] = v;
  const key = decisionType[0].toLowerCase() + decisionType.slice(1) + 'DecisionAttributes';
  return { decisionType, [key]: clean };
}

/**
 * Constructors of the 13 decisions, as wire objects.
 *
 * @example
 * return [
 *   Decision.startTimer('cancel-window', 30),
 *   Decision.scheduleActivity('verify', 'VerifyOrder', '1.0', { input: '{}', taskList: 'orders' }),
 * ];
 */
export const Decision = {
  /**
   * `ScheduleActivityTask`: runs activity `id`, of type `name`/`version`.
   * @param {string} id
   * @param {string} name
   * @param {string} version
   * @param {{input?: string, control?: string, taskList?: string, taskPriority?: number,
   *   scheduleToClose?: number|string, scheduleToStart?: number|string,
   *   startToClose?: number|string, heartbeat?: number|string}} [o]
   */
  scheduleActivity(id, name, version, o = {}) {
    return decision('ScheduleActivityTask', {
      activityType: { name, version },
      activityId: id,
      control: o.control,
      input: o.input,
      scheduleToCloseTimeout: secs(o.scheduleToClose),
      taskList: taskList(o.taskList),
      taskPriority: secs(o.taskPriority),
      scheduleToStartTimeout: secs(o.scheduleToStart),
      startToCloseTimeout: secs(o.startToClose),
      heartbeatTimeout: secs(o.heartbeat),
    });
  },

  /** `RequestCancelActivityTask`: asks the running activity `id` to cancel. */
  requestCancelActivity(id) {
    return decision('RequestCancelActivityTask', { activityId: id });
  },

  /**
   * `CompleteWorkflowExecution`, with an optional result: a string as is, other values as
   * canonical JSON ({@link payload}). @param {unknown} [result]
   */
  complete(result) {
    return decision('CompleteWorkflowExecution', { result: payload(result) });
  },

  /** `FailWorkflowExecution`, with a reason and optional details. */
  fail(reason, details) {
    return decision('FailWorkflowExecution', { reason, details });
  },

  /** `CancelWorkflowExecution`, with optional details. */
  cancel(details) {
    return decision('CancelWorkflowExecution', { details });
  },

  /**
   * `ContinueAsNewWorkflowExecution`: closes this run and starts a new one.
   * @param {{input?: string, executionStartToClose?: number|string, taskList?: string,
   *   taskPriority?: number, taskStartToClose?: number|string,
   *   childPolicy?: 'TERMINATE'|'REQUEST_CANCEL'|'ABANDON', tags?: string[],
   *   workflowTypeVersion?: string, lambdaRole?: string}} [o]
   */
  continueAsNew(o = {}) {
    return decision('ContinueAsNewWorkflowExecution', {
      input: o.input,
      executionStartToCloseTimeout: secs(o.executionStartToClose),
      taskList: taskList(o.taskList),
      taskPriority: secs(o.taskPriority),
      taskStartToCloseTimeout: secs(o.taskStartToClose),
      childPolicy: o.childPolicy,
      tagList: o.tags,
      workflowTypeVersion: o.workflowTypeVersion,
      lambdaRole: o.lambdaRole,
    });
  },

  /** `RecordMarker`: writes a marker into the history. @param {string} [details] */
  recordMarker(name, details) {
    return decision('RecordMarker', { markerName: name, details });
  },

  /**
   * `StartTimer`: the timer `id` fires after `seconds`.
   * @param {{control?: string}} [o]
   */
  startTimer(id, seconds, o = {}) {
    return decision('StartTimer', { timerId: id, control: o.control, startToFireTimeout: secs(seconds) });
  },

  /** `CancelTimer`: cancels the open timer `id`. */
  cancelTimer(id) {
    return decision('CancelTimer', { timerId: id });
  },

  /**
   * `SignalExternalWorkflowExecution`: sends `signalName` to the execution `workflowId`.
   * @param {{runId?: string, input?: string, control?: string}} [o]
   */
  signalExternal(workflowId, signalName, o = {}) {
    return decision('SignalExternalWorkflowExecution', {
      workflowId, runId: o.runId, signalName, input: o.input, control: o.control,
    });
  },

  /**
   * `RequestCancelExternalWorkflowExecution`: asks the execution `workflowId` to cancel.
   * @param {{runId?: string, control?: string}} [o]
   */
  requestCancelExternal(workflowId, o = {}) {
    return decision('RequestCancelExternalWorkflowExecution', {
      workflowId, runId: o.runId, control: o.control,
    });
  },

  /**
   * `StartChildWorkflowExecution`: starts the child `workflowId` of type `name`/`version`.
   * @param {{input?: string, control?: string, executionStartToClose?: number|string,
   *   taskList?: string, taskPriority?: number, taskStartToClose?: number|string,
   *   childPolicy?: 'TERMINATE'|'REQUEST_CANCEL'|'ABANDON', tags?: string[],
   *   lambdaRole?: string}} [o]
   */
  startChild(workflowId, name, version, o = {}) {
    return decision('StartChildWorkflowExecution', {
      workflowType: { name, version },
      workflowId,
      control: o.control,
      input: o.input,
      executionStartToCloseTimeout: secs(o.executionStartToClose),
      taskList: taskList(o.taskList),
      taskPriority: secs(o.taskPriority),
      taskStartToCloseTimeout: secs(o.taskStartToClose),
      childPolicy: o.childPolicy,
      tagList: o.tags,
      lambdaRole: o.lambdaRole,
    });
  },

  /**
   * `ScheduleLambdaFunction`: runs the function `name` under the id `id`.
   * @param {{input?: string, control?: string, startToClose?: number|string}} [o]
   */
  scheduleLambda(id, name, o = {}) {
    return decision('ScheduleLambdaFunction', {
      id, name, control: o.control, input: o.input, startToCloseTimeout: secs(o.startToClose),
    });
  },
};

/**
 * A decider's whole answer, as `RespondDecisionTaskCompleted` takes it (less the task token):
 * its decisions, and optionally an execution context and a task list for the next decision
 * tasks (with how long a task may wait there, in seconds).
 *
 * @param {object[]} decisions
 * @param {{executionContext?: string, taskList?: string, scheduleToStart?: number}} [o]
 */
export function response(decisions, o = {}) {
  const out = { decisions };
  if (o.executionContext !== undefined) out.executionContext = o.executionContext;
  if (o.taskList !== undefined) {
    out.taskList = { name: o.taskList };
    out.taskListScheduleToStartTimeout = secs(o.scheduleToStart);
  }
  return out;
}

/** The attributes of a wire decision (`decision.startTimerDecisionAttributes`). */
export function decisionAttributes(d) {
  return d[d.decisionType[0].toLowerCase() + d.decisionType.slice(1) + 'DecisionAttributes'];
}

/** The events a decision's acceptance and its immediate refusal are recorded as, by decision type
 * (from the one table, `swf.js`). */
export const RECORDED_AS = Object.fromEntries(
  Object.entries(DECISIONS).map(([decision, [recorded, refused]]) => [decision, [recorded, refused]]),
);
