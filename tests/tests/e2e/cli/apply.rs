//! `weft apply`: a project's `weft-app.toml` put on a server, dry-run first, then for real, then
//! again with nothing to change; what SWF cannot change refused before anything is applied; a
//! changed decider checked against the open runs it would decide differently.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use weft_tests::TestServer;
use weft_tests::guests::{self, BindingKind, order};

use super::{Weft, write};
use crate::flow::{D, wait_for_event};

/// The order example as a project: its workflow and activity types, its decider on
/// `order-decisions`, and (if `worker`) its activity worker.
fn project(dir: &Path, worker: bool) {
    let mut manifest = format!(
        "[domain]\nname = \"{D}\"\nretention-days = 2\n\n\
         [[workflow]]\nname = \"OrderWorkflow\"\nversion = \"1.0\"\n\
         task-list = \"{}\"\nexecution-timeout = \"5m\"\ntask-timeout = \"10s\"\n\
         child-policy = \"TERMINATE\"\n",
        order::DECISION_TASK_LIST
    );
    for activity in order::ACTIVITIES {
        manifest.push_str(&format!(
            "\n[[activity]]\nname = \"{}\"\nversion = \"{}\"\n",
            activity.name, activity.version
        ));
    }
    manifest.push_str(&format!(
        "\n[[module]]\nfile = \"decider.wasm\"\ndecisions = \"{}\"\n",
        order::DECISION_TASK_LIST
    ));
    std::fs::write(dir.join("decider.wasm"), guests::guest("order-decider")).unwrap();
    if worker {
        manifest.push_str(&format!(
            "\n[[module]]\nfile = \"worker.wasm\"\nactivities = \"{}\"\nconcurrency = 2\n",
            order::ACTIVITY_TASK_LIST
        ));
        std::fs::write(dir.join("worker.wasm"), guests::guest("order-activities")).unwrap();
    }
    write(dir, "weft-app.toml", &manifest);
}

/// `(done, what)` of each step of an `apply --json`.
fn steps(answer: &Value) -> Vec<(String, String)> {
    let steps = answer["steps"].as_array().expect("steps");
    let text = |v: &Value| v.as_str().unwrap().to_owned();
    steps
        .iter()
        .map(|s| (text(&s["done"]), text(&s["what"])))
        .collect()
}

#[tokio::test]
async fn apply_registers_and_binds_once_and_then_changes_nothing() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), true);
    let apply = |args: &'static [&'static str]| Weft::at(&server).dir(dir.path()).run(args);

    let dry = steps(&apply(&["apply", "--dry-run", "--json"]).await.json());
    assert_eq!(dry.len(), 1 + 1 + 6 + 2, "{dry:?}");
    assert_eq!(dry[0], ("would register".into(), format!("domain {D}")));
    assert_eq!(
        dry[9],
        (
            "would upload and bind".into(),
            "activities order-activities".into()
        )
    );
    let c = server.client();
    let unknown = c.describe_domain().name(D).send().await;
    assert!(unknown.is_err(), "a dry run registers nothing");

    let applied = apply(&["apply"]).await;
    let out = applied.out();
    for line in [
        "registered  domain d",
        "registered  workflow type OrderWorkflow:1.0",
        "registered  activity type EmailCustomer:1.0",
        "bound  decisions order-decisions -> ",
        "bound  activities order-activities -> ",
    ] {
        assert!(out.contains(line), "{line:?} in {out}");
    }
    assert!(
        applied.stderr.contains("uploaded worker.wasm"),
        "{applied:?}"
    );
    let weft = guests::weft_client(&server);
    let bindings = weft.list_bindings(D).await.unwrap();
    let worker = bindings.iter().find(|b| b.kind == BindingKind::Activity);
    assert_eq!(worker.map(|b| b.concurrency), Some(2));
    let described = c.describe_domain().name(D).send().await.unwrap();
    let days = described.configuration.unwrap();
    assert_eq!(days.workflow_execution_retention_period_in_days(), "2");

    // Again: everything is unchanged, and the bindings keep their times.
    let again = steps(&apply(&["apply", "--json"]).await.json());
    assert_eq!(again.len(), 10, "{again:?}");
    assert!(
        again.iter().all(|(done, _)| done == "unchanged"),
        "{again:?}"
    );
    assert_eq!(weft.list_bindings(D).await.unwrap(), bindings);
    let said = apply(&["apply"]).await;
    assert!(said.out().ends_with("nothing to change\n"), "{said:?}");

    // A type's defaults cannot change in SWF: refused, with nothing else applied.
    let manifest = std::fs::read_to_string(dir.path().join("weft-app.toml")).unwrap();
    let changed = manifest
        .replace("task-timeout = \"10s\"", "task-timeout = \"20s\"")
        .replace("concurrency = 2", "concurrency = 3");
    write(dir.path(), "weft-app.toml", &changed);
    let refused = apply(&["apply"]).await;
    let err = refused.err();
    assert!(
        err.contains(
            "refused: workflow type OrderWorkflow:1.0 is registered with other defaults \
             (defaultTaskStartToCloseTimeout is \"10\" on the server, \"20\" here); SWF cannot \
             change a type: bump its version"
        ),
        "{err}"
    );
    assert_eq!(
        weft.list_bindings(D).await.unwrap(),
        bindings,
        "nothing applied"
    );
}

#[tokio::test]
async fn apply_verify_refuses_a_decider_that_would_decide_an_open_run_differently() {
    let server =
        TestServer::start_with(|config| config.poll_timeout = Duration::from_secs(1)).await;
    let dir = tempfile::tempdir().unwrap();
    // No worker: an order's first activity waits, so its run stays open.
    project(dir.path(), false);
    let here = || Weft::at(&server).dir(dir.path());
    here().run(&["apply"]).await.out();
    let started = here()
        .run(&[
            "workflow",
            "start",
            "--id",
            "open-order",
            "--input",
            order::SAMPLE_ORDER,
        ])
        .await;
    let run = started.out().trim().rsplit(' ').next().unwrap().to_owned();
    let c = server.client();
    wait_for_event(&c, "open-order", &run, "ActivityTaskScheduled").await;

    std::fs::write(
        dir.path().join("decider.wasm"),
        guests::guest("hostile-decider"),
    )
    .unwrap();
    let refused = here().run(&["apply", "--verify", "5"]).await;
    let err = refused.err();
    assert!(err.contains("DIVERGED  open-order"), "{err}");
    assert!(
        err.contains(
            "not bound: in decider.wasm, the decider diverges on 1 open run(s) of the 1 \
             replayed of task list order-decisions: it would decide them differently (--force \
             binds it anyway)"
        ),
        "{err}"
    );
    let weft = guests::weft_client(&server);
    let bound = |bindings: Vec<weft_tests::guests::Binding>| bindings[0].module.clone();
    let before = bound(weft.list_bindings(D).await.unwrap());
    let order_decider = weft.upload_module(guests::guest("order-decider")).await;
    assert_eq!(
        before,
        order_decider.unwrap().digest,
        "the old decider stays bound"
    );

    let forced = here().run(&["apply", "--verify", "5", "--force"]).await;
    assert!(
        forced.out().contains("bound  decisions order-decisions"),
        "{forced:?}"
    );
    assert_ne!(bound(weft.list_bindings(D).await.unwrap()), before);
}
