//! The execution's own start-to-close timeout with its child policy, deadlines across a
//! restart, and NONE.

use super::*;

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
    let (server, c) = manual_server().await;
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
    // Both started in the root's one decision, at one instant.
    let born = millis(&history(&c, "terminator", &terminator).await[0]);
    assert_eq!(millis(&history(&c, "canceler", &canceler).await[0]), born);
    server.advance_to(born + 1999).await;
    assert_eq!(
        describe(&c, "terminator", &terminator)
            .await
            .execution_info()
            .unwrap()
            .execution_status(),
        &ExecutionStatus::Open
    );
    server.advance_to(born + 2000).await;

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
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = start_with(&c, "job", "w", |s| s.execution_start_to_close_timeout("2")).await;
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
    let down = server.now_millis();
    let server = server
        .restart_after(Duration::from_millis(DOWNTIME_MS))
        .await;
    let up = server.now_millis();
    assert_eq!(up, down + DOWNTIME_MS as i64);
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
    // Late, they fire as the server comes back, at the time it is back.
    for fired in &events[6..] {
        assert_eq!(millis(fired), up, "{}", fired.event_type().as_str());
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
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = start_with(&c, "job", "w", |s| s.task_start_to_close_timeout("NONE")).await;
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

    server.advance(Duration::from_secs(1)).await;
    let events = history(&c, "job", &run).await;
    let control = only_activity_timeout(&events);
    assert_eq!(control.scheduled_event_id(), 6);
    // Give any wrongly armed deadline time to fire: the clock moves to a second before the
    // run's own start-to-close (the type's 3600 s), the one timeout the run has.
    let started = millis(&events[0]);
    server.advance_to(started + 3_599_000).await;
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
