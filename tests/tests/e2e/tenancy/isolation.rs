//! Isolation: two tenants use the same domain, types, workflow ids and task lists at the same
//! time, and neither can see, count, list, signal, poll or complete the other's.

use std::time::{Duration, Instant};

use weft_tests::aws_sdk_swf::types::{CloseStatus, ExecutionStatus, RegistrationStatus};
use weft_tests::guests::{self, Bind, BindingKind, order};
use weft_tests::tenants::{ACME, GLOBEX, Tenant};

use super::{server_with, set_up, weft};
use crate::common::expect_fault;
use crate::flow::{
    D, DECIDERS, complete_workflow, decision_task, execution, poll_decision_once, start, task_list,
};

/// ARN of `tenant`'s domain [`D`].
fn arn(tenant: &Tenant) -> String {
    format!("arn:aws:swf:us-east-1:{}:/domain/{D}", tenant.account)
}

#[tokio::test]
async fn tenants_share_names_but_nothing_else() {
    let server = server_with(|_| {}).await;
    let acme = set_up(&server, &ACME).await;
    let globex = set_up(&server, &GLOBEX).await;
    let acme_run = start(&acme, "w", "wf").await;
    let globex_run = start(&globex, "w", "wf").await;
    assert_ne!(acme_run, globex_run);

    for c in [&acme, &globex] {
        let domains = c
            .list_domains()
            .registration_status(RegistrationStatus::Registered)
            .send()
            .await
            .unwrap();
        let names: Vec<_> = domains.domain_infos().iter().map(|d| d.name()).collect();
        assert_eq!(names, [D], "each tenant sees its own domain only");
        let open = c
            .count_open_workflow_executions()
            .domain(D)
            .start_time_filter(
                weft_tests::aws_sdk_swf::types::ExecutionTimeFilter::builder()
                    .oldest_date(weft_tests::aws_sdk_swf::primitives::DateTime::from_secs(0))
                    .build()
                    .unwrap(),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(open.count(), 1);
        let pending = c
            .count_pending_decision_tasks()
            .domain(D)
            .task_list(task_list(DECIDERS))
            .send()
            .await
            .unwrap();
        assert_eq!(pending.count(), 1, "one decision task each");
    }

    // GLOBEX cannot reach ACME's run by its ids, nor its domain by ARN.
    let foreign = execution("w", &acme_run);
    expect_fault(
        globex
            .describe_workflow_execution()
            .domain(D)
            .execution(foreign.clone())
            .send()
            .await,
        "UnknownResourceFault",
    );
    expect_fault(
        globex
            .get_workflow_execution_history()
            .domain(D)
            .execution(foreign.clone())
            .send()
            .await,
        "UnknownResourceFault",
    );
    expect_fault(
        globex
            .signal_workflow_execution()
            .domain(D)
            .workflow_id("w")
            .run_id(&acme_run)
            .signal_name("s")
            .send()
            .await,
        "UnknownResourceFault",
    );
    expect_fault(
        globex
            .terminate_workflow_execution()
            .domain(D)
            .workflow_id("w")
            .run_id(&acme_run)
            .send()
            .await,
        "UnknownResourceFault",
    );
    expect_fault(
        globex
            .list_tags_for_resource()
            .resource_arn(arn(&ACME))
            .send()
            .await,
        "UnknownResourceFault",
    );
    globex
        .list_tags_for_resource()
        .resource_arn(arn(&GLOBEX))
        .send()
        .await
        .unwrap();

    // Each poll gets its own tenant's task; a token is good only for the tenant it was issued to.
    let acme_task = decision_task(&acme, DECIDERS).await;
    assert_eq!(acme_task.workflow_execution().unwrap().run_id(), acme_run);
    let globex_task = decision_task(&globex, DECIDERS).await;
    assert_eq!(
        globex_task.workflow_execution().unwrap().run_id(),
        globex_run
    );
    expect_fault(
        globex
            .respond_decision_task_completed()
            .task_token(acme_task.task_token())
            .decisions(complete_workflow(Some("stolen")))
            .send()
            .await,
        "UnknownResourceFault",
    );
    acme.respond_decision_task_completed()
        .task_token(acme_task.task_token())
        .decisions(complete_workflow(Some("mine")))
        .send()
        .await
        .unwrap();
    assert!(poll_decision_once(&globex, DECIDERS).await.is_none());

    // ACME's run completed with its own result; GLOBEX's is still open.
    let described = |c: &weft_tests::aws_sdk_swf::Client, run: String| {
        let c = c.clone();
        async move {
            c.describe_workflow_execution()
                .domain(D)
                .execution(execution("w", &run))
                .send()
                .await
                .unwrap()
                .execution_info
                .unwrap()
        }
    };
    let acme_info = described(&acme, acme_run).await;
    assert_eq!(acme_info.close_status, Some(CloseStatus::Completed));
    let globex_info = described(&globex, globex_run).await;
    assert_eq!(globex_info.execution_status, ExecutionStatus::Open);
}

#[tokio::test]
async fn modules_bindings_and_failure_logs_are_the_tenants_own() {
    let server = server_with(|_| {}).await;
    set_up(&server, &ACME).await;
    set_up(&server, &GLOBEX).await;
    let (acme, globex) = (weft(&server, &ACME), weft(&server, &GLOBEX));
    let digest = guests::deploy(
        &acme,
        "hostile-activity",
        D,
        BindingKind::Activity,
        "workers",
        Bind::default(),
    )
    .await;

    assert_eq!(globex.list_modules().await.unwrap().len(), 0);
    assert_eq!(globex.list_bindings(D).await.unwrap().len(), 0);
    let refused = globex
        .bind(D, BindingKind::Activity, "workers", &Bind::module(&digest))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("UnknownResourceFault"),
        "{refused}"
    );
    let refused = globex
        .failures(D, BindingKind::Activity, "workers")
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("UnknownResourceFault"),
        "{refused}"
    );
    let refused = globex.delete_module(&digest).await.unwrap_err();
    assert!(
        refused.to_string().contains("UnknownResourceFault"),
        "{refused}"
    );
    // ACME's binding is untouched.
    assert_eq!(acme.list_bindings(D).await.unwrap().len(), 1);
}

/// Both tenants deploy the order example in a domain of the same name and run an order at the
/// same time; each order completes, served by its own tenant's guests.
#[tokio::test]
async fn two_tenants_run_the_order_example_side_by_side() {
    let server = server_with(|_| {}).await;
    let mut runs = Vec::new();
    for tenant in [ACME, GLOBEX] {
        let c = tenant.client(&server);
        guests::register_examples(&c, D).await;
        guests::deploy_order(&weft(&server, &tenant), D).await;
        let run = c
            .start_workflow_execution()
            .domain(D)
            .workflow_id("order-1")
            .workflow_type(crate::flow::wf_type(
                order::WORKFLOW.name,
                order::WORKFLOW.version,
            ))
            .input(order::SAMPLE_ORDER)
            .send()
            .await
            .unwrap()
            .run_id
            .unwrap();
        runs.push((c, run));
    }
    for (c, run) in &runs {
        let began = Instant::now();
        let info = loop {
            let info = c
                .describe_workflow_execution()
                .domain(D)
                .execution(execution("order-1", run))
                .send()
                .await
                .unwrap()
                .execution_info
                .unwrap();
            if info.execution_status == ExecutionStatus::Closed {
                break info;
            }
            assert!(
                began.elapsed() < Duration::from_secs(30),
                "order still open"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(info.close_status, Some(CloseStatus::Completed));
    }
}
