//! Runs that a pinned run starts by continue-as-new: on the decision binding's current module,
//! or, when the binding inherits pins (`--inherit-pin`), on the module of the run that started
//! them (`steps-decider` continues as new after its first step when its input is `continue`).

use std::time::{Duration, Instant};

use weft_host::client::{RunFilter, RunQuery, RunState};
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::operation::start_workflow_execution::builders::StartWorkflowExecutionFluentBuilder;
use weft_tests::guests::{self, WeftClient};

use super::pinning::{DESCRIBE, PATIENCE, deploy, deploy_with, register, wait_pinned};
use super::rollback::weft_ok;
use super::steps::{wait_scheduled, work};
use crate::flow::{D, DECIDERS, start_with};

/// The run of `workflow_id` that continued `run` as new, once it has.
async fn continued(weft: &WeftClient, workflow_id: &str, run: &str) -> String {
    let query = RunQuery {
        filter: RunFilter {
            status: Some(RunState::Open),
            workflow_id: Some(workflow_id.to_owned()),
            ..RunFilter::default()
        },
        ..RunQuery::default()
    };
    let began = Instant::now();
    loop {
        let open = weft.list_runs(D, &query).await.unwrap().runs;
        if let Some(next) = open.into_iter().find(|r| r.run_id != run) {
            return next.run_id;
        }
        assert!(began.elapsed() < PATIENCE, "{workflow_id} did not continue");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn continued_runs_start_on_the_current_decider_unless_the_binding_inherits_pins() {
    let server = TestServer::start().await;
    let (c, weft) = (server.client(), guests::weft_client(&server));
    register(&c).await;
    let dir = tempfile::tempdir().unwrap();
    let continues = |s: StartWorkflowExecutionFluentBuilder| s.input("continue");

    // Bound to inherit pins, the first version's run continues on it though the second is
    // current by then.
    let v1 = deploy_with(
        &server,
        dir.path(),
        "steps-decider",
        "1",
        &["--inherit-pin"],
    )
    .await;
    let run = start_with(&c, "inherits", "steps", continues).await;
    let first = [("inherits".to_owned(), run.clone())];
    wait_pinned(&weft, &first, &v1).await;
    wait_scheduled(&server, &first, &["a"]).await;
    deploy(&server, dir.path(), "steps-decider-v2", "2").await;
    let described = weft_ok(&server, &DESCRIBE).await;
    assert!(described.contains(", inherit pin"), "{described}");
    work(&c, 1).await;
    let next = [(
        "inherits".to_owned(),
        continued(&weft, "inherits", &run).await,
    )];
    wait_pinned(&weft, &next, &v1).await;
    wait_scheduled(&server, &next, &["a"]).await;

    // Not inheriting, a continued run starts on the current version: the third, here.
    let bind = [
        "bind",
        "--domain",
        D,
        "--decisions",
        DECIDERS,
        "--inherit-pin=false",
    ];
    let v2 = weft.list_bindings(D).await.unwrap()[0].module.clone();
    weft_ok(&server, &[&bind[..], &["--module", &v2]].concat()).await;
    let run = start_with(&c, "fresh", "steps", continues).await;
    let fresh = [("fresh".to_owned(), run.clone())];
    wait_pinned(&weft, &fresh, &v2).await;
    wait_scheduled(&server, &fresh, &["b"]).await;
    let v3 = deploy(&server, dir.path(), "steps-decider-v3", "3").await;
    // The continued run's a and the fresh run's b.
    work(&c, 2).await;
    let fresh_next = [("fresh".to_owned(), continued(&weft, "fresh", &run).await)];
    wait_pinned(&weft, &fresh_next, &v3).await;
    wait_scheduled(&server, &fresh_next, &["a"]).await;
    // Both finish, each on its module.
    work(&c, 3).await;
    for (id, run) in next.iter().chain(&fresh_next) {
        let closed = guests::wait_closed(&server, D, id, run, PATIENCE).await;
        let done = closed.events.last().unwrap();
        let done = done.workflow_execution_completed_event_attributes();
        assert_eq!(done.unwrap().result(), Some("a,b"), "{id}");
    }
}
