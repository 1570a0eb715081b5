//! What reading a long history costs the server: a run filled to 24,000 events (markers with
//! 200 characters of details, about a real event's size), read whole through
//! GetWorkflowExecutionHistory and through a decision task's pages, as deciders do, and single
//! pages at its start and at its end, beside a DescribeWorkflowExecution of the same run (what
//! any request costs, with no events). Figures are the `weft serve` process's CPU time (release
//! build, redb), so the client's own parsing is not counted.
//!
//! `cargo bench -p weft-tests --bench history`. `WEFT_BENCH_READS` sets the full reads of each
//! kind (default 10).

use std::time::Duration;

use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::config::timeout::TimeoutConfig;
use weft_tests::aws_sdk_swf::types::{
    Decision, DecisionType, RecordMarkerDecisionAttributes, TaskList, WorkflowExecution,
    WorkflowType,
};
use weft_tests::process::Weft;

const DOMAIN: &str = "hist";
const DECIDERS: &str = "deciders";
/// Events in the history read.
const EVENTS: i64 = 24_000;
/// Single pages read at each end.
const PAGE_READS: u32 = 1_000;

fn main() {
    weft_tests::process::build_release();
    weft_tests::bench::run(run());
}

async fn run() {
    let reads: u32 = weft_tests::bench::setting("WEFT_BENCH_READS", 10);
    let dir = tempfile::tempdir().expect("temporary directory");
    let (data, log) = (dir.path().join("data"), dir.path().join("weft.log"));
    let weft = tokio::task::spawn_blocking(move || Weft::start(&data, &log, None))
        .await
        .expect("weft starts");
    let c = weft_tests::client_at(&weft.endpoint(), TimeoutConfig::disabled());
    let execution = filled_run(&c).await;

    let cpu = weft.cpu_time();
    let mut pages = 0;
    for _ in 0..reads {
        pages += full_read(&c, &execution).await;
    }
    let spent = weft.cpu_time() - cpu;
    report("GetWorkflowExecutionHistory, whole", spent, reads, pages);

    // A decision task at the end of the history, its pages followed as a decider follows them.
    c.signal_workflow_execution()
        .domain(DOMAIN)
        .workflow_id(execution.workflow_id())
        .signal_name("read")
        .send()
        .await
        .expect("signal");
    let first = poll(&c, None).await;
    let token = first.next_page_token().expect("more pages").to_owned();
    let cpu = weft.cpu_time();
    let mut pages = 0;
    for _ in 0..reads {
        let mut next = Some(token.clone());
        pages += 1;
        while let Some(token) = next {
            next = poll(&c, Some(token))
                .await
                .next_page_token()
                .map(str::to_owned);
            pages += 1;
        }
    }
    let spent = weft.cpu_time() - cpu;
    report("PollForDecisionTask pages, whole", spent, reads, pages);

    // The floor: a request that reads the same run and sends no events.
    let cpu = weft.cpu_time();
    for _ in 0..PAGE_READS {
        c.describe_workflow_execution()
            .domain(DOMAIN)
            .execution(execution.clone())
            .send()
            .await
            .expect("describe");
    }
    let each = (weft.cpu_time() - cpu) / PAGE_READS;
    let label = "DescribeWorkflowExecution (floor)";
    println!("{label:<36} {:>8.1} µs per call", each.as_secs_f64() * 1e6);
    for (label, reverse) in [("first page (events 1–100)", false), ("last page", true)] {
        let cpu = weft.cpu_time();
        for _ in 0..PAGE_READS {
            history_page(&c, &execution, reverse, None).await;
        }
        let spent = weft.cpu_time() - cpu;
        let each = spent / PAGE_READS;
        println!("{label:<36} {:>8.1} µs per page", each.as_secs_f64() * 1e6);
    }
}

/// Prints the CPU a kind of full read cost.
fn report(label: &str, spent: Duration, reads: u32, pages: u32) {
    println!(
        "{label:<36} {:>8.1} ms per read, {:>6.1} µs per page ({pages} pages, {reads} reads)",
        (spent / reads).as_secs_f64() * 1e3,
        (spent / pages).as_secs_f64() * 1e6,
    );
}

/// Registers the domain and type, starts a run and records markers until its history holds
/// about [`EVENTS`] events; each batch's decision task comes from a signal.
async fn filled_run(c: &Client) -> WorkflowExecution {
    c.register_domain()
        .name(DOMAIN)
        .workflow_execution_retention_period_in_days("1")
        .send()
        .await
        .expect("domain");
    c.register_workflow_type()
        .domain(DOMAIN)
        .name("wf")
        .version("1")
        .default_task_list(TaskList::builder().name(DECIDERS).build().unwrap())
        .default_task_start_to_close_timeout("3600")
        .default_execution_start_to_close_timeout("86400")
        .default_child_policy("TERMINATE".into())
        .send()
        .await
        .expect("workflow type");
    let ty = WorkflowType::builder()
        .name("wf")
        .version("1")
        .build()
        .unwrap();
    let run = c
        .start_workflow_execution()
        .domain(DOMAIN)
        .workflow_id("long")
        .workflow_type(ty)
        .send()
        .await
        .expect("start");
    let details = "x".repeat(200);
    loop {
        let task = poll(c, None).await;
        if task.started_event_id() >= EVENTS - 1_000 {
            let execution = task.workflow_execution().expect("execution").clone();
            respond(c, &task, 995, &details).await;
            return execution;
        }
        respond(c, &task, 996, &details).await;
        c.signal_workflow_execution()
            .domain(DOMAIN)
            .workflow_id("long")
            .set_run_id(run.run_id.clone())
            .signal_name("more")
            .send()
            .await
            .expect("signal");
    }
}

/// Completes `task` with `n` markers.
async fn respond(
    c: &Client,
    task: &weft_tests::aws_sdk_swf::operation::poll_for_decision_task::PollForDecisionTaskOutput,
    n: usize,
    details: &str,
) {
    let markers = (0..n)
        .map(|i| {
            let attributes = RecordMarkerDecisionAttributes::builder()
                .marker_name(format!("m{i}"))
                .details(details)
                .build()
                .unwrap();
            Decision::builder()
                .decision_type(DecisionType::RecordMarker)
                .record_marker_decision_attributes(attributes)
                .build()
                .unwrap()
        })
        .collect();
    c.respond_decision_task_completed()
        .task_token(task.task_token())
        .set_decisions(Some(markers))
        .send()
        .await
        .expect("respond");
}

/// One PollForDecisionTask on [`DECIDERS`], or a continuation page of the task `token` names.
async fn poll(
    c: &Client,
    token: Option<String>,
) -> weft_tests::aws_sdk_swf::operation::poll_for_decision_task::PollForDecisionTaskOutput {
    c.poll_for_decision_task()
        .domain(DOMAIN)
        .task_list(TaskList::builder().name(DECIDERS).build().unwrap())
        .set_next_page_token(token)
        .send()
        .await
        .expect("poll")
}

/// Reads the run's whole history page by page; returns the pages read.
async fn full_read(c: &Client, execution: &WorkflowExecution) -> u32 {
    let (mut pages, mut token) = (0, None);
    loop {
        pages += 1;
        match history_page(c, execution, false, token).await {
            Some(next) => token = Some(next),
            None => return pages,
        }
    }
}

/// One GetWorkflowExecutionHistory page; returns its next page token.
async fn history_page(
    c: &Client,
    execution: &WorkflowExecution,
    reverse: bool,
    token: Option<String>,
) -> Option<String> {
    c.get_workflow_execution_history()
        .domain(DOMAIN)
        .execution(execution.clone())
        .reverse_order(reverse)
        .set_next_page_token(token)
        .send()
        .await
        .expect("history page")
        .next_page_token
}
