//! A worker's choice of module when its list is bound anew while it polls.

use std::sync::Arc;

use super::*;
use crate::api::op;
use crate::examples;
use crate::model::{Bind, ModuleLabel};
use crate::ops::domains::RegisterDomainInput;
use crate::ops::{modules, wasm};
use crate::{Config, DEFAULT_ACCOUNT_ID, Weft};

const DOMAIN: &str = "rebinding";

/// Uploads the example guest `name`, answering its digest.
async fn upload(svc: &Service, ctx: &Ctx, name: &str) -> String {
    let code = examples::component(name).unwrap().to_vec();
    modules::upload_module(svc, ctx, code, ModuleLabel::default(), false)
        .await
        .unwrap()
        .digest
}

/// Binds decision task list `list` to module `digest`.
async fn bind(svc: &Service, ctx: &Ctx, list: &str, digest: &str) -> Binding {
    let kind = BindingKind::Decision;
    let bind = Bind::module(digest);
    wasm::bind(svc, ctx, DOMAIN.into(), kind, list.into(), bind)
        .await
        .unwrap()
}

/// Registers the tests' domain.
async fn register_domain(svc: &Service, ctx: &Ctx) {
    let register = RegisterDomainInput {
        name: DOMAIN.into(),
        description: None,
        workflow_execution_retention_period_in_days: "1".into(),
        tags: Vec::new(),
    };
    api::call::<op::RegisterDomain>(svc, ctx, register)
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_taken_after_a_rebind_runs_the_module_bound_now() {
    let dir = tempfile::tempdir().unwrap();
    let weft = Weft::open(Config::new(dir.path())).unwrap();
    let svc = weft.service();
    let tenant = svc.tenants.by_account(DEFAULT_ACCOUNT_ID).cloned().unwrap();
    let ctx = Ctx::new(Caller {
        tenant: tenant.clone(),
        region: "us-east-1".into(),
    });
    register_domain(&svc, &ctx).await;
    let (first, second) = (
        upload(&svc, &ctx, "order-workflow").await,
        upload(&svc, &ctx, "quote-decider").await,
    );

    // A worker made as the supervisor makes one, from the bindings as they are now.
    let seen = svc.bindings_changed.subscribe();
    let binding = bind(&svc, &ctx, "decisions", &first).await;
    let domain_id = current_bindings(&svc).await.unwrap()[0].0;
    let module = load(&svc, &binding).await.unwrap();
    let never_stopped = watch::channel(false).1;
    let worker = Worker::new(
        &svc,
        domain_id,
        &binding,
        module,
        (tenant, never_stopped),
        seen,
    );
    worker.seen.lock().unwrap().mark_unchanged();
    assert!(Arc::ptr_eq(&worker.module_now().await, &worker.module));

    // Another list's binding leaves this worker's module as it is.
    bind(&svc, &ctx, "other-decisions", &second).await;
    assert!(Arc::ptr_eq(&worker.module_now().await, &worker.module));

    // Its own list bound to another module: a task it takes before the supervisor stops it
    // runs that module, for every task after, too.
    bind(&svc, &ctx, "decisions", &second).await;
    let now = worker.module_now().await;
    assert!(!Arc::ptr_eq(&now, &worker.module));
    assert!(!Arc::ptr_eq(&worker.module_now().await, &worker.module));
    drop((worker, now, svc));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workers_stop_ends_its_long_poll_empty_rather_than_dropping_it() {
    let dir = tempfile::tempdir().unwrap();
    let weft = Weft::open(Config::new(dir.path())).unwrap();
    let svc = weft.service();
    let (stop, stopped) = watch::channel(false);
    let ctx = svc.open_ctx().until(stopped);
    register_domain(&svc, &ctx).await;
    let input = crate::ops::decision_tasks::PollInput {
        domain: DOMAIN.into(),
        task_list: TaskList {
            name: "decisions".into(),
        },
        identity: None,
        next_page_token: None,
        maximum_page_size: None,
        reverse_order: false,
        start_at_previous_started_event: false,
    };
    let poll = {
        let (svc, ctx) = (svc.clone(), ctx.clone());
        tokio::spawn(async move { api::call::<op::PollForDecisionTask>(&svc, &ctx, input).await })
    };
    // The service's long polls last a minute: the stop, not the poll's timeout, ends it.
    tokio::task::yield_now().await;
    stop.send_replace(true);
    let answered = tokio::time::timeout(Duration::from_secs(10), poll).await;
    let answer = answered.expect("ended by the stop").unwrap().unwrap();
    assert!(
        answer.task_token.is_none(),
        "an empty answer, as at a timeout"
    );
}
