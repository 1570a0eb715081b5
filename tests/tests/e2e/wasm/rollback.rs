//! Named modules and rolling a binding back: `weft deploy --name --version` labels what it
//! uploads, `weft module list` says which bindings use each module, and after a deploy of a
//! decider that fails, `weft binding rollback` puts the binding back on the module it ran
//! before, whose decider then completes the stuck run.

use std::time::Duration;

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::types::CloseStatus;
use weft_tests::guests::{self, Bind, BindingKind, BindingRef, WeftClient};

use super::replay::weft_cli;
use crate::common::register_domain;
use crate::flow::{D, DECIDERS, WORKERS, register_activity, register_workflow, start_with};

/// `args` as the CLI's, against `server`: its stdout; panics unless it succeeds.
pub(super) async fn weft_ok(server: &TestServer, args: &[&str]) -> String {
    let (ok, out, err) = weft_cli(server, args).await;
    assert!(ok, "weft {args:?}: {out}{err}");
    out
}

/// The module the decision binding on [`DECIDERS`] runs.
async fn bound(weft: &WeftClient) -> String {
    let bindings = weft.list_bindings(D).await.unwrap();
    let decider = bindings.iter().find(|b| b.kind == BindingKind::Decision);
    decider.expect("a decision binding").module.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rollback_restores_the_module_a_binding_ran_before_and_its_decider_takes_over() {
    let server = TestServer::start().await;
    let (c, weft) = (server.client(), guests::weft_client(&server));
    register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    register_activity(&c, "work").await;
    guests::deploy(
        &weft,
        "hostile-activity",
        D,
        BindingKind::Activity,
        WORKERS,
        Bind::default(),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| {
        let path = dir.path().join(format!("{name}.wasm"));
        std::fs::write(&path, guests::guest(name)).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let (good, bad) = (file("one-activity-decider"), file("hostile-decider"));

    // With no earlier module there is nothing to roll back to.
    let deploy = ["deploy", &good, "--domain", D, "--decisions", DECIDERS];
    weft_ok(
        &server,
        &[&deploy[..], &["--name", "orders", "--version", "1"]].concat(),
    )
    .await;
    let rollback = [
        "binding",
        "rollback",
        "--domain",
        D,
        "--decisions",
        DECIDERS,
    ];
    let (ok, out, err) = weft_cli(&server, &rollback).await;
    assert!(!ok, "{out}");
    assert!(err.contains("no previous module to roll back to"), "{err}");
    let good_digest = bound(&weft).await;

    // A second deploy remembers the first module; the run it meets fails on its decider.
    let deploy = ["deploy", &bad, "--domain", D, "--decisions", DECIDERS];
    weft_ok(
        &server,
        &[&deploy[..], &["--name", "orders", "--version", "2"]].concat(),
    )
    .await;
    let bad_digest = bound(&weft).await;
    assert_ne!(bad_digest, good_digest);
    let listed = weft_ok(&server, &["module", "list"]).await;
    let line = |digest: &str| {
        listed
            .lines()
            .find(|l| l.starts_with(digest))
            .unwrap()
            .to_owned()
    };
    assert!(
        line(&good_digest).contains("  orders 1  decider  "),
        "{listed}"
    );
    assert!(!line(&good_digest).contains("used by"), "{listed}");
    assert!(
        line(&bad_digest).contains("  orders 2  decider  "),
        "{listed}"
    );
    assert!(
        line(&bad_digest).ends_with(&format!("used by decision {DECIDERS} in {D}")),
        "{listed}"
    );
    let modules = weft.list_modules().await.unwrap();
    let bad_module = modules.iter().find(|m| m.digest == bad_digest).unwrap();
    let binding = BindingRef {
        domain: D.into(),
        kind: BindingKind::Decision,
        name: DECIDERS.into(),
    };
    assert_eq!(bad_module.used_by, [binding]);
    let run = start_with(&c, "stuck", "w", |s| s.input("error")).await;
    for tried in 0.. {
        if !weft
            .run_failures(D, "stuck", &run)
            .await
            .unwrap()
            .is_empty()
        {
            break;
        }
        assert!(
            tried < 300,
            "the bad decider did not fail on the run within 30 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // The rollback binds the first module again (remembering the second), and the run goes on.
    let out = weft_ok(&server, &rollback).await;
    assert!(out.contains(&format!("-> {good_digest}")), "{out}");
    assert!(out.contains(&format!("previously {bad_digest}")), "{out}");
    assert_eq!(bound(&weft).await, good_digest);
    let closed = guests::wait_closed(&server, D, "stuck", &run, Duration::from_secs(60)).await;
    assert_eq!(
        closed.status,
        CloseStatus::Completed,
        "{:?}",
        closed.types()
    );
    // A second rollback undoes the first.
    let again = weft
        .rollback(D, BindingKind::Decision, DECIDERS)
        .await
        .unwrap();
    assert_eq!(again.module, bad_digest);
    assert_eq!(again.previous_module.as_deref(), Some(good_digest.as_str()));

    // The same bytes uploaded under another name take it.
    let renamed = weft_ok(&server, &["module", "upload", &good, "--name", "orders-v1"]).await;
    assert!(
        renamed.starts_with(&format!("{good_digest}  orders-v1 1  decider")),
        "{renamed}"
    );
    let (ok, _, err) = weft_cli(&server, &["module", "upload", &good, "--name", "bad\u{7}"]).await;
    assert!(!ok && err.contains("Invalid module name"), "{err}");
}
