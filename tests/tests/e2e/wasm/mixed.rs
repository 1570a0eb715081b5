//! One task list served at once by a Wasm activity worker and by SDK pollers: each task goes to
//! exactly one of them, and both kinds serve.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{CloseStatus, ScheduleActivityTaskDecisionAttributes};
use weft_tests::guests::{self, Bind, BindingKind};

use super::{activity_ids, closed, server, wasm_identity};
use crate::flow::{
    D, DECIDERS, act_type, complete_workflow, count, decision_task, register_activity,
    register_workflow, respond, schedule_activity_with, start_on, task_list, types,
    wait_for_events,
};

/// The shared task list.
const MIXED: &str = "mixed";
/// Activities scheduled.
const ACTIVITIES: usize = 40;

/// An SDK activity worker on [`MIXED`] as `identity`: completes each task with its input, until
/// `stop`.
async fn poller(c: Client, identity: String, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::SeqCst) {
        let task = c
            .poll_for_activity_task()
            .domain(D)
            .task_list(task_list(MIXED))
            .identity(&identity)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{identity} polls: {e:?}"));
        if task.task_token().is_empty() {
            continue;
        }
        c.respond_activity_task_completed()
            .task_token(task.task_token())
            .set_result(task.input().map(str::to_owned))
            .send()
            .await
            .unwrap_or_else(|e| panic!("{identity} completes: {e:?}"));
    }
}

#[tokio::test]
async fn a_list_served_by_wasm_and_sdk_workers_runs_each_task_once() {
    let (server, c, weft) = server().await;
    let digest = guests::deploy(
        &weft,
        "hostile-activity",
        D,
        BindingKind::Activity,
        MIXED,
        Bind {
            concurrency: Some(2),
            ..Bind::default()
        },
    )
    .await;
    register_workflow(&c, "w").await;
    register_activity(&c, "echo").await;
    let run = start_on(&c, "mixed", "w", DECIDERS).await;
    let stop = Arc::new(AtomicBool::new(false));
    let pollers: Vec<_> = (1..=2)
        .map(|n| tokio::spawn(poller(c.clone(), format!("sdk-{n}"), stop.clone())))
        .collect();
    // Let the SDK pollers wait on the list too before the tasks come.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    let task = decision_task(&c, DECIDERS).await;
    let decisions = (0..ACTIVITIES)
        .map(|n| {
            schedule_activity_with(
                ScheduleActivityTaskDecisionAttributes::builder()
                    .activity_id(format!("a{n:02}"))
                    .activity_type(act_type("echo", "1"))
                    .task_list(task_list(MIXED))
                    .input(format!("input {n}")),
            )
        })
        .collect();
    respond(&c, task.task_token(), decisions).await;
    let events = wait_for_events(&c, "mixed", &run, "ActivityTaskCompleted", ACTIVITIES).await;
    stop.store(true, Ordering::SeqCst);
    for poller in pollers {
        poller.await.expect("a poller panicked");
    }

    let ids = activity_ids(&events);
    assert_eq!(ids.len(), ACTIVITIES);
    let mut started: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut completed: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for event in &events {
        if let Some(a) = event.activity_task_started_event_attributes() {
            let id = ids[&a.scheduled_event_id()].as_str();
            started
                .entry(id)
                .or_default()
                .push(a.identity().unwrap_or_default());
        }
        if let Some(a) = event.activity_task_completed_event_attributes() {
            let id = ids[&a.scheduled_event_id()].as_str();
            completed
                .entry(id)
                .or_default()
                .push(a.result().unwrap_or_default());
        }
    }
    let wasm = wasm_identity(&digest);
    let mut served: BTreeMap<&str, usize> = BTreeMap::new();
    for id in ids.values() {
        let by = &started[id.as_str()];
        assert_eq!(by.len(), 1, "{id} started {} times", by.len());
        assert!(
            [wasm.as_str(), "sdk-1", "sdk-2"].contains(&by[0]),
            "{id} by {}",
            by[0]
        );
        *served
            .entry(if by[0] == wasm { "wasm" } else { "sdk" })
            .or_default() += 1;
        let n: usize = id[1..].parse().unwrap();
        assert_eq!(completed[id.as_str()], [format!("input {n}")], "{id}");
    }
    assert_eq!(completed.len(), ACTIVITIES);
    assert!(
        served.get("wasm").is_some_and(|n| *n > 0) && served.get("sdk").is_some_and(|n| *n > 0),
        "both kinds of worker serve: {served:?}"
    );
    for other in [
        "ActivityTaskFailed",
        "ActivityTaskTimedOut",
        "ActivityTaskCanceled",
    ] {
        assert_eq!(count(&events, other), 0, "{:?}", types(&events));
    }

    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    let run = closed(&server, "mixed", &run).await;
    assert_eq!(run.status, CloseStatus::Completed, "{:?}", run.types());
}
