// What SWF records for each decision. Generated from weft-workflow-core's table (guest-sdk/core/src/lib.rs): edit the table, then run WEFT_WRITE_TABLES=1 cargo test -p weft-workflow-core.

/** Each decision type: [the event SWF records when it applies it, the one when it refuses it at once, whether applying it closes the run]. */
export const DECISIONS = {
  ScheduleActivityTask: ['ActivityTaskScheduled', 'ScheduleActivityTaskFailed', false],
  RequestCancelActivityTask: ['ActivityTaskCancelRequested', 'RequestCancelActivityTaskFailed', false],
  CompleteWorkflowExecution: ['WorkflowExecutionCompleted', 'CompleteWorkflowExecutionFailed', true],
  FailWorkflowExecution: ['WorkflowExecutionFailed', 'FailWorkflowExecutionFailed', true],
  CancelWorkflowExecution: ['WorkflowExecutionCanceled', 'CancelWorkflowExecutionFailed', true],
  ContinueAsNewWorkflowExecution: ['WorkflowExecutionContinuedAsNew', 'ContinueAsNewWorkflowExecutionFailed', true],
  RecordMarker: ['MarkerRecorded', 'RecordMarkerFailed', false],
  StartTimer: ['TimerStarted', 'StartTimerFailed', false],
  CancelTimer: ['TimerCanceled', 'CancelTimerFailed', false],
  SignalExternalWorkflowExecution: ['SignalExternalWorkflowExecutionInitiated', 'SignalExternalWorkflowExecutionFailed', false],
  RequestCancelExternalWorkflowExecution: ['RequestCancelExternalWorkflowExecutionInitiated', 'RequestCancelExternalWorkflowExecutionFailed', false],
  StartChildWorkflowExecution: ['StartChildWorkflowExecutionInitiated', 'StartChildWorkflowExecutionFailed', false],
  ScheduleLambdaFunction: ['LambdaFunctionScheduled', 'ScheduleLambdaFunctionFailed', false],
};
