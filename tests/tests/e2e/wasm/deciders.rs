//! Hostile deciders: whatever `hostile-decider` does wrong (breaks a limit, traps, answers an
//! error, or decisions the service refuses), no decision is applied; its task times out and a
//! new one is scheduled, the failure log names the cause, and the guest backs off on that run.

use std::collections::BTreeSet;

use weft_tests::aws_sdk_swf::types::{CloseStatus, DecisionTaskTimeoutType, HistoryEvent};
use weft_tests::guests::{self, Bind, BindingKind, Limits, SMALL_LIMITS, WeftClient};

use super::{closed, identities, server, wasm_identity};
use crate::flow::{
    D, DECIDERS, history, millis, register_workflow, sleep_until_millis, start_with, types,
    wait_for_events,
};

/// Each workflow input, and the reason the failure log must give for it.
fn cases() -> Vec<(&'static str, String)> {
    let invalid = |errors: &str| format!("weft: invalid answer: ValidationException: {errors}");
    let activity_id = "decisions.1.member.scheduleActivityTaskDecisionAttributes.activityId";
    let timer = "decisions.1.member.startTimerDecisionAttributes";
    vec![
        ("loop", "weft: CPU time limit exceeded (100 ms)".into()),
        (
            "alloc",
            "weft: memory limit exceeded (33554432 bytes)".into(),
        ),
        (
            "trap",
            "weft: the guest trapped: wasm `unreachable` instruction executed".into(),
        ),
        ("error", "weft: the decider failed: asked to fail".into()),
        // 10 MiB of result, in its decision's JSON.
        (
            "big",
            "weft: output of 10485880 bytes exceeds the limit of 65536 bytes".into(),
        ),
        (
            "empty-activity-id",
            invalid(&format!(
                "1 validation error detected: Value '' at '{activity_id}' failed to satisfy \
                 constraint: Member must have length greater than or equal to 1"
            )),
        ),
        (
            "long-activity-id",
            invalid(&format!(
                "1 validation error detected: Value '{}...' at '{activity_id}' failed to \
                 satisfy constraint: Member must have length less than or equal to 256",
                "a".repeat(128)
            )),
        ),
        (
            "bad-timer",
            invalid(&format!(
                "1 validation error detected: Value 'soon' at '{timer}.startToFireTimeout' \
                 failed to satisfy constraint: Member must be a whole number of seconds from 0 \
                 to 31536000"
            )),
        ),
    ]
}

/// The decision tasks' start-to-close timeout, in seconds.
const TASK_TIMEOUT_S: i64 = 2;

#[tokio::test]
async fn hostile_deciders_are_retried_within_their_tasks_which_time_out_and_back_off() {
    let (server, c, weft) = server().await;
    let digest = guests::deploy(
        &weft,
        "hostile-decider",
        D,
        BindingKind::Decision,
        DECIDERS,
        Bind {
            concurrency: Some(cases().len() as u32),
            limits: Limits {
                cpu_ms: Some(100),
                ..SMALL_LIMITS
            },
            ..Bind::default()
        },
    )
    .await;
    register_workflow(&c, "w").await;
    let mut runs = Vec::new();
    for (input, _) in cases() {
        let run = start_with(&c, input, "w", |s| {
            s.input(input)
                .task_start_to_close_timeout(TASK_TIMEOUT_S.to_string())
        })
        .await;
        runs.push(run);
    }
    // The runs fail side by side; check each as its fourth decision task starts.
    let mut checks = tokio::task::JoinSet::new();
    for ((input, reason), run) in cases().into_iter().zip(runs.clone()) {
        let (c, weft, wasm) = (c.clone(), weft.clone(), wasm_identity(&digest));
        checks.spawn(async move { check(&c, &weft, input, &run, &reason, &wasm).await });
    }
    while let Some(checked) = checks.join_next().await {
        checked.expect("a check panicked");
    }
    // Open as they are, their histories keep every rule.
    for ((input, _), run) in cases().into_iter().zip(&runs) {
        guests::history_wire(&server, D, input, run).await;
    }

    // The same guest still decides for a run it can serve.
    let run = start_with(&c, "echo", "w", |s| {
        s.input("still serving")
            .task_start_to_close_timeout(TASK_TIMEOUT_S.to_string())
    })
    .await;
    let run = closed(&server, "echo", &run).await;
    assert_eq!(run.status, CloseStatus::Completed, "{:?}", run.types());
    let completed = run.events.last().unwrap();
    assert_eq!(
        completed
            .workflow_execution_completed_event_attributes()
            .unwrap()
            .result(),
        Some("still serving")
    );
}

/// Checks run `input` (the workflow id too) once its fourth decision task has started: the
/// history holds only decision tasks that timed out, each followed by a new one; the failure
/// log holds `reason` for the tasks the guest ran; and the guest backed off.
///
/// `workers/backoff.rs`: after the n-th failure in a row on a run, its tasks are left unanswered
/// for 2^(n-1) s. With 2 s task timeouts the tasks start about 0, 2, 4 and 6 s in. The first
/// always runs; so does the second (the 1 s pause is over); the 2 s pause ends just as the third
/// starts, so it may run or not; if it ran, the 4 s pause skips the fourth, and if it did not,
/// the fourth runs. So the guest runs on exactly three of the first four tasks, and always on
/// the first two, where a guest that never paused would run on all four.
async fn check(
    c: &weft_tests::aws_sdk_swf::Client,
    weft: &WeftClient,
    input: &str,
    run: &str,
    reason: &str,
    wasm: &str,
) {
    let events = wait_for_events(c, input, run, "DecisionTaskStarted", 4).await;
    let fourth = started(&events)[3];
    // Long enough for the fourth task's guest to have failed, well before a fifth task starts.
    sleep_until_millis(millis(fourth) + 1200).await;
    let failures: Vec<serde_json::Value> =
        guests::failures(weft, D, BindingKind::Decision, DECIDERS)
            .await
            .into_iter()
            .filter(|f| f["runId"] == run)
            .collect();
    let events = history(c, input, run).await;
    assert_eq!(
        types(&events),
        [
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskTimedOut",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskTimedOut",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskTimedOut",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
        ],
        "{input}: no decision is applied, and the failure log was read before a fifth task"
    );
    for (n, event) in events.iter().enumerate() {
        if let Some(timed_out) = event.decision_task_timed_out_event_attributes() {
            assert_eq!(
                timed_out.timeout_type(),
                &DecisionTaskTimeoutType::StartToClose
            );
            assert_eq!(timed_out.started_event_id(), events[n - 1].event_id());
            assert_eq!(timed_out.scheduled_event_id(), events[n - 2].event_id());
        }
    }
    assert!(
        identities(&events, "DecisionTaskStarted")
            .iter()
            .all(|i| i == &wasm),
        "{input}: served in-process"
    );

    for failure in &failures {
        assert_eq!(failure["workflowId"], input);
        assert_eq!(failure["reason"], reason, "{input}");
    }
    let ran: BTreeSet<i64> = failures
        .iter()
        .map(|f| {
            let task = f["task"].as_str().unwrap();
            let id = task
                .strip_prefix("decision task ")
                .unwrap_or_else(|| panic!("{task}"));
            id.parse().unwrap()
        })
        .collect();
    let started: Vec<i64> = started(&events).iter().map(|e| e.event_id()).collect();
    // (Whether a retry falls within a 2 s task depends on how busy the machine is: the retries
    // within a task are tested on a manual clock, in `recovery.rs`.)
    assert!(
        ran.contains(&started[0]),
        "{input}: the guest runs on the first task: ran on {ran:?} of {started:?}"
    );
    assert!(
        ran.iter().all(|id| started.contains(id)),
        "{input}: {ran:?}"
    );
    // And after the n-th failure, the next came no sooner than the 2^(n-1) s pause allows.
    let at: Vec<f64> = failures.iter().map(|f| f["at"].as_f64().unwrap()).collect();
    for (n, pair) in at.windows(2).enumerate() {
        let pause = f64::from(1u32 << n);
        assert!(
            pair[1] - pair[0] >= pause - 0.02,
            "{input}: failure {} came {:.3} s after failure {}, within its {pause} s pause",
            n + 2,
            pair[1] - pair[0],
            n + 1
        );
    }
}

/// The DecisionTaskStarted events, in order.
fn started(events: &[HistoryEvent]) -> Vec<&HistoryEvent> {
    events
        .iter()
        .filter(|e| e.event_type().as_str() == "DecisionTaskStarted")
        .collect()
}
