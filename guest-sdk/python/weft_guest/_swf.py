"""What SWF records for each decision.

Generated from weft-workflow-core's table (guest-sdk/core/src/lib.rs): edit the table, then run WEFT_WRITE_TABLES=1 cargo test -p weft-workflow-core.
"""

#: Each decision type: the event SWF records when it applies it, the one when it
#: refuses it at once, and whether applying it closes the run.
DECISIONS = {
    "ScheduleActivityTask": ("ActivityTaskScheduled", "ScheduleActivityTaskFailed", False),
    "RequestCancelActivityTask": ("ActivityTaskCancelRequested", "RequestCancelActivityTaskFailed", False),
    "CompleteWorkflowExecution": ("WorkflowExecutionCompleted", "CompleteWorkflowExecutionFailed", True),
    "FailWorkflowExecution": ("WorkflowExecutionFailed", "FailWorkflowExecutionFailed", True),
    "CancelWorkflowExecution": ("WorkflowExecutionCanceled", "CancelWorkflowExecutionFailed", True),
    "ContinueAsNewWorkflowExecution": ("WorkflowExecutionContinuedAsNew", "ContinueAsNewWorkflowExecutionFailed", True),
    "RecordMarker": ("MarkerRecorded", "RecordMarkerFailed", False),
    "StartTimer": ("TimerStarted", "StartTimerFailed", False),
    "CancelTimer": ("TimerCanceled", "CancelTimerFailed", False),
    "SignalExternalWorkflowExecution": ("SignalExternalWorkflowExecutionInitiated", "SignalExternalWorkflowExecutionFailed", False),
    "RequestCancelExternalWorkflowExecution": ("RequestCancelExternalWorkflowExecutionInitiated", "RequestCancelExternalWorkflowExecutionFailed", False),
    "StartChildWorkflowExecution": ("StartChildWorkflowExecutionInitiated", "StartChildWorkflowExecutionFailed", False),
    "ScheduleLambdaFunction": ("LambdaFunctionScheduled", "ScheduleLambdaFunctionFailed", False),
}
