//! Replay: the decider that made a history decides it the same again, even one that reads the
//! clock and draws random numbers; another decider is caught at its first different decision;
//! and `weft deploy --verify` refuses to bind a decider that diverges, unless forced.

use serde_json::Value;
use weft_host::client::{Replay, ReplayReport, TypeRef};
use weft_tests::aws_sdk_swf::types::CloseStatus;
use weft_tests::guests::{self, Bind, BindingKind, ClientError, order};
use weft_tests::{TestServer, aws_sdk_swf::Client};

use super::{closed, deploy_order, order_with, server, start_order};
use crate::flow::{D, DECIDERS, first, register_workflow, start_with};

/// Two finished orders (one completed, one declined) and a finished run of the clock decider,
/// whose marker and result hold the time and a random number it read.
async fn recorded(server: &TestServer, c: &Client, weft: &guests::WeftClient) -> String {
    deploy_order(weft).await;
    let declined = order_with(serde_json::json!({"card": "4111111111110000"}));
    for (id, input) in [("order-1", order::SAMPLE_ORDER), ("order-2", &declined[..])] {
        let run = start_order(c, id, input).await;
        closed(server, id, &run).await;
    }
    register_workflow(c, "Clock").await;
    let clock = guests::deploy(
        weft,
        "clock-decider",
        D,
        BindingKind::Decision,
        DECIDERS,
        Bind::default(),
    )
    .await;
    let run = start_with(c, "clock-1", "Clock", |start| start).await;
    let run = closed(server, "clock-1", &run).await;
    assert_eq!(run.status, CloseStatus::Completed);
    // The clock read in the first task is its DecisionTaskStarted time.
    let marker = first(&run.events, "MarkerRecorded");
    let details = marker.marker_recorded_event_attributes().unwrap().details();
    let reading: Value = serde_json::from_str(details.unwrap()).unwrap();
    let started = first(&run.events, "DecisionTaskStarted").event_timestamp();
    assert_eq!(reading["now"].as_f64(), Some(started.as_secs_f64()));
    clock
}

fn replay(module: &str, task_list: &str) -> Replay {
    Replay {
        module: module.to_owned(),
        task_list: Some(task_list.to_owned()),
        ..Replay::default()
    }
}

/// `(workflow id, replayed decision tasks, divergence message)` of each run, newest first.
fn summary(report: &ReplayReport) -> Vec<(String, u32, Option<String>)> {
    let runs = report.runs.iter();
    runs.map(|r| {
        let message = r.divergence.as_ref().map(|d| d.message.clone());
        (r.workflow_id.clone(), r.decision_tasks, message)
    })
    .collect()
}

#[tokio::test]
async fn a_decider_replays_its_own_histories_and_another_is_caught() {
    let (server, c, weft) = server().await;
    let clock = recorded(&server, &c, &weft).await;

    let decider = weft.upload_module(guests::guest("order-decider")).await;
    let decider = decider.unwrap().digest;
    let report = weft
        .replay(D, &replay(&decider, order::DECISION_TASK_LIST))
        .await;
    let runs = summary(&report.unwrap());
    let ids: Vec<&str> = runs.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(ids, ["order-2", "order-1"], "newest first");
    assert!(runs.iter().all(|r| r.1 >= 4 && r.2.is_none()), "{runs:?}");

    // Its clock and randomness are the recorded task's: the replay decides the same.
    let report = weft.replay(D, &replay(&clock, DECIDERS)).await.unwrap();
    assert_eq!(summary(&report), [("clock-1".to_owned(), 2, None)]);

    // A different decider over the orders: caught at the first task's first decision.
    let other = weft.upload_module(guests::guest("hostile-decider")).await;
    let other = other.unwrap().digest;
    let only_type = Replay {
        workflow_type: Some(TypeRef {
            name: order::WORKFLOW.name.into(),
            version: order::WORKFLOW.version.into(),
        }),
        last: Some(1),
        ..replay(&other, order::DECISION_TASK_LIST)
    };
    let report = weft.replay(D, &only_type).await.unwrap();
    let [run] = &report.runs[..] else {
        panic!("{report:?}")
    };
    assert_eq!(run.workflow_id, "order-2");
    let divergence = run.divergence.as_ref().unwrap();
    assert_eq!(
        (divergence.started_event_id, divergence.decision),
        (3, 0),
        "{divergence:?}"
    );
    assert_eq!(
        divergence.message,
        "the replay decided CompleteWorkflowExecution, but TimerStarted was recorded then \
         (event 5)"
    );
    assert_eq!(divergence.recorded.as_ref().unwrap()["eventId"], 5);

    // Only a decider can be replayed, and only a module the caller has.
    let worker = weft.upload_module(guests::guest("order-activities")).await;
    let refused = weft.replay(D, &replay(&worker.unwrap().digest, "x")).await;
    let Err(ClientError::Refused { status, code, .. }) = refused else {
        panic!("{refused:?}")
    };
    assert_eq!((status, code.as_str()), (400, "ValidationException"));
    let refused = weft.replay(D, &replay(&"0".repeat(64), "x")).await;
    let Err(ClientError::Refused { status, code, .. }) = refused else {
        panic!("{refused:?}")
    };
    assert_eq!((status, code.as_str()), (404, "UnknownResourceFault"));
}

/// Runs the `weft` binary with `args` against `server`; its exit status, stdout and stderr.
pub(super) async fn weft_cli(server: &TestServer, args: &[&str]) -> (bool, String, String) {
    let out = crate::cli::weft(server, args).await;
    (out.ok, out.stdout, out.stderr)
}

#[tokio::test]
async fn deploy_verify_refuses_a_decider_that_diverges_on_an_open_run_unless_forced() {
    let (server, c, weft) = server().await;
    recorded(&server, &c, &weft).await;
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| {
        let path = dir.path().join(format!("{name}.wasm"));
        std::fs::write(&path, guests::guest(name)).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let (order_decider, hostile) = (file("order-decider"), file("hostile-decider"));
    let deploy = |module: &str, extra: &[&str]| {
        let mut args = vec!["deploy", module, "--domain", D, "--decisions"];
        args.extend([order::DECISION_TASK_LIST, "--verify", "5"]);
        args.extend(extra);
        let args: Vec<String> = args.into_iter().map(str::to_owned).collect();
        let server = &server;
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            weft_cli(server, &args).await
        }
    };
    let bound = || async {
        let bindings = weft.list_bindings(D).await.unwrap();
        let decider = bindings
            .into_iter()
            .find(|b| b.kind == BindingKind::Decision && b.name == order::DECISION_TASK_LIST);
        decider.unwrap().module
    };

    // Only closed runs diverge: they get no more decision tasks, so it is information.
    let (ok, out, err) = deploy(&hostile, &[]).await;
    assert!(ok, "{out}{err}");
    assert!(
        err.contains("2 closed run(s) of 2 diverge: information only"),
        "{err}"
    );
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("DIVERGED") && l.contains(" closed "))
            .count(),
        2,
        "{out}"
    );
    let (ok, out, err) = deploy(&order_decider, &[]).await;
    assert!(
        ok && err.contains("verified 2 runs: none diverges"),
        "{out}{err}"
    );
    let before = bound().await;

    // An open run (its window is an hour long) that the change would decide differently.
    let open = order_with(serde_json::json!({"cancel_window_seconds": 3600}));
    let run = start_order(&c, "order-3", &open).await;
    crate::flow::wait_for_event(&c, "order-3", &run, "TimerStarted").await;
    let (ok, out, err) = deploy(&hostile, &[]).await;
    assert!(!ok, "{out}{err}");
    assert!(
        err.contains(
            "not bound: the decider diverges on 1 open run(s) of the 3 replayed of task list \
             order-decisions: it would decide them differently (--force binds it anyway)"
        ),
        "{err}"
    );
    assert!(out.contains("DIVERGED  order-3 "), "{out}");
    assert_eq!(bound().await, before, "the binding is unchanged");

    // The decider that made the histories passes, and `weft replay` agrees.
    let (ok, out, err) = deploy(&order_decider, &[]).await;
    assert!(ok, "{out}{err}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("same")).count(),
        3,
        "{out}"
    );
    let order_type = "OrderWorkflow:1.0";
    let args = [
        "replay",
        "--module",
        &order_decider,
        "--domain",
        D,
        "--type",
        order_type,
    ];
    let (ok, out, err) = weft_cli(&server, &args).await;
    assert!(ok, "{out}{err}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("same")).count(),
        3,
        "{out}"
    );
    // `weft replay` fails on an open run's divergence, lists a closed one's.
    let args = [
        "replay", "--module", &hostile, "--domain", D, "--type", order_type,
    ];
    let (ok, out, err) = weft_cli(&server, &args).await;
    assert!(
        !ok && err.contains("1 open run(s) of the 3 replayed"),
        "{out}{err}"
    );
    let args = [
        "replay", "--module", &hostile, "--domain", D, "--type", "Clock:1",
    ];
    let (ok, out, err) = weft_cli(&server, &args).await;
    assert!(
        ok && err.contains("1 closed run(s) of 1 diverge"),
        "{out}{err}"
    );
    // A filter that matches no run is an error, not a green replay of nothing.
    let args = [
        "replay", "--module", &hostile, "--domain", D, "--type", "Nope:1.0",
    ];
    let (ok, out, err) = weft_cli(&server, &args).await;
    assert!(
        !ok && err.contains("no runs to replay: none match domain d, type Nope:1.0"),
        "{out}{err}"
    );

    let (ok, out, err) = deploy(&hostile, &["--force"]).await;
    assert!(ok, "{out}{err}");
    assert!(err.contains("bound anyway (--force)"), "{err}");
    assert_ne!(bound().await, before, "forced, it is bound");
}

#[tokio::test]
async fn verify_without_runs_says_it_verified_none() {
    let (server, _, _) = server().await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("order-decider.wasm");
    std::fs::write(&path, guests::guest("order-decider")).unwrap();
    let args = [
        "deploy",
        path.to_str().unwrap(),
        "--domain",
        D,
        "--decisions",
        order::DECISION_TASK_LIST,
        "--verify",
        "5",
    ];
    let (ok, out, err) = weft_cli(&server, &args).await;
    assert!(ok, "{out}{err}");
    assert!(
        err.contains("verified 0 runs: task list order-decisions has none yet"),
        "{err}"
    );
}
