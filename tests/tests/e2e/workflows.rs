//! Whole workflows with deciders and activity workers written as test code: the order workflow
//! of the SWF Developer Guide, cancellation by signal and of unstarted activities, markers and
//! tags.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::primitives::DateTime;
use weft_tests::aws_sdk_swf::types::{CloseStatus, Decision, HistoryEvent, TagFilter};

use crate::common::expect_fault;
use crate::flow::{
    D, DECIDERS, WORKERS, activity_task, assert_types, cancel_activity, cancel_workflow,
    complete_workflow, count, decision_task, describe, fail_workflow, first, history,
    manual_server, marker, no_activity_task, no_decision_task, pending_activities,
    poll_activity_once, register_activity, register_workflow, respond, schedule_activity, server,
    start, types,
};

const VERIFY: &str = "VerifyOrder";
const CHARGE: &str = "ChargeCreditCard";
const SHIP: &str = "ShipOrder";
const RECORD: &str = "RecordOrderCompletion";
const CANCEL_ORDER: &str = "CancelOrder";
const EMAIL: &str = "EmailCustomer";

/// The activity type name of the activity scheduled as event `scheduled`.
fn activity_name(events: &[HistoryEvent], scheduled: i64) -> &str {
    events[scheduled as usize - 1]
        .activity_task_scheduled_event_attributes()
        .expect("scheduledEventId names an ActivityTaskScheduled")
        .activity_type()
        .unwrap()
        .name()
}

/// The order decider's next decision, from the latest activity outcome in the history.
fn next_order_step(events: &[HistoryEvent]) -> Decision {
    let input = events[0]
        .workflow_execution_started_event_attributes()
        .unwrap()
        .input()
        .unwrap_or_default()
        .to_owned();
    let schedule = |name: &str| {
        crate::flow::schedule_activity_with(
            weft_tests::aws_sdk_swf::types::ScheduleActivityTaskDecisionAttributes::builder()
                .activity_id(name)
                .activity_type(crate::flow::act_type(name, "1"))
                .input(input.clone()),
        )
    };
    let outcome = events.iter().rev().find_map(|e| {
        if let Some(done) = e.activity_task_completed_event_attributes() {
            Some((activity_name(events, done.scheduled_event_id()), true))
        } else {
            e.activity_task_failed_event_attributes()
                .map(|failed| (activity_name(events, failed.scheduled_event_id()), false))
        }
    });
    match outcome {
        None => schedule(VERIFY),
        Some((VERIFY, true)) => schedule(CHARGE),
        Some((CHARGE, true)) => schedule(SHIP),
        Some((SHIP, true)) => schedule(RECORD),
        Some((RECORD, true)) => complete_workflow(Some("order completed")),
        Some((CHARGE, false)) => schedule(CANCEL_ORDER),
        Some((CANCEL_ORDER, true)) => schedule(EMAIL),
        Some((EMAIL, true)) => fail_workflow("payment declined", "customer notified"),
        Some(other) => panic!("the order workflow does not expect {other:?}"),
    }
}

/// Decides order workflows on [`DECIDERS`] until one closes.
async fn order_decider(c: Client) {
    loop {
        let task = decision_task(&c, DECIDERS).await;
        let decision = next_order_step(task.events());
        let closes = decision
            .decision_type()
            .as_str()
            .ends_with("WorkflowExecution");
        respond(&c, task.task_token(), vec![decision]).await;
        if closes {
            return;
        }
    }
}

/// Works activity tasks on [`WORKERS`] until `stop`; charging a "declined" card fails. The names
/// of the activities it worked, in order.
async fn order_worker(c: Client, stop: Arc<AtomicBool>) -> Vec<String> {
    let mut worked = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        let Some(task) = poll_activity_once(&c, WORKERS).await else {
            continue;
        };
        let name = task.activity_type().unwrap().name().to_owned();
        let input = task.input().unwrap_or_default();
        if name == CHARGE && input.contains("declined") {
            c.respond_activity_task_failed()
                .task_token(task.task_token())
                .reason("card declined")
                .details(input)
                .send()
                .await
                .unwrap();
        } else {
            c.respond_activity_task_completed()
                .task_token(task.task_token())
                .result(format!("{name} done"))
                .send()
                .await
                .unwrap();
        }
        worked.push(name);
    }
    worked
}

/// Runs one order with a decider task and a worker task; the final history and what was worked.
async fn run_order(input: &str) -> (Vec<HistoryEvent>, Vec<String>, CloseStatus) {
    let (server, c) = manual_server().await;
    register_workflow(&c, "OrderWorkflow").await;
    for name in [VERIFY, CHARGE, SHIP, RECORD, CANCEL_ORDER, EMAIL] {
        register_activity(&c, name).await;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let decider = tokio::spawn(order_decider(c.clone()));
    let worker = tokio::spawn(order_worker(c.clone(), stop.clone()));
    let run = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id("order-1")
        .workflow_type(crate::flow::wf_type("OrderWorkflow", "1"))
        .input(input)
        .send()
        .await
        .unwrap()
        .run_id()
        .unwrap()
        .to_owned();
    tokio::time::timeout(Duration::from_secs(60), decider)
        .await
        .expect("the order closes within 60 s")
        .expect("the decider does not panic");
    // The worker's last poll waits for a task that never comes: let its timeout pass.
    stop.store(true, Ordering::SeqCst);
    server.until_polls_wait(1).await;
    server.advance(server.poll_timeout()).await;
    let worked = worker.await.expect("the worker does not panic");
    let detail = describe(&c, "order-1", &run).await;
    let status = detail.execution_info().unwrap().close_status().cloned();
    (
        history(&c, "order-1", &run).await,
        worked,
        status.expect("closed"),
    )
}

/// The event types of a workflow that runs `activities` one after another (true = completed)
/// and then closes with `close`.
fn sequential(activities: &[bool], close: &'static str) -> Vec<&'static str> {
    let mut expected = vec![
        "WorkflowExecutionStarted",
        "DecisionTaskScheduled",
        "DecisionTaskStarted",
    ];
    for &completed in activities {
        expected.extend([
            "DecisionTaskCompleted",
            "ActivityTaskScheduled",
            "ActivityTaskStarted",
            if completed {
                "ActivityTaskCompleted"
            } else {
                "ActivityTaskFailed"
            },
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
        ]);
    }
    expected.extend(["DecisionTaskCompleted", close]);
    expected
}

fn scheduled_names(events: &[HistoryEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| e.activity_task_scheduled_event_attributes())
        .map(|s| s.activity_type().unwrap().name())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_is_verified_charged_shipped_and_recorded() {
    let (events, worked, status) = run_order("order 1; card ok").await;
    assert_types(
        &events,
        &sequential(&[true, true, true, true], "WorkflowExecutionCompleted"),
    );
    assert_eq!(scheduled_names(&events), [VERIFY, CHARGE, SHIP, RECORD]);
    assert_eq!(worked, [VERIFY, CHARGE, SHIP, RECORD]);
    assert_eq!(status, CloseStatus::Completed);
    let completed = events
        .last()
        .unwrap()
        .workflow_execution_completed_event_attributes()
        .unwrap();
    assert_eq!(completed.result(), Some("order completed"));
    let charged = first(&events, "ActivityTaskCompleted")
        .activity_task_completed_event_attributes()
        .unwrap();
    assert_eq!(charged.result(), Some("VerifyOrder done"));
    // The input travels to every activity.
    for scheduled in events
        .iter()
        .filter_map(|e| e.activity_task_scheduled_event_attributes())
    {
        assert_eq!(scheduled.input(), Some("order 1; card ok"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_card_cancels_the_order_and_fails_the_workflow() {
    let (events, worked, status) = run_order("order 2; card declined").await;
    assert_types(
        &events,
        &sequential(&[true, false, true, true], "WorkflowExecutionFailed"),
    );
    assert_eq!(
        scheduled_names(&events),
        [VERIFY, CHARGE, CANCEL_ORDER, EMAIL]
    );
    assert_eq!(worked, [VERIFY, CHARGE, CANCEL_ORDER, EMAIL]);
    assert_eq!(status, CloseStatus::Failed);
    let declined = first(&events, "ActivityTaskFailed")
        .activity_task_failed_event_attributes()
        .unwrap();
    assert_eq!(declined.reason(), Some("card declined"));
    assert_eq!(declined.details(), Some("order 2; card declined"));
    let failed = events
        .last()
        .unwrap()
        .workflow_execution_failed_event_attributes()
        .unwrap();
    assert_eq!(failed.reason(), Some("payment declined"));
    assert_eq!(failed.details(), Some("customer notified"));
}

/// RecordActivityTaskHeartbeat with `details`: whether cancellation was requested.
async fn beat(c: &Client, token: &str, details: &str) -> bool {
    c.record_activity_task_heartbeat()
        .task_token(token)
        .details(details)
        .send()
        .await
        .unwrap()
        .cancel_requested()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_cancels_an_order_while_it_ships() {
    let (_server, c) = server().await;
    register_workflow(&c, "OrderWorkflow").await;
    register_activity(&c, SHIP).await;
    let run = start(&c, "order-1", "OrderWorkflow").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![schedule_activity("ship", SHIP)]).await;

    // The worker heartbeats, then again once the decider has asked for the cancellation, and
    // reports the activity canceled; what each heartbeat answered, in order.
    let (beaten_tx, beaten_rx) = tokio::sync::oneshot::channel();
    let (again_tx, again_rx) = tokio::sync::oneshot::channel::<()>();
    let worker = tokio::spawn({
        let c = c.clone();
        async move {
            let task = activity_task(&c, WORKERS).await;
            let mut answers = vec![beat(&c, task.task_token(), "heartbeat 0").await];
            beaten_tx.send(()).unwrap();
            again_rx
                .await
                .expect("the test asks for a second heartbeat");
            answers.push(beat(&c, task.task_token(), "heartbeat 1").await);
            c.respond_activity_task_canceled()
                .task_token(task.task_token())
                .details("stopped at the dock")
                .send()
                .await
                .unwrap();
            answers
        }
    });
    beaten_rx
        .await
        .expect("the worker started the activity and heartbeat");
    c.signal_workflow_execution()
        .domain(D)
        .workflow_id("order-1")
        .signal_name("cancel-order")
        .send()
        .await
        .unwrap();
    let task = decision_task(&c, DECIDERS).await;
    let signaled = task
        .events()
        .iter()
        .find_map(|e| e.workflow_execution_signaled_event_attributes())
        .expect("the decider sees the signal");
    assert_eq!(signaled.signal_name(), "cancel-order");
    respond(&c, task.task_token(), vec![cancel_activity("ship")]).await;
    again_tx.send(()).unwrap();

    let answers = tokio::time::timeout(Duration::from_secs(30), worker)
        .await
        .expect("the worker finishes")
        .unwrap();
    assert_eq!(answers, [false, true], "cancelRequested of each heartbeat");
    let task = decision_task(&c, DECIDERS).await;
    assert!(
        types(task.events()).contains(&"ActivityTaskCanceled"),
        "{:?}",
        types(task.events())
    );
    respond(
        &c,
        task.task_token(),
        vec![cancel_workflow("order canceled")],
    )
    .await;

    let events = history(&c, "order-1", &run).await;
    assert_types(
        &events,
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "ActivityTaskScheduled",
            "ActivityTaskStarted",
            "WorkflowExecutionSignaled",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "ActivityTaskCancelRequested",
            "ActivityTaskCanceled",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "WorkflowExecutionCanceled",
        ],
    );
    let requested = events[10]
        .activity_task_cancel_requested_event_attributes()
        .unwrap();
    assert_eq!(requested.activity_id(), "ship");
    assert_eq!(requested.decision_task_completed_event_id(), 10);
    let canceled = events[11]
        .activity_task_canceled_event_attributes()
        .unwrap();
    assert_eq!(
        (
            canceled.scheduled_event_id(),
            canceled.started_event_id(),
            canceled.latest_cancel_requested_event_id()
        ),
        (5, 6, 11)
    );
    assert_eq!(canceled.details(), Some("stopped at the dock"));
    let closed = events[15]
        .workflow_execution_canceled_event_attributes()
        .unwrap();
    assert_eq!(closed.details(), Some("order canceled"));
    assert_eq!(closed.decision_task_completed_event_id(), 15);
    let detail = describe(&c, "order-1", &run).await;
    assert_eq!(
        detail.execution_info().unwrap().close_status(),
        Some(&CloseStatus::Canceled)
    );
}

#[tokio::test]
async fn canceling_an_activity_nobody_started_cancels_it_at_once() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "slow").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![schedule_activity("a1", "slow")]).await;
    assert_eq!(pending_activities(&c, WORKERS).await, 1);
    c.signal_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .signal_name("never mind")
        .send()
        .await
        .unwrap();
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![cancel_activity("a1")]).await;
    let events = history(&c, "job", &run).await;
    assert_types(
        &events[8..],
        &[
            "DecisionTaskCompleted",
            "ActivityTaskCancelRequested",
            "ActivityTaskCanceled",
            "DecisionTaskScheduled",
        ],
    );
    let requested = events[9]
        .activity_task_cancel_requested_event_attributes()
        .unwrap();
    assert_eq!(requested.activity_id(), "a1");
    assert_eq!(requested.decision_task_completed_event_id(), 9);
    let canceled = events[10]
        .activity_task_canceled_event_attributes()
        .unwrap();
    assert_eq!(canceled.scheduled_event_id(), 5);
    assert_eq!(canceled.started_event_id(), 0);
    assert_eq!(canceled.latest_cancel_requested_event_id(), 10);
    // The task left its list.
    assert_eq!(pending_activities(&c, WORKERS).await, 0);
    no_activity_task(&server, &c, WORKERS).await;
    let detail = describe(&c, "job", &run).await;
    assert_eq!(detail.open_counts().unwrap().open_activity_tasks(), 0);
}

#[tokio::test]
async fn markers_are_history_for_the_decider_but_wake_nobody() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "step").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![
            marker("progress", "1 of 2"),
            schedule_activity("a1", "step"),
        ],
    )
    .await;
    no_decision_task(&server, &c, DECIDERS).await;
    let work = activity_task(&c, WORKERS).await;
    c.respond_activity_task_completed()
        .task_token(work.task_token())
        .send()
        .await
        .unwrap();
    let task = decision_task(&c, DECIDERS).await;
    let recorded = task
        .events()
        .iter()
        .find_map(|e| e.marker_recorded_event_attributes())
        .expect("the decider reads its marker back");
    assert_eq!(
        (recorded.marker_name(), recorded.details()),
        ("progress", Some("1 of 2"))
    );
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    let events = history(&c, "job", &run).await;
    assert_eq!(count(&events, "MarkerRecorded"), 1);
    // One decision task at the start, one for the activity: none for the marker.
    assert_eq!(count(&events, "DecisionTaskScheduled"), 2);
}

#[tokio::test]
async fn tags_stay_with_an_execution_and_select_it() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let tagged = |id: &str, tags: &[&str]| {
        c.start_workflow_execution()
            .domain(D)
            .workflow_id(id)
            .workflow_type(crate::flow::wf_type("w", "1"))
            .set_tag_list(Some(tags.iter().map(|t| t.to_string()).collect()))
            .send()
    };
    let run = tagged("gold-order", &["gold", "eu"])
        .await
        .unwrap()
        .run_id()
        .unwrap()
        .to_owned();
    tagged("plain-order", &[]).await.unwrap();
    let detail = describe(&c, "gold-order", &run).await;
    assert_eq!(detail.execution_info().unwrap().tag_list(), ["gold", "eu"]);
    let started = history(&c, "gold-order", &run).await;
    assert_eq!(
        started[0]
            .workflow_execution_started_event_attributes()
            .unwrap()
            .tag_list(),
        ["gold", "eu"]
    );

    let open_with = |tag: &str| {
        c.list_open_workflow_executions()
            .domain(D)
            .start_time_filter(
                weft_tests::aws_sdk_swf::types::ExecutionTimeFilter::builder()
                    .oldest_date(DateTime::from_secs(0))
                    .build()
                    .unwrap(),
            )
            .tag_filter(TagFilter::builder().tag(tag).build().unwrap())
            .send()
    };
    let ids = |out: weft_tests::aws_sdk_swf::operation::list_open_workflow_executions::ListOpenWorkflowExecutionsOutput| {
        out.execution_infos()
            .iter()
            .map(|i| i.execution().unwrap().workflow_id().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(open_with("gold").await.unwrap()), ["gold-order"]);
    assert_eq!(ids(open_with("eu").await.unwrap()), ["gold-order"]);
    assert!(ids(open_with("silver").await.unwrap()).is_empty());

    // Tags survive the close.
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("gold-order")
        .send()
        .await
        .unwrap();
    let closed = c
        .list_closed_workflow_executions()
        .domain(D)
        .close_time_filter(
            weft_tests::aws_sdk_swf::types::ExecutionTimeFilter::builder()
                .oldest_date(DateTime::from_secs(0))
                .build()
                .unwrap(),
        )
        .tag_filter(TagFilter::builder().tag("eu").build().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(closed.execution_infos().len(), 1);
    assert_eq!(closed.execution_infos()[0].tag_list(), ["gold", "eu"]);

    // At most five tags of at most 256 characters.
    expect_fault(
        tagged("six", &["1", "2", "3", "4", "5", "6"]).await,
        "ValidationException",
    );
    let long = "t".repeat(257);
    expect_fault(tagged("long", &[&long]).await, "ValidationException");
    tagged("five", &["1", "2", "3", "4", &"t".repeat(256)])
        .await
        .unwrap();
}
