//! The shape of every history: numbering, references between events, and exactly one
//! attributes member per event (spec §7, §8.1).

use std::collections::BTreeSet;

use weft_tests::aws_sdk_swf::types::{
    CloseStatus, ScheduleActivityTaskDecisionAttributes, TaskList,
};

use crate::flow::{
    D, DECIDERS, WORKERS, act_type, activity_task, assert_contiguous, assert_types,
    cancel_activity, cancel_timer, child_attributes, complete_workflow, decision_task, describe,
    history, marker, register_activity, register_workflow, respond, schedule_activity,
    schedule_activity_with, schedule_lambda, server, signal, signal_external, start, start_child,
    start_timer, types,
};

#[tokio::test]
async fn histories_are_numbered_from_one_without_gaps() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = start(&c, "job", "w").await;
    signal(&c, "job", "go").await;
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(task.started_event_id(), 4);
    respond(
        &c,
        task.task_token(),
        vec![
            schedule_activity("a1", "a"),
            start_timer("t", "3600"),
            marker("m", "note"),
        ],
    )
    .await;
    let work = activity_task(&c, WORKERS).await;
    assert_eq!(work.activity_id(), "a1");
    assert_eq!(work.started_event_id(), 9);
    c.respond_activity_task_completed()
        .task_token(work.task_token())
        .result("42")
        .send()
        .await
        .unwrap();
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![cancel_timer("t"), complete_workflow(Some("done"))],
    )
    .await;

    let events = history(&c, "job", &run).await;
    assert_types(
        &events,
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "WorkflowExecutionSignaled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "ActivityTaskScheduled",
            "TimerStarted",
            "MarkerRecorded",
            "ActivityTaskStarted",
            "ActivityTaskCompleted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "TimerCanceled",
            "WorkflowExecutionCompleted",
        ],
    );
    assert_contiguous(&events);
    let stamps: Vec<f64> = events
        .iter()
        .map(|e| e.event_timestamp().as_secs_f64())
        .collect();
    assert!(stamps.windows(2).all(|w| w[0] <= w[1]), "{stamps:?}");

    // References between events point at the right ids.
    let started = events[3].decision_task_started_event_attributes().unwrap();
    assert_eq!(started.scheduled_event_id(), 2);
    assert_eq!(started.identity(), Some("decider"));
    let completed = events[4]
        .decision_task_completed_event_attributes()
        .unwrap();
    assert_eq!(
        (completed.scheduled_event_id(), completed.started_event_id()),
        (2, 4)
    );
    let scheduled = events[5]
        .activity_task_scheduled_event_attributes()
        .unwrap();
    assert_eq!(scheduled.decision_task_completed_event_id(), 5);
    assert_eq!(scheduled.activity_type(), Some(&act_type("a", "1")));
    assert_eq!(scheduled.task_list().map(TaskList::name), Some(WORKERS));
    assert_eq!(scheduled.start_to_close_timeout(), Some("300"));
    let timer = events[6].timer_started_event_attributes().unwrap();
    assert_eq!(timer.decision_task_completed_event_id(), 5);
    let activity_started = events[8].activity_task_started_event_attributes().unwrap();
    assert_eq!(activity_started.scheduled_event_id(), 6);
    assert_eq!(activity_started.identity(), Some("worker"));
    let activity_done = events[9]
        .activity_task_completed_event_attributes()
        .unwrap();
    assert_eq!(
        (
            activity_done.scheduled_event_id(),
            activity_done.started_event_id()
        ),
        (6, 9)
    );
    assert_eq!(activity_done.result(), Some("42"));
    let canceled = events[13].timer_canceled_event_attributes().unwrap();
    assert_eq!(
        (
            canceled.started_event_id(),
            canceled.decision_task_completed_event_id()
        ),
        (7, 13)
    );
    let done = events[14]
        .workflow_execution_completed_event_attributes()
        .unwrap();
    assert_eq!(done.decision_task_completed_event_id(), 13);
    assert_eq!(done.result(), Some("done"));

    let detail = describe(&c, "job", &run).await;
    let info = detail.execution_info().unwrap();
    assert_eq!(info.close_status(), Some(&CloseStatus::Completed));
    let counts = detail.open_counts().unwrap();
    assert_eq!(
        (
            counts.open_activity_tasks(),
            counts.open_decision_tasks(),
            counts.open_timers(),
            counts.open_child_workflow_executions()
        ),
        (0, 0, 0, 0)
    );
}

/// `FooBar` → `fooBarEventAttributes`.
fn attributes_key(event_type: &str) -> String {
    let mut chars = event_type.chars();
    let head = chars.next().unwrap().to_ascii_lowercase();
    format!("{head}{}EventAttributes", chars.as_str())
}

#[tokio::test]
async fn every_event_carries_exactly_its_own_attributes_member() {
    let (server, c) = server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = start(&c, "job", "w").await;
    signal(&c, "job", "go").await;
    c.request_cancel_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .send()
        .await
        .unwrap();
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![
            schedule_activity("a1", "a"),
            schedule_activity_with(
                ScheduleActivityTaskDecisionAttributes::builder()
                    .activity_id("a2")
                    .activity_type(act_type("missing", "1")),
            ),
            start_timer("t", "3600"),
            cancel_timer("nope"),
            cancel_activity("nope"),
            marker("m", "x"),
            schedule_lambda("l", "f"),
            start_child(child_attributes("kid", "missing")),
            signal_external("ghost", None, "hello"),
        ],
    )
    .await;
    let work = activity_task(&c, WORKERS).await;
    c.respond_activity_task_completed()
        .task_token(work.task_token())
        .send()
        .await
        .unwrap();
    // The signal arrives while the decider works, so its close fails as UNHANDLED_DECISION.
    let task = decision_task(&c, DECIDERS).await;
    signal(&c, "job", "meanwhile").await;
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .send()
        .await
        .unwrap();

    let events = history(&c, "job", &run).await;
    let kinds: BTreeSet<&str> = types(&events).into_iter().collect();
    for expected in [
        "WorkflowExecutionCancelRequested",
        "ScheduleActivityTaskFailed",
        "CancelTimerFailed",
        "RequestCancelActivityTaskFailed",
        "ScheduleLambdaFunctionFailed",
        "StartChildWorkflowExecutionFailed",
        "SignalExternalWorkflowExecutionInitiated",
        "SignalExternalWorkflowExecutionFailed",
        "CompleteWorkflowExecutionFailed",
        "WorkflowExecutionTerminated",
    ] {
        assert!(kinds.contains(expected), "{expected} missing: {kinds:?}");
    }

    let body = format!(r#"{{"domain":"{D}","execution":{{"workflowId":"job","runId":"{run}"}}}}"#);
    let response = server
        .raw(
            Some("SimpleWorkflowService.GetWorkflowExecutionHistory"),
            body.as_bytes(),
        )
        .await;
    assert_eq!(response.status, 200, "{}", response.body);
    assert!(!response.body.contains("null"), "{}", response.body);
    let json = response.json();
    let raw_events = json["events"].as_array().expect("events");
    assert_eq!(raw_events.len(), events.len());
    for (index, event) in raw_events.iter().enumerate() {
        let object = event.as_object().expect("an event is an object");
        let event_type = object["eventType"].as_str().expect("eventType");
        assert_eq!(object["eventId"].as_i64(), Some(index as i64 + 1));
        assert!(object["eventTimestamp"].is_number(), "{event}");
        let others: Vec<&String> = object
            .keys()
            .filter(|k| !["eventId", "eventType", "eventTimestamp"].contains(&k.as_str()))
            .collect();
        assert_eq!(others, [&attributes_key(event_type)], "{event}");
        assert!(object[&attributes_key(event_type)].is_object(), "{event}");
    }
}
