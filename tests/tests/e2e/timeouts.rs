//! The seven SWF timeouts: four for activity tasks, two for decision tasks and the execution's
//! own start-to-close (spec §7, §8.5, §8.9).
//!
//! Each test checks the timeout's event and attributes, that it fired neither before its deadline
//! (the event's timestamp, and where cheap a look just before) nor much after it, that it fired
//! once, what SWF schedules next, and that a late answer with the dead task's token is refused
//! without touching the history. Timeouts are 1–2 s: the server runs on the real clock.

use std::time::Duration;

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
    D, DECIDERS, WORKERS, act_type, activity_task, assert_activity_token_dead, assert_types,
    child_attributes, complete_workflow, count, decision_task, describe, execution, first,
    heartbeat, history, last, millis, now_millis, pending_activities, pending_decisions,
    poll_activity_once, poll_decision_once, register_activity, register_workflow, respond,
    schedule_activity_with, server, signal, sleep_until_millis, start_child, start_on, task_list,
    types, wait_for_event, wait_for_events, wf_type,
};

/// How long after its deadline a timeout may be recorded and still pass: generous, since CI
/// machines are slow and these tests run side by side.
const SLACK_MS: i64 = 1000;

/// Asserts that `fired` was recorded no earlier than `timeout_s` seconds after `since` (epoch
/// milliseconds) and at most [`SLACK_MS`] later than that.
#[track_caller]
fn assert_on_time(fired: &HistoryEvent, since: i64, timeout_s: i64) {
    let waited = millis(fired) - since;
    let kind = fired.event_type().as_str();
    assert!(
        waited >= timeout_s * 1000,
        "{kind} after {waited} ms, before its {timeout_s} s deadline"
    );
    assert!(
        waited <= timeout_s * 1000 + SLACK_MS,
        "{kind} after {waited} ms, long past its {timeout_s} s deadline"
    );
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

#[tokio::test]
async fn an_activity_nobody_picks_up_times_out_schedule_to_start() {
    let (_server, c) = server().await;
    // Its schedule-to-close deadline comes later, once the task is closed: it must not fire too.
    let run = job(
        &c,
        vec![timed_activity("a1", "nobody", |a| {
            a.schedule_to_start_timeout("1")
                .schedule_to_close_timeout("2")
        })],
    )
    .await;
    let scheduled = millis(&history(&c, "job", &run).await[4]);

    // Shortly before the deadline the task still waits on its list.
    sleep_until_millis(scheduled + 700).await;
    let events = history(&c, "job", &run).await;
    assert_eq!(count(&events, "ActivityTaskTimedOut"), 0);
    assert_eq!(pending_activities(&c, "nobody").await, 1);

    let events = wait_for_event(&c, "job", &run, "ActivityTaskTimedOut").await;
    assert_types(
        &events,
        &activity_history(&["ActivityTaskTimedOut", "DecisionTaskScheduled"]),
    );
    assert_on_time(&events[5], scheduled, 1);
    let timed_out = only_activity_timeout(&events);
    assert_eq!(
        timed_out.timeout_type(),
        &ActivityTaskTimeoutType::ScheduleToStart
    );
    assert_eq!(timed_out.scheduled_event_id(), 5);
    assert_eq!(timed_out.started_event_id(), 0);
    assert_eq!(timed_out.details(), None);

    // The task left its list: no worker ever gets it.
    assert_eq!(pending_activities(&c, "nobody").await, 0);
    assert!(poll_activity_once(&c, "nobody").await.is_none());
    // Past the schedule-to-close deadline too, the one timeout is all there is; the decider
    // hears of it.
    sleep_until_millis(scheduled + 2500).await;
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(
        types(task.events())[..7],
        activity_history(&["ActivityTaskTimedOut", "DecisionTaskScheduled"])
    );
    assert_eq!(count(task.events(), "ActivityTaskTimedOut"), 1);
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    assert_eq!(
        count(&history(&c, "job", &run).await, "ActivityTaskTimedOut"),
        1
    );
}

/// Heartbeats `token` every 0.5 s with details "beat-1", "beat-2", … until a heartbeat is refused
/// (at most `limit` times); the details of the last one accepted and the refusal's fault.
async fn heartbeat_until_refused(c: &Client, token: &str, limit: usize) -> (String, String) {
    let mut accepted = String::new();
    for n in 1..=limit {
        let details = format!("beat-{n}");
        match heartbeat(c, token, Some(&details)).await {
            Ok(cancel_requested) => {
                assert!(!cancel_requested);
                accepted = details;
            }
            Err(fault) => return (accepted, fault),
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    panic!("{limit} heartbeats were all accepted: the task never timed out");
}

#[tokio::test]
async fn a_running_activity_times_out_start_to_close_whatever_its_heartbeats() {
    let (_server, c) = server().await;
    let run = job(
        &c,
        vec![timed_activity("a1", WORKERS, |a| {
            a.start_to_close_timeout("2")
        })],
    )
    .await;
    let work = activity_task(&c, WORKERS).await;
    // Heartbeats do not extend start-to-close: it fires 2 s after the start all the same.
    let (last_details, refusal) = heartbeat_until_refused(&c, work.task_token(), 12).await;
    assert_eq!(refusal, "UnknownResourceFault");

    let events = wait_for_event(&c, "job", &run, "ActivityTaskTimedOut").await;
    assert_types(
        &events,
        &activity_history(&[
            "ActivityTaskStarted",
            "ActivityTaskTimedOut",
            "DecisionTaskScheduled",
        ]),
    );
    assert_on_time(&events[6], millis(&events[5]), 2);
    let timed_out = only_activity_timeout(&events);
    assert_eq!(
        timed_out.timeout_type(),
        &ActivityTaskTimeoutType::StartToClose
    );
    assert_eq!(timed_out.scheduled_event_id(), 5);
    assert_eq!(timed_out.started_event_id(), 6);
    assert!(
        last_details.starts_with("beat-"),
        "no heartbeat was accepted"
    );
    assert_eq!(timed_out.details(), Some(last_details.as_str()));

    // Too late to answer.
    assert_activity_token_dead(&c, work.task_token()).await;
    assert_eq!(history(&c, "job", &run).await, events);
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(count(task.events(), "ActivityTaskTimedOut"), 1);
}

#[tokio::test]
async fn heartbeats_keep_an_activity_alive_until_they_stop() {
    let (_server, c) = server().await;
    let run = job(
        &c,
        vec![timed_activity("a1", WORKERS, |a| a.heartbeat_timeout("2"))],
    )
    .await;
    let work = activity_task(&c, WORKERS).await;
    // Six heartbeats 0.5 s apart keep it alive for 3 s, past its 2 s heartbeat timeout.
    let mut last_sent = 0;
    for n in 1..=6 {
        last_sent = now_millis();
        let details = format!("beat-{n}");
        assert_eq!(
            heartbeat(&c, work.task_token(), Some(&details)).await,
            Ok(false),
            "{details}"
        );
        if n < 6 {
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
    let events = history(&c, "job", &run).await;
    assert_eq!(
        count(&events, "ActivityTaskTimedOut"),
        0,
        "{:?}",
        types(&events)
    );
    let started = millis(&events[5]);
    assert!(
        last_sent - started >= 2500,
        "the heartbeats took {} ms",
        last_sent - started
    );

    // Then it stops: 2 s after the last heartbeat, it is timed out with that heartbeat's details.
    let events = wait_for_event(&c, "job", &run, "ActivityTaskTimedOut").await;
    assert_types(
        &events,
        &activity_history(&[
            "ActivityTaskStarted",
            "ActivityTaskTimedOut",
            "DecisionTaskScheduled",
        ]),
    );
    assert_on_time(&events[6], last_sent, 2);
    let timed_out = only_activity_timeout(&events);
    assert_eq!(
        timed_out.timeout_type(),
        &ActivityTaskTimeoutType::Heartbeat
    );
    assert_eq!(timed_out.scheduled_event_id(), 5);
    assert_eq!(timed_out.started_event_id(), 6);
    assert_eq!(timed_out.details(), Some("beat-6"));

    assert_activity_token_dead(&c, work.task_token()).await;
    assert_eq!(history(&c, "job", &run).await, events);
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(count(task.events(), "ActivityTaskTimedOut"), 1);
}

#[tokio::test]
async fn schedule_to_close_counts_the_wait_in_the_queue_and_the_run() {
    let (_server, c) = server().await;
    let run = job(
        &c,
        vec![
            timed_activity("picked", WORKERS, |a| a.schedule_to_close_timeout("2")),
            timed_activity("queued", "nobody", |a| a.schedule_to_close_timeout("2")),
        ],
    )
    .await;
    let events = history(&c, "job", &run).await;
    assert_types(&events, &activity_history(&["ActivityTaskScheduled"]));
    let scheduled = millis(&events[4]);
    // "picked" waits 1 s in its queue before a worker takes it: its deadline does not move.
    sleep_until_millis(scheduled + 1000).await;
    let work = activity_task(&c, WORKERS).await;
    assert_eq!(work.activity_id(), "picked");
    assert_eq!(
        heartbeat(&c, work.task_token(), Some("half")).await,
        Ok(false)
    );

    let events = wait_for_events(&c, "job", &run, "ActivityTaskTimedOut", 2).await;
    let started = first(&events, "ActivityTaskStarted");
    assert_eq!(started.event_id(), 7);
    let mut timeouts: Vec<&HistoryEvent> = events
        .iter()
        .filter(|e| e.event_type().as_str() == "ActivityTaskTimedOut")
        .collect();
    assert_eq!(timeouts.len(), 2, "{:?}", types(&events));
    timeouts.sort_by_key(|e| {
        e.activity_task_timed_out_event_attributes()
            .unwrap()
            .scheduled_event_id()
    });
    for (event, scheduled_event_id, started_event_id, details) in
        [(timeouts[0], 5, 7, Some("half")), (timeouts[1], 6, 0, None)]
    {
        assert_on_time(event, scheduled, 2);
        let timed_out = event.activity_task_timed_out_event_attributes().unwrap();
        assert_eq!(
            timed_out.timeout_type(),
            &ActivityTaskTimeoutType::ScheduleToClose
        );
        assert_eq!(timed_out.scheduled_event_id(), scheduled_event_id);
        assert_eq!(timed_out.started_event_id(), started_event_id);
        assert_eq!(timed_out.details(), details);
    }
    // Counted from the scheduling, not from the start 1 s later.
    assert!(millis(timeouts[0]) - millis(started) < 2000);
    // One decision task for both.
    assert_eq!(
        count(&events, "DecisionTaskScheduled"),
        2,
        "{:?}",
        types(&events)
    );
    let first_timeout = first(&events, "ActivityTaskTimedOut").event_id();
    assert!(
        last(&events, "DecisionTaskScheduled").event_id() > first_timeout,
        "{:?}",
        types(&events)
    );

    assert_activity_token_dead(&c, work.task_token()).await;
    assert_eq!(pending_activities(&c, "nobody").await, 0);
    assert_eq!(history(&c, "job", &run).await, events);
}

#[tokio::test]
async fn a_decision_task_held_too_long_times_out_start_to_close() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let run = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .workflow_type(wf_type("w", "1"))
        .task_start_to_close_timeout("1")
        .send()
        .await
        .unwrap()
        .run_id()
        .unwrap()
        .to_owned();
    let held = decision_task(&c, DECIDERS).await;

    let events = wait_for_event(&c, "job", &run, "DecisionTaskTimedOut").await;
    assert_types(
        &events,
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskTimedOut",
            "DecisionTaskScheduled",
        ],
    );
    assert_on_time(&events[3], millis(&events[2]), 1);
    let timed_out = events[3]
        .decision_task_timed_out_event_attributes()
        .unwrap();
    assert_eq!(
        timed_out.timeout_type(),
        &DecisionTaskTimeoutType::StartToClose
    );
    assert_eq!(timed_out.scheduled_event_id(), 2);
    assert_eq!(timed_out.started_event_id(), 3);
    let rescheduled = events[4]
        .decision_task_scheduled_event_attributes()
        .unwrap();
    assert_eq!(rescheduled.task_list().map(TaskList::name), Some(DECIDERS));
    assert_eq!(rescheduled.start_to_close_timeout(), Some("1"));

    // The old token is dead and changes nothing.
    expect_fault(
        c.respond_decision_task_completed()
            .task_token(held.task_token())
            .set_decisions(Some(vec![complete_workflow(None)]))
            .send()
            .await,
        "UnknownResourceFault",
    );
    assert_eq!(history(&c, "job", &run).await, events);

    // The new task works.
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(task.started_event_id(), 6);
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    let events = history(&c, "job", &run).await;
    assert_eq!(
        count(&events, "DecisionTaskTimedOut"),
        1,
        "{:?}",
        types(&events)
    );
    assert_eq!(
        describe(&c, "job", &run)
            .await
            .execution_info()
            .unwrap()
            .close_status(),
        Some(&CloseStatus::Completed)
    );
}

#[tokio::test]
async fn a_decision_task_left_on_an_override_list_times_out_schedule_to_start() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let run = start_on(&c, "job", "w", DECIDERS).await;
    let task = decision_task(&c, DECIDERS).await;
    c.respond_decision_task_completed()
        .task_token(task.task_token())
        .task_list(task_list("elsewhere"))
        .task_list_schedule_to_start_timeout("1")
        .send()
        .await
        .unwrap();
    signal(&c, "job", "wake").await;
    let events = history(&c, "job", &run).await;
    assert_types(
        &events,
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "WorkflowExecutionSignaled",
            "DecisionTaskScheduled",
        ],
    );
    let on_override = events[5]
        .decision_task_scheduled_event_attributes()
        .unwrap();
    assert_eq!(
        on_override.task_list().map(TaskList::name),
        Some("elsewhere")
    );
    assert_eq!(on_override.schedule_to_start_timeout(), Some("1"));
    let scheduled = millis(&events[5]);

    // Shortly before the deadline the task still waits on the override list.
    sleep_until_millis(scheduled + 700).await;
    assert_eq!(pending_decisions(&c, "elsewhere").await, 1);
    assert_eq!(
        count(&history(&c, "job", &run).await, "DecisionTaskTimedOut"),
        0
    );

    let events = wait_for_event(&c, "job", &run, "DecisionTaskTimedOut").await;
    assert_eq!(
        types(&events)[6..],
        ["DecisionTaskTimedOut", "DecisionTaskScheduled"]
    );
    assert_on_time(&events[6], scheduled, 1);
    let timed_out = events[6]
        .decision_task_timed_out_event_attributes()
        .unwrap();
    assert_eq!(
        timed_out.timeout_type(),
        &DecisionTaskTimeoutType::ScheduleToStart
    );
    assert_eq!(timed_out.scheduled_event_id(), 6);
    assert_eq!(timed_out.started_event_id(), 0);
    // The override is over: the new task is on the run's own list, with no schedule-to-start.
    let back = events[7]
        .decision_task_scheduled_event_attributes()
        .unwrap();
    assert_eq!(back.task_list().map(TaskList::name), Some(DECIDERS));
    assert_eq!(back.schedule_to_start_timeout(), None);
    assert_eq!(pending_decisions(&c, "elsewhere").await, 0);
    assert_eq!(pending_decisions(&c, DECIDERS).await, 1);
    assert!(poll_decision_once(&c, "elsewhere").await.is_none());

    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(task.started_event_id(), 9);
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    let events = history(&c, "job", &run).await;
    assert_eq!(
        count(&events, "DecisionTaskTimedOut"),
        1,
        "{:?}",
        types(&events)
    );
    assert_eq!(
        events.last().map(|e| e.event_type().as_str()),
        Some("WorkflowExecutionCompleted")
    );
}

/// The runId of the child `workflow_id` that `events` (a parent's history) report started.
#[track_caller]
fn child_run(events: &[HistoryEvent], workflow_id: &str) -> String {
    events
        .iter()
        .filter_map(|e| e.child_workflow_execution_started_event_attributes())
        .filter_map(|a| a.workflow_execution())
        .find(|e| e.workflow_id() == workflow_id)
        .unwrap_or_else(|| panic!("{workflow_id} did not start: {:?}", types(events)))
        .run_id()
        .to_owned()
}

#[tokio::test]
async fn a_run_out_of_time_times_out_applies_its_child_policy_and_tells_its_parent() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    // root → {terminator, canceler}, each with 2 s to live and a child of its own ("…-kid"),
    // which outlives it under its child policy.
    let root = start_on(&c, "root", "w", "root").await;
    let task = decision_task(&c, "root").await;
    let middle = |id: &str, policy: ChildPolicy| {
        start_child(
            child_attributes(id, "w")
                .task_list(task_list(id))
                .execution_start_to_close_timeout("2")
                .child_policy(policy),
        )
    };
    respond(
        &c,
        task.task_token(),
        vec![
            middle("terminator", ChildPolicy::Terminate),
            middle("canceler", ChildPolicy::RequestCancel),
        ],
    )
    .await;
    let root_events = wait_for_events(&c, "root", &root, "ChildWorkflowExecutionStarted", 2).await;
    // The root answers the task its children's starts bring, so what comes next is new.
    let task = decision_task(&c, "root").await;
    respond(&c, task.task_token(), vec![]).await;

    let mut held = Vec::new();
    for id in ["terminator", "canceler"] {
        let task = decision_task(&c, id).await;
        let kid = format!("{id}-kid");
        respond(
            &c,
            task.task_token(),
            vec![start_child(
                child_attributes(&kid, "w").task_list(task_list(&kid)),
            )],
        )
        .await;
        // The task the kid's start brings is taken and never answered.
        held.push(decision_task(&c, id).await);
    }
    let terminator = child_run(&root_events, "terminator");
    let canceler = child_run(&root_events, "canceler");

    for (id, run, policy) in [
        ("terminator", &terminator, ChildPolicy::Terminate),
        ("canceler", &canceler, ChildPolicy::RequestCancel),
    ] {
        let events = wait_for_event(&c, id, run, "WorkflowExecutionTimedOut").await;
        assert_eq!(count(&events, "WorkflowExecutionTimedOut"), 1, "{id}");
        let closed = events.last().unwrap();
        assert_on_time(closed, millis(&events[0]), 2);
        let timed_out = closed
            .workflow_execution_timed_out_event_attributes()
            .unwrap_or_else(|| panic!("{id}: {:?}", types(&events)));
        assert_eq!(
            timed_out.timeout_type(),
            &WorkflowExecutionTimeoutType::StartToClose
        );
        assert_eq!(timed_out.child_policy(), &policy);
        let info = describe(&c, id, run).await;
        let info = info.execution_info().unwrap();
        assert_eq!(info.execution_status(), &ExecutionStatus::Closed);
        assert_eq!(info.close_status(), Some(&CloseStatus::TimedOut));
    }

    // TERMINATE: the kid is terminated, and its parent, closed, records nothing of it.
    let kid_events = wait_for_event(
        &c,
        "terminator-kid",
        &child_run(
            &history(&c, "terminator", &terminator).await,
            "terminator-kid",
        ),
        "WorkflowExecutionTerminated",
    )
    .await;
    let terminated = kid_events
        .last()
        .unwrap()
        .workflow_execution_terminated_event_attributes()
        .unwrap_or_else(|| panic!("{:?}", types(&kid_events)));
    assert_eq!(
        terminated.cause(),
        Some(&WorkflowExecutionTerminatedCause::ChildPolicyApplied)
    );
    assert_eq!(terminated.child_policy(), &ChildPolicy::Terminate);
    // REQUEST_CANCEL: the kid is asked to cancel and stays open, with a decision task waiting.
    let canceler_kid = child_run(&history(&c, "canceler", &canceler).await, "canceler-kid");
    let kid_events = wait_for_event(
        &c,
        "canceler-kid",
        &canceler_kid,
        "WorkflowExecutionCancelRequested",
    )
    .await;
    let requested = first(&kid_events, "WorkflowExecutionCancelRequested")
        .workflow_execution_cancel_requested_event_attributes()
        .unwrap();
    assert_eq!(
        requested.cause(),
        Some(&WorkflowExecutionCancelRequestedCause::ChildPolicyApplied)
    );
    let info = describe(&c, "canceler-kid", &canceler_kid).await;
    assert_eq!(
        info.execution_info().unwrap().execution_status(),
        &ExecutionStatus::Open
    );
    assert_eq!(pending_decisions(&c, "canceler-kid").await, 1);

    // The timed-out runs refuse their decision tasks' tokens and stay as they closed.
    for (task, id, run) in [
        (&held[0], "terminator", &terminator),
        (&held[1], "canceler", &canceler),
    ] {
        let events = history(&c, id, run).await;
        assert_eq!(
            events.last().map(|e| e.event_type().as_str()),
            Some("WorkflowExecutionTimedOut"),
            "{id}"
        );
        expect_fault(
            c.respond_decision_task_completed()
                .task_token(task.task_token())
                .set_decisions(Some(vec![complete_workflow(None)]))
                .send()
                .await,
            "UnknownResourceFault",
        );
        assert_eq!(history(&c, id, run).await, events, "{id}");
    }

    // The root hears of both, in a decision task of its own.
    let events = wait_for_events(&c, "root", &root, "ChildWorkflowExecutionTimedOut", 2).await;
    for (id, run) in [("terminator", &terminator), ("canceler", &canceler)] {
        let initiated = events
            .iter()
            .find(|e| {
                e.start_child_workflow_execution_initiated_event_attributes()
                    .is_some_and(|a| a.workflow_id() == id)
            })
            .unwrap();
        let started = events
            .iter()
            .find(|e| {
                e.child_workflow_execution_started_event_attributes()
                    .is_some_and(|a| a.workflow_execution().unwrap().workflow_id() == id)
            })
            .unwrap();
        let timed_out = events
            .iter()
            .filter_map(|e| e.child_workflow_execution_timed_out_event_attributes())
            .find(|a| a.workflow_execution().unwrap().workflow_id() == id)
            .unwrap();
        assert_eq!(timed_out.workflow_execution(), Some(&execution(id, run)));
        assert_eq!(timed_out.workflow_type(), Some(&wf_type("w", "1")));
        assert_eq!(
            timed_out.timeout_type(),
            &WorkflowExecutionTimeoutType::StartToClose
        );
        assert_eq!(timed_out.initiated_event_id(), initiated.event_id());
        assert_eq!(timed_out.started_event_id(), started.event_id());
    }
    let first_timed_out = first(&events, "ChildWorkflowExecutionTimedOut").event_id();
    assert!(
        events
            .iter()
            .any(|e| e.event_type().as_str() == "DecisionTaskScheduled"
                && e.event_id() > first_timed_out),
        "{:?}",
        types(&events)
    );
    let task = decision_task(&c, "root").await;
    assert_eq!(count(task.events(), "ChildWorkflowExecutionTimedOut"), 2);
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
}

/// How long the restart test keeps the server down: past both of its deadlines.
const DOWNTIME_MS: u64 = 2500;

#[tokio::test]
async fn deadlines_that_pass_while_the_server_is_down_fire_when_it_is_back() {
    let (server, c) = server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .workflow_type(wf_type("w", "1"))
        .execution_start_to_close_timeout("2")
        .send()
        .await
        .unwrap()
        .run_id()
        .unwrap()
        .to_owned();
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![timed_activity("a1", WORKERS, |a| {
            a.start_to_close_timeout("1")
        })],
    )
    .await;
    let work = activity_task(&c, WORKERS).await;
    let before = history(&c, "job", &run).await;
    assert_types(&before, &activity_history(&["ActivityTaskStarted"]));

    // Both deadlines pass while no server runs.
    let down = now_millis();
    let server = server
        .restart_after(Duration::from_millis(DOWNTIME_MS))
        .await;
    let up = now_millis();
    let c = server.client();
    let events = wait_for_event(&c, "job", &run, "WorkflowExecutionTimedOut").await;
    assert_types(
        &events,
        &activity_history(&[
            "ActivityTaskStarted",
            "ActivityTaskTimedOut",
            "DecisionTaskScheduled",
            "WorkflowExecutionTimedOut",
        ]),
    );
    for fired in &events[6..] {
        let at = millis(fired);
        assert!(
            at >= down + DOWNTIME_MS as i64,
            "{} recorded before the server was back",
            fired.event_type().as_str()
        );
        assert!(
            at <= up + SLACK_MS,
            "{} recorded {} ms after the restart",
            fired.event_type().as_str(),
            at - up
        );
    }
    let timed_out = only_activity_timeout(&events);
    assert_eq!(
        timed_out.timeout_type(),
        &ActivityTaskTimeoutType::StartToClose
    );
    assert_eq!(timed_out.started_event_id(), 6);
    let closed = events[8]
        .workflow_execution_timed_out_event_attributes()
        .unwrap();
    assert_eq!(
        closed.timeout_type(),
        &WorkflowExecutionTimeoutType::StartToClose
    );
    // The token outlived the restart only to be refused.
    assert_activity_token_dead(&c, work.task_token()).await;
    assert_eq!(history(&c, "job", &run).await, events);
}

#[tokio::test]
async fn none_timeouts_never_fire() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .workflow_type(wf_type("w", "1"))
        .task_start_to_close_timeout("NONE")
        .send()
        .await
        .unwrap()
        .run_id()
        .unwrap()
        .to_owned();
    let task = decision_task(&c, DECIDERS).await;
    // "forever" has no timeout at all; "control" has a 1 s schedule-to-start, to show the server
    // does fire timeouts meanwhile.
    respond(
        &c,
        task.task_token(),
        vec![
            timed_activity("forever", WORKERS, |a| a),
            timed_activity("control", "nobody", |a| a.schedule_to_start_timeout("1")),
        ],
    )
    .await;
    let work = activity_task(&c, WORKERS).await;
    assert_eq!(work.activity_id(), "forever");
    // A decision task taken and held, with no start-to-close.
    signal(&c, "job", "wake").await;
    let held = decision_task(&c, DECIDERS).await;

    let events = wait_for_event(&c, "job", &run, "ActivityTaskTimedOut").await;
    let control = only_activity_timeout(&events);
    assert_eq!(control.scheduled_event_id(), 6);
    // Give any wrongly armed deadline time to fire: everything is 2 s old by now.
    let started = millis(&events[0]);
    sleep_until_millis(started + 2500).await;
    let events = history(&c, "job", &run).await;
    assert_eq!(
        count(&events, "ActivityTaskTimedOut"),
        1,
        "{:?}",
        types(&events)
    );
    assert_eq!(
        count(&events, "DecisionTaskTimedOut"),
        0,
        "{:?}",
        types(&events)
    );
    let forever = events[4]
        .activity_task_scheduled_event_attributes()
        .unwrap();
    assert_eq!(forever.activity_id(), "forever");
    assert_eq!(
        [
            forever.schedule_to_start_timeout(),
            forever.schedule_to_close_timeout(),
            forever.start_to_close_timeout(),
            forever.heartbeat_timeout(),
        ],
        [Some("NONE"); 4]
    );
    assert_eq!(
        first(&events, "DecisionTaskScheduled")
            .decision_task_scheduled_event_attributes()
            .unwrap()
            .start_to_close_timeout(),
        Some("NONE")
    );

    // Both tasks are still alive.
    assert_eq!(heartbeat(&c, work.task_token(), None).await, Ok(false));
    c.respond_activity_task_completed()
        .task_token(work.task_token())
        .result("done")
        .send()
        .await
        .unwrap();
    respond(&c, held.task_token(), vec![]).await;
    assert_eq!(
        history(&c, "job", &run)
            .await
            .iter()
            .filter(|e| e.event_type().as_str().ends_with("TimedOut"))
            .count(),
        1
    );
}
