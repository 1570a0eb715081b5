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
use crate::observability::{expect, sample, scrape};
use crate::transfer::history_bytes;

/// How long the server keeps closed runs.
const RETENTION: Duration = Duration::from_secs(3600);

/// A server on a manual clock keeping closed runs for [`RETENTION`], archiving into `archive`.
async fn archiving(archive: PathBuf) -> (TestServer, weft_tests::aws_sdk_swf::Client) {
    let server = TestServer::start_manual_with(move |config| {
        config.poll_timeout = Duration::from_secs(1);
        config.retention_override = Some(RETENTION);
        config.archive = Some(archive.clone());
    })
    .await;
    let c = server.client();
    (server, c)
}

#[tokio::test]
async fn a_closed_run_is_written_out_before_its_purge_and_imports_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let (server, c) = archiving(dir.path().to_owned()).await;
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

/// The archive's account folder made a file: no run can be written (as root, a folder made
/// read-only would not stop it).
fn block(archive: &std::path::Path) -> PathBuf {
    let blocker = archive.join(weft_host::DEFAULT_ACCOUNT_ID);
    std::fs::write(&blocker, b"not a folder").unwrap();
    blocker
}

#[tokio::test]
async fn an_archive_that_takes_no_writes_is_tried_less_and_less_then_caught_up_with() {
    let dir = tempfile::tempdir().unwrap();
    let (server, c) = archiving(dir.path().to_owned()).await;
    register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    const RUNS: usize = 30;
    let mut runs = Vec::new();
    for n in 0..RUNS {
        let id = format!("w{n}");
        let run = start(&c, &id, "w").await;
        c.terminate_workflow_execution()
            .domain(D)
            .workflow_id(&id)
            .send()
            .await
            .unwrap();
        runs.push((id, run));
    }
    let blocker = block(dir.path());

    // A minute past retention, a second at a time: every run still there, waiting, and the
    // archive tried a handful of times, not each run every second (1,800 writes).
    server.advance(RETENTION).await;
    for _ in 0..60 {
        server.advance(Duration::from_secs(1)).await;
    }
    let text = scrape(&server, None).await;
    expect(&text, "weft_archive_backlog", RUNS as f64);
    let failures = sample(&text, "weft_archive_write_failures_total").unwrap();
    assert!((1.0..=10.0).contains(&failures), "{failures} failed writes");
    let (id, run) = &runs[0];
    c.describe_workflow_execution()
        .domain(D)
        .execution(execution(id, run))
        .send()
        .await
        .expect("kept while the archive takes no writes");

    // Writable again: within the longest wait (5 minutes), every run is written and purged,
    // and no partial file is left.
    std::fs::remove_file(&blocker).unwrap();
    for _ in 0..2 {
        server.advance(Duration::from_secs(300)).await;
    }
    let text = scrape(&server, None).await;
    expect(&text, "weft_archive_backlog", 0.0);
    let domain_dir: PathBuf = [weft_host::DEFAULT_ACCOUNT_ID, "us-east-1", D]
        .iter()
        .fold(dir.path().to_owned(), |path, part| path.join(part));
    let files: Vec<String> = std::fs::read_dir(&domain_dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), RUNS, "{files:?}");
    assert!(files.iter().all(|f| f.ends_with(".json")), "{files:?}");
    let count = c
        .count_closed_workflow_executions()
        .domain(D)
        .start_time_filter(crate::flow::since_ever())
        .send()
        .await
        .unwrap();
    assert_eq!(count.count(), 0, "every run purged");
}

#[tokio::test]
async fn runs_of_domains_named_dot_and_dot_dot_are_archived_in_folders_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("archive");
    let (server, c) = archiving(archive.clone()).await;
    let mut runs = Vec::new();
    for domain in [".", ".."] {
        register_domain(&c, domain).await;
        c.register_workflow_type()
            .domain(domain)
            .name("w")
            .version("1")
            .send()
            .await
            .unwrap();
        let started = c
            .start_workflow_execution()
            .domain(domain)
            .workflow_id("w")
            .workflow_type(crate::flow::wf_type("w", "1"))
            .task_list(crate::flow::task_list("l"))
            .execution_start_to_close_timeout("60")
            .task_start_to_close_timeout("10")
            .child_policy(weft_tests::aws_sdk_swf::types::ChildPolicy::Terminate)
            .send()
            .await
            .unwrap();
        let terminate = c
            .terminate_workflow_execution()
            .domain(domain)
            .workflow_id("w");
        terminate.send().await.unwrap();
        runs.push((domain, started.run_id().expect("a run id").to_owned()));
    }
    server.advance(RETENTION).await;
    let region: PathBuf = [weft_host::DEFAULT_ACCOUNT_ID, "us-east-1"]
        .iter()
        .fold(archive.clone(), |path, part| path.join(part));
    for ((domain, run), folder) in runs.iter().zip(["%2E", "%2E%2E"]) {
        let file = region.join(folder).join(export_file_name("w", run));
        assert!(file.exists(), "{domain}'s run is not in {}", file.display());
    }
    // Nothing outside the region's folder, nor in it but the two domains' folders.
    let beside: Vec<_> = std::fs::read_dir(&region)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside.len(), 2, "{beside:?}");
    let above: Vec<_> = std::fs::read_dir(&archive)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(above, [weft_host::DEFAULT_ACCOUNT_ID], "{above:?}");
}
