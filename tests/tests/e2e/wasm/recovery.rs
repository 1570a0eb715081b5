//! Why a run is stuck, and getting it unstuck: a decider that fails (an error on one run, a
//! panic on another) has its failures, the panic's message included, read per run through the
//! API and `weft workflow describe`; the task it failed on is held and retried; and a fixed
//! decider bound to the list takes the held task over at once, so the run completes without
//! waiting out the task's timeout, with the history AWS would record.

use std::time::{Duration, Instant};

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::types::CloseStatus;
use weft_tests::guests::{self, Bind, BindingKind, RunFailure, WeftClient};

use super::replay::weft_cli;
use crate::common::register_domain;
use crate::flow::{D, DECIDERS, WORKERS, register_activity, register_workflow, start_with, types};
use crate::observability::{sample, scrape};

/// The run's failures once there are at least `n`.
async fn failures(weft: &WeftClient, workflow_id: &str, run: &str, n: usize) -> Vec<RunFailure> {
    let began = Instant::now();
    loop {
        let failures = weft.run_failures(D, workflow_id, run).await.unwrap();
        if failures.len() >= n {
            return failures;
        }
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "{workflow_id}: {failures:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_decider_says_why_per_run_and_a_fixed_one_takes_its_held_task_at_once() {
    // The task's 60 s never pass: the clock is the test's.
    let server = TestServer::start_manual().await;
    let (c, weft) = (server.client(), guests::weft_client(&server));
    register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    register_activity(&c, "work").await;
    let deploy = |guest, kind, list| guests::deploy(&weft, guest, D, kind, list, Bind::default());
    deploy("hostile-decider", BindingKind::Decision, DECIDERS).await;
    let erring = start_with(&c, "erring", "w", |s| s.input("error")).await;
    let panicking = start_with(&c, "panicking", "w", |s| s.input("panic")).await;

    // The first task of each is tried, then tried again after a second, still the same task.
    let erred = failures(&weft, "erring", &erring, 2).await;
    for failure in &erred {
        assert_eq!(failure.kind, BindingKind::Decision);
        assert_eq!(failure.binding, DECIDERS);
        assert_eq!(failure.failure.task, "decision task 3");
        assert_eq!(
            failure.failure.reason,
            "weft: the decider failed: asked to fail"
        );
    }
    let panicked = failures(&weft, "panicking", &panicking, 1).await;
    let reason = &panicked[0].failure.reason;
    // The panic's own log line is its reason; nothing else was logged to keep as details.
    assert_eq!(panicked[0].failure.details, None);
    assert!(
        reason.starts_with("weft: the guest panicked at ") && reason.ends_with(": asked to panic"),
        "{reason}"
    );
    let (ok, out, err) = weft_cli(
        &server,
        &["workflow", "describe", "panicking", "--domain", D],
    )
    .await;
    assert!(ok, "{out}{err}");
    assert!(out.contains("latest failures of its guests"), "{out}");
    assert!(
        out.contains(&format!("decision {DECIDERS}  decision task 3: {reason}")),
        "{out}"
    );
    // The run listing marks both runs failing, with the decider's own words.
    let listed = weft.list_runs(D, &Default::default()).await.unwrap().runs;
    let failing = |id: &str| {
        let run = listed.iter().find(|r| r.workflow_id == id).unwrap();
        run.failing.as_ref().map(|f| f.reason.clone())
    };
    assert_eq!(
        failing("erring").as_deref(),
        Some("weft: the decider failed: asked to fail")
    );
    assert_eq!(failing("panicking").as_ref(), Some(reason));
    // Another run's failures are not this one's; a run that does not exist is said to be unknown.
    assert!(weft.run_failures(D, "erring", &panicking).await.is_err());

    // A fixed decider (and a worker for its activity): the held tasks are answered at once. The
    // manual clock never reaches the tasks' timeout, so only the held task can complete a run.
    deploy("one-activity-decider", BindingKind::Decision, DECIDERS).await;
    deploy("hostile-activity", BindingKind::Activity, WORKERS).await;
    let bound = Instant::now();
    let done = guests::wait_closed(&server, D, "erring", &erring, Duration::from_secs(30)).await;
    let took = bound.elapsed();
    assert_eq!(done.status, CloseStatus::Completed, "{:?}", done.types());
    // (Within a second or two here; a busy machine compiling the new modules takes longer.)
    assert!(
        took < Duration::from_secs(20),
        "completed {took:?} after the bind"
    );
    assert_eq!(
        types(&done.events),
        [
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "ActivityTaskScheduled",
            "ActivityTaskStarted",
            "ActivityTaskCompleted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "WorkflowExecutionCompleted",
        ],
        "the failed attempts left nothing in the history"
    );
    // The other run's activity panics too: that failure is the run's as well.
    let closed = guests::wait_closed(&server, D, "panicking", &panicking, Duration::from_secs(30));
    assert_eq!(closed.await.status, CloseStatus::Failed);
    let last = failures(&weft, "panicking", &panicking, 2)
        .await
        .pop()
        .unwrap();
    assert_eq!(
        (last.kind, last.binding.as_str()),
        (BindingKind::Activity, WORKERS)
    );
    assert!(
        last.failure.reason.ends_with(": asked to panic"),
        "{last:?}"
    );

    // The metrics count each failed attempt by its cause, as the failure log has them.
    let text = scrape(&server, None).await;
    let decider = r#"domain="d",kind="decision",binding="deciders""#;
    for (workflow_id, run, cause) in [
        ("erring", &erring, "error"),
        ("panicking", &panicking, "panic"),
    ] {
        let logged = weft.run_failures(D, workflow_id, run).await.unwrap();
        let logged = logged
            .iter()
            .filter(|f| f.kind == BindingKind::Decision)
            .count();
        let series = format!(r#"weft_guest_failures_total{{{decider},cause="{cause}"}}"#);
        assert_eq!(sample(&text, &series), Some(logged as f64), "{series}");
    }
}

/// The run's pause, once it is `paused` (within 30 s).
async fn until_paused(weft: &WeftClient, workflow_id: &str, run: &str, paused: bool) {
    let began = Instant::now();
    loop {
        let summary = weft.run_summary(D, workflow_id, run).await.unwrap();
        if summary.paused.is_some() == paused {
            return;
        }
        assert!(began.elapsed() < Duration::from_secs(30), "{summary:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_binding_pauses_a_run_its_decider_keeps_failing_on_until_it_is_resumed() {
    let server = TestServer::start_manual().await;
    let (c, weft) = (server.client(), guests::weft_client(&server));
    register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    let pausing = Bind {
        pause_after_failures: Some(2),
        ..Bind::default()
    };
    guests::deploy(
        &weft,
        "hostile-decider",
        D,
        BindingKind::Decision,
        DECIDERS,
        pausing,
    )
    .await;
    let erring = start_with(&c, "erring", "w", |s| s.input("error")).await;

    // Two failures in a row pause the run; the held task is not tried again meanwhile.
    until_paused(&weft, "erring", &erring, true).await;
    let summary = weft.run_summary(D, "erring", &erring).await.unwrap();
    let pause = summary.paused.expect("paused");
    assert_eq!(pause.by, format!("weft (decision binding {DECIDERS})"));
    assert_eq!(
        pause.reason.as_deref(),
        Some("its decider failed 2 times in a row: weft: the decider failed: asked to fail")
    );
    assert_eq!(failures(&weft, "erring", &erring, 2).await.len(), 2);
    let (ok, out, err) =
        weft_cli(&server, &["workflow", "describe", "erring", "--domain", D]).await;
    assert!(ok, "{out}{err}");
    assert!(
        out.contains(&format!("paused by weft (decision binding {DECIDERS}) at ")),
        "{out}"
    );

    // Resumed, the held task is tried again at once, and two more failures pause it again:
    // the count starts anew.
    let resumed = weft.resume(D, "erring", &Default::default()).await.unwrap();
    assert!(resumed.changed);
    let failed = failures(&weft, "erring", &erring, 4).await;
    assert!(failed.len() >= 4, "{failed:?}");
    until_paused(&weft, "erring", &erring, true).await;
}
