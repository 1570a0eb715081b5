//! The decision task timeouts: start-to-close, and schedule-to-start on a task-list override.

use super::*;

#[tokio::test]
async fn a_decision_task_held_too_long_times_out_start_to_close() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    let run = start_with(&c, "job", "w", |s| s.task_start_to_close_timeout("1")).await;
    let held = decision_task(&c, DECIDERS).await;
    let started = millis(&history(&c, "job", &run).await[2]);

    let events = pass_deadline(&server, &c, &run, started + 1000, "DecisionTaskTimedOut").await;
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
    let (server, c) = manual_server().await;
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

    // Just before the deadline the task still waits on the override list.
    server.advance_to(scheduled + 999).await;
    assert_eq!(pending_decisions(&c, "elsewhere").await, 1);
    let events = pass_deadline(&server, &c, &run, scheduled + 1000, "DecisionTaskTimedOut").await;
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
    assert_eq!(back.schedule_to_start_timeout(), Some("NONE"));
    assert_eq!(pending_decisions(&c, "elsewhere").await, 0);
    assert_eq!(pending_decisions(&c, DECIDERS).await, 1);
    no_decision_task(&server, &c, "elsewhere").await;

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
