//! Timers: a deadline for a signal, either way it goes, and a timer that outlives a restart of
//! the server (spec §6.8, §6.9, §8.5).

use std::time::Duration;

use crate::common::expect_fault;
use crate::flow::{
    D, DECIDERS, assert_types, cancel_timer, complete_workflow, decision_task, fail_workflow,
    first, history, manual_server, manual_server_polling, millis, poll_decision_once,
    register_workflow, respond, start, start_timer, types,
};

#[tokio::test]
async fn a_signal_before_the_deadline_cancels_the_timer() {
    let (_server, c) = manual_server().await;
    register_workflow(&c, "approval").await;
    let run = start(&c, "req-1", "approval").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![start_timer("deadline", "30")]).await;
    c.signal_workflow_execution()
        .domain(D)
        .workflow_id("req-1")
        .signal_name("approved")
        .send()
        .await
        .unwrap();
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![
            cancel_timer("deadline"),
            complete_workflow(Some("approved")),
        ],
    )
    .await;
    let events = history(&c, "req-1", &run).await;
    assert_types(
        &events,
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "TimerStarted",
            "WorkflowExecutionSignaled",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "TimerCanceled",
            "WorkflowExecutionCompleted",
        ],
    );
    let timer = events[4].timer_started_event_attributes().unwrap();
    assert_eq!(
        (timer.timer_id(), timer.start_to_fire_timeout()),
        ("deadline", "30")
    );
    let canceled = events[9].timer_canceled_event_attributes().unwrap();
    assert_eq!(canceled.timer_id(), "deadline");
    assert_eq!(canceled.started_event_id(), 5);
    assert_eq!(canceled.decision_task_completed_event_id(), 9);
}

#[tokio::test]
async fn a_deadline_that_passes_fires_the_timer() {
    // Polls wait longer than the timer, so the fired timer reaches a waiting poll.
    let (server, c) = manual_server_polling(Duration::from_secs(10)).await;
    register_workflow(&c, "approval").await;
    let run = start(&c, "req-1", "approval").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![start_timer("deadline", "1")]).await;
    let waiting = tokio::spawn({
        let c = c.clone();
        async move { poll_decision_once(&c, DECIDERS).await }
    });
    server.until_polls_wait(1).await;
    server.advance(Duration::from_millis(999)).await;
    let events = history(&c, "req-1", &run).await;
    assert!(
        !types(&events).contains(&"TimerFired"),
        "fired early: {:?}",
        types(&events)
    );
    server.advance(Duration::from_millis(1)).await;
    let task = waiting
        .await
        .unwrap()
        .expect("the waiting poll gets the task the timer brings");
    let fired = task
        .events()
        .iter()
        .find(|e| e.event_type().as_str() == "TimerFired")
        .expect("the decider sees the timer fire");
    let attributes = fired.timer_fired_event_attributes().unwrap();
    assert_eq!(attributes.timer_id(), "deadline");
    assert_eq!(attributes.started_event_id(), 5);
    assert_eq!(millis(fired) - millis(&task.events()[4]), 1000);
    respond(
        &c,
        task.task_token(),
        vec![fail_workflow("no approval", "deadline passed")],
    )
    .await;
    assert_types(
        &history(&c, "req-1", &run).await,
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "TimerStarted",
            "TimerFired",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "WorkflowExecutionFailed",
        ],
    );
    // Too late now.
    expect_fault(
        c.signal_workflow_execution()
            .domain(D)
            .workflow_id("req-1")
            .signal_name("approved")
            .send()
            .await,
        "UnknownResourceFault",
    );
}

#[tokio::test]
async fn a_timer_fires_after_a_restart() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![start_timer("wake-up", "2")]).await;
    let server = server.restart().await;
    let c = server.client();
    server.advance(Duration::from_secs(2)).await;
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(task.workflow_execution().unwrap().run_id(), run);
    let events = task.events();
    let fired = events
        .iter()
        .find(|e| e.event_type().as_str() == "TimerFired")
        .unwrap_or_else(|| panic!("no TimerFired in {:?}", types(events)));
    assert_eq!(
        fired.timer_fired_event_attributes().unwrap().timer_id(),
        "wake-up"
    );
    let started = first(events, "TimerStarted");
    assert_eq!(millis(fired) - millis(started), 2000);
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    assert_eq!(
        history(&c, "job", &run)
            .await
            .last()
            .unwrap()
            .event_type()
            .as_str(),
        "WorkflowExecutionCompleted"
    );
}
