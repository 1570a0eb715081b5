//! Quotas: counts beyond a tenant's quota are `LimitExceededFault`, requests beyond its rate
//! `ThrottlingException`, and a binding cannot ask for more Wasm than the quota allows. One
//! tenant's use never counts against the other's.

use weft_tests::aws_sdk_swf::types::RegistrationStatus;
use weft_tests::guests::{self, Bind, BindingKind, Limits};
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
