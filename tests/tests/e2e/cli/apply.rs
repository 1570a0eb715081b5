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
    // The decider it refused to bind is not left behind, counting in the quota.
    let hostile = weft_host::client::module_digest(&guests::guest("hostile-decider"));
    let modules = weft.list_modules().await.unwrap();
    assert!(modules.iter().all(|m| m.digest != hostile), "{modules:?}");
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

/// The project of [`project`] (with its worker) as `edit` leaves it: `edit` rewrites the
/// manifest's text and may replace files.
fn edited(dir: &Path, edit: impl FnOnce(&Path, String) -> String) {
    project(dir, true);
    let manifest = std::fs::read_to_string(dir.join("weft-app.toml")).unwrap();
    let manifest = edit(dir, manifest);
    write(dir, "weft-app.toml", &manifest);
}

#[tokio::test]
async fn apply_refuses_what_the_server_would_refuse_before_it_changes_anything() {
    let server = TestServer::start().await;
    let weft = guests::weft_client(&server);
    let worker = format!("activities = \"{}\"", order::ACTIVITY_TASK_LIST);
    let type_name = format!("name = \"{}\"", "t".repeat(300));
    type Edit = Box<dyn FnOnce(&Path, String) -> String>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "a file that is not a component",
            Box::new(|dir, m| {
                std::fs::write(dir.join("decider.wasm"), b"\0asm but not really").unwrap();
                m
            }),
            "[[module]] decider.wasm: Invalid module: not a WebAssembly component",
        ),
        (
            "a worker bound as a decider",
            Box::new(|dir, m| {
                let worker = guests::guest("order-activities");
                std::fs::write(dir.join("decider.wasm"), worker).unwrap();
                m
            }),
            "[[module]] decider.wasm is built for the activity-worker world, and \
             `decisions = \"order-decisions\"` needs the decider world",
        ),
        (
            "limits over the server's maxima",
            Box::new(move |_, m| m.replace(&worker, &format!("{worker}\nmemory-mb = 100000"))),
            "[[module]] worker.wasm (activities order-activities): Invalid limits",
        ),
        (
            "concurrency = 0",
            Box::new(|_, m| m.replace("concurrency = 2", "concurrency = 0")),
            "[[module]] worker.wasm (activities order-activities): concurrency must be 1 to 64",
        ),
        (
            "a 300-character type name",
            Box::new(move |_, m| m.replacen("name = \"OrderWorkflow\"", &type_name, 1)),
            "length less than or equal to 256",
        ),
        (
            "a version with ':'",
            Box::new(|_, m| m.replacen("version = \"1.0\"", "version = \"1:0\"", 1)),
            "[[workflow]] OrderWorkflow:1:0: 1 validation error detected: Value '1:0' at \
             'version' failed to satisfy constraint: Member must not contain ':'",
        ),
        (
            "the same [[workflow]] twice",
            Box::new(|_, m| {
                let workflow = &m[m.find("[[workflow]]").unwrap()..m.find("[[activity]]").unwrap()];
                format!("{m}\n{workflow}")
            }),
            "[[workflow]] OrderWorkflow:1.0 is declared twice",
        ),
    ];
    for (what, edit, said) in cases {
        let dir = tempfile::tempdir().unwrap();
        edited(dir.path(), edit);
        let refused = Weft::at(&server).dir(dir.path()).run(&["apply"]).await;
        let err = refused.err();
        assert!(
            err.contains("weft-app.toml") && err.contains(said),
            "{what}: {err}"
        );
        let unknown = server.client().describe_domain().name(D).send().await;
        assert!(unknown.is_err(), "{what}: the domain was registered");
        let modules = weft.list_modules().await.unwrap();
        assert!(modules.is_empty(), "{what}: {modules:?} left behind");
    }
}
