//! Every decision failure a decider can provoke: its event, its cause, its
//! decisionTaskCompletedEventId, and the new decision task it brings (spec §6, §8.2 rule 5).

use weft_tests::aws_sdk_swf::types::{
    CancelTimerFailedCause, ChildPolicy, ContinueAsNewWorkflowExecutionFailedCause, HistoryEvent,
    RequestCancelActivityTaskFailedCause, RequestCancelExternalWorkflowExecutionFailedCause,
    ScheduleActivityTaskDecisionAttributes, ScheduleActivityTaskFailedCause,
    ScheduleLambdaFunctionFailedCause, SignalExternalWorkflowExecutionFailedCause,
    StartChildWorkflowExecutionFailedCause, StartTimerFailedCause,
};

use crate::flow::{
    D, DECIDERS, act_type, cancel_activity, cancel_external, cancel_timer, child_attributes,
    continue_as_new, continue_as_new_attributes, count, decision_task, first, history,
    register_activity, register_bare_workflow, register_workflow, respond, schedule_activity,
    schedule_activity_with, schedule_lambda, server, signal_external, start, start_child,
    start_timer, task_list, types, wf_type,
};

/// The events a batch recorded: everything after its DecisionTaskCompleted, which must be
/// followed (at the end) by exactly one DecisionTaskScheduled. Returns the completed event's id
/// and the events between it and that DecisionTaskScheduled.
#[track_caller]
fn batch(events: &[HistoryEvent]) -> (i64, Vec<HistoryEvent>) {
    let completed = events
        .iter()
        .rposition(|e| e.event_type().as_str() == "DecisionTaskCompleted")
        .expect("a DecisionTaskCompleted");
    let tail = &events[completed + 1..];
    assert_eq!(
        tail.last().map(|e| e.event_type().as_str()),
        Some("DecisionTaskScheduled"),
        "a failure schedules a new decision task: {:?}",
        types(events)
    );
    assert_eq!(
        count(tail, "DecisionTaskScheduled"),
        1,
        "{:?}",
        types(events)
    );
    (
        events[completed].event_id(),
        tail[..tail.len() - 1].to_vec(),
    )
}

/// ScheduleActivityTask of the default-less type `bare` with everything given but `missing`.
fn bare_activity(id: &str, missing: &str) -> weft_tests::aws_sdk_swf::types::Decision {
    let mut attributes = ScheduleActivityTaskDecisionAttributes::builder()
        .activity_id(id)
        .activity_type(act_type("bare", "1"));
    if missing != "taskList" {
        attributes = attributes.task_list(task_list("bare-list"));
    }
    if missing != "scheduleToClose" {
        attributes = attributes.schedule_to_close_timeout("60");
    }
    if missing != "scheduleToStart" {
        attributes = attributes.schedule_to_start_timeout("60");
    }
    if missing != "startToClose" {
        attributes = attributes.start_to_close_timeout("60");
    }
    schedule_activity_with(attributes)
}

#[tokio::test]
async fn schedule_activity_task_failures() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "known").await;
    register_activity(&c, "old").await;
    c.deprecate_activity_type()
        .domain(D)
        .activity_type(act_type("old", "1"))
        .send()
        .await
        .unwrap();
    c.register_activity_type()
        .domain(D)
        .name("bare")
        .version("1")
        .send()
        .await
        .unwrap();
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![schedule_activity("a1", "known")],
    )
    .await;
    // Nothing triggers a decision task yet: give it one.
    c.signal_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .signal_name("go")
        .send()
        .await
        .unwrap();
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![
            schedule_activity("missing-type", "missing"),
            schedule_activity("deprecated-type", "old"),
            schedule_activity("a1", "known"),
            bare_activity("no-list", "taskList"),
            bare_activity("no-schedule-to-close", "scheduleToClose"),
            bare_activity("no-schedule-to-start", "scheduleToStart"),
            bare_activity("no-start-to-close", "startToClose"),
            bare_activity("all-given", "nothing"),
        ],
    )
    .await;
    let events = history(&c, "job", &run).await;
    let (completed, recorded) = batch(&events);
    assert_eq!(
        types(&recorded),
        [
            "ScheduleActivityTaskFailed",
            "ScheduleActivityTaskFailed",
            "ScheduleActivityTaskFailed",
            "ScheduleActivityTaskFailed",
            "ScheduleActivityTaskFailed",
            "ScheduleActivityTaskFailed",
            "ScheduleActivityTaskFailed",
            "ActivityTaskScheduled",
        ]
    );
    let expected = [
        (
            "missing-type",
            "missing",
            ScheduleActivityTaskFailedCause::ActivityTypeDoesNotExist,
        ),
        (
            "deprecated-type",
            "old",
            ScheduleActivityTaskFailedCause::ActivityTypeDeprecated,
        ),
        (
            "a1",
            "known",
            ScheduleActivityTaskFailedCause::ActivityIdAlreadyInUse,
        ),
        (
            "no-list",
            "bare",
            ScheduleActivityTaskFailedCause::DefaultTaskListUndefined,
        ),
        (
            "no-schedule-to-close",
            "bare",
            ScheduleActivityTaskFailedCause::DefaultScheduleToCloseTimeoutUndefined,
        ),
        (
            "no-schedule-to-start",
            "bare",
            ScheduleActivityTaskFailedCause::DefaultScheduleToStartTimeoutUndefined,
        ),
        (
            "no-start-to-close",
            "bare",
            ScheduleActivityTaskFailedCause::DefaultStartToCloseTimeoutUndefined,
        ),
    ];
    for (event, (id, name, cause)) in recorded.iter().zip(expected) {
        let failed = event
            .schedule_activity_task_failed_event_attributes()
            .unwrap();
        assert_eq!(failed.activity_id(), id);
        assert_eq!(failed.activity_type(), Some(&act_type(name, "1")));
        assert_eq!(failed.cause(), &cause, "{id}");
        assert_eq!(failed.decision_task_completed_event_id(), completed);
    }
    // An unset heartbeat timeout resolves to NONE.
    let scheduled = recorded[7]
        .activity_task_scheduled_event_attributes()
        .unwrap();
    assert_eq!(scheduled.heartbeat_timeout(), Some("NONE"));
    assert_eq!(scheduled.task_list().unwrap().name(), "bare-list");
    // No priority was given, by the decision or the type: AWS records none.
    assert_eq!(scheduled.task_priority(), None);
}

#[tokio::test]
async fn activity_cancel_and_timer_failures() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![
            start_timer("t1", "3600"),
            cancel_activity("never-scheduled"),
            cancel_timer("never-started"),
        ],
    )
    .await;
    let events = history(&c, "job", &run).await;
    let (completed, recorded) = batch(&events);
    assert_eq!(
        types(&recorded),
        [
            "TimerStarted",
            "RequestCancelActivityTaskFailed",
            "CancelTimerFailed"
        ]
    );
    let failed = recorded[1]
        .request_cancel_activity_task_failed_event_attributes()
        .unwrap();
    assert_eq!(failed.activity_id(), "never-scheduled");
    assert_eq!(
        failed.cause(),
        &RequestCancelActivityTaskFailedCause::ActivityIdUnknown
    );
    assert_eq!(failed.decision_task_completed_event_id(), completed);
    let failed = recorded[2].cancel_timer_failed_event_attributes().unwrap();
    assert_eq!(failed.timer_id(), "never-started");
    assert_eq!(failed.cause(), &CancelTimerFailedCause::TimerIdUnknown);
    assert_eq!(failed.decision_task_completed_event_id(), completed);

    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![start_timer("t1", "10")]).await;
    let events = history(&c, "job", &run).await;
    let (completed, recorded) = batch(&events);
    assert_eq!(types(&recorded), ["StartTimerFailed"]);
    let failed = recorded[0].start_timer_failed_event_attributes().unwrap();
    assert_eq!(failed.timer_id(), "t1");
    assert_eq!(failed.cause(), &StartTimerFailedCause::TimerIdAlreadyInUse);
    assert_eq!(failed.decision_task_completed_event_id(), completed);
}

#[tokio::test]
async fn external_signals_and_cancels_to_unknown_executions_fail() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let closed = start(&c, "closed", "w").await;
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("closed")
        .send()
        .await
        .unwrap();
    let open = start(&c, "open", "w").await;
    let run = start(&c, "job", "w").await;
    // The first two tasks belong to "open" (scheduled first) and "job".
    let mut task = decision_task(&c, DECIDERS).await;
    if task.workflow_execution().unwrap().workflow_id() != "job" {
        task = decision_task(&c, DECIDERS).await;
    }
    assert_eq!(task.workflow_execution().unwrap().workflow_id(), "job");
    let targets: [(&str, Option<&str>); 3] = [
        ("ghost", None),
        ("closed", Some(&closed)),
        ("open", Some("not-its-run")),
    ];
    let mut decisions = Vec::new();
    for (id, run_id) in targets {
        decisions.push(signal_external(id, run_id, "hello"));
        decisions.push(cancel_external(id, run_id));
    }
    respond(&c, task.task_token(), decisions).await;
    // Every failure follows its Initiated event, recorded in the batch's own transaction (as
    // effects on other runs are): all six are there once the response came.
    let events = history(&c, "job", &run).await;
    assert_eq!(
        count(&events, "SignalExternalWorkflowExecutionFailed"),
        3,
        "{:?}",
        types(&events)
    );
    assert_eq!(
        count(&events, "RequestCancelExternalWorkflowExecutionFailed"),
        3,
        "{:?}",
        types(&events)
    );
    let completed = first(&events, "DecisionTaskCompleted").event_id();
    let initiated: Vec<&HistoryEvent> = events
        .iter()
        .filter(|e| e.event_type().as_str().ends_with("Initiated"))
        .collect();
    assert_eq!(initiated.len(), 6, "{:?}", types(&events));
    for event in events
        .iter()
        .filter(|e| e.event_type().as_str() == "SignalExternalWorkflowExecutionFailed")
    {
        let failed = event
            .signal_external_workflow_execution_failed_event_attributes()
            .unwrap();
        assert_eq!(
            failed.cause(),
            &SignalExternalWorkflowExecutionFailedCause::UnknownExternalWorkflowExecution
        );
        assert_eq!(failed.decision_task_completed_event_id(), completed);
        assert_eq!(failed.control(), Some("hello-control"));
        let source = &events[failed.initiated_event_id() as usize - 1];
        let source = source
            .signal_external_workflow_execution_initiated_event_attributes()
            .expect("initiatedEventId names the Initiated event");
        assert_eq!(source.workflow_id(), failed.workflow_id());
        assert_eq!(source.run_id(), failed.run_id());
        assert!(failed.initiated_event_id() < event.event_id());
    }
    for event in events
        .iter()
        .filter(|e| e.event_type().as_str() == "RequestCancelExternalWorkflowExecutionFailed")
    {
        let failed = event
            .request_cancel_external_workflow_execution_failed_event_attributes()
            .unwrap();
        assert_eq!(
            failed.cause(),
            &RequestCancelExternalWorkflowExecutionFailedCause::UnknownExternalWorkflowExecution
        );
        assert_eq!(failed.decision_task_completed_event_id(), completed);
        let source = &events[failed.initiated_event_id() as usize - 1];
        let source = source
            .request_cancel_external_workflow_execution_initiated_event_attributes()
            .expect("initiatedEventId names the Initiated event");
        assert_eq!(source.workflow_id(), failed.workflow_id());
        assert!(failed.initiated_event_id() < event.event_id());
    }
    let signaled: Vec<_> = events
        .iter()
        .filter_map(|e| e.signal_external_workflow_execution_failed_event_attributes())
        .map(|f| f.workflow_id().to_owned())
        .collect();
    assert_eq!(signaled, ["ghost", "closed", "open"]);
    // No target was touched, and the sender has one decision task to react.
    let target = history(&c, "open", &open).await;
    assert_eq!(count(&target, "WorkflowExecutionSignaled"), 0);
    assert_eq!(count(&target, "WorkflowExecutionCancelRequested"), 0);
    assert_eq!(count(&events, "DecisionTaskScheduled"), 2);
}

#[tokio::test]
async fn start_child_workflow_execution_failures() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    register_workflow(&c, "old").await;
    c.deprecate_workflow_type()
        .domain(D)
        .workflow_type(wf_type("old", "1"))
        .send()
        .await
        .unwrap();
    register_bare_workflow(&c, "bare", "1").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    let bare = |id: &str, missing: &str| {
        let mut attributes = child_attributes(id, "bare");
        if missing != "taskList" {
            attributes = attributes.task_list(task_list("kids"));
        }
        if missing != "executionStartToClose" {
            attributes = attributes.execution_start_to_close_timeout("60");
        }
        if missing != "taskStartToClose" {
            attributes = attributes.task_start_to_close_timeout("10");
        }
        if missing != "childPolicy" {
            attributes = attributes.child_policy(ChildPolicy::Terminate);
        }
        start_child(attributes)
    };
    respond(
        &c,
        task.task_token(),
        vec![
            start_child(child_attributes("k-missing", "missing").control("c1")),
            start_child(child_attributes("k-old", "old")),
            bare("k-no-list", "taskList"),
            bare("k-no-execution-timeout", "executionStartToClose"),
            bare("k-no-task-timeout", "taskStartToClose"),
            bare("k-no-policy", "childPolicy"),
            // The parent itself is an open execution with this workflowId.
            start_child(child_attributes("job", "w")),
        ],
    )
    .await;
    // Recorded with the batch, the failure to start the child too (an effect on another run).
    let events = history(&c, "job", &run).await;
    let completed = first(&events, "DecisionTaskCompleted").event_id();
    let failures: Vec<&HistoryEvent> = events
        .iter()
        .filter(|e| e.event_type().as_str() == "StartChildWorkflowExecutionFailed")
        .collect();
    assert_eq!(failures.len(), 7, "{:?}", types(&events));
    use StartChildWorkflowExecutionFailedCause as Cause;
    let expected = [
        ("k-missing", Cause::WorkflowTypeDoesNotExist),
        ("k-old", Cause::WorkflowTypeDeprecated),
        ("k-no-list", Cause::DefaultTaskListUndefined),
        (
            "k-no-execution-timeout",
            Cause::DefaultExecutionStartToCloseTimeoutUndefined,
        ),
        (
            "k-no-task-timeout",
            Cause::DefaultTaskStartToCloseTimeoutUndefined,
        ),
        ("k-no-policy", Cause::DefaultChildPolicyUndefined),
        ("job", Cause::WorkflowAlreadyRunning),
    ];
    for (event, (id, cause)) in failures.iter().zip(expected) {
        let failed = event
            .start_child_workflow_execution_failed_event_attributes()
            .unwrap();
        assert_eq!(failed.workflow_id(), id);
        assert_eq!(failed.cause(), &cause, "{id}");
        assert_eq!(failed.decision_task_completed_event_id(), completed);
        if cause == Cause::WorkflowAlreadyRunning {
            // Initiated first, then Failed with its id.
            let initiated = &events[failed.initiated_event_id() as usize - 1];
            let initiated = initiated
                .start_child_workflow_execution_initiated_event_attributes()
                .expect("initiatedEventId names the Initiated event");
            assert_eq!(initiated.workflow_id(), "job");
            assert_eq!(initiated.decision_task_completed_event_id(), completed);
        } else {
            assert_eq!(failed.initiated_event_id(), 0, "{id}");
        }
    }
    let first_failure = failures[0]
        .start_child_workflow_execution_failed_event_attributes()
        .unwrap();
    assert_eq!(
        first_failure.workflow_type(),
        Some(&wf_type("missing", "1"))
    );
    assert_eq!(first_failure.control(), Some("c1"));
    assert_eq!(count(&events, "StartChildWorkflowExecutionInitiated"), 1);
    assert_eq!(count(&events, "DecisionTaskScheduled"), 2);
}

#[tokio::test]
async fn continue_as_new_failures() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    c.register_workflow_type()
        .domain(D)
        .name("w")
        .version("old")
        .default_task_list(task_list(DECIDERS))
        .default_execution_start_to_close_timeout("600")
        .default_task_start_to_close_timeout("60")
        .default_child_policy(ChildPolicy::Terminate)
        .send()
        .await
        .unwrap();
    c.deprecate_workflow_type()
        .domain(D)
        .workflow_type(wf_type("w", "old"))
        .send()
        .await
        .unwrap();
    register_bare_workflow(&c, "bare", "1").await;
    use ContinueAsNewWorkflowExecutionFailedCause as Cause;

    let run = start(&c, "job", "w").await;
    for (version, cause) in [
        ("9", Cause::WorkflowTypeDoesNotExist),
        ("old", Cause::WorkflowTypeDeprecated),
    ] {
        let task = decision_task(&c, DECIDERS).await;
        let decision = continue_as_new(continue_as_new_attributes().workflow_type_version(version));
        respond(&c, task.task_token(), vec![decision]).await;
        let events = history(&c, "job", &run).await;
        let (completed, recorded) = batch(&events);
        assert_eq!(types(&recorded), ["ContinueAsNewWorkflowExecutionFailed"]);
        let failed = recorded[0]
            .continue_as_new_workflow_execution_failed_event_attributes()
            .unwrap();
        assert_eq!(failed.cause(), &cause, "{version}");
        assert_eq!(failed.decision_task_completed_event_id(), completed);
    }

    // A type without defaults: each of the four must be given.
    let run = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id("bare-job")
        .workflow_type(wf_type("bare", "1"))
        .task_list(task_list("bare-list"))
        .execution_start_to_close_timeout("600")
        .task_start_to_close_timeout("60")
        .child_policy(ChildPolicy::Terminate)
        .send()
        .await
        .unwrap()
        .run_id()
        .unwrap()
        .to_owned();
    for (missing, cause) in [
        ("taskList", Cause::DefaultTaskListUndefined),
        (
            "executionStartToClose",
            Cause::DefaultExecutionStartToCloseTimeoutUndefined,
        ),
        (
            "taskStartToClose",
            Cause::DefaultTaskStartToCloseTimeoutUndefined,
        ),
        ("childPolicy", Cause::DefaultChildPolicyUndefined),
    ] {
        let mut attributes = continue_as_new_attributes();
        if missing != "taskList" {
            attributes = attributes.task_list(task_list("bare-list"));
        }
        if missing != "executionStartToClose" {
            attributes = attributes.execution_start_to_close_timeout("600");
        }
        if missing != "taskStartToClose" {
            attributes = attributes.task_start_to_close_timeout("60");
        }
        if missing != "childPolicy" {
            attributes = attributes.child_policy(ChildPolicy::Terminate);
        }
        let task = decision_task(&c, "bare-list").await;
        respond(&c, task.task_token(), vec![continue_as_new(attributes)]).await;
        let events = history(&c, "bare-job", &run).await;
        let (completed, recorded) = batch(&events);
        assert_eq!(types(&recorded), ["ContinueAsNewWorkflowExecutionFailed"]);
        let failed = recorded[0]
            .continue_as_new_workflow_execution_failed_event_attributes()
            .unwrap();
        assert_eq!(failed.cause(), &cause, "{missing}");
        assert_eq!(failed.decision_task_completed_event_id(), completed);
    }
}

#[tokio::test]
async fn lambda_functions_are_not_available() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![schedule_lambda("l1", "resize")]).await;
    let events = history(&c, "job", &run).await;
    let (completed, recorded) = batch(&events);
    assert_eq!(types(&recorded), ["ScheduleLambdaFunctionFailed"]);
    let failed = recorded[0]
        .schedule_lambda_function_failed_event_attributes()
        .unwrap();
    assert_eq!((failed.id(), failed.name()), ("l1", "resize"));
    assert_eq!(
        failed.cause(),
        &ScheduleLambdaFunctionFailedCause::LambdaServiceNotAvailableInRegion
    );
    assert_eq!(failed.decision_task_completed_event_id(), completed);
}
