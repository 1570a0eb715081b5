//! History events: the one definition of their wire format (spec §7).
//!
//! A [`HistoryEvent`] is `{eventId, eventTimestamp, eventType, <eventType>EventAttributes}` with the
//! attributes member named after the type with a lower-case first letter. Each variant of [`Event`]
//! carries its attributes struct, whose fields are the model's members: required ones as plain
//! types, optional ones as `Option`s, left out of the JSON when absent.

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;

use super::{
    ChildPolicy, Priority, RunId, TaskList, Timeout, TypeName, WorkflowExecution, WorkflowId,
};

mod cause;
mod wire;

pub(crate) use wire::{decision_attributes_member, event_attributes_member};

pub(crate) use cause::Cause;

/// Tells serde which members to leave out: absent options, and nothing else.
trait Skip {
    fn skip(&self) -> bool {
        false
    }
}

impl<T> Skip for Option<T> {
    fn skip(&self) -> bool {
        self.is_none()
    }
}

impl Skip for String {}
impl Skip for u64 {}
impl Skip for TaskList {}
impl Skip for TypeName {}
impl Skip for WorkflowExecution {}
impl Skip for ChildPolicy {}
impl Skip for Cause {}
impl Skip for Timeout {}
impl Skip for WorkflowId {}
impl Skip for RunId {}

macro_rules! events {
    ($(
        $(#[$doc:meta])*
        $name:ident => $member:literal {
            $($field:ident : $ty:ty,)*
        }
    )*) => {
        /// The attributes of each event type, named after it.
        pub(crate) mod attrs {
            #![allow(clippy::struct_field_names, reason = "members are named by the SWF model")]
            use super::*;
            $(
                $(#[$doc])*
                #[derive(Clone, Debug, Serialize, Deserialize)]
                #[serde(rename_all = "camelCase")]
                pub(crate) struct $name {
                    $(
                        #[serde(skip_serializing_if = "Skip::skip")]
                        pub(crate) $field: $ty,
                    )*
                }
            )*
        }

        /// What happened: the event type with its attributes.
        #[derive(Clone, Debug)]
        pub(crate) enum Event {
            $($name(attrs::$name),)*
        }

        impl Event {
            /// The `eventType`.
            pub(crate) fn event_type(&self) -> &'static str {
                match self {
                    $(Event::$name(_) => stringify!($name),)*
                }
            }

            /// The event of type `event_type` whose attributes are in `members` (the wire
            /// event's other members).
            fn from_wire(
                event_type: &str,
                mut members: serde_json::Map<String, serde_json::Value>,
            ) -> Result<Event, String> {
                match event_type {
                    $(stringify!($name) => {
                        let attributes = members.remove($member).ok_or(concat!("no ", $member))?;
                        serde_json::from_value(attributes)
                            .map(Event::$name)
                            .map_err(|e| format!("{}: {e}", $member))
                    })*
                    other => Err(format!("unknown event type {other:?}")),
                }
            }

            fn serialize_attributes<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
                match self {
                    $(Event::$name(a) => map.serialize_entry($member, a),)*
                }
            }
        }

        $(
            impl From<attrs::$name> for Event {
                fn from(a: attrs::$name) -> Event {
                    Event::$name(a)
                }
            }
        )*

        /// Each event type with its attributes member and the snake_case names of its fields.
        #[cfg(test)]
        const ALL_TYPES: &[(&str, &str, &[&str])] =
            &[$((stringify!($name), $member, &[$(stringify!($field)),*]),)*];
    };
}

impl Event {
    /// Whether the event is a step of an activity task's life: scheduled, started or closed.
    /// DescribeWorkflowExecution's `latestActivityTaskTimestamp` is the time of the latest.
    pub(crate) fn is_activity_task(&self) -> bool {
        matches!(
            self,
            Event::ActivityTaskScheduled(_)
                | Event::ActivityTaskStarted(_)
                | Event::ActivityTaskCompleted(_)
                | Event::ActivityTaskFailed(_)
                | Event::ActivityTaskTimedOut(_)
                | Event::ActivityTaskCanceled(_)
        )
    }

    /// The kinds of task whose started task the event may end: a task's outcome ends its own
    /// kind, a run's close ends every kind.
    pub(crate) fn ends_tasks(&self) -> &'static [crate::model::TaskKind] {
        use crate::model::TaskKind::{Activity, Decision, Function};
        match self {
            Event::DecisionTaskCompleted(_) | Event::DecisionTaskTimedOut(_) => &[Decision],
            Event::ActivityTaskCompleted(_)
            | Event::ActivityTaskFailed(_)
            | Event::ActivityTaskTimedOut(_)
            | Event::ActivityTaskCanceled(_) => &[Activity],
            Event::LambdaFunctionCompleted(_)
            | Event::LambdaFunctionFailed(_)
            | Event::LambdaFunctionTimedOut(_) => &[Function],
            Event::WorkflowExecutionCompleted(_)
            | Event::WorkflowExecutionFailed(_)
            | Event::WorkflowExecutionTimedOut(_)
            | Event::WorkflowExecutionCanceled(_)
            | Event::WorkflowExecutionContinuedAsNew(_)
            | Event::WorkflowExecutionTerminated(_) => &[Decision, Activity, Function],
            _ => &[],
        }
    }
}

/// One event of a run's history; its wire form (both ways) is in `wire.rs`.
#[derive(Clone, Debug)]
pub(crate) struct HistoryEvent {
    pub(crate) event_id: u64,
    pub(crate) timestamp: Timestamp,
    pub(crate) event: Event,
}

events! {
    WorkflowExecutionStarted => "workflowExecutionStartedEventAttributes" {
        input: Option<String>,
        execution_start_to_close_timeout: Option<Timeout>,
        task_start_to_close_timeout: Option<Timeout>,
        child_policy: ChildPolicy,
        task_list: TaskList,
        task_priority: Option<Priority>,
        workflow_type: TypeName,
        tag_list: Option<Vec<String>>,
        continued_execution_run_id: Option<RunId>,
        parent_workflow_execution: Option<WorkflowExecution>,
        parent_initiated_event_id: Option<u64>,
        lambda_role: Option<String>,
    }
    WorkflowExecutionCancelRequested => "workflowExecutionCancelRequestedEventAttributes" {
        external_workflow_execution: Option<WorkflowExecution>,
        external_initiated_event_id: Option<u64>,
        cause: Option<Cause>,
    }
    WorkflowExecutionCompleted => "workflowExecutionCompletedEventAttributes" {
        result: Option<String>,
        decision_task_completed_event_id: u64,
    }
    CompleteWorkflowExecutionFailed => "completeWorkflowExecutionFailedEventAttributes" {
        cause: Cause,
        decision_task_completed_event_id: u64,
    }
    WorkflowExecutionFailed => "workflowExecutionFailedEventAttributes" {
        reason: Option<String>,
        details: Option<String>,
        decision_task_completed_event_id: u64,
    }
    FailWorkflowExecutionFailed => "failWorkflowExecutionFailedEventAttributes" {
        cause: Cause,
        decision_task_completed_event_id: u64,
    }
    WorkflowExecutionTimedOut => "workflowExecutionTimedOutEventAttributes" {
        timeout_type: Cause,
        child_policy: ChildPolicy,
    }
    WorkflowExecutionCanceled => "workflowExecutionCanceledEventAttributes" {
        details: Option<String>,
        decision_task_completed_event_id: u64,
    }
    CancelWorkflowExecutionFailed => "cancelWorkflowExecutionFailedEventAttributes" {
        cause: Cause,
        decision_task_completed_event_id: u64,
    }
    WorkflowExecutionContinuedAsNew => "workflowExecutionContinuedAsNewEventAttributes" {
        input: Option<String>,
        decision_task_completed_event_id: u64,
        new_execution_run_id: RunId,
        execution_start_to_close_timeout: Option<Timeout>,
        task_list: TaskList,
        task_priority: Option<Priority>,
        task_start_to_close_timeout: Option<Timeout>,
        child_policy: ChildPolicy,
        tag_list: Option<Vec<String>>,
        workflow_type: TypeName,
        lambda_role: Option<String>,
    }
    ContinueAsNewWorkflowExecutionFailed => "continueAsNewWorkflowExecutionFailedEventAttributes" {
        cause: Cause,
        decision_task_completed_event_id: u64,
    }
    WorkflowExecutionTerminated => "workflowExecutionTerminatedEventAttributes" {
        reason: Option<String>,
        details: Option<String>,
        child_policy: ChildPolicy,
        cause: Option<Cause>,
    }
    WorkflowExecutionSignaled => "workflowExecutionSignaledEventAttributes" {
        signal_name: String,
        input: Option<String>,
        external_workflow_execution: Option<WorkflowExecution>,
        external_initiated_event_id: Option<u64>,
    }
    DecisionTaskScheduled => "decisionTaskScheduledEventAttributes" {
        task_list: TaskList,
        task_priority: Option<Priority>,
        start_to_close_timeout: Option<Timeout>,
        schedule_to_start_timeout: Option<Timeout>,
    }
    DecisionTaskStarted => "decisionTaskStartedEventAttributes" {
        identity: Option<String>,
        scheduled_event_id: u64,
    }
    DecisionTaskCompleted => "decisionTaskCompletedEventAttributes" {
        execution_context: Option<String>,
        scheduled_event_id: u64,
        started_event_id: u64,
        task_list: Option<TaskList>,
        task_list_schedule_to_start_timeout: Option<Timeout>,
    }
    DecisionTaskTimedOut => "decisionTaskTimedOutEventAttributes" {
        timeout_type: Cause,
        scheduled_event_id: u64,
        started_event_id: u64,
    }
    ActivityTaskScheduled => "activityTaskScheduledEventAttributes" {
        activity_type: TypeName,
        activity_id: String,
        input: Option<String>,
        control: Option<String>,
        schedule_to_start_timeout: Option<Timeout>,
        schedule_to_close_timeout: Option<Timeout>,
        start_to_close_timeout: Option<Timeout>,
        task_list: TaskList,
        task_priority: Option<Priority>,
        decision_task_completed_event_id: u64,
        heartbeat_timeout: Option<Timeout>,
    }
    ScheduleActivityTaskFailed => "scheduleActivityTaskFailedEventAttributes" {
        activity_type: TypeName,
        activity_id: String,
        cause: Cause,
        decision_task_completed_event_id: u64,
    }
    ActivityTaskStarted => "activityTaskStartedEventAttributes" {
        identity: Option<String>,
        scheduled_event_id: u64,
    }
    ActivityTaskCompleted => "activityTaskCompletedEventAttributes" {
        result: Option<String>,
        scheduled_event_id: u64,
        started_event_id: u64,
    }
    ActivityTaskFailed => "activityTaskFailedEventAttributes" {
        reason: Option<String>,
        details: Option<String>,
        scheduled_event_id: u64,
        started_event_id: u64,
    }
    ActivityTaskTimedOut => "activityTaskTimedOutEventAttributes" {
        timeout_type: Cause,
        scheduled_event_id: u64,
        started_event_id: u64,
        details: Option<String>,
    }
    ActivityTaskCanceled => "activityTaskCanceledEventAttributes" {
        details: Option<String>,
        scheduled_event_id: u64,
        started_event_id: u64,
        latest_cancel_requested_event_id: Option<u64>,
    }
    ActivityTaskCancelRequested => "activityTaskCancelRequestedEventAttributes" {
        decision_task_completed_event_id: u64,
        activity_id: String,
    }
    RequestCancelActivityTaskFailed => "requestCancelActivityTaskFailedEventAttributes" {
        activity_id: String,
        cause: Cause,
        decision_task_completed_event_id: u64,
    }
    MarkerRecorded => "markerRecordedEventAttributes" {
        marker_name: String,
        details: Option<String>,
        decision_task_completed_event_id: u64,
    }
    RecordMarkerFailed => "recordMarkerFailedEventAttributes" {
        marker_name: String,
        cause: Cause,
        decision_task_completed_event_id: u64,
    }
    TimerStarted => "timerStartedEventAttributes" {
        timer_id: String,
        control: Option<String>,
        start_to_fire_timeout: Timeout,
        decision_task_completed_event_id: u64,
    }
    StartTimerFailed => "startTimerFailedEventAttributes" {
        timer_id: String,
        cause: Cause,
        decision_task_completed_event_id: u64,
    }
    TimerFired => "timerFiredEventAttributes" {
        timer_id: String,
        started_event_id: u64,
    }
    TimerCanceled => "timerCanceledEventAttributes" {
        timer_id: String,
        started_event_id: u64,
        decision_task_completed_event_id: u64,
    }
    CancelTimerFailed => "cancelTimerFailedEventAttributes" {
        timer_id: String,
        cause: Cause,
        decision_task_completed_event_id: u64,
    }
    StartChildWorkflowExecutionInitiated => "startChildWorkflowExecutionInitiatedEventAttributes" {
        workflow_id: WorkflowId,
        workflow_type: TypeName,
        control: Option<String>,
        input: Option<String>,
        execution_start_to_close_timeout: Option<Timeout>,
        task_list: TaskList,
        task_priority: Option<Priority>,
        decision_task_completed_event_id: u64,
        child_policy: ChildPolicy,
        task_start_to_close_timeout: Option<Timeout>,
        tag_list: Option<Vec<String>>,
        lambda_role: Option<String>,
    }
    StartChildWorkflowExecutionFailed => "startChildWorkflowExecutionFailedEventAttributes" {
        workflow_type: TypeName,
        cause: Cause,
        workflow_id: WorkflowId,
        initiated_event_id: u64,
        decision_task_completed_event_id: u64,
        control: Option<String>,
    }
    ChildWorkflowExecutionStarted => "childWorkflowExecutionStartedEventAttributes" {
        workflow_execution: WorkflowExecution,
        workflow_type: TypeName,
        initiated_event_id: u64,
    }
    ChildWorkflowExecutionCompleted => "childWorkflowExecutionCompletedEventAttributes" {
        workflow_execution: WorkflowExecution,
        workflow_type: TypeName,
        result: Option<String>,
        initiated_event_id: u64,
        started_event_id: u64,
    }
    ChildWorkflowExecutionFailed => "childWorkflowExecutionFailedEventAttributes" {
        workflow_execution: WorkflowExecution,
        workflow_type: TypeName,
        reason: Option<String>,
        details: Option<String>,
        initiated_event_id: u64,
        started_event_id: u64,
    }
    ChildWorkflowExecutionTimedOut => "childWorkflowExecutionTimedOutEventAttributes" {
        workflow_execution: WorkflowExecution,
        workflow_type: TypeName,
        timeout_type: Cause,
        initiated_event_id: u64,
        started_event_id: u64,
    }
    ChildWorkflowExecutionCanceled => "childWorkflowExecutionCanceledEventAttributes" {
        workflow_execution: WorkflowExecution,
        workflow_type: TypeName,
        details: Option<String>,
        initiated_event_id: u64,
        started_event_id: u64,
    }
    ChildWorkflowExecutionTerminated => "childWorkflowExecutionTerminatedEventAttributes" {
        workflow_execution: WorkflowExecution,
        workflow_type: TypeName,
        initiated_event_id: u64,
        started_event_id: u64,
    }
    SignalExternalWorkflowExecutionInitiated => "signalExternalWorkflowExecutionInitiatedEventAttributes" {
        workflow_id: WorkflowId,
        run_id: Option<RunId>,
        signal_name: String,
        input: Option<String>,
        decision_task_completed_event_id: u64,
        control: Option<String>,
    }
    SignalExternalWorkflowExecutionFailed => "signalExternalWorkflowExecutionFailedEventAttributes" {
        workflow_id: WorkflowId,
        run_id: Option<RunId>,
        cause: Cause,
        initiated_event_id: u64,
        decision_task_completed_event_id: u64,
        control: Option<String>,
    }
    ExternalWorkflowExecutionSignaled => "externalWorkflowExecutionSignaledEventAttributes" {
        workflow_execution: WorkflowExecution,
        initiated_event_id: u64,
    }
    RequestCancelExternalWorkflowExecutionInitiated => "requestCancelExternalWorkflowExecutionInitiatedEventAttributes" {
        workflow_id: WorkflowId,
        run_id: Option<RunId>,
        decision_task_completed_event_id: u64,
        control: Option<String>,
    }
    RequestCancelExternalWorkflowExecutionFailed => "requestCancelExternalWorkflowExecutionFailedEventAttributes" {
        workflow_id: WorkflowId,
        run_id: Option<RunId>,
        cause: Cause,
        initiated_event_id: u64,
        decision_task_completed_event_id: u64,
        control: Option<String>,
    }
    ExternalWorkflowExecutionCancelRequested => "externalWorkflowExecutionCancelRequestedEventAttributes" {
        workflow_execution: WorkflowExecution,
        initiated_event_id: u64,
    }
    LambdaFunctionScheduled => "lambdaFunctionScheduledEventAttributes" {
        id: String,
        name: String,
        control: Option<String>,
        input: Option<String>,
        start_to_close_timeout: Option<Timeout>,
        decision_task_completed_event_id: u64,
    }
    LambdaFunctionStarted => "lambdaFunctionStartedEventAttributes" {
        scheduled_event_id: u64,
    }
    LambdaFunctionCompleted => "lambdaFunctionCompletedEventAttributes" {
        scheduled_event_id: u64,
        started_event_id: u64,
        result: Option<String>,
    }
    LambdaFunctionFailed => "lambdaFunctionFailedEventAttributes" {
        scheduled_event_id: u64,
        started_event_id: u64,
        reason: Option<String>,
        details: Option<String>,
    }
    LambdaFunctionTimedOut => "lambdaFunctionTimedOutEventAttributes" {
        scheduled_event_id: u64,
        started_event_id: u64,
        timeout_type: Option<Cause>,
    }
    ScheduleLambdaFunctionFailed => "scheduleLambdaFunctionFailedEventAttributes" {
        id: String,
        name: String,
        cause: Cause,
        decision_task_completed_event_id: u64,
    }
    StartLambdaFunctionFailed => "startLambdaFunctionFailedEventAttributes" {
        scheduled_event_id: Option<u64>,
        cause: Option<Cause>,
        message: Option<String>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::schema::MODEL_JSON;

    #[test]
    fn the_workflow_cores_decision_table_names_the_models_decisions_and_events() {
        let model: serde_json::Value = serde_json::from_str(MODEL_JSON).unwrap();
        let listed = |shape: &str| -> Vec<String> {
            let values = model["shapes"][shape]["enum"].as_array().unwrap();
            values
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect()
        };
        let (decisions, events) = (listed("DecisionType"), listed("EventType"));
        let table = weft_workflow_core::DECISIONS;
        let mut names: Vec<&str> = table.iter().map(|d| d.name).collect();
        names.sort_unstable();
        let mut expected: Vec<&str> = decisions.iter().map(String::as_str).collect();
        expected.sort_unstable();
        assert_eq!(names, expected);
        for row in table {
            for event in [row.recorded, row.refused] {
                assert!(
                    events.iter().any(|e| e == event),
                    "{event} is no event type"
                );
                assert!(ALL_TYPES.iter().any(|(name, ..)| *name == event), "{event}");
            }
        }
    }

    #[test]
    fn every_event_type_of_the_model_is_defined_once_with_its_member() {
        let model: serde_json::Value = serde_json::from_str(MODEL_JSON).unwrap();
        let types = &model["shapes"]["EventType"]["enum"];
        let members = &model["shapes"]["HistoryEvent"]["members"];
        assert_eq!(ALL_TYPES.len(), 54);
        assert_eq!(types.as_array().unwrap().len(), 54);
        for (name, member, fields) in ALL_TYPES {
            assert!(
                types.as_array().unwrap().iter().any(|t| t == name),
                "{name} is not in the model"
            );
            let mut expected = name[..1].to_ascii_lowercase();
            expected.push_str(&name[1..]);
            expected.push_str("EventAttributes");
            assert_eq!(*member, expected);
            // The struct has exactly the members the model defines for the event.
            let shape = members[member]["shape"].as_str().unwrap();
            let mut expected: Vec<String> = model["shapes"][shape]["members"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            let mut actual: Vec<String> = fields.iter().map(|f| camel_case(f)).collect();
            expected.sort();
            actual.sort();
            assert_eq!(actual, expected, "{name}");
        }
    }

    fn camel_case(snake: &str) -> String {
        let mut out = String::new();
        let mut upper = false;
        for c in snake.chars() {
            if c == '_' {
                upper = true;
            } else if upper {
                out.push(c.to_ascii_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn events_serialize_with_their_type_and_only_present_members() {
        let event = HistoryEvent {
            event_id: 3,
            timestamp: Timestamp::from_millis(1_500),
            event: attrs::TimerFired {
                timer_id: "t".into(),
                started_event_id: 2,
            }
            .into(),
        };
        assert_eq!(
            serde_json::to_value(&event).unwrap(),
            serde_json::json!({
                "eventId": 3,
                "eventTimestamp": 1.5,
                "eventType": "TimerFired",
                "timerFiredEventAttributes": {"timerId": "t", "startedEventId": 2}
            })
        );
        let canceled = attrs::WorkflowExecutionCancelRequested {
            external_workflow_execution: None,
            external_initiated_event_id: None,
            cause: Some(Cause::ChildPolicyApplied),
        };
        assert_eq!(
            serde_json::to_value(canceled).unwrap(),
            serde_json::json!({"cause": "CHILD_POLICY_APPLIED"})
        );
    }
}
