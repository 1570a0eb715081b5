//! Hostile functions, scheduled by the test as an SDK decider: each misbehaviour of
//! `hostile-function` fails its Lambda task with the cause; a well-behaved input completes; and a
//! function that outlives its start-to-close timeout times out, its late failure ignored.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use weft_tests::aws_sdk_swf::types::{
    CloseStatus, Decision, DecisionType, HistoryEvent, LambdaFunctionTimeoutType,
    ScheduleLambdaFunctionDecisionAttributes,
};
use weft_tests::guests::{self, Bind, BindingKind, Limits, SMALL_LIMITS};

use super::{closed, server};
use crate::flow::{
    D, DECIDERS, complete_workflow, count, decision_task, history, register_workflow, respond,
    start_on, types, wait_for_events,
};

/// The function bound with small limits.
const HOSTILE: &str = "hostile";
/// The same guest bound with 2 s of CPU, more than its task's 1 s timeout.
const SLOW: &str = "slow";

/// ScheduleLambdaFunction `id` of function `name` with `input`, and a start-to-close timeout
/// of `timeout` seconds if given.
fn lambda(id: &str, name: &str, input: &str, timeout: Option<&str>) -> Decision {
    Decision::builder()
        .decision_type(DecisionType::ScheduleLambdaFunction)
        .schedule_lambda_function_decision_attributes(
            ScheduleLambdaFunctionDecisionAttributes::builder()
                .id(id)
                .name(name)
                .input(input)
                .set_start_to_close_timeout(timeout.map(str::to_owned))
                .build()
                .unwrap(),
        )
        .build()
        .unwrap()
}

/// The function id of each LambdaFunctionScheduled, by event id.
fn function_ids(events: &[HistoryEvent]) -> BTreeMap<i64, String> {
    events
        .iter()
        .filter_map(|e| {
            let scheduled = e.lambda_function_scheduled_event_attributes()?;
            Some((e.event_id(), scheduled.id().to_owned()))
        })
        .collect()
}

#[tokio::test]
async fn hostile_functions_fail_with_their_cause_and_a_late_one_times_out() {
    let (server, c, weft) = server().await;
    let small = Bind {
        limits: SMALL_LIMITS,
        ..Bind::default()
    };
    guests::deploy(
        &weft,
        "hostile-function",
        D,
        BindingKind::Function,
        HOSTILE,
        small,
    )
    .await;
    let slow = Bind {
        limits: Limits {
            cpu_ms: Some(2000),
            ..SMALL_LIMITS
        },
        ..Bind::default()
    };
    guests::deploy(
        &weft,
        "hostile-function",
        D,
        BindingKind::Function,
        SLOW,
        slow,
    )
    .await;
    register_workflow(&c, "w").await;
    let run = start_on(&c, "functions", "w", DECIDERS).await;
    let task = decision_task(&c, DECIDERS).await;
    let failing = [
        ("loop", "weft: CPU time limit exceeded (200 ms)"),
        (
            "trap",
            "weft: the guest trapped: wasm `unreachable` instruction executed",
        ),
        (
            "big",
            "weft: output of 10485760 bytes exceeds the limit of 65536 bytes",
        ),
        // The function's own failure.
        ("fail", "asked to fail"),
    ];
    let mut decisions: Vec<Decision> = failing
        .iter()
        .map(|(input, _)| lambda(input, HOSTILE, input, None))
        .collect();
    decisions.push(lambda("echo", HOSTILE, "hello", None));
    decisions.push(lambda("late", SLOW, "loop", Some("1")));
    respond(&c, task.task_token(), decisions).await;

    // Functions run side by side: the last of the four failures may be
    // recorded before the echo completes or the late one starts.
    wait_for_events(&c, "functions", &run, "LambdaFunctionCompleted", 1).await;
    wait_for_events(&c, "functions", &run, "LambdaFunctionStarted", 6).await;
    let events = wait_for_events(&c, "functions", &run, "LambdaFunctionFailed", 4).await;
    let ids = function_ids(&events);
    let mut failed = BTreeMap::new();
    for event in &events {
        if let Some(attributes) = event.lambda_function_failed_event_attributes() {
            let id = ids[&attributes.scheduled_event_id()].as_str();
            failed.insert(id, attributes.reason().unwrap_or_default());
        }
    }
    assert_eq!(failed, BTreeMap::from(failing));
    let completed: Vec<_> = events
        .iter()
        .filter_map(HistoryEvent::lambda_function_completed_event_attributes)
        .map(|a| (ids[&a.scheduled_event_id()].as_str(), a.result()))
        .collect();
    assert_eq!(completed, [("echo", Some("hello"))]);
    assert_eq!(count(&events, "LambdaFunctionStarted"), 6);

    // The slow one times out after 1 s, while its guest still runs.
    let events = wait_for_events(&c, "functions", &run, "LambdaFunctionTimedOut", 1).await;
    let timed_out = events
        .iter()
        .find_map(HistoryEvent::lambda_function_timed_out_event_attributes)
        .unwrap();
    assert_eq!(
        function_ids(&events)[&timed_out.scheduled_event_id()],
        "late"
    );
    assert_eq!(
        timed_out.timeout_type(),
        Some(&LambdaFunctionTimeoutType::StartToClose)
    );
    // Its guest then uses up its 2 s of CPU: the failure is logged, not recorded in the run.
    let began = Instant::now();
    let late = loop {
        let logged = guests::failures(&weft, D, BindingKind::Function, SLOW).await;
        if let Some(failure) = logged.first() {
            assert_eq!(logged.len(), 1, "{logged:?}");
            break failure.clone();
        }
        assert!(began.elapsed() < Duration::from_secs(20), "no late failure");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(late["task"], "function slow (late)");
    assert_eq!(late["reason"], "weft: CPU time limit exceeded (2000 ms)");
    assert_eq!(late["runId"], run.as_str());
    let events = history(&c, "functions", &run).await;
    let late_id = timed_out.scheduled_event_id();
    let closes: Vec<&str> = events
        .iter()
        .filter(|e| {
            let scheduled = [
                e.lambda_function_completed_event_attributes()
                    .map(|a| a.scheduled_event_id()),
                e.lambda_function_failed_event_attributes()
                    .map(|a| a.scheduled_event_id()),
                e.lambda_function_timed_out_event_attributes()
                    .map(|a| a.scheduled_event_id()),
            ];
            scheduled.contains(&Some(late_id))
        })
        .map(|e| e.event_type().as_str())
        .collect();
    assert_eq!(closes, ["LambdaFunctionTimedOut"], "{:?}", types(&events));

    // The failure log holds the guest's faults, not the function's own failure.
    let logged: BTreeMap<String, String> =
        guests::failures(&weft, D, BindingKind::Function, HOSTILE)
            .await
            .into_iter()
            .map(|f| {
                assert_eq!(f["runId"], run.as_str(), "{f}");
                let task = f["task"].as_str().unwrap().to_owned();
                (task, f["reason"].as_str().unwrap().to_owned())
            })
            .collect();
    let expected: BTreeMap<String, String> = failing[..3]
        .iter()
        .map(|(id, reason)| (format!("function {HOSTILE} ({id})"), (*reason).to_owned()))
        .collect();
    assert_eq!(logged, expected);

    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    let run = closed(&server, "functions", &run).await;
    assert_eq!(run.status, CloseStatus::Completed, "{:?}", run.types());
}
