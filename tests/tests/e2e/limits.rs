//! SWF's limits on one run (spec §8.16): events in its history; open activities, timers and
//! children; the size of data. The first two are lowered through [`weft_host::Limits`] so a test
//! reaches them quickly. (Tags per execution: `workflows::tags_stay_with_an_execution_and_select_it`.)

use std::time::Duration;

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{
    ChildPolicy, CloseStatus, HistoryEvent, ScheduleActivityTaskFailedCause,
    StartChildWorkflowExecutionFailedCause, StartTimerFailedCause,
    WorkflowExecutionTerminatedCause,
};

use crate::common::{expect_fault, fault, register_domain};
use crate::flow::{
    D, DECIDERS, WORKERS, act_type, activity_task, assert_contiguous, cancel_timer,
    child_attributes, complete_workflow, count, decision_task, describe, heartbeat, history,
    marker, no_decision_task, pending_decisions, register_activity, register_workflow, respond,
    schedule_activity, server, start, start_child, start_on, start_timer, types, wait_for_event,
    wf_type,
};

/// A server on a manual clock with 1 s empty polls and domain [`D`], after `limit` lowers its
/// limits.
async fn server_limited(
    limit: impl Fn(&mut weft_host::Limits) + Send + Sync + 'static,
) -> (TestServer, Client) {
    let server = TestServer::start_manual_with(move |config| {
        config.poll_timeout = Duration::from_secs(1);
        limit(&mut config.limits);
    })
    .await;
    let client = server.client();
    register_domain(&client, D).await;
    (server, client)
}

/// Asserts that `event` is the termination for the event limit, with the type's child policy.
#[track_caller]
fn assert_event_limit_termination(event: &HistoryEvent) {
    let terminated = event
        .workflow_execution_terminated_event_attributes()
        .unwrap_or_else(|| panic!("{} is no termination", event.event_type().as_str()));
    assert_eq!(
        terminated.cause(),
        Some(&WorkflowExecutionTerminatedCause::EventLimitExceeded)
    );
    assert_eq!(terminated.child_policy(), &ChildPolicy::Terminate);
}

/// Signals the open run of `workflow_id`: `Ok`, or the fault's code.
async fn try_signal(c: &Client, workflow_id: &str) -> Result<(), String> {
    c.signal_workflow_execution()
        .domain(D)
        .workflow_id(workflow_id)
        .signal_name("more")
        .send()
        .await
        .map(drop)
        .map_err(|e| fault(Err::<(), _>(e)).0)
}

#[tokio::test]
async fn a_run_that_reaches_the_event_limit_is_terminated() {
    let (server, c) = server_limited(|limits| limits.max_events_per_run = 20).await;
    register_workflow(&c, "w").await;
    let run = start(&c, "chatty", "w").await;
    // Events 1 and 2 are the start and its decision task; each signal adds one event.
    let mut accepted = 0;
    let refusal = loop {
        match try_signal(&c, "chatty").await {
            Ok(()) => accepted += 1,
            Err(code) => break code,
        }
        assert!(accepted <= 20, "{accepted} signals and still open");
    };
    assert_eq!(refusal, "UnknownResourceFault");
    // The signal that made event 19 was the last: the termination is event 20.
    assert_eq!(accepted, 17);
    let events = history(&c, "chatty", &run).await;
    assert_eq!(events.len(), 20, "{:?}", types(&events));
    assert_contiguous(&events);
    assert_eq!(count(&events, "WorkflowExecutionSignaled"), 17);
    assert_eq!(
        events[19].event_type().as_str(),
        "WorkflowExecutionTerminated"
    );
    assert_event_limit_termination(&events[19]);
    let detail = describe(&c, "chatty", &run).await;
    assert_eq!(
        detail.execution_info().unwrap().close_status(),
        Some(&CloseStatus::Terminated)
    );
    // Its decision task went with it, and nothing more is taken.
    assert_eq!(pending_decisions(&c, DECIDERS).await, 0);
    no_decision_task(&server, &c, DECIDERS).await;
    assert_eq!(
        try_signal(&c, "chatty").await,
        Err("UnknownResourceFault".into())
    );
    assert_eq!(history(&c, "chatty", &run).await, events);
}

#[tokio::test]
async fn a_decision_batch_that_passes_the_event_limit_terminates_the_run() {
    let (_server, c) = server_limited(|limits| limits.max_events_per_run = 20).await;
    register_workflow(&c, "w").await;
    let run = start(&c, "verbose", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    let markers = (1..=30).map(|n| marker(&format!("m{n}"), "")).collect();
    // The batch is recorded whole (events 4 to 34), then the run is terminated.
    respond(&c, task.task_token(), markers).await;
    let events = history(&c, "verbose", &run).await;
    assert_eq!(events.len(), 35, "{:?}", types(&events));
    assert_contiguous(&events);
    assert_eq!(count(&events, "MarkerRecorded"), 30);
    assert_event_limit_termination(&events[34]);
    assert_eq!(
        try_signal(&c, "verbose").await,
        Err("UnknownResourceFault".into())
    );
}

#[tokio::test]
async fn a_run_has_at_most_max_open_activities_timers_and_children() {
    let (_server, c) = server_limited(|limits| limits.max_open_per_run = 2).await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    // The parent decides on its own list; its children, on the type's default list.
    let run = start_on(&c, "parent", "w", "parent").await;
    let task = decision_task(&c, "parent").await;
    respond(
        &c,
        task.task_token(),
        vec![
            schedule_activity("a1", "a"),
            schedule_activity("a2", "a"),
            schedule_activity("a3", "a"),
            start_timer("t1", "3600"),
            start_timer("t2", "3600"),
            start_timer("t3", "3600"),
            start_child(child_attributes("k1", "w")),
            start_child(child_attributes("k2", "w")),
            start_child(child_attributes("k3", "w")),
        ],
    )
    .await;
    let events = history(&c, "parent", &run).await;
    let completed = 4;
    assert_eq!(
        types(&events)[3..13],
        [
            "DecisionTaskCompleted",
            "ActivityTaskScheduled",
            "ActivityTaskScheduled",
            "ScheduleActivityTaskFailed",
            "TimerStarted",
            "TimerStarted",
            "StartTimerFailed",
            "StartChildWorkflowExecutionInitiated",
            "StartChildWorkflowExecutionInitiated",
            "StartChildWorkflowExecutionFailed",
        ]
    );
    let failed = events[6]
        .schedule_activity_task_failed_event_attributes()
        .unwrap();
    assert_eq!(failed.activity_id(), "a3");
    assert_eq!(failed.activity_type(), Some(&act_type("a", "1")));
    assert_eq!(
        failed.cause(),
        &ScheduleActivityTaskFailedCause::OpenActivitiesLimitExceeded
    );
    assert_eq!(failed.decision_task_completed_event_id(), completed);
    let failed = events[9].start_timer_failed_event_attributes().unwrap();
    assert_eq!(failed.timer_id(), "t3");
    assert_eq!(
        failed.cause(),
        &StartTimerFailedCause::OpenTimersLimitExceeded
    );
    assert_eq!(failed.decision_task_completed_event_id(), completed);
    let failed = events[12]
        .start_child_workflow_execution_failed_event_attributes()
        .unwrap();
    assert_eq!(failed.workflow_id(), "k3");
    assert_eq!(failed.workflow_type(), Some(&wf_type("w", "1")));
    assert_eq!(
        failed.cause(),
        &StartChildWorkflowExecutionFailedCause::OpenChildrenLimitExceeded
    );
    assert_eq!(failed.initiated_event_id(), 0);
    assert_eq!(failed.decision_task_completed_event_id(), completed);
    let detail = describe(&c, "parent", &run).await;
    let open = detail.open_counts().unwrap();
    assert_eq!(open.open_activity_tasks(), 2);
    assert_eq!(open.open_timers(), 2);
    assert_eq!(open.open_child_workflow_executions(), 2);

    // The limits count what is open: once one of each closes, there is room for another.
    let work = activity_task(&c, WORKERS).await;
    c.respond_activity_task_completed()
        .task_token(work.task_token())
        .send()
        .await
        .unwrap();
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("k1")
        .send()
        .await
        .unwrap();
    wait_for_event(&c, "parent", &run, "ChildWorkflowExecutionTerminated").await;
    let task = decision_task(&c, "parent").await;
    let before = history(&c, "parent", &run).await.len();
    respond(
        &c,
        task.task_token(),
        vec![
            cancel_timer("t1"),
            schedule_activity("a3", "a"),
            start_timer("t3", "3600"),
            start_child(child_attributes("k3", "w")),
        ],
    )
    .await;
    let events = history(&c, "parent", &run).await;
    let batch = &events[before..];
    assert_eq!(
        types(batch)[..5],
        [
            "DecisionTaskCompleted",
            "TimerCanceled",
            "ActivityTaskScheduled",
            "TimerStarted",
            "StartChildWorkflowExecutionInitiated",
        ]
    );
    assert!(
        !types(batch).iter().any(|t| t.ends_with("Failed")),
        "{:?}",
        types(batch)
    );
}

#[tokio::test]
async fn data_longer_than_its_limit_is_a_validation_error() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let start_with = |id: &str, input: String| {
        c.start_workflow_execution()
            .domain(D)
            .workflow_id(id)
            .workflow_type(wf_type("w", "1"))
            .input(input)
            .send()
    };
    // Input: 32,768 characters.
    let message = expect_fault(
        start_with("too-long", "i".repeat(32_769)).await,
        "ValidationException",
    );
    assert!(
        message.contains(
            "at 'input' failed to satisfy constraint: \
             Member must have length less than or equal to 32768"
        ),
        "{message}"
    );
    // Nothing started.
    assert_eq!(pending_decisions(&c, DECIDERS).await, 0);
    let run = start_with("job", "i".repeat(32_768))
        .await
        .unwrap()
        .run_id()
        .unwrap()
        .to_owned();
    let started = history(&c, "job", &run).await;
    let input = started[0]
        .workflow_execution_started_event_attributes()
        .unwrap()
        .input()
        .unwrap();
    assert_eq!(input.len(), 32_768);

    // Heartbeat details: 2,048 characters.
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![schedule_activity("a1", "a")]).await;
    let work = activity_task(&c, WORKERS).await;
    let refused = c
        .record_activity_task_heartbeat()
        .task_token(work.task_token())
        .details("d".repeat(2049))
        .send()
        .await;
    let message = expect_fault(refused, "ValidationException");
    assert!(
        message.contains(
            "at 'details' failed to satisfy constraint: \
             Member must have length less than or equal to 2048"
        ),
        "{message}"
    );
    assert_eq!(
        heartbeat(&c, work.task_token(), Some(&"d".repeat(2048))).await,
        Ok(false)
    );
    c.respond_activity_task_completed()
        .task_token(work.task_token())
        .send()
        .await
        .unwrap();
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
}
