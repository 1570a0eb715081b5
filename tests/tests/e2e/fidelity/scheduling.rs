//! A decision task scheduled while another is started (spec §8.2 rule 4): AWS records the next
//! `DecisionTaskScheduled` right after the change, before the started task completes, and hands
//! it out once the started one has ended.

use std::time::Duration;

use crate::flow::{
    DECIDERS, child_attributes, complete_workflow, count, decision_task, describe, first,
    manual_server, millis, no_decision_task, pending_decisions, register_workflow, respond, server,
    signal, start, start_child, start_timer, start_with, task_list, types, wait_for_event,
};

use super::{assert_consistent, raw_history};

const PARENT: &str = "fakeuuid-1-";

/// Events 33 to 39 of a real AWS history, recorded by severb/flowy's integration tests in 2016:
///
/// ```text
/// 33 DecisionTaskScheduled
/// 34 TimerFired                       timerId delayed_task-0-0:t
/// 35 DecisionTaskStarted              scheduledEventId=33
/// 36 ChildWorkflowExecutionCompleted
/// 37 DecisionTaskScheduled            (the same timestamp as 36)
/// 38 DecisionTaskCompleted            scheduledEventId=33 startedEventId=35
/// 39 StartChildWorkflowExecutionInitiated
/// ..  DecisionTaskStarted              scheduledEventId=37
/// ```
///
/// Here they are events 8 to 16 of a run made to go the same way.
#[tokio::test]
async fn the_next_decision_task_follows_a_change_at_once_as_in_a_real_aws_history() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, PARENT, "w").await;
    let first = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        first.task_token(),
        vec![
            start_child(
                child_attributes(&format!("{PARENT}:task-0-0"), "w")
                    .task_list(task_list("children")),
            ),
            start_timer("delayed_task-0-0:t", "0"),
        ],
    )
    .await;
    // 4 DecisionTaskCompleted, 5 StartChildWorkflowExecutionInitiated, 6 TimerStarted,
    // 7 ChildWorkflowExecutionStarted, 8 DecisionTaskScheduled, 9 TimerFired: it rides along.
    wait_for_event(&c, PARENT, &run, "TimerFired").await;
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(task.started_event_id(), 10);
    // The child completes while the parent's decider works on event 10's task.
    let child = decision_task(&c, "children").await;
    respond(&c, child.task_token(), vec![complete_workflow(Some("3"))]).await;
    wait_for_event(&c, PARENT, &run, "ChildWorkflowExecutionCompleted").await;
    // The next task is held back while one is started.
    no_decision_task(&server, &c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![start_child(
            child_attributes(&format!("{PARENT}:task-1-0"), "w").task_list(task_list("children")),
        )],
    )
    .await;
    let next = decision_task(&c, DECIDERS).await;

    let events = raw_history(&server, PARENT, &run).await;
    let excerpt: Vec<&str> = events[7..16]
        .iter()
        .map(|e| e["eventType"].as_str().unwrap())
        .collect();
    assert_eq!(
        excerpt,
        [
            "DecisionTaskScheduled",
            "TimerFired",
            "DecisionTaskStarted",
            "ChildWorkflowExecutionCompleted",
            "DecisionTaskScheduled",
            "DecisionTaskCompleted",
            "StartChildWorkflowExecutionInitiated",
            "ChildWorkflowExecutionStarted",
            "DecisionTaskStarted",
        ]
    );
    assert_eq!(
        events[9]["decisionTaskStartedEventAttributes"]["scheduledEventId"],
        8
    );
    assert_eq!(
        events[11]["eventTimestamp"], events[10]["eventTimestamp"],
        "recorded in the same step as the change"
    );
    // The empty poll moved the clock before the started task completed: a task scheduled only
    // on completion would carry this later time.
    assert_ne!(events[12]["eventTimestamp"], events[10]["eventTimestamp"]);
    let completed = &events[12]["decisionTaskCompletedEventAttributes"];
    assert_eq!(
        (&completed["scheduledEventId"], &completed["startedEventId"]),
        (&8.into(), &10.into())
    );
    assert_eq!(
        events[15]["decisionTaskStartedEventAttributes"]["scheduledEventId"],
        12
    );
    assert_eq!(next.started_event_id(), 16);
    assert_eq!(next.previous_started_event_id(), 10);
    assert_eq!(
        events[8]["timerFiredEventAttributes"]["timerId"],
        "delayed_task-0-0:t"
    );
    assert_consistent(&events);
}

/// While the next task waits behind a started one, DescribeWorkflowExecution counts it open (it
/// is scheduled and not started; AWS counts a started one as no longer open), and
/// CountPendingDecisionTasks does not (no poller can take it yet).
#[tokio::test]
async fn a_held_task_is_open_but_not_pending() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    let detail = describe(&c, "job", &run).await;
    assert_eq!(detail.open_counts().unwrap().open_decision_tasks(), 1);
    let task = decision_task(&c, DECIDERS).await;
    let detail = describe(&c, "job", &run).await;
    assert_eq!(detail.open_counts().unwrap().open_decision_tasks(), 0);
    signal(&c, "job", "late").await;
    let detail = describe(&c, "job", &run).await;
    assert_eq!(detail.open_counts().unwrap().open_decision_tasks(), 1);
    assert_eq!(pending_decisions(&c, DECIDERS).await, 0);
    respond(&c, task.task_token(), vec![]).await;
    assert_eq!(pending_decisions(&c, DECIDERS).await, 1);
}

/// A started task that times out while the next is scheduled releases that one; no third is
/// scheduled.
#[tokio::test]
async fn a_started_task_timing_out_releases_the_next_without_a_third() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    let run = start_with(&c, "job", "w", |s| s.task_start_to_close_timeout("1")).await;
    let held = decision_task(&c, DECIDERS).await;
    signal(&c, "job", "late").await;
    server.advance(Duration::from_secs(1)).await;
    let events = crate::flow::history(&c, "job", &run).await;
    assert_eq!(
        types(&events),
        [
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "WorkflowExecutionSignaled",
            "DecisionTaskScheduled",
            "DecisionTaskTimedOut",
        ]
    );
    assert_eq!(
        millis(first(&events, "DecisionTaskTimedOut")),
        millis(first(&events, "DecisionTaskStarted")) + 1000,
        "the timeout comes exactly startToCloseTimeout after the start"
    );
    let next = decision_task(&c, DECIDERS).await;
    let started = next.events().last().unwrap();
    assert_eq!(
        started
            .decision_task_started_event_attributes()
            .unwrap()
            .scheduled_event_id(),
        5
    );
    assert_ne!(next.task_token(), held.task_token());
    respond(&c, next.task_token(), vec![complete_workflow(None)]).await;
    let events = raw_history(&server, "job", &run).await;
    let all: Vec<_> = crate::flow::history(&c, "job", &run).await;
    assert_eq!(count(&all, "DecisionTaskScheduled"), 2);
    assert_consistent(&events);
}
