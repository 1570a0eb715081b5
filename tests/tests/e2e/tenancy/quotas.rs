//! Quotas: counts beyond a tenant's quota are `LimitExceededFault`, requests beyond its rate
//! `ThrottlingException`, and a binding cannot ask for more Wasm than the quota allows. One
//! tenant's use never counts against the other's.

use weft_host::client::{Batch, BatchAction, RunFilter, RunImport};
use weft_tests::aws_sdk_swf::types::RegistrationStatus;
use weft_tests::guests::{self, Bind, BindingKind, Limits};
use weft_tests::imports::signalled_history;
use weft_tests::tenants::{ACME, GLOBEX};

use super::{server_with, set_up, weft};
use crate::common::{expect_fault, register_domain};
use crate::flow::{D, start};

#[tokio::test]
async fn domains_count_across_regions() {
    let server = server_with(|config| config.tenants[0].quotas.domains = 2).await;
    register_domain(&ACME.client(&server), "a").await;
    let elsewhere = server.client_as(ACME.key, ACME.secret, "eu-west-1");
    register_domain(&elsewhere, "b").await;
    expect_fault(
        ACME.client(&server)
            .register_domain()
            .name("c")
            .workflow_execution_retention_period_in_days("1")
            .send()
            .await,
        "LimitExceededFault",
    );
    // GLOBEX has its own count.
    for name in ["a", "b", "c"] {
        register_domain(&GLOBEX.client(&server), name).await;
    }
}

#[tokio::test]
async fn a_tenant_beyond_its_rate_is_throttled_alone() {
    let server = server_with(|config| {
        // Three requests at once, then one every 100 s: the test never earns another.
        config.tenants[0].quotas.requests_per_second = Some(0.01);
        config.tenants[0].quotas.request_burst = Some(3);
    })
    .await;
    let (acme, globex) = (ACME.client(&server), GLOBEX.client(&server));
    let list = |c: &weft_tests::aws_sdk_swf::Client| {
        c.list_domains()
            .registration_status(RegistrationStatus::Registered)
    };
    for _ in 0..3 {
        list(&acme).send().await.unwrap();
    }
    let message = expect_fault(list(&acme).send().await, "ThrottlingException");
    assert_eq!(message, "Rate exceeded");
    for _ in 0..5 {
        list(&globex).send().await.unwrap();
    }
}

#[tokio::test]
async fn open_executions_are_limited_per_domain() {
    let server = server_with(|config| config.tenants[0].quotas.open_executions = 1).await;
    let acme = set_up(&server, &ACME).await;
    start(&acme, "one", "wf").await;
    expect_fault(
        acme.start_workflow_execution()
            .domain(D)
            .workflow_id("two")
            .workflow_type(crate::flow::wf_type("wf", "1"))
            .send()
            .await,
        "LimitExceededFault",
    );
    let globex = set_up(&server, &GLOBEX).await;
    start(&globex, "one", "wf").await;
    start(&globex, "two", "wf").await;
}

#[tokio::test]
async fn modules_are_limited_in_number_and_bytes() {
    let server = server_with(|config| {
        config.tenants[0].quotas.modules = 1;
        config.tenants[1].quotas.module_bytes = 1000;
    })
    .await;
    let (acme, globex) = (weft(&server, &ACME), weft(&server, &GLOBEX));
    let activity = guests::guest("hostile-activity");
    acme.upload_module(activity.clone()).await.unwrap();
    // The same bytes again are the same module, not a second one.
    acme.upload_module(activity.clone()).await.unwrap();
    let refused = acme
        .upload_module(guests::guest("hostile-function"))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("LimitExceededFault"),
        "{refused}"
    );
    let refused = globex.upload_module(activity).await.unwrap_err();
    assert!(
        refused.to_string().contains("LimitExceededFault"),
        "{refused}"
    );
    assert!(
        refused.to_string().contains("may take 1000 bytes"),
        "{refused}"
    );
}

#[tokio::test]
async fn bindings_cannot_ask_for_more_wasm_than_the_quota() {
    let server = server_with(|config| {
        config.tenants[0].quotas.wasm_memory_bytes = 32 << 20;
        config.tenants[0].quotas.wasm_cpu_ms = 500;
    })
    .await;
    set_up(&server, &ACME).await;
    let acme = weft(&server, &ACME);
    let digest = guests::deploy(
        &acme,
        "hostile-activity",
        D,
        BindingKind::Activity,
        "workers",
        Bind::default(),
    )
    .await;
    // Without limits, the defaults are lowered to the quota.
    let bindings = acme.list_bindings(D).await.unwrap();
    let limits = &bindings[0].limits;
    assert_eq!(limits.memory_bytes, 32 << 20);
    assert_eq!(limits.cpu_ms, 500);
    for limits in [
        Limits {
            memory_bytes: Some(64 << 20),
            ..Limits::default()
        },
        Limits {
            cpu_ms: Some(501),
            ..Limits::default()
        },
    ] {
        let bind = Bind {
            limits,
            ..Bind::module(&digest)
        };
        let refused = acme
            .bind(D, BindingKind::Activity, "workers", &bind)
            .await
            .unwrap_err();
        assert!(
            refused.to_string().contains("over the tenant's quota"),
            "{refused}"
        );
    }
}

/// A binding may be granted outgoing HTTP only to hosts its tenant's config lists.
#[tokio::test]
async fn bindings_grant_http_only_to_the_tenants_hosts() {
    let server = server_with(|config| {
        config.tenants[0].http_hosts = vec!["api.acme.example".into()];
    })
    .await;
    set_up(&server, &ACME).await;
    set_up(&server, &GLOBEX).await;
    let granted = |hosts: &[&str], digest: &str| Bind {
        http_hosts: hosts.iter().map(|h| (*h).to_owned()).collect(),
        ..Bind::module(digest)
    };
    let acme = weft(&server, &ACME);
    let digest = guests::deploy(
        &acme,
        "escape-activity",
        D,
        BindingKind::Activity,
        "workers",
        Bind::default(),
    )
    .await;
    let bound = acme
        .bind(
            D,
            BindingKind::Activity,
            "workers",
            &granted(&["api.acme.example"], &digest),
        )
        .await
        .unwrap();
    assert_eq!(bound.http_hosts, ["api.acme.example"]);
    let refused = acme
        .bind(
            D,
            BindingKind::Activity,
            "workers",
            &granted(&["evil.example"], &digest),
        )
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("AccessDeniedException"),
        "{refused}"
    );
    // GLOBEX's config lists no host: it may grant none.
    let globex = weft(&server, &GLOBEX);
    let digest = guests::deploy(
        &globex,
        "escape-activity",
        D,
        BindingKind::Activity,
        "workers",
        Bind::default(),
    )
    .await;
    let refused = globex
        .bind(
            D,
            BindingKind::Activity,
            "workers",
            &granted(&["api.acme.example"], &digest),
        )
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("AccessDeniedException"),
        "{refused}"
    );
}

/// `code` with a custom section appended: a different module (its own digest) that does the
/// same.
fn variant(code: &[u8], n: u8) -> Vec<u8> {
    let name = b"weft-test";
    let mut section = vec![name.len() as u8];
    section.extend_from_slice(name);
    section.push(n);
    let mut code = code.to_vec();
    code.push(0); // a custom section,
    code.push(section.len() as u8); // this long (under 128: one byte of LEB128)
    code.extend(section);
    code
}

/// `weft_compiles_running` and `weft_compiles_waiting` as a scrape shows them.
async fn compile_gauges(server: &weft_tests::TestServer) -> (i64, i64) {
    let addr = server.endpoint().trim_start_matches("http://").to_owned();
    let auth = [("Authorization", "Bearer operator-token-0123456789")];
    let text = weft_tests::raw_http(&addr, "GET", "/metrics", &auth, b"")
        .await
        .body;
    let gauge = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in\n{text}"))
    };
    (
        gauge("weft_compiles_running"),
        gauge("weft_compiles_waiting"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_at_once_take_their_quota_places_before_compiling_in_turns() {
    const COMPILES: i64 = 2;
    let server = server_with(|config| {
        config.tenants[0].quotas.modules = 5;
        config.tenants[0].quotas.compiles = COMPILES as usize;
        config.limits.max_compiles = 4;
        config.metrics_token = Some("operator-token-0123456789".into());
    })
    .await;
    let acme = weft(&server, &ACME);
    let code = guests::guest("one-activity-decider");
    let uploads: Vec<_> = (0..10)
        .map(|n| {
            let (acme, module) = (acme.clone(), variant(&code, n));
            tokio::spawn(async move { acme.upload_module(module).await })
        })
        .collect();
    // While they run, the tenant never compiles more than its turns.
    let (mut most, mut waited) = (0, 0);
    while !uploads.iter().all(|u| u.is_finished()) {
        let (running, waiting) = compile_gauges(&server).await;
        (most, waited) = (most.max(running), waited.max(waiting));
    }
    let (mut stored, mut refused) = (0, 0);
    for upload in uploads {
        match upload.await.unwrap() {
            Ok(_) => stored += 1,
            Err(e) => {
                assert!(e.to_string().contains("LimitExceededFault"), "{e}");
                refused += 1;
            }
        }
    }
    assert_eq!((stored, refused), (5, 5));
    assert!(most <= COMPILES, "{most} compiles ran at once");
    assert!(waited > 0, "no upload waited for its turn");
    // Only the modules that had a place were compiled: the others left no compiled code.
    let compiled = std::fs::read_dir(server.data_dir().join("compiled"))
        .unwrap()
        .count();
    assert_eq!(compiled, 5);
    assert_eq!(compile_gauges(&server).await, (0, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_spends_at_most_its_cpu_budget() {
    let server = server_with(|config| config.tenants[0].quotas.replay_cpu_ms = 300).await;
    let c = set_up(&server, &ACME).await;
    // Three runs whose first decision task a hostile decider would spin on for its whole CPU
    // limit (the tenant's 60 s), decided here by hand.
    for id in ["a", "b", "c"] {
        crate::flow::start_with(&c, id, "wf", |s| s.input("loop")).await;
        let task = crate::flow::poll_decision_once(&c, crate::flow::DECIDERS)
            .await
            .expect("a decision task");
        let done = vec![crate::flow::complete_workflow(None)];
        crate::flow::respond(&c, task.task_token(), done).await;
    }
    let acme = weft(&server, &ACME);
    let hostile = acme
        .upload_module(guests::guest("hostile-decider"))
        .await
        .unwrap();
    let replay = weft_host::client::Replay {
        module: hostile.digest,
        last: Some(3),
        ..Default::default()
    };
    // The budget, not one call's limit, stops it: the first call may run only the 300 ms.
    let refused = acme.replay(D, &replay).await.unwrap_err().to_string();
    assert!(refused.contains("LimitExceededFault"), "{refused}");
    assert!(refused.contains("budget of 300 ms"), "{refused}");
}

#[tokio::test]
async fn a_batch_counts_each_run_against_the_rate_and_says_which_it_left() {
    let server = server_with(|config| {
        // Thirty requests at once, then one every 100 s: the test never earns another.
        config.tenants[0].quotas.requests_per_second = Some(0.01);
        config.tenants[0].quotas.request_burst = Some(30);
    })
    .await;
    let acme = set_up(&server, &ACME).await;
    let mut runs = Vec::new();
    for n in 0..20 {
        let id = format!("w{n}");
        start(&acme, &id, "wf").await;
        runs.push(id);
    }
    // Of the 30: the set-up's 3, the starts' 20, the batch's own 1; 6 left for its runs.
    let batch = Batch {
        filter: RunFilter::default(),
        action: BatchAction::Signal {
            signal_name: "s".into(),
            input: None,
        },
    };
    let outcome = weft(&server, &ACME).batch(D, &batch).await.unwrap();
    assert_eq!((outcome.matched, outcome.done), (20, 6), "{outcome:?}");
    assert_eq!(outcome.failures.len(), 14);
    assert!(
        (outcome.failures.iter()).all(|f| f.message.contains("request rate ran out")),
        "{outcome:?}"
    );
    // Each run it left is named, once.
    let left: std::collections::HashSet<&str> = (outcome.failures.iter())
        .map(|f| f.workflow_id.as_str())
        .collect();
    assert_eq!(left.len(), 14);
    assert!(left.iter().all(|id| runs.iter().any(|w| w == id)));
}

#[tokio::test]
async fn an_import_counts_as_a_request_per_mib_against_the_rate() {
    let server = server_with(|config| {
        config.tenants[0].quotas.requests_per_second = Some(0.01);
        config.tenants[0].quotas.request_burst = Some(3);
    })
    .await;
    let run = RunImport {
        workflow_id: "big".into(),
        run_id: "r".into(),
        events: signalled_history(110, &"x".repeat(30_000)),
    };
    for tenant in [&ACME, &GLOBEX] {
        register_domain(&tenant.client(&server), D).await;
    }
    // ACME has 2 requests left; the import's 3.3 MB count as 4, which would come in 200 s.
    let refused = weft(&server, &ACME).import_run(D, &run).await.unwrap_err();
    let message = refused.to_string();
    assert!(message.contains("counts as 4 requests"), "{message}");
    assert!(weft(&server, &GLOBEX).import_run(D, &run).await.unwrap());
}
