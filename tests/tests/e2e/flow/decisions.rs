//! Decision constructors: one per decision type, with the attributes tests vary.

use weft_tests::aws_sdk_swf::types::builders::{
    ContinueAsNewWorkflowExecutionDecisionAttributesBuilder,
    ScheduleActivityTaskDecisionAttributesBuilder,
    StartChildWorkflowExecutionDecisionAttributesBuilder,
};
use weft_tests::aws_sdk_swf::types::{
    CancelTimerDecisionAttributes, CancelWorkflowExecutionDecisionAttributes,
    CompleteWorkflowExecutionDecisionAttributes, ContinueAsNewWorkflowExecutionDecisionAttributes,
    Decision, DecisionType, FailWorkflowExecutionDecisionAttributes,
    RecordMarkerDecisionAttributes, RequestCancelActivityTaskDecisionAttributes,
    RequestCancelExternalWorkflowExecutionDecisionAttributes,
    ScheduleActivityTaskDecisionAttributes, ScheduleLambdaFunctionDecisionAttributes,
    SignalExternalWorkflowExecutionDecisionAttributes,
    StartChildWorkflowExecutionDecisionAttributes, StartTimerDecisionAttributes,
};

use super::{act_type, wf_type};

/// ScheduleActivityTask of type `name` version "1" as `id`, everything else from the type.
pub(crate) fn schedule_activity(id: &str, name: &str) -> Decision {
    schedule_activity_with(
        ScheduleActivityTaskDecisionAttributes::builder()
            .activity_id(id)
            .activity_type(act_type(name, "1")),
    )
}

/// ScheduleActivityTask with the given attributes.
pub(crate) fn schedule_activity_with(
    attributes: ScheduleActivityTaskDecisionAttributesBuilder,
) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::ScheduleActivityTask)
        .schedule_activity_task_decision_attributes(attributes.build().unwrap())
        .build()
        .unwrap()
}

pub(crate) fn cancel_activity(id: &str) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::RequestCancelActivityTask)
        .request_cancel_activity_task_decision_attributes(
            RequestCancelActivityTaskDecisionAttributes::builder()
                .activity_id(id)
                .build()
                .unwrap(),
        )
        .build()
        .unwrap()
}

pub(crate) fn complete_workflow(result: Option<&str>) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::CompleteWorkflowExecution)
        .complete_workflow_execution_decision_attributes(
            CompleteWorkflowExecutionDecisionAttributes::builder()
                .set_result(result.map(str::to_owned))
                .build(),
        )
        .build()
        .unwrap()
}

pub(crate) fn fail_workflow(reason: &str, details: &str) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::FailWorkflowExecution)
        .fail_workflow_execution_decision_attributes(
            FailWorkflowExecutionDecisionAttributes::builder()
                .reason(reason)
                .details(details)
                .build(),
        )
        .build()
        .unwrap()
}

pub(crate) fn cancel_workflow(details: &str) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::CancelWorkflowExecution)
        .cancel_workflow_execution_decision_attributes(
            CancelWorkflowExecutionDecisionAttributes::builder()
                .details(details)
                .build(),
        )
        .build()
        .unwrap()
}

/// ContinueAsNewWorkflowExecution with the given attributes.
pub(crate) fn continue_as_new(
    attributes: ContinueAsNewWorkflowExecutionDecisionAttributesBuilder,
) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::ContinueAsNewWorkflowExecution)
        .continue_as_new_workflow_execution_decision_attributes(attributes.build())
        .build()
        .unwrap()
}

/// A builder for ContinueAsNewWorkflowExecution attributes.
pub(crate) fn continue_as_new_attributes() -> ContinueAsNewWorkflowExecutionDecisionAttributesBuilder
{
    ContinueAsNewWorkflowExecutionDecisionAttributes::builder()
}

pub(crate) fn marker(name: &str, details: &str) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::RecordMarker)
        .record_marker_decision_attributes(
            RecordMarkerDecisionAttributes::builder()
                .marker_name(name)
                .details(details)
                .build()
                .unwrap(),
        )
        .build()
        .unwrap()
}

/// StartTimer `id` firing after `seconds`.
pub(crate) fn start_timer(id: &str, seconds: &str) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::StartTimer)
        .start_timer_decision_attributes(
            StartTimerDecisionAttributes::builder()
                .timer_id(id)
                .start_to_fire_timeout(seconds)
                .build()
                .unwrap(),
        )
        .build()
        .unwrap()
}

pub(crate) fn cancel_timer(id: &str) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::CancelTimer)
        .cancel_timer_decision_attributes(
            CancelTimerDecisionAttributes::builder()
                .timer_id(id)
                .build()
                .unwrap(),
        )
        .build()
        .unwrap()
}

/// SignalExternalWorkflowExecution `signal` with input and control to `workflow_id` (`run_id`).
pub(crate) fn signal_external(workflow_id: &str, run_id: Option<&str>, signal: &str) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::SignalExternalWorkflowExecution)
        .signal_external_workflow_execution_decision_attributes(
            SignalExternalWorkflowExecutionDecisionAttributes::builder()
                .workflow_id(workflow_id)
                .set_run_id(run_id.map(str::to_owned))
                .signal_name(signal)
                .input(format!("{signal}-input"))
                .control(format!("{signal}-control"))
                .build()
                .unwrap(),
        )
        .build()
        .unwrap()
}

/// RequestCancelExternalWorkflowExecution of `workflow_id` (`run_id`).
pub(crate) fn cancel_external(workflow_id: &str, run_id: Option<&str>) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::RequestCancelExternalWorkflowExecution)
        .request_cancel_external_workflow_execution_decision_attributes(
            RequestCancelExternalWorkflowExecutionDecisionAttributes::builder()
                .workflow_id(workflow_id)
                .set_run_id(run_id.map(str::to_owned))
                .control("cancel-control")
                .build()
                .unwrap(),
        )
        .build()
        .unwrap()
}

/// A builder for StartChildWorkflowExecution attributes: `workflow_id` of type `name` "1".
pub(crate) fn child_attributes(
    workflow_id: &str,
    name: &str,
) -> StartChildWorkflowExecutionDecisionAttributesBuilder {
    StartChildWorkflowExecutionDecisionAttributes::builder()
        .workflow_id(workflow_id)
        .workflow_type(wf_type(name, "1"))
}

/// StartChildWorkflowExecution with the given attributes.
pub(crate) fn start_child(
    attributes: StartChildWorkflowExecutionDecisionAttributesBuilder,
) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::StartChildWorkflowExecution)
        .start_child_workflow_execution_decision_attributes(attributes.build().unwrap())
        .build()
        .unwrap()
}

pub(crate) fn schedule_lambda(id: &str, name: &str) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::ScheduleLambdaFunction)
        .schedule_lambda_function_decision_attributes(
            ScheduleLambdaFunctionDecisionAttributes::builder()
                .id(id)
                .name(name)
                .build()
                .unwrap(),
        )
        .build()
        .unwrap()
}
