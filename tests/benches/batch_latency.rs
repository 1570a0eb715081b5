//! Whether a batch job disturbs other clients: one client's request latency while the server
//! is otherwise idle, then while a batch job terminates 5,000 runs at its rate.
//!
//! An in-process server on the real clock holds 5,000 open runs. A probe client starts a run
//! and describes it, over and over, for `WEFT_BENCH_SECONDS` (default 5) with nothing else
//! going on, then again while a batch job (`WEFT_BENCH_BATCH_RATE` runs a second, default
//! 1,000) terminates the 5,000; it prints each phase's latency percentiles, their ratio, and
//! how long the job took. The target: the probe's p99 at most twice the idle one.
//!
//! It prints figures and asserts nothing about time.
//!
//! `cargo bench -p weft-tests --bench batch_latency`.

use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use weft_host::client::{
    Batch, BatchAction, BatchJobRequest, BatchJobState, Client as WeftClient, RunFilter,
};
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{TaskList, WorkflowExecution, WorkflowType};
use weft_tests::guests::weft_client;

const DOMAIN: &str = "batches";
const RUNS: usize = 5000;

fn main() {
    weft_tests::bench::run(run());
}

async fn run() {
    let rate = weft_tests::bench::setting("WEFT_BENCH_BATCH_RATE", 1000);
    let seconds = weft_tests::bench::setting("WEFT_BENCH_SECONDS", 5);
    let server = TestServer::start_with(move |config| config.limits.max_batch_rate = rate).await;
    let (swf, weft) = (server.client(), weft_client(&server));
    setup(&swf).await;
    let started = Instant::now();
    start_runs(&swf, "old", RUNS).await;
    println!(
        "{RUNS} open runs started in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let idle = probe(&swf, "idle", || std::future::ready(true), seconds).await;
    let job = BatchJobRequest {
        batch: Batch {
            filter: RunFilter {
                tag: Some("old".into()),
                ..RunFilter::default()
            },
            action: BatchAction::Terminate {
                reason: Some("bench".into()),
                details: None,
            },
        },
        rate: Some(rate),
        identity: None,
    };
    let began = Instant::now();
    let made = weft.create_batch_job(DOMAIN, &job).await.expect("the job");
    let running = || running(&weft, &made.id);
    let during = probe(&swf, "during", running, u64::MAX).await;
    let took = began.elapsed();
    let job = weft.batch_job(DOMAIN, &made.id).await.expect("the job");
    println!(
        "The job acted on {} runs ({} failed) at {rate}/s in {:.1} s",
        job.done,
        job.failed,
        took.as_secs_f64()
    );
    println!("Probe latency (start a run, describe it), idle and during the job:");
    report("idle", &idle);
    report("during", &during);
    println!(
        "p99 during / idle: {:.2}",
        percentile(&during, 0.99) / percentile(&idle, 0.99)
    );
}

/// Whether the job `id` is still running.
async fn running(weft: &WeftClient, id: &str) -> bool {
    let job = weft.batch_job(DOMAIN, id).await.expect("the job");
    job.state == BatchJobState::Running
}

async fn setup(swf: &Client) {
    swf.register_domain()
        .name(DOMAIN)
        .workflow_execution_retention_period_in_days("1")
        .send()
        .await
        .expect("register the domain");
    swf.register_workflow_type()
        .domain(DOMAIN)
        .name("w")
        .version("1")
        .default_task_list(TaskList::builder().name("nobody").build().expect("a list"))
        .default_execution_start_to_close_timeout("3600")
        .default_task_start_to_close_timeout("60")
        .default_child_policy(weft_tests::aws_sdk_swf::types::ChildPolicy::Terminate)
        .send()
        .await
        .expect("register the type");
}

/// Starts `count` runs tagged `tag`, 32 at a time.
async fn start_runs(swf: &Client, tag: &str, count: usize) {
    let starts = (0..count).map(|n| start(swf, format!("{tag}-{n}"), tag));
    futures_util::stream::iter(starts)
        .buffer_unordered(32)
        .collect::<Vec<String>>()
        .await;
}

async fn start(swf: &Client, id: String, tag: &str) -> String {
    swf.start_workflow_execution()
        .domain(DOMAIN)
        .workflow_id(id)
        .workflow_type(workflow_type())
        .tag_list(tag)
        .send()
        .await
        .expect("start a run")
        .run_id()
        .expect("a run id")
        .to_owned()
}

fn workflow_type() -> WorkflowType {
    WorkflowType::builder()
        .name("w")
        .version("1")
        .build()
        .expect("a type")
}

/// Times start-and-describe calls for `seconds`, and for as long as `go_on` says: each one's
/// latency in seconds.
async fn probe<F, Fut>(swf: &Client, phase: &str, go_on: F, seconds: u64) -> Vec<f64>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let began = Instant::now();
    let mut latencies = Vec::new();
    let mut n = 0;
    while began.elapsed() < Duration::from_secs(seconds.min(600)) && go_on().await {
        let id = format!("probe-{phase}-{n}");
        n += 1;
        let call = Instant::now();
        let run_id = start(swf, id.clone(), "probe").await;
        let execution = WorkflowExecution::builder()
            .workflow_id(id)
            .run_id(run_id)
            .build()
            .expect("an execution");
        swf.describe_workflow_execution()
            .domain(DOMAIN)
            .execution(execution)
            .send()
            .await
            .expect("describe the run");
        latencies.push(call.elapsed().as_secs_f64());
    }
    latencies.sort_by(f64::total_cmp);
    latencies
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or(f64::NAN)
}

fn report(phase: &str, sorted: &[f64]) {
    println!(
        "  {phase:<7} {:>5} probes  p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>6.2} ms",
        sorted.len(),
        percentile(sorted, 0.5) * 1e3,
        percentile(sorted, 0.99) * 1e3,
        sorted.last().copied().unwrap_or(f64::NAN) * 1e3,
    );
}
