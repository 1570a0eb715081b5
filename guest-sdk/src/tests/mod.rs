//! Tests of the SDK on histories built from the generated types directly: the History queries,
//! the statuses they derive, every decision builder, and the testing HistoryBuilder.

mod answers;
mod environment;
#[cfg(feature = "serde")]
mod exported;
#[cfg(feature = "serde")]
mod fixtures;
mod history_builder;
mod queries;
mod statuses;
mod worked_example;

use crate::History;
use crate::events::{EventAttributes as E, *};
use crate::tasks::DecisionTask;
use crate::types::{ActivityType, ChildPolicy, TaskList, WorkflowExecution, WorkflowType};

fn task_list(name: &str) -> TaskList {
    TaskList { name: name.into() }
}

fn activity_type() -> ActivityType {
    ActivityType {
        name: "Charge".into(),
        version: "1".into(),
    }
}

fn workflow_type() -> WorkflowType {
    WorkflowType {
        name: "Order".into(),
        version: "1".into(),
    }
}

fn execution(id: &str) -> WorkflowExecution {
    WorkflowExecution {
        workflow_id: id.into(),
        run_id: "run".into(),
    }
}

/// A history of these events, numbered from 1, whose previous decision task started at
/// `previous`.
fn history(previous: u64, events: Vec<E>) -> History {
    let events: Vec<HistoryEvent> = events
        .into_iter()
        .enumerate()
        .map(|(n, attributes)| HistoryEvent {
            event_id: n as u64 + 1,
            event_timestamp: n as f64,
            attributes,
        })
        .collect();
    History::new(DecisionTask {
        workflow_execution: execution("w"),
        workflow_type: workflow_type(),
        started_event_id: events.len() as u64,
        events,
        previous_started_event_id: previous,
    })
}

fn started(input: Option<&str>) -> E {
    E::WorkflowExecutionStarted(WorkflowExecutionStartedEventAttributes {
        input: input.map(Into::into),
        execution_start_to_close_timeout: Some("60".into()),
        task_start_to_close_timeout: Some("10".into()),
        child_policy: ChildPolicy::Terminate,
        task_list: task_list("d"),
        task_priority: None,
        workflow_type: workflow_type(),
        tag_list: None,
        continued_execution_run_id: None,
        parent_workflow_execution: None,
        parent_initiated_event_id: None,
        lambda_role: None,
    })
}

fn decision_scheduled() -> E {
    E::DecisionTaskScheduled(DecisionTaskScheduledEventAttributes {
        task_list: task_list("d"),
        task_priority: None,
        start_to_close_timeout: Some("10".into()),
        schedule_to_start_timeout: None,
    })
}

fn decision_started(scheduled: u64) -> E {
    E::DecisionTaskStarted(DecisionTaskStartedEventAttributes {
        identity: None,
        scheduled_event_id: scheduled,
    })
}

fn decision_completed(scheduled: u64) -> E {
    E::DecisionTaskCompleted(DecisionTaskCompletedEventAttributes {
        execution_context: None,
        scheduled_event_id: scheduled,
        started_event_id: scheduled + 1,
        task_list: None,
        task_list_schedule_to_start_timeout: None,
    })
}

fn signaled(name: &str, input: Option<&str>) -> E {
    E::WorkflowExecutionSignaled(WorkflowExecutionSignaledEventAttributes {
        signal_name: name.into(),
        input: input.map(Into::into),
        external_workflow_execution: None,
        external_initiated_event_id: None,
    })
}

fn activity_scheduled(id: &str) -> E {
    E::ActivityTaskScheduled(ActivityTaskScheduledEventAttributes {
        activity_type: activity_type(),
        activity_id: id.into(),
        input: None,
        control: None,
        schedule_to_start_timeout: None,
        schedule_to_close_timeout: None,
        start_to_close_timeout: None,
        task_list: task_list("a"),
        task_priority: None,
        decision_task_completed_event_id: 4,
        heartbeat_timeout: None,
    })
}

fn activity_started(scheduled: u64) -> E {
    E::ActivityTaskStarted(ActivityTaskStartedEventAttributes {
        identity: None,
        scheduled_event_id: scheduled,
    })
}

/// The first decision task's events: started (1), scheduled (2), started (3), completed (4).
fn first_decision() -> Vec<E> {
    vec![
        started(Some("order")),
        decision_scheduled(),
        decision_started(2),
        decision_completed(2),
    ]
}
