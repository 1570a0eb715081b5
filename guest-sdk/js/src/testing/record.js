// The events SWF records for a decider's decisions (wire JSON in, wire JSON out).

import { decisionAttributes } from '../decisions.js';

const CLOSE_FAILED = {
  CompleteWorkflowExecution: 'CompleteWorkflowExecutionFailed',
  FailWorkflowExecution: 'FailWorkflowExecutionFailed',
  CancelWorkflowExecution: 'CancelWorkflowExecutionFailed',
  ContinueAsNewWorkflowExecution: 'ContinueAsNewWorkflowExecutionFailed',
};

/** Whether the decision closes the execution. */
export function isClose(decision) {
  return decision.decisionType in CLOSE_FAILED;
}

/** Records the failure SWF records for a close decision made while events wait: unhandled. */
export function closeFailed(builder, decision, completed) {
  builder.event(CLOSE_FAILED[decision.decisionType], {
    cause: 'UNHANDLED_DECISION',
    decisionTaskCompletedEventId: completed,
  });
}

/** `{...a}` less undefined members, plus the DecisionTaskCompleted event id. */
function withCompleted(a, completed, extra = {}) {
  const out = {};
  for (const [k, v] of Object.entries({ ...a, ...extra })) if (v !== undefined) out[k] = v;
  out.decisionTaskCompletedEventId = completed;
  return structuredClone(out);
}

/** Records the event SWF records for an accepted decision. */
export function recordDecision(builder, decision, completed) {
  const a = decisionAttributes(decision) ?? {};
  const defaultList = { name: 'default' };
  switch (decision.decisionType) {
    case 'ScheduleActivityTask':
      return builder.event('ActivityTaskScheduled',
        withCompleted(a, completed, { taskList: a.taskList ?? defaultList }));
    case 'RequestCancelActivityTask':
      return builder.event('ActivityTaskCancelRequested', withCompleted(a, completed));
    case 'CompleteWorkflowExecution':
      return builder.event('WorkflowExecutionCompleted', withCompleted(a, completed));
    case 'FailWorkflowExecution':
      return builder.event('WorkflowExecutionFailed', withCompleted(a, completed));
    case 'CancelWorkflowExecution':
      return builder.event('WorkflowExecutionCanceled', withCompleted(a, completed));
    case 'ContinueAsNewWorkflowExecution': {
      // The new run keeps the type's name, at the version the decision names or else this one.
      const { workflowTypeVersion, ...rest } = a;
      return builder.event('WorkflowExecutionContinuedAsNew', withCompleted(rest, completed, {
        newExecutionRunId: `${builder.execution.runId}-next`,
        taskList: a.taskList ?? defaultList,
        childPolicy: a.childPolicy ?? 'TERMINATE',
        workflowType: {
          name: builder.workflowType.name,
          version: workflowTypeVersion ?? builder.workflowType.version,
        },
      }));
    }
    case 'RecordMarker':
      return builder.event('MarkerRecorded', withCompleted(a, completed));
    case 'StartTimer':
      return builder.event('TimerStarted', withCompleted(a, completed));
    case 'CancelTimer': {
      const started = builder.latest(`timer ${JSON.stringify(a.timerId)}`, (e) =>
        e.eventType === 'TimerStarted' && e.timerStartedEventAttributes.timerId === a.timerId);
      return builder.event('TimerCanceled', withCompleted(a, completed, { startedEventId: started.eventId }));
    }
    case 'SignalExternalWorkflowExecution':
      return builder.event('SignalExternalWorkflowExecutionInitiated', withCompleted(a, completed));
    case 'RequestCancelExternalWorkflowExecution':
      return builder.event('RequestCancelExternalWorkflowExecutionInitiated', withCompleted(a, completed));
    case 'StartChildWorkflowExecution':
      return builder.event('StartChildWorkflowExecutionInitiated', withCompleted(a, completed, {
        taskList: a.taskList ?? defaultList,
        childPolicy: a.childPolicy ?? 'TERMINATE',
      }));
    case 'ScheduleLambdaFunction':
      return builder.event('LambdaFunctionScheduled', withCompleted(a, completed));
    default:
      throw new Error(`unknown decision type ${decision.decisionType}`);
  }
}
