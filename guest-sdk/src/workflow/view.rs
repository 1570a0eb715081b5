//! The typed history and decisions as the workflow core reads them: each event's wire type and
//! the members replay needs (`weft_workflow_core::replay::Event`). Reading only: what the
//! members mean for replay is the core's.

use weft_workflow_core::replay::{Event, Members, ReadEvent, Shape};

use crate::Decision;
use crate::events::{EventAttributes as E, HistoryEvent};
use crate::history::SwfName;
use crate::types::{ActivityType, WorkflowExecution, WorkflowType};

fn activity(t: &ActivityType) -> Option<(&str, &str)> {
    Some((&t.name, &t.version))
}

fn workflow(t: &WorkflowType) -> Option<(&str, &str)> {
    Some((&t.name, &t.version))
}

fn run(e: &WorkflowExecution) -> Option<(&str, &str)> {
    Some((&e.workflow_id, &e.run_id))
}

impl ReadEvent for HistoryEvent {
    /// The event as replay reads it. Events replay does not read keep their id and time only.
    fn read(&self) -> Event<'_> {
        let (event_type, members) = members(&self.attributes);
        Event {
            id: self.event_id,
            event_type,
            timestamp: self.event_timestamp,
            members,
        }
    }
}

/// Reads, for each event type replay reads, the members it reads: `member: value` pairs over
/// the attributes `a`. The type's wire name is its variant's.
macro_rules! read {
    ($attributes:expr, $a:ident, $($variant:ident => { $($member:ident: $value:expr),* $(,)? })*) => {
        match $attributes {
            $(E::$variant($a) => {
                let _ = &$a;
                (stringify!($variant), Members { $($member: $value,)* ..Members::default() })
            })*
            _ => ("", Members::default()),
        }
    };
}

fn members(attributes: &E) -> (&'static str, Members<'_>) {
    read! { attributes, a,
        DecisionTaskStarted => {}
        DecisionTaskTimedOut => {}
        DecisionTaskCompleted => { started_event_id: a.started_event_id }
        WorkflowExecutionSignaled => { signal_name: &a.signal_name, input: a.input.as_deref() }
        WorkflowExecutionCancelRequested => {}
        ActivityTaskScheduled => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            activity_id: &a.activity_id, type_: activity(&a.activity_type),
        }
        ScheduleActivityTaskFailed => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            activity_id: &a.activity_id, type_: activity(&a.activity_type),
            cause: Some(a.cause.swf_name()),
        }
        ActivityTaskCancelRequested => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            activity_id: &a.activity_id,
        }
        RequestCancelActivityTaskFailed => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            activity_id: &a.activity_id,
        }
        ActivityTaskCompleted => { scheduled_event_id: a.scheduled_event_id, result: a.result.as_deref() }
        ActivityTaskFailed => {
            scheduled_event_id: a.scheduled_event_id,
            reason: a.reason.as_deref(), details: a.details.as_deref(),
        }
        ActivityTaskTimedOut => {
            scheduled_event_id: a.scheduled_event_id,
            timeout_type: Some(a.timeout_type.swf_name()), details: a.details.as_deref(),
        }
        ActivityTaskCanceled => { scheduled_event_id: a.scheduled_event_id, details: a.details.as_deref() }
        WorkflowExecutionCompleted => { decision_task_completed_event_id: a.decision_task_completed_event_id }
        CompleteWorkflowExecutionFailed => { decision_task_completed_event_id: a.decision_task_completed_event_id }
        WorkflowExecutionFailed => { decision_task_completed_event_id: a.decision_task_completed_event_id }
        FailWorkflowExecutionFailed => { decision_task_completed_event_id: a.decision_task_completed_event_id }
        WorkflowExecutionCanceled => { decision_task_completed_event_id: a.decision_task_completed_event_id }
        CancelWorkflowExecutionFailed => { decision_task_completed_event_id: a.decision_task_completed_event_id }
        WorkflowExecutionContinuedAsNew => { decision_task_completed_event_id: a.decision_task_completed_event_id }
        ContinueAsNewWorkflowExecutionFailed => { decision_task_completed_event_id: a.decision_task_completed_event_id }
        MarkerRecorded => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            marker_name: &a.marker_name, details: a.details.as_deref(),
        }
        RecordMarkerFailed => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            marker_name: &a.marker_name,
        }
        TimerStarted => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            timer_id: &a.timer_id,
        }
        StartTimerFailed => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            timer_id: &a.timer_id, cause: Some(a.cause.swf_name()),
        }
        TimerFired => { started_event_id: a.started_event_id }
        TimerCanceled => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            timer_id: &a.timer_id, started_event_id: a.started_event_id,
        }
        CancelTimerFailed => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            timer_id: &a.timer_id,
        }
        StartChildWorkflowExecutionInitiated => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            workflow_id: &a.workflow_id, type_: workflow(&a.workflow_type),
        }
        StartChildWorkflowExecutionFailed => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            initiated_event_id: a.initiated_event_id,
            workflow_id: &a.workflow_id, type_: workflow(&a.workflow_type),
            cause: Some(a.cause.swf_name()),
        }
        ChildWorkflowExecutionStarted => {
            initiated_event_id: a.initiated_event_id, workflow_execution: run(&a.workflow_execution),
        }
        ChildWorkflowExecutionCompleted => { initiated_event_id: a.initiated_event_id, result: a.result.as_deref() }
        ChildWorkflowExecutionFailed => {
            initiated_event_id: a.initiated_event_id,
            reason: a.reason.as_deref(), details: a.details.as_deref(),
        }
        ChildWorkflowExecutionTimedOut => {
            initiated_event_id: a.initiated_event_id, timeout_type: Some(a.timeout_type.swf_name()),
        }
        ChildWorkflowExecutionCanceled => { initiated_event_id: a.initiated_event_id, details: a.details.as_deref() }
        ChildWorkflowExecutionTerminated => { initiated_event_id: a.initiated_event_id }
        SignalExternalWorkflowExecutionInitiated => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            workflow_id: &a.workflow_id,
        }
        SignalExternalWorkflowExecutionFailed => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            initiated_event_id: a.initiated_event_id,
            workflow_id: &a.workflow_id, cause: Some(a.cause.swf_name()),
        }
        ExternalWorkflowExecutionSignaled => { initiated_event_id: a.initiated_event_id }
        RequestCancelExternalWorkflowExecutionInitiated => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            workflow_id: &a.workflow_id,
        }
        RequestCancelExternalWorkflowExecutionFailed => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            initiated_event_id: a.initiated_event_id,
            workflow_id: &a.workflow_id, cause: Some(a.cause.swf_name()),
        }
        ExternalWorkflowExecutionCancelRequested => { initiated_event_id: a.initiated_event_id }
        LambdaFunctionScheduled => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            id: &a.id, name: &a.name,
        }
        ScheduleLambdaFunctionFailed => {
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            id: &a.id, name: &a.name, cause: Some(a.cause.swf_name()),
        }
        StartLambdaFunctionFailed => {
            scheduled_event_id: a.scheduled_event_id.unwrap_or_default(),
            cause: a.cause.as_ref().map(SwfName::swf_name),
        }
        LambdaFunctionCompleted => { scheduled_event_id: a.scheduled_event_id, result: a.result.as_deref() }
        LambdaFunctionFailed => {
            scheduled_event_id: a.scheduled_event_id,
            reason: a.reason.as_deref(), details: a.details.as_deref(),
        }
        LambdaFunctionTimedOut => {
            scheduled_event_id: a.scheduled_event_id,
            timeout_type: a.timeout_type.as_ref().map(SwfName::swf_name),
        }
    }
}

/// The shape of `decision`, as replay matches it with what the history recorded.
pub(crate) fn shape(decision: &Decision) -> Shape {
    use Decision as D;
    let m = Members::default();
    let (name, members) = match decision {
        D::ScheduleActivityTask(a) => (
            "ScheduleActivityTask",
            Members {
                activity_id: &a.activity_id,
                type_: activity(&a.activity_type),
                ..m
            },
        ),
        D::RequestCancelActivityTask(a) => (
            "RequestCancelActivityTask",
            Members {
                activity_id: &a.activity_id,
                ..m
            },
        ),
        D::CompleteWorkflowExecution(_) => ("CompleteWorkflowExecution", m),
        D::FailWorkflowExecution(_) => ("FailWorkflowExecution", m),
        D::CancelWorkflowExecution(_) => ("CancelWorkflowExecution", m),
        D::ContinueAsNewWorkflowExecution(_) => ("ContinueAsNewWorkflowExecution", m),
        D::RecordMarker(a) => (
            "RecordMarker",
            Members {
                marker_name: &a.marker_name,
                details: a.details.as_deref(),
                ..m
            },
        ),
        D::StartTimer(a) => (
            "StartTimer",
            Members {
                timer_id: &a.timer_id,
                ..m
            },
        ),
        D::CancelTimer(a) => (
            "CancelTimer",
            Members {
                timer_id: &a.timer_id,
                ..m
            },
        ),
        D::SignalExternalWorkflowExecution(a) => (
            "SignalExternalWorkflowExecution",
            Members {
                workflow_id: &a.workflow_id,
                ..m
            },
        ),
        D::RequestCancelExternalWorkflowExecution(a) => (
            "RequestCancelExternalWorkflowExecution",
            Members {
                workflow_id: &a.workflow_id,
                ..m
            },
        ),
        D::StartChildWorkflowExecution(a) => (
            "StartChildWorkflowExecution",
            Members {
                workflow_id: &a.workflow_id,
                type_: workflow(&a.workflow_type),
                ..m
            },
        ),
        D::ScheduleLambdaFunction(a) => (
            "ScheduleLambdaFunction",
            Members {
                id: &a.id,
                name: &a.name,
                ..m
            },
        ),
    };
    Shape::of_decision(name, &members).expect("every decision type is SWF's")
}
