//! The seven SWF timeouts: four for activity tasks, two for decision tasks and the execution's
//! own start-to-close (spec §7, §8.5, §8.9).
//!
//! Each test checks the timeout's event and attributes, that it fired at its deadline exactly
//! (the event's timestamp, and where cheap a look a millisecond before), that it fired once,
//! what SWF schedules next, and that a late answer with the dead task's token is refused without
//! touching the history. The server runs on a manual clock that each test moves to the instants
//! it looks at, so nothing sleeps and every timestamp is exact.
//! The helpers are here; the tests are in `activities.rs`, `decisions.rs` and `runs.rs`.

mod activities;
mod decisions;
mod runs;

use std::time::Duration;

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::builders::ScheduleActivityTaskDecisionAttributesBuilder;
use weft_tests::aws_sdk_swf::types::{
    ActivityTaskTimedOutEventAttributes, ActivityTaskTimeoutType, ChildPolicy, CloseStatus,
    Decision, DecisionTaskTimeoutType, ExecutionStatus, HistoryEvent,
    ScheduleActivityTaskDecisionAttributes, TaskList, WorkflowExecutionCancelRequestedCause,
    WorkflowExecutionTerminatedCause, WorkflowExecutionTimeoutType,
};

use crate::common::expect_fault;
use crate::flow::{
    DECIDERS, WORKERS, act_type, activity_task, assert_activity_token_dead, assert_types,
    child_attributes, complete_workflow, count, decision_task, describe, execution, first,
    heartbeat, history, last, manual_server, millis, no_activity_task, no_decision_task,
    pending_activities, pending_decisions, register_activity, register_workflow, respond,
    schedule_activity_with, signal, start_child, start_on, start_with, task_list, types,
    wait_for_event, wait_for_events, wf_type,
};

/// Asserts that `fired` was recorded exactly `timeout_s` seconds after `since` (epoch
/// milliseconds): the clock was moved to that deadline and no further before it fired.
#[track_caller]
fn assert_on_time(fired: &HistoryEvent, since: i64, timeout_s: i64) {
    let waited = millis(fired) - since;
    let kind = fired.event_type().as_str();
    assert_eq!(
        waited,
        timeout_s * 1000,
        "{kind} after {waited} ms, not at its {timeout_s} s deadline"
    );
}

/// Moves the clock to 1 ms before `deadline`, checks that the history of run "job" has no
/// event of type `event_type` yet, then moves it to the deadline; the history then.
async fn pass_deadline(
    server: &TestServer,
    c: &Client,
    run: &str,
    deadline: i64,
    event_type: &str,
) -> Vec<HistoryEvent> {
    server.advance_to(deadline - 1).await;
    let events = history(c, "job", run).await;
    assert_eq!(count(&events, event_type), 0, "{:?}", types(&events));
    server.advance_to(deadline).await;
    history(c, "job", run).await
}

/// ScheduleActivityTask `id` of type "a" on `list` with no timeout at all ("NONE" for each of
/// the four) except what `limit` sets.
fn timed_activity(
    id: &str,
    list: &str,
    limit: impl FnOnce(
        ScheduleActivityTaskDecisionAttributesBuilder,
    ) -> ScheduleActivityTaskDecisionAttributesBuilder,
) -> Decision {
    let unlimited = ScheduleActivityTaskDecisionAttributes::builder()
        .activity_id(id)
        .activity_type(act_type("a", "1"))
        .task_list(task_list(list))
        .schedule_to_start_timeout("NONE")
        .schedule_to_close_timeout("NONE")
        .start_to_close_timeout("NONE")
        .heartbeat_timeout("NONE");
    schedule_activity_with(limit(unlimited))
}

/// Registers workflow type "w" and activity type "a", starts run "job" with decision tasks on
/// [`DECIDERS`] and answers its first decision task with `decisions`; the runId.
async fn job(c: &Client, decisions: Vec<Decision>) -> String {
    register_workflow(c, "w").await;
    register_activity(c, "a").await;
    let run = start_on(c, "job", "w", DECIDERS).await;
    let task = decision_task(c, DECIDERS).await;
    respond(c, task.task_token(), decisions).await;
    run
}

/// The attributes of the only ActivityTaskTimedOut in `events`.
#[track_caller]
fn only_activity_timeout(events: &[HistoryEvent]) -> &ActivityTaskTimedOutEventAttributes {
    assert_eq!(
        count(events, "ActivityTaskTimedOut"),
        1,
        "{:?}",
        types(events)
    );
    first(events, "ActivityTaskTimedOut")
        .activity_task_timed_out_event_attributes()
        .unwrap()
}

/// The activity events of [`job`]'s run with one activity: started, first decision task,
/// scheduled, then `rest`.
fn activity_history<'a>(rest: &[&'a str]) -> Vec<&'a str> {
    let mut expected = vec![
        "WorkflowExecutionStarted",
        "DecisionTaskScheduled",
        "DecisionTaskStarted",
        "DecisionTaskCompleted",
        "ActivityTaskScheduled",
    ];
    expected.extend_from_slice(rest);
    expected
}
