//! Heartbeats from Wasm: `hostile-activity` heartbeats through the host, which keeps its task
//! alive past many heartbeat timeouts, and tells it when its cancellation is requested.

use std::time::Duration;

use weft_tests::aws_sdk_swf::types::{CloseStatus, ScheduleActivityTaskDecisionAttributes};
use weft_tests::guests::{self, Bind, BindingKind, Limits, SMALL_LIMITS};

use super::{activity_ids, closed, identities, server, wasm_identity};
use crate::flow::{
    D, DECIDERS, WORKERS, act_type, cancel_activity, complete_workflow, count, decision_task,
    describe, first, history, register_activity, register_workflow, respond,
    schedule_activity_with, start_on, types, wait_for_event,
};

/// How long the test lets the guest heartbeat: several heartbeat timeouts of 1 s.
const HEARTBEATING: Duration = Duration::from_millis(3500);

#[tokio::test]
async fn a_wasm_activity_heartbeats_past_its_heartbeat_timeout_until_canceled() {
    let (server, c, weft) = server().await;
    // 300 ms of CPU: heartbeating for seconds fits only if the waits for the host are not
    // charged.
    let limits = Limits {
        cpu_ms: Some(300),
        ..SMALL_LIMITS
    };
    let digest = guests::deploy(
        &weft,
        "hostile-activity",
        D,
        BindingKind::Activity,
        WORKERS,
        Bind {
            limits,
            ..Bind::default()
        },
    )
    .await;
    register_workflow(&c, "w").await;
    register_activity(&c, "hostile").await;
    let run = start_on(&c, "beats", "w", DECIDERS).await;
    let task = decision_task(&c, DECIDERS).await;
    let activity = |id: &str, input: &str| {
        schedule_activity_with(
            ScheduleActivityTaskDecisionAttributes::builder()
                .activity_id(id)
                .activity_type(act_type("hostile", "1"))
                .input(input)
                .heartbeat_timeout("1")
                .start_to_close_timeout("60")
                .schedule_to_close_timeout("120"),
        )
    };
    respond(
        &c,
        task.task_token(),
        vec![
            activity("beat", "heartbeat"),
            activity("count", "heartbeat:5"),
        ],
    )
    .await;

    // `heartbeat:5` completes with 5 after five heartbeats.
    let events = wait_for_event(&c, "beats", &run, "ActivityTaskCompleted").await;
    let ids = activity_ids(&events);
    let completed = first(&events, "ActivityTaskCompleted")
        .activity_task_completed_event_attributes()
        .unwrap();
    assert_eq!(ids[&completed.scheduled_event_id()], "count");
    assert_eq!(completed.result(), Some("5"));

    // `heartbeat` keeps going, well past its 1 s heartbeat timeout.
    tokio::time::sleep(HEARTBEATING).await;
    let events = history(&c, "beats", &run).await;
    eprintln!(
        "DEBUG {:?}",
        guests::failures(&weft, D, BindingKind::Activity, WORKERS).await
    );
    assert_eq!(
        count(&events, "ActivityTaskTimedOut"),
        0,
        "{:?}",
        types(&events)
    );
    assert_eq!(
        count(&events, "ActivityTaskFailed"),
        0,
        "{:?}",
        types(&events)
    );
    assert_eq!(count(&events, "ActivityTaskStarted"), 2);
    let open = describe(&c, "beats", &run).await;
    assert_eq!(open.open_counts().unwrap().open_activity_tasks(), 1);
    let wasm = wasm_identity(&digest);
    assert!(
        identities(&events, "ActivityTaskStarted")
            .iter()
            .all(|i| *i == wasm)
    );

    // The decider asks to cancel it: the guest hears it at its next heartbeat and cancels.
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![cancel_activity("beat")]).await;
    let events = wait_for_event(&c, "beats", &run, "ActivityTaskCanceled").await;
    let requested = first(&events, "ActivityTaskCancelRequested");
    assert_eq!(
        requested
            .activity_task_cancel_requested_event_attributes()
            .unwrap()
            .activity_id(),
        "beat"
    );
    let canceled = first(&events, "ActivityTaskCanceled");
    assert!(canceled.event_id() > requested.event_id());
    let canceled = canceled.activity_task_canceled_event_attributes().unwrap();
    assert_eq!(ids[&canceled.scheduled_event_id()], "beat");
    assert_eq!(
        canceled.latest_cancel_requested_event_id(),
        requested.event_id()
    );
    let details = canceled.details().unwrap_or_default();
    let beats: u64 = details
        .strip_prefix("canceled after ")
        .and_then(|d| d.strip_suffix(" heartbeats"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("details: {details:?}"));
    assert!(beats > 3, "only {beats} heartbeats in {HEARTBEATING:?}");
    assert_eq!(count(&events, "ActivityTaskTimedOut"), 0);

    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    let run = closed(&server, "beats", &run).await;
    assert_eq!(run.status, CloseStatus::Completed, "{:?}", run.types());
    assert!(
        guests::failures(&weft, D, BindingKind::Activity, WORKERS)
            .await
            .is_empty()
    );
}
