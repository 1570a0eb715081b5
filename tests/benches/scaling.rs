//! Whether an operation's cost stays flat as what else is open or stored grows (issue 15):
//!
//! - **Open activities.** A run with K open, started activity tasks (K = 10, 100, 1,000): the
//!   cost of a heartbeat with details and of a completion.
//! - **Visibility.** C closed runs in a domain (C = 1k, 10k, 50k): listing by tag, listing by
//!   workflowId and counting by tag. Each tag names 100 runs and each workflowId one, whatever
//!   C is, so a flat curve is what an index gives.
//! - **Idle.** Durable commits per long poll that finds nothing, and the process's CPU while
//!   the server has nothing to do.
//!
//! Costs are the server process's CPU per call (all threads, from `/proc/self/task/*/schedstat`,
//! so the in-process client's share, constant per call, is included), the writer thread's CPU per
//! call for writes, and the median wall time per call.
//!
//! `cargo bench -p weft-tests --bench scaling`. `WEFT_BENCH_MAX_CLOSED` caps the largest C
//! (default 50,000), `WEFT_BENCH_MAX_OPEN` the largest K (default 1,000).

use std::fs;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::primitives::DateTime;
use weft_tests::aws_sdk_swf::types::{
    ActivityType, Decision, DecisionType, ExecutionTimeFilter,
    ScheduleActivityTaskDecisionAttributes, TagFilter, TaskList, WorkflowExecutionFilter,
    WorkflowType,
};

const DOMAIN: &str = "bench";
/// Calls measured at each size.
const CALLS: usize = 50;
/// Runs each tag names.
const PER_TAG: usize = 100;

fn main() {
    weft_tests::bench::run(run());
}

async fn run() {
    let max_open = weft_tests::bench::setting("WEFT_BENCH_MAX_OPEN", 1000);
    let max_closed = weft_tests::bench::setting("WEFT_BENCH_MAX_CLOSED", 50_000);
    println!("scaling: server CPU (all threads) and writer CPU per call, median wall time");
    for k in [10, 100, 1000].into_iter().filter(|&k| k <= max_open) {
        open_activities(k).await;
    }
    visibility(&[1000, 10_000, 50_000].map(|c: usize| c.min(max_closed))).await;
    idle().await;
}

/// CPU time of this process (every thread) and of the writer thread, in nanoseconds.
fn cpu() -> (u64, u64) {
    let (mut all, mut writer) = (0, 0);
    for task in fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
    {
        let path = task.path();
        let Ok(stat) = fs::read_to_string(path.join("schedstat")) else {
            continue;
        };
        let ns: u64 = stat
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        all += ns;
        if fs::read_to_string(path.join("comm")).is_ok_and(|c| c.trim() == "weft-writer") {
            writer += ns;
        }
    }
    (all, writer)
}

/// Runs `call` `CALLS` times, one after another; prints CPU and median wall time per call.
async fn measure<F, Fut>(label: &str, call: F)
where
    F: FnMut(usize) -> Fut,
    Fut: Future<Output = ()>,
{
    measure_n(label, CALLS, call).await;
}

/// Runs `call` `calls` times, one after another; prints CPU and median wall time per call.
async fn measure_n<F, Fut>(label: &str, calls: usize, mut call: F)
where
    F: FnMut(usize) -> Fut,
    Fut: Future<Output = ()>,
{
    let mut walls = Vec::with_capacity(calls);
    let (all, writer) = cpu();
    for i in 0..calls {
        let began = Instant::now();
        call(i).await;
        walls.push(began.elapsed());
    }
    let (all_after, writer_after) = cpu();
    walls.sort_unstable();
    let per = |ns: u64| ns as f64 / calls as f64 / 1e6;
    println!(
        "  {label:<34} cpu {:>7.3} ms  writer {:>7.3} ms  wall p50 {:>7.3} ms",
        per(all_after - all),
        per(writer_after - writer),
        walls[calls / 2].as_secs_f64() * 1e3,
    );
}

async fn server() -> (TestServer, Client) {
    let server = TestServer::start_with(|c| {
        c.poll_timeout = Duration::from_millis(50);
        c.limits.max_open_runs = 1_000_000;
    })
    .await;
    let client = server.client();
    client
        .register_domain()
        .name(DOMAIN)
        .workflow_execution_retention_period_in_days("90")
        .send()
        .await
        .expect("register domain");
    client
        .register_workflow_type()
        .domain(DOMAIN)
        .name("w")
        .version("1")
        .default_task_list(list("decisions"))
        .default_execution_start_to_close_timeout("3600")
        .default_task_start_to_close_timeout("NONE")
        .default_child_policy("TERMINATE".into())
        .send()
        .await
        .expect("register workflow type");
    client
        .register_activity_type()
        .domain(DOMAIN)
        .name("a")
        .version("1")
        .default_task_list(list("work"))
        .default_task_schedule_to_close_timeout("NONE")
        .default_task_schedule_to_start_timeout("NONE")
        .default_task_start_to_close_timeout("NONE")
        .default_task_heartbeat_timeout("NONE")
        .send()
        .await
        .expect("register activity type");
    (server, client)
}

fn list(name: &str) -> TaskList {
    TaskList::builder().name(name).build().unwrap()
}

/// A run with `k` started activity tasks: heartbeats and completions of some of them.
async fn open_activities(k: usize) {
    let (_server, c) = server().await;
    c.start_workflow_execution()
        .domain(DOMAIN)
        .workflow_id("many")
        .workflow_type(
            WorkflowType::builder()
                .name("w")
                .version("1")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("start");
    let task = c
        .poll_for_decision_task()
        .domain(DOMAIN)
        .task_list(list("decisions"))
        .send()
        .await
        .expect("poll decision");
    let decisions = (0..k)
        .map(|i| {
            let attributes = ScheduleActivityTaskDecisionAttributes::builder()
                .activity_type(
                    ActivityType::builder()
                        .name("a")
                        .version("1")
                        .build()
                        .unwrap(),
                )
                .activity_id(format!("a{i}"))
                .build()
                .unwrap();
            Decision::builder()
                .decision_type(DecisionType::ScheduleActivityTask)
                .schedule_activity_task_decision_attributes(attributes)
                .build()
                .unwrap()
        })
        .collect();
    c.respond_decision_task_completed()
        .task_token(task.task_token())
        .set_decisions(Some(decisions))
        .send()
        .await
        .expect("schedule");
    let mut tokens = Vec::with_capacity(k);
    while tokens.len() < k {
        let task = c
            .poll_for_activity_task()
            .domain(DOMAIN)
            .task_list(list("work"))
            .send()
            .await
            .expect("poll activity");
        tokens.push(task.task_token().to_owned());
    }
    println!("K = {k} open activity tasks");
    let details = "x".repeat(100);
    measure("heartbeat with details", |i| {
        let call = c
            .record_activity_task_heartbeat()
            .task_token(&tokens[i % tokens.len()])
            .details(&details);
        async move {
            call.send().await.expect("heartbeat");
        }
    })
    .await;
    // Completing half of them at most, from the end, keeps K about the same throughout.
    measure_n("completion", CALLS.min(k / 2), |i| {
        let call = c
            .respond_activity_task_completed()
            .task_token(&tokens[tokens.len() - 1 - i]);
        async move {
            call.send().await.expect("complete");
        }
    })
    .await;
}

/// Closed runs at each of `sizes`: listing and counting by tag and by workflowId.
async fn visibility(sizes: &[usize]) {
    let (_server, c) = server().await;
    let since = DateTime::from_secs(0);
    let mut closed = 0;
    for &size in sizes {
        if size <= closed {
            continue;
        }
        let began = Instant::now();
        seed(&c, closed, size).await;
        println!(
            "C = {size} closed runs (seeded {} in {:.1} s)",
            size - closed,
            began.elapsed().as_secs_f64()
        );
        closed = size;
        let filter = ExecutionTimeFilter::builder()
            .oldest_date(since)
            .build()
            .unwrap();
        let tags = closed / PER_TAG;
        measure("list by tag (a page of 100)", |i| {
            let call = c
                .list_closed_workflow_executions()
                .domain(DOMAIN)
                .start_time_filter(filter.clone())
                .tag_filter(TagFilter::builder().tag(tag(i * 7 % tags)).build().unwrap());
            async move {
                let page = call.send().await.expect("list by tag");
                assert_eq!(page.execution_infos().len(), PER_TAG);
            }
        })
        .await;
        measure("list by workflowId", |i| {
            let id = workflow_id(i * 7919 % closed);
            let call = c
                .list_closed_workflow_executions()
                .domain(DOMAIN)
                .start_time_filter(filter.clone())
                .execution_filter(
                    WorkflowExecutionFilter::builder()
                        .workflow_id(id)
                        .build()
                        .unwrap(),
                );
            async move {
                let page = call.send().await.expect("list by workflowId");
                assert_eq!(page.execution_infos().len(), 1);
            }
        })
        .await;
        measure("count by tag (100 matches)", |i| {
            let call = c
                .count_closed_workflow_executions()
                .domain(DOMAIN)
                .start_time_filter(filter.clone())
                .tag_filter(TagFilter::builder().tag(tag(i * 7 % tags)).build().unwrap());
            async move {
                let count = call.send().await.expect("count by tag");
                assert_eq!(count.count(), PER_TAG as i32);
            }
        })
        .await;
    }
}

fn tag(n: usize) -> String {
    format!("batch-{n}")
}

fn workflow_id(n: usize) -> String {
    format!("wf-{n}")
}

/// Starts and terminates runs `from..to`, 64 at a time.
async fn seed(c: &Client, from: usize, to: usize) {
    let mut calls = JoinSet::new();
    for n in from..to {
        if calls.len() >= 64 {
            calls.join_next().await.unwrap().expect("seed");
        }
        let c = c.clone();
        calls.spawn(async move {
            c.start_workflow_execution()
                .domain(DOMAIN)
                .workflow_id(workflow_id(n))
                .workflow_type(
                    WorkflowType::builder()
                        .name("w")
                        .version("1")
                        .build()
                        .unwrap(),
                )
                .tag_list(tag(n / PER_TAG))
                .send()
                .await
                .expect("start");
            c.terminate_workflow_execution()
                .domain(DOMAIN)
                .workflow_id(workflow_id(n))
                .send()
                .await
                .expect("terminate");
        });
    }
    while let Some(done) = calls.join_next().await {
        done.expect("seed");
    }
}

/// Durable commits per empty long poll, and CPU while nothing happens.
async fn idle() {
    let (server, c) = server().await;
    println!("idle");
    let polls = 20;
    let commits = server.writer_stats().commits();
    for _ in 0..polls {
        let task = c
            .poll_for_activity_task()
            .domain(DOMAIN)
            .task_list(list("nothing"))
            .send()
            .await
            .expect("poll");
        assert!(task.task_token().is_empty());
    }
    println!(
        "  durable commits per empty poll     {:.2}",
        (server.writer_stats().commits() - commits) as f64 / f64::from(polls)
    );
    let secs = 5;
    let (before, _) = cpu();
    tokio::time::sleep(Duration::from_secs(secs)).await;
    let (after, _) = cpu();
    println!(
        "  CPU at idle                        {:.3} % of a core",
        (after - before) as f64 / (secs as f64 * 1e9) * 100.0
    );
}
