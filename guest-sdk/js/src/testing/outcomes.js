// The events of the outside world a test records on a HistoryBuilder: activities, timers,
// signals, cancel requests, children, Lambda functions, and signals and cancel requests to other
// workflows delivered. Each returns the builder, to chain.

const has = (type, key, value) => (e) =>
  e.eventType === type && e[type[0].toLowerCase() + type.slice(1) + 'EventAttributes'][key] === value;

/** Drops undefined members, as the wire has no absent values. */
function clean(attrs) {
  const out = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

/**
 * The outcome methods of HistoryBuilder (its base class, to keep files small): they use its
 * `event`, `latest` and `scheduleDecisionTask`.
 */
export class Outcomes {
  /** `ActivityTaskStarted` for the activity `id`. */
  activityStarted(id) {
    const scheduled = this.latest(`activity ${JSON.stringify(id)}`, has('ActivityTaskScheduled', 'activityId', id));
    this.event('ActivityTaskStarted', { identity: 'test', scheduledEventId: scheduled.eventId });
    return this;
  }

  /** `ActivityTaskCompleted` for the activity `id`, with this result. @param {string} [result] */
  activityCompleted(id, result) {
    return this.closeActivity(id, 'ActivityTaskCompleted', { result });
  }

  /** `ActivityTaskFailed` for the activity `id`. */
  activityFailed(id, reason, details) {
    return this.closeActivity(id, 'ActivityTaskFailed', { reason, details });
  }

  /** `ActivityTaskTimedOut` for the activity `id`. @param {string} timeoutType e.g. `START_TO_CLOSE` */
  activityTimedOut(id, timeoutType) {
    return this.closeActivity(id, 'ActivityTaskTimedOut', { timeoutType });
  }

  /** `ActivityTaskCanceled` for the activity `id`. */
  activityCanceled(id, details) {
    const requested = this.events.findLast(has('ActivityTaskCancelRequested', 'activityId', id));
    return this.closeActivity(id, 'ActivityTaskCanceled', {
      details,
      latestCancelRequestedEventId: requested?.eventId,
    });
  }

  /** `WorkflowExecutionSignaled`: the signal `name` with this input. */
  signal(name, input) {
    this.event('WorkflowExecutionSignaled', clean({ signalName: name, input }));
    this.scheduleDecisionTask();
    return this;
  }

  /** `WorkflowExecutionCancelRequested`. */
  cancelRequested() {
    this.event('WorkflowExecutionCancelRequested', {});
    this.scheduleDecisionTask();
    return this;
  }

  /** `TimerFired` for the latest timer `id`. */
  timerFired(id) {
    const started = this.latest(`timer ${JSON.stringify(id)}`, has('TimerStarted', 'timerId', id));
    this.event('TimerFired', { timerId: id, startedEventId: started.eventId });
    this.scheduleDecisionTask();
    return this;
  }

  /** `ChildWorkflowExecutionStarted` for the child `workflowId`. */
  childStarted(workflowId) {
    const initiated = this.childInitiated(workflowId);
    this.event('ChildWorkflowExecutionStarted', {
      workflowExecution: childExecution(workflowId, initiated.eventId),
      workflowType: initiated.startChildWorkflowExecutionInitiatedEventAttributes.workflowType,
      initiatedEventId: initiated.eventId,
    });
    this.scheduleDecisionTask();
    return this;
  }

  /** `StartChildWorkflowExecutionFailed` for the child `workflowId`: it could not start. */
  childStartFailed(workflowId, cause) {
    const initiated = this.childInitiated(workflowId);
    const { workflowType, decisionTaskCompletedEventId } = initiated.startChildWorkflowExecutionInitiatedEventAttributes;
    this.event('StartChildWorkflowExecutionFailed', {
      workflowId, workflowType, cause, initiatedEventId: initiated.eventId, decisionTaskCompletedEventId,
    });
    this.scheduleDecisionTask();
    return this;
  }

  /** `ChildWorkflowExecutionCompleted` for the child `workflowId`, with this result. */
  childCompleted(workflowId, result) {
    return this.closeChild(workflowId, 'ChildWorkflowExecutionCompleted', { result });
  }

  /** `ChildWorkflowExecutionFailed` for the child `workflowId`. */
  childFailed(workflowId, reason, details) {
    return this.closeChild(workflowId, 'ChildWorkflowExecutionFailed', { reason, details });
  }

  /** `ChildWorkflowExecutionTimedOut` for the child `workflowId`. */
  childTimedOut(workflowId) {
    return this.closeChild(workflowId, 'ChildWorkflowExecutionTimedOut', { timeoutType: 'START_TO_CLOSE' });
  }

  /** `ChildWorkflowExecutionCanceled` for the child `workflowId`. */
  childCanceled(workflowId, details) {
    return this.closeChild(workflowId, 'ChildWorkflowExecutionCanceled', { details });
  }

  /** `ChildWorkflowExecutionTerminated` for the child `workflowId`. */
  childTerminated(workflowId) {
    return this.closeChild(workflowId, 'ChildWorkflowExecutionTerminated', {});
  }

  /** `LambdaFunctionStarted` for the function `id`. */
  lambdaStarted(id) {
    const scheduled = this.latest(`Lambda function ${JSON.stringify(id)}`, has('LambdaFunctionScheduled', 'id', id));
    this.event('LambdaFunctionStarted', { scheduledEventId: scheduled.eventId });
    return this;
  }

  /** `LambdaFunctionCompleted` for the function `id`, with this result. */
  lambdaCompleted(id, result) {
    return this.closeLambda(id, 'LambdaFunctionCompleted', { result });
  }

  /** `LambdaFunctionFailed` for the function `id`. */
  lambdaFailed(id, reason, details) {
    return this.closeLambda(id, 'LambdaFunctionFailed', { reason, details });
  }

  /** `LambdaFunctionTimedOut` for the function `id`. */
  lambdaTimedOut(id) {
    return this.closeLambda(id, 'LambdaFunctionTimedOut', { timeoutType: 'START_TO_CLOSE' });
  }

  /** `ExternalWorkflowExecutionSignaled`: the latest signal sent to `workflowId` was delivered. */
  externalSignaled(workflowId) {
    return this.externalDelivered(workflowId, 'SignalExternalWorkflowExecutionInitiated',
      'ExternalWorkflowExecutionSignaled');
  }

  /** `ExternalWorkflowExecutionCancelRequested`: the latest cancel request sent to `workflowId` was delivered. */
  externalCancelRequested(workflowId) {
    return this.externalDelivered(workflowId, 'RequestCancelExternalWorkflowExecutionInitiated',
      'ExternalWorkflowExecutionCancelRequested');
  }

  /** Records that the latest request of type `initiatedType` to `workflowId` was delivered. */
  externalDelivered(workflowId, initiatedType, eventType) {
    const initiated = this.latest(`request to workflow ${JSON.stringify(workflowId)}`,
      has(initiatedType, 'workflowId', workflowId));
    // The run it named, or else the workflow's current run.
    const { runId } = initiated[initiatedType[0].toLowerCase() + initiatedType.slice(1) + 'EventAttributes'];
    this.event(eventType, {
      workflowExecution: { workflowId, runId: runId ?? `${workflowId}-run` },
      initiatedEventId: initiated.eventId,
    });
    this.scheduleDecisionTask();
    return this;
  }

  /** Records the activity's start if needed, then its closing event. */
  closeActivity(id, eventType, attrs) {
    const scheduled = this.latest(`activity ${JSON.stringify(id)}`, has('ActivityTaskScheduled', 'activityId', id)).eventId;
    let started = this.events.find((e) => e.eventId > scheduled && has('ActivityTaskStarted', 'scheduledEventId', scheduled)(e))?.eventId;
    started ??= this.event('ActivityTaskStarted', { identity: 'test', scheduledEventId: scheduled });
    this.event(eventType, clean({ ...attrs, scheduledEventId: scheduled, startedEventId: started }));
    this.scheduleDecisionTask();
    return this;
  }

  childInitiated(workflowId) {
    return this.latest(`child ${JSON.stringify(workflowId)}`,
      has('StartChildWorkflowExecutionInitiated', 'workflowId', workflowId));
  }

  /** Records the child's start if needed, then its closing event. */
  closeChild(workflowId, eventType, attrs) {
    const initiated = this.childInitiated(workflowId);
    const id = initiated.eventId;
    const workflowType = initiated.startChildWorkflowExecutionInitiatedEventAttributes.workflowType;
    let started = this.events.find((e) => e.eventId > id && has('ChildWorkflowExecutionStarted', 'initiatedEventId', id)(e))?.eventId;
    started ??= this.event('ChildWorkflowExecutionStarted', {
      workflowExecution: childExecution(workflowId, id), workflowType, initiatedEventId: id,
    });
    this.event(eventType, clean({
      workflowExecution: childExecution(workflowId, id), workflowType, ...attrs,
      initiatedEventId: id, startedEventId: started,
    }));
    this.scheduleDecisionTask();
    return this;
  }

  /** Records the function's start if needed, then its closing event. */
  closeLambda(id, eventType, attrs) {
    const scheduled = this.latest(`Lambda function ${JSON.stringify(id)}`, has('LambdaFunctionScheduled', 'id', id)).eventId;
    let started = this.events.find((e) => e.eventId > scheduled && has('LambdaFunctionStarted', 'scheduledEventId', scheduled)(e))?.eventId;
    started ??= this.event('LambdaFunctionStarted', { scheduledEventId: scheduled });
    this.event(eventType, clean({ ...attrs, scheduledEventId: scheduled, startedEventId: started }));
    this.scheduleDecisionTask();
    return this;
  }
}

function childExecution(workflowId, initiated) {
  return { workflowId, runId: `child-run-${initiated}` };
}
