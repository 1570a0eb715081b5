//! The archive (`weft serve --archive DIR`, issue 32): a closed run is written out, as `weft
//! export` writes it, before retention purges it; the purge waits until the file is on disk,
//! and `weft import --from` brings the run back exactly.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use weft_host::client::export_file_name;
use weft_tests::TestServer;

use crate::cli::Weft;
use crate::common::{expect_fault, register_domain};
use crate::flow::{
    D, DECIDERS, complete_workflow, decision_task, execution, marker, register_workflow, respond,
    start,
};
use crate::transfer::history_bytes;

/// How long the server keeps closed runs.
const RETENTION: Duration = Duration::from_secs(3600);

#[tokio::test]
async fn a_closed_run_is_written_out_before_its_purge_and_imports_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().to_owned();
    let server = TestServer::start_manual_with(move |config| {
        config.poll_timeout = Duration::from_secs(1);
        config.retention_override = Some(RETENTION);
        config.archive = Some(archive.clone());
    })
    .await;
    let c = server.client();
    register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    let done = start(&c, "done", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    let decisions = vec![marker("note", "kept"), complete_workflow(Some("ok"))];
    respond(&c, task.task_token(), decisions).await;
    let run = ("done".to_owned(), done.clone());
    let kept = history_bytes(&server, &run).await;

    // Written when retention ends, into a directory per account, region and domain; the run
    // is still there until the file is.
    server.advance(RETENTION).await;
    let domain_dir: PathBuf = [weft_host::DEFAULT_ACCOUNT_ID, "us-east-1", D]
        .iter()
        .fold(dir.path().to_owned(), |path, part| path.join(part));
    let file = domain_dir.join(export_file_name("done", &done));
    let written: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(
        written["describe"]["executionInfo"]["closeStatus"],
        "COMPLETED"
    );
    let events = written["history"]["events"].as_array().unwrap();
    assert_eq!(
        events.last().unwrap()["eventType"],
        "WorkflowExecutionCompleted"
    );
    assert_eq!(
        std::fs::read_dir(&domain_dir).unwrap().count(),
        1,
        "no partial file left"
    );

    // Then purged: the purge comes back a second later.
    server.advance(Duration::from_secs(1)).await;
    expect_fault(
        c.describe_workflow_execution()
            .domain(D)
            .execution(execution("done", &done))
            .send()
            .await,
        "UnknownResourceFault",
    );

    // The archive is an export: imported into a fresh server, the run reads as it did.
    let fresh = TestServer::start().await;
    let from = domain_dir.to_str().unwrap();
    let imported = Weft::at(&fresh)
        .run(&["import", "--from", from, "--domain", D])
        .await;
    assert!(
        imported.out().contains("imported 1 of 1 runs"),
        "{}",
        imported.out()
    );
    assert_eq!(history_bytes(&fresh, &run).await, kept);
}
