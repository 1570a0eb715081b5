//! What a command is, for matching: the decision's type, the id it names and the type it runs,
//! read alike from a decision the code issues and from the event that recorded one.

use std::fmt;

use crate::Decision;
use crate::events::{EventAttributes as E, HistoryEvent};
use crate::types::{ActivityType, WorkflowType};

use super::state::PATCH_MARKER;

/// A command as replay compares it. Attributes that a change may alter without breaking a
/// run (inputs, timeouts, task lists, a timer's duration) are left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// The decision's type, as on the wire (`ScheduleActivityTask`).
    pub(crate) decision: &'static str,
    /// The id it names: activity, timer, Lambda or child id, marker name, target workflow.
    pub(crate) id: String,
    /// What it runs, where it names something: `ChargeCreditCard 1.0`, a Lambda function's
    /// name, a patch marker's change.
    pub(crate) what: String,
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.decision)?;
        if !self.id.is_empty() {
            write!(f, " {:?}", self.id)?;
        }
        if !self.what.is_empty() {
            write!(f, " ({})", self.what)?;
        }
        Ok(())
    }
}

fn shape(decision: &'static str, id: &str, what: String) -> Shape {
    Shape {
        decision,
        id: id.to_owned(),
        what,
    }
}

fn activity(t: &ActivityType) -> String {
    format!("{} {}", t.name, t.version)
}

fn workflow(t: &WorkflowType) -> String {
    format!("{} {}", t.name, t.version)
}

/// A patch marker's change, or nothing for other markers (whose details are data).
fn marker(name: &str, details: Option<&str>) -> String {
    match name == PATCH_MARKER {
        true => details.unwrap_or_default().to_owned(),
        false => String::new(),
    }
}

impl From<&Decision> for Shape {
    fn from(decision: &Decision) -> Self {
        use Decision as D;
        match decision {
            D::ScheduleActivityTask(a) => shape(
                "ScheduleActivityTask",
                &a.activity_id,
                activity(&a.activity_type),
            ),
            D::RequestCancelActivityTask(a) => {
                shape("RequestCancelActivityTask", &a.activity_id, String::new())
            }
            D::CompleteWorkflowExecution(_) => {
                shape("CompleteWorkflowExecution", "", String::new())
            }
            D::FailWorkflowExecution(_) => shape("FailWorkflowExecution", "", String::new()),
            D::CancelWorkflowExecution(_) => shape("CancelWorkflowExecution", "", String::new()),
            D::ContinueAsNewWorkflowExecution(_) => {
                shape("ContinueAsNewWorkflowExecution", "", String::new())
            }
            D::RecordMarker(a) => shape(
                "RecordMarker",
                &a.marker_name,
                marker(&a.marker_name, a.details.as_deref()),
            ),
            D::StartTimer(a) => shape("StartTimer", &a.timer_id, String::new()),
            D::CancelTimer(a) => shape("CancelTimer", &a.timer_id, String::new()),
            // By target only: a refused signal's event does not name the signal.
            D::SignalExternalWorkflowExecution(a) => shape(
                "SignalExternalWorkflowExecution",
                &a.workflow_id,
                String::new(),
            ),
            D::RequestCancelExternalWorkflowExecution(a) => shape(
                "RequestCancelExternalWorkflowExecution",
                &a.workflow_id,
                String::new(),
            ),
            D::StartChildWorkflowExecution(a) => shape(
                "StartChildWorkflowExecution",
                &a.workflow_id,
                workflow(&a.workflow_type),
            ),
            D::ScheduleLambdaFunction(a) => shape("ScheduleLambdaFunction", &a.id, a.name.clone()),
        }
    }
}

/// If `event` records a decision (accepted, or refused at once), the `DecisionTaskCompleted`
/// event of the task that made it and the decision's shape.
///
/// The `…Failed` events of children, signals and cancel requests that name their initiating
/// event come later, from the outside: they end a command rather than record one.
pub(crate) fn recorded(event: &HistoryEvent) -> Option<(u64, Shape)> {
    let (task, shape) = match &event.attributes {
        E::ActivityTaskScheduled(a) => (
            a.decision_task_completed_event_id,
            shape(
                "ScheduleActivityTask",
                &a.activity_id,
                activity(&a.activity_type),
            ),
        ),
        E::ScheduleActivityTaskFailed(a) => (
            a.decision_task_completed_event_id,
            shape(
                "ScheduleActivityTask",
                &a.activity_id,
                activity(&a.activity_type),
            ),
        ),
        E::ActivityTaskCancelRequested(a) => (
            a.decision_task_completed_event_id,
            shape("RequestCancelActivityTask", &a.activity_id, String::new()),
        ),
        E::RequestCancelActivityTaskFailed(a) => (
            a.decision_task_completed_event_id,
            shape("RequestCancelActivityTask", &a.activity_id, String::new()),
        ),
        E::WorkflowExecutionCompleted(a) => (
            a.decision_task_completed_event_id,
            shape("CompleteWorkflowExecution", "", String::new()),
        ),
        E::CompleteWorkflowExecutionFailed(a) => (
            a.decision_task_completed_event_id,
            shape("CompleteWorkflowExecution", "", String::new()),
        ),
        E::WorkflowExecutionFailed(a) => (
            a.decision_task_completed_event_id,
            shape("FailWorkflowExecution", "", String::new()),
        ),
        E::FailWorkflowExecutionFailed(a) => (
            a.decision_task_completed_event_id,
            shape("FailWorkflowExecution", "", String::new()),
        ),
        E::WorkflowExecutionCanceled(a) => (
            a.decision_task_completed_event_id,
            shape("CancelWorkflowExecution", "", String::new()),
        ),
        E::CancelWorkflowExecutionFailed(a) => (
            a.decision_task_completed_event_id,
            shape("CancelWorkflowExecution", "", String::new()),
        ),
        E::WorkflowExecutionContinuedAsNew(a) => (
            a.decision_task_completed_event_id,
            shape("ContinueAsNewWorkflowExecution", "", String::new()),
        ),
        E::ContinueAsNewWorkflowExecutionFailed(a) => (
            a.decision_task_completed_event_id,
            shape("ContinueAsNewWorkflowExecution", "", String::new()),
        ),
        E::MarkerRecorded(a) => (
            a.decision_task_completed_event_id,
            shape(
                "RecordMarker",
                &a.marker_name,
                marker(&a.marker_name, a.details.as_deref()),
            ),
        ),
        E::RecordMarkerFailed(a) => (
            a.decision_task_completed_event_id,
            shape("RecordMarker", &a.marker_name, String::new()),
        ),
        E::TimerStarted(a) => (
            a.decision_task_completed_event_id,
            shape("StartTimer", &a.timer_id, String::new()),
        ),
        E::StartTimerFailed(a) => (
            a.decision_task_completed_event_id,
            shape("StartTimer", &a.timer_id, String::new()),
        ),
        E::TimerCanceled(a) => (
            a.decision_task_completed_event_id,
            shape("CancelTimer", &a.timer_id, String::new()),
        ),
        E::CancelTimerFailed(a) => (
            a.decision_task_completed_event_id,
            shape("CancelTimer", &a.timer_id, String::new()),
        ),
        E::SignalExternalWorkflowExecutionInitiated(a) => (
            a.decision_task_completed_event_id,
            shape(
                "SignalExternalWorkflowExecution",
                &a.workflow_id,
                String::new(),
            ),
        ),
        E::SignalExternalWorkflowExecutionFailed(a) if a.initiated_event_id == 0 => (
            a.decision_task_completed_event_id,
            shape(
                "SignalExternalWorkflowExecution",
                &a.workflow_id,
                String::new(),
            ),
        ),
        E::RequestCancelExternalWorkflowExecutionInitiated(a) => (
            a.decision_task_completed_event_id,
            shape(
                "RequestCancelExternalWorkflowExecution",
                &a.workflow_id,
                String::new(),
            ),
        ),
        E::RequestCancelExternalWorkflowExecutionFailed(a) if a.initiated_event_id == 0 => (
            a.decision_task_completed_event_id,
            shape(
                "RequestCancelExternalWorkflowExecution",
                &a.workflow_id,
                String::new(),
            ),
        ),
        E::StartChildWorkflowExecutionInitiated(a) => (
            a.decision_task_completed_event_id,
            shape(
                "StartChildWorkflowExecution",
                &a.workflow_id,
                workflow(&a.workflow_type),
            ),
        ),
        E::StartChildWorkflowExecutionFailed(a) if a.initiated_event_id == 0 => (
            a.decision_task_completed_event_id,
            shape(
                "StartChildWorkflowExecution",
                &a.workflow_id,
                workflow(&a.workflow_type),
            ),
        ),
        E::LambdaFunctionScheduled(a) => (
            a.decision_task_completed_event_id,
            shape("ScheduleLambdaFunction", &a.id, a.name.clone()),
        ),
        E::ScheduleLambdaFunctionFailed(a) => (
            a.decision_task_completed_event_id,
            shape("ScheduleLambdaFunction", &a.id, a.name.clone()),
        ),
        _ => return None,
    };
    Some((task, shape))
}
