//! Hostile activity workers: each misbehaviour of `hostile-activity` fails its task with a reason
//! naming the cause, is kept in the binding's failure log, and leaves the host serving.

use std::collections::BTreeSet;

use weft_tests::aws_sdk_swf::types::{
    CloseStatus, Decision, ScheduleActivityTaskDecisionAttributes,
};
use weft_tests::guests::{self, Bind, BindingKind, SMALL_LIMITS};

use super::{activity_ids, closed, identities, server, wasm_identity};
use crate::flow::{
    D, DECIDERS, WORKERS, act_type, complete_workflow, count, decision_task, first,
    register_activity, register_workflow, respond, schedule_activity_with, start_on,
    wait_for_event, wait_for_events,
};
use crate::observability::{expect, scrape};

/// Each input, and the reason its ActivityTaskFailed must give.
const CASES: [(&str, &str); 8] = [
    ("loop", "weft: CPU time limit exceeded (200 ms)"),
    ("alloc", "weft: memory limit exceeded (33554432 bytes)"),
    (
        "stack",
        "weft: the guest trapped: out of bounds memory access (a stack overflow or a bad pointer)",
    ),
    ("call-depth", "weft: stack overflow"),
    (
        "trap",
        "weft: the guest trapped: wasm `unreachable` instruction executed",
    ),
    // The SDK's panic hook tells the host where and why.
    (
        "panic",
        "weft: the guest panicked at tests/guests/hostile-activity/src/../../misbehave.rs:32:20: \
         asked to panic",
    ),
    (
        "big",
        "weft: output of 10485760 bytes exceeds the limit of 65536 bytes",
    ),
    // The guest's own failure, not a fault of the guest.
    ("fail", "asked to fail"),
];

/// ScheduleActivityTask of type "hostile" as `id` with `input`, on the hostile worker's list.
fn hostile_activity(id: &str, input: &str) -> Decision {
    schedule_activity_with(
        ScheduleActivityTaskDecisionAttributes::builder()
            .activity_id(id)
            .activity_type(act_type("hostile", "1"))
            .input(input),
    )
}

#[tokio::test]
async fn hostile_activities_fail_with_their_cause_and_the_host_keeps_serving() {
    let (server, c, weft) = server().await;
    let digest = guests::deploy(
        &weft,
        "hostile-activity",
        D,
        BindingKind::Activity,
        WORKERS,
        Bind {
            concurrency: Some(CASES.len() as u32),
            limits: SMALL_LIMITS,
            ..Bind::default()
        },
    )
    .await;
    register_workflow(&c, "w").await;
    register_activity(&c, "hostile").await;
    let run = start_on(&c, "hostile", "w", DECIDERS).await;
    let task = decision_task(&c, DECIDERS).await;
    let schedule = CASES.map(|(input, _)| hostile_activity(input, input));
    respond(&c, task.task_token(), schedule.to_vec()).await;

    let events = wait_for_events(&c, "hostile", &run, "ActivityTaskFailed", CASES.len()).await;
    let ids = activity_ids(&events);
    let mut failed = BTreeSet::new();
    for event in events
        .iter()
        .filter(|e| e.event_type().as_str() == "ActivityTaskFailed")
    {
        let attributes = event.activity_task_failed_event_attributes().unwrap();
        let id = &ids[&attributes.scheduled_event_id()];
        let (_, reason) = CASES.iter().find(|(input, _)| input == id).unwrap();
        assert_eq!(attributes.reason(), Some(*reason), "{id}");
        let details = if id == "fail" { Some("fail") } else { None };
        assert_eq!(attributes.details(), details, "{id}");
        failed.insert(id.as_str());
    }
    assert_eq!(failed.len(), CASES.len(), "each activity fails once");
    assert_eq!(count(&events, "ActivityTaskCompleted"), 0);
    let wasm = wasm_identity(&digest);
    let started = identities(&events, "ActivityTaskStarted");
    assert_eq!(started.len(), CASES.len());
    assert!(started.iter().all(|i| *i == wasm), "{started:?}");

    // The guest's faults are in the failure log, with the run; its own failure is not.
    let logged: BTreeSet<(String, String)> =
        guests::failures(&weft, D, BindingKind::Activity, WORKERS)
            .await
            .into_iter()
            .map(|f| {
                assert_eq!(f["workflowId"], "hostile", "{f}");
                assert_eq!(f["runId"], run.as_str(), "{f}");
                (
                    f["task"].as_str().unwrap().to_owned(),
                    f["reason"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
    let expected: BTreeSet<(String, String)> = CASES
        .iter()
        .filter(|(input, _)| *input != "fail")
        .map(|(input, reason)| (format!("activity {input}"), (*reason).to_owned()))
        .collect();
    assert_eq!(logged, expected);

    // The metrics count each trap and each limit hit, by binding.
    let text = scrape(&server, None).await;
    let binding = r#"domain="d",kind="activity",binding="workers""#;
    expect(&text, &format!("weft_guest_traps_total{{{binding}}}"), 3.0);
    for limit in ["cpu", "memory", "stack", "output"] {
        let series = format!(r#"weft_guest_limit_hits_total{{{binding},limit="{limit}"}}"#);
        expect(&text, &series, 1.0);
    }
    // And every failed task by its cause; the guest's own failure is an answer, not one.
    for (cause, n) in [
        ("cpu", 1.0),
        ("memory", 1.0),
        ("trap", 2.0),
        ("stack", 1.0),
        ("panic", 1.0),
        ("output", 1.0),
    ] {
        let series = format!(r#"weft_guest_failures_total{{{binding},cause="{cause}"}}"#);
        expect(&text, &series, n);
    }
    let calls = format!("weft_guest_call_seconds_count{{{binding}}}");
    expect(&text, &calls, CASES.len() as f64);

    // The same worker serves the next task.
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![hostile_activity("after", "still serving")],
    )
    .await;
    let events = wait_for_event(&c, "hostile", &run, "ActivityTaskCompleted").await;
    let completed = first(&events, "ActivityTaskCompleted")
        .activity_task_completed_event_attributes()
        .unwrap();
    assert_eq!(
        activity_ids(&events)[&completed.scheduled_event_id()],
        "after"
    );
    assert_eq!(completed.result(), Some("still serving"));
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    let run = closed(&server, "hostile", &run).await;
    assert_eq!(run.status, CloseStatus::Completed, "{:?}", run.types());
}
