//! Batch jobs (`/v1/domains/{domain}/batches`) on the manual clock: a job acts on the open runs
//! its filter picks at its rate, a step each second, shows its progress, survives a restart
//! mid-way without acting on a run twice, and stops when canceled.

use std::time::{Duration, Instant};

use futures_util::StreamExt as _;

use weft_host::client::{
    Batch, BatchAction, BatchJob, BatchJobRequest, BatchJobState, Client as WeftClient,
    ClientError, NamedPoint, RunFilter, RunState,
};
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::guests::weft_client;

use crate::flow::*;
use crate::observability::{expect, scrape};

/// Starts `count` runs of `w` tagged `tag`, as `{tag}-N`, 32 at a time.
async fn start_tagged(swf: &Client, tag: &str, count: usize) {
    let starts = (0..count).map(|n| async move {
        let id = format!("{tag}-{n}");
        start_with(swf, &id, "w", |s| s.tag_list(tag)).await;
    });
    futures_util::stream::iter(starts)
        .buffer_unordered(32)
        .collect::<Vec<()>>()
        .await;
}

fn tagged(tag: &str) -> RunFilter {
    RunFilter {
        tag: Some(tag.into()),
        ..RunFilter::default()
    }
}

fn job(tag: &str, action: BatchAction, rate: u32) -> BatchJobRequest {
    BatchJobRequest {
        batch: Batch {
            filter: tagged(tag),
            action,
        },
        rate: Some(rate),
        identity: Some("operator-7".into()),
    }
}

fn terminate() -> BatchAction {
    BatchAction::Terminate {
        reason: Some("cleanup".into()),
        details: None,
    }
}

/// The job once it has acted on (or failed) `count` runs, within 30 s.
async fn until_progress(weft: &WeftClient, id: &str, count: u64) -> BatchJob {
    let began = Instant::now();
    loop {
        let job = weft.batch_job(D, id).await.expect("the job");
        if job.done + job.failed >= count {
            return job;
        }
        assert!(began.elapsed() < Duration::from_secs(30), "{job:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn open_count(weft: &WeftClient, tag: &str) -> u64 {
    let open = RunFilter {
        status: Some(RunState::Open),
        ..tagged(tag)
    };
    weft.count_runs(D, &open).await.expect("a count")
}

#[tokio::test]
async fn a_batch_job_acts_at_its_rate_a_step_a_second_and_shows_its_progress() {
    let (server, swf) = manual_server().await;
    register_workflow(&swf, "w").await;
    start_tagged(&swf, "nightly", 25).await;
    start_tagged(&swf, "daily", 2).await;
    let weft = weft_client(&server);

    let made = weft
        .create_batch_job(D, &job("nightly", terminate(), 10))
        .await;
    let made = made.expect("the job is made");
    assert_eq!(
        (made.state, made.matched, made.rate),
        (BatchJobState::Running, 25, 10)
    );
    assert_eq!(made.by, "operator-7");

    // The first step comes at once; each next one a second later.
    let first = until_progress(&weft, &made.id, 10).await;
    assert_eq!((first.done, first.state), (10, BatchJobState::Running));
    assert_eq!(open_count(&weft, "nightly").await, 15);
    server.advance(Duration::from_secs(1)).await;
    assert_eq!(until_progress(&weft, &made.id, 20).await.done, 20);
    server.advance(Duration::from_secs(1)).await;
    let done = until_progress(&weft, &made.id, 25).await;
    assert_eq!((done.done, done.failed), (25, 0));
    let done = until_state(&weft, &made.id, BatchJobState::Done).await;
    assert!(done.finished_at.is_some());
    assert_eq!(open_count(&weft, "nightly").await, 0);
    assert_eq!(
        open_count(&weft, "daily").await,
        2,
        "the filter's runs only"
    );
    let listed = weft.batch_jobs(D).await.expect("the jobs");
    assert_eq!(
        listed.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(),
        [made.id.as_str()]
    );

    // A run the action cannot apply to counts as failed, with why.
    let resume = weft
        .create_batch_job(D, &job("daily", BatchAction::Resume, 10))
        .await;
    let resumed = until_progress(&weft, &resume.expect("made").id, 2).await;
    assert_eq!((resumed.done, resumed.failed), (0, 2));
    assert_eq!(resumed.failures[0].message, "The run is not paused");
    let metrics = scrape(&server, None).await;
    let series = |action: &str, outcome: &str| {
        format!(
            "weft_batch_job_runs_total{{domain=\"{D}\",action=\"{action}\",outcome=\"{outcome}\"}}"
        )
    };
    expect(&metrics, &series("terminate", "done"), 25.0);
    expect(&metrics, &series("resume", "failed"), 2.0);
}

/// The job once it is in `state`, within 30 s.
async fn until_state(weft: &WeftClient, id: &str, state: BatchJobState) -> BatchJob {
    let began = Instant::now();
    loop {
        let job = weft.batch_job(D, id).await.expect("the job");
        if job.state == state {
            return job;
        }
        assert!(began.elapsed() < Duration::from_secs(30), "{job:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_canceled_batch_job_leaves_the_runs_it_did_not_reach() {
    let (server, swf) = manual_server().await;
    register_workflow(&swf, "w").await;
    start_tagged(&swf, "held", 12).await;
    let weft = weft_client(&server);
    let pause = BatchAction::Pause {
        reason: Some("by batch".into()),
    };
    let made = weft
        .create_batch_job(D, &job("held", pause, 5))
        .await
        .expect("made");
    until_progress(&weft, &made.id, 5).await;

    let canceled = weft.cancel_batch_job(D, &made.id).await.expect("canceled");
    assert_eq!(
        (canceled.state, canceled.done),
        (BatchJobState::Canceled, 5)
    );
    server.advance(Duration::from_secs(5)).await;
    let after = weft.batch_job(D, &made.id).await.expect("the job");
    assert_eq!((after.state, after.done), (BatchJobState::Canceled, 5));
    let paused = weft
        .run_summary(D, "held-0", &latest_run(&swf, "held-0").await)
        .await;
    let pause = paused.expect("the run").paused.expect("paused by the job");
    assert_eq!(
        (pause.by.as_str(), pause.reason.as_deref()),
        ("operator-7", Some("by batch"))
    );

    let unknown = weft.batch_job(D, "999999").await;
    assert!(
        matches!(&unknown, Err(ClientError::Refused { code, .. }) if code == "UnknownResourceFault"),
        "{unknown:?}"
    );
    let too_fast = weft
        .create_batch_job(D, &job("held", terminate(), 100_000))
        .await;
    assert!(
        matches!(&too_fast, Err(ClientError::Refused { code, .. }) if code == "ValidationException"),
        "{too_fast:?}"
    );
}

/// The run id of the open run of `workflow_id`.
async fn latest_run(swf: &Client, workflow_id: &str) -> String {
    let runs = swf
        .list_open_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .execution_filter(
            weft_tests::aws_sdk_swf::types::WorkflowExecutionFilter::builder()
                .workflow_id(workflow_id)
                .build()
                .expect("a filter"),
        )
        .send()
        .await
        .expect("the open runs");
    let info = runs.execution_infos().first().expect("an open run");
    info.execution()
        .map(|e| e.run_id.clone())
        .expect("a run id")
}

#[tokio::test]
async fn a_batch_job_over_5000_runs_survives_a_restart_and_acts_on_each_once() {
    let server = TestServer::start_manual_with(|config| config.limits.max_batch_rate = 1000).await;
    let swf = server.client();
    crate::common::register_domain(&swf, D).await;
    register_workflow(&swf, "w").await;
    start_tagged(&swf, "many", 5000).await;
    let weft = weft_client(&server);
    let made = weft
        .create_batch_job(D, &job("many", terminate(), 1000))
        .await;
    let made = made.expect("made");
    assert_eq!(made.matched, 5000);
    until_progress(&weft, &made.id, 1000).await;
    server.advance(Duration::from_secs(1)).await;
    until_progress(&weft, &made.id, 2000).await;

    // Down for a while: the next step comes once the server is back, where the job left off.
    let server = server.restart_after(Duration::from_secs(10)).await;
    let (swf, weft) = (server.client(), weft_client(&server));
    for _ in 0..3 {
        server.advance(Duration::from_secs(1)).await;
    }
    let done = until_state(&weft, &made.id, BatchJobState::Done).await;
    assert_eq!((done.done, done.failed), (5000, 0), "{done:?}");
    assert_eq!(open_count(&weft, "many").await, 0);
    let closed = swf
        .count_closed_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .send()
        .await
        .expect("a count");
    assert_eq!(closed.count(), 5000);
}

#[tokio::test]
async fn a_batch_reset_starts_each_run_again_from_its_first_decision() {
    let (server, swf) = manual_server().await;
    register_workflow(&swf, "w").await;
    start_tagged(&swf, "redo", 2).await;
    let weft = weft_client(&server);
    // One run decides once; the other's first decision task never started.
    let task = decision_task(&swf, DECIDERS).await;
    respond(&swf, task.task_token(), vec![]).await;
    let decided = task
        .workflow_execution()
        .expect("a run")
        .workflow_id()
        .to_owned();
    let other = if decided == "redo-0" {
        "redo-1"
    } else {
        "redo-0"
    };
    let before = latest_run(&swf, &decided).await;

    let reset = BatchAction::Reset {
        to: NamedPoint::First,
        reason: Some("redo".into()),
    };
    let made = weft.create_batch_job(D, &job("redo", reset, 10)).await;
    let done = until_progress(&weft, &made.expect("made").id, 2).await;
    assert_eq!((done.done, done.failed), (1, 1), "{done:?}");
    assert_eq!(done.failures[0].workflow_id, other, "{done:?}");
    let after = latest_run(&swf, &decided).await;
    assert_ne!(after, before, "the decided run was not reset");
    let old = history(&swf, &decided, &before).await;
    let last = old.last().expect("the old run's events");
    let terminated = last
        .workflow_execution_terminated_event_attributes()
        .expect("the old run was terminated");
    assert_eq!(terminated.reason(), Some("redo"));
    // The new run carries the start and decides its first task again.
    let new = history(&swf, &decided, &after).await;
    let types: Vec<_> = new.iter().map(|e| e.event_type().as_str()).collect();
    assert_eq!(
        types,
        ["WorkflowExecutionStarted", "DecisionTaskScheduled"],
        "{types:?}"
    );
    drop(server);
}

#[tokio::test]
async fn a_domain_keeps_its_newest_hundred_finished_jobs() {
    let (server, swf) = manual_server().await;
    register_workflow(&swf, "w").await;
    let weft = weft_client(&server);
    let mut ids = Vec::new();
    for _ in 0..103 {
        let made = weft
            .create_batch_job(D, &job("nothing", terminate(), 10))
            .await;
        let id = made.expect("made").id;
        until_state(&weft, &id, BatchJobState::Done).await;
        ids.push(id);
    }
    let listed = weft.batch_jobs(D).await.expect("the jobs");
    assert_eq!(listed.len(), 100);
    assert_eq!(listed[0].id, ids[102], "newest first");
    // The jobs made before the newest hundred finished jobs are gone.
    for gone in &ids[..3] {
        let described = weft.batch_job(D, gone).await;
        assert!(described.is_err(), "job {gone} was kept");
    }
    assert!(weft.batch_job(D, &ids[3]).await.is_ok());
}
