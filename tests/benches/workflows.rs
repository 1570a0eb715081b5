//! Workflows per second, and how long a scheduled task takes to reach a waiting poller.
//!
//! Runs N workflows of one activity each (default 500; `WEFT_BENCH_WORKFLOWS` to change) against
//! the real server in this process, with external deciders and activity workers over HTTP, each
//! with its own aws-sdk-swf client: the decider schedules the activity on the first decision task
//! and completes the workflow once the activity completed. Every change is acknowledged only
//! after a durable commit.
//!
//! The hand-off latency is measured on the activity side: from the moment the
//! RespondDecisionTaskCompleted that schedules an activity is sent to the moment a worker's poll
//! returns that activity (matched by activityId): the scheduling request, its durable commit and
//! the delivery to a waiting poller. It prints figures and asserts nothing about time.
//!
//! `cargo bench -p weft-tests --bench workflows`. `WEFT_BENCH_DIR` picks the disk the data goes
//! to (default: the system's temporary directory).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{
    ActivityType, ChildPolicy, CompleteWorkflowExecutionDecisionAttributes, Decision, DecisionType,
    ScheduleActivityTaskDecisionAttributes, TaskList, WorkflowType,
};

const DOMAIN: &str = "bench";
const DECIDERS: &str = "deciders";
const WORKERS: &str = "workers";
const DECIDER_LOOPS: usize = 8;
const WORKER_LOOPS: usize = 8;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(run());
}

fn task_list(name: &str) -> TaskList {
    TaskList::builder().name(name).build().expect("task list")
}

/// What the deciders and workers share: when each activity was scheduled, when it reached a
/// worker, and how many workflows are done.
#[derive(Default)]
struct Shared {
    scheduled: Mutex<HashMap<String, Instant>>,
    /// When a worker's poll returned each activity.
    received: Mutex<Vec<(String, Instant)>>,
    completed: AtomicUsize,
}

async fn setup(client: &Client) {
    client
        .register_domain()
        .name(DOMAIN)
        .workflow_execution_retention_period_in_days("1")
        .send()
        .await
        .expect("register the domain");
    client
        .register_workflow_type()
        .domain(DOMAIN)
        .name("order")
        .version("1")
        .default_task_list(task_list(DECIDERS))
        .default_execution_start_to_close_timeout("3600")
        .default_task_start_to_close_timeout("60")
        .default_child_policy(ChildPolicy::Terminate)
        .send()
        .await
        .expect("register the workflow type");
    client
        .register_activity_type()
        .domain(DOMAIN)
        .name("work")
        .version("1")
        .default_task_list(task_list(WORKERS))
        .default_task_schedule_to_close_timeout("600")
        .default_task_schedule_to_start_timeout("600")
        .default_task_start_to_close_timeout("60")
        .default_task_heartbeat_timeout("NONE")
        .send()
        .await
        .expect("register the activity type");
}

/// The decision for a decision task with `events`: schedule the activity first, complete the
/// workflow once it completed, nothing otherwise.
fn decide(
    workflow_id: &str,
    events: &[weft_tests::aws_sdk_swf::types::HistoryEvent],
) -> Option<Decision> {
    let kinds = || events.iter().map(|e| e.event_type().as_str());
    if kinds().any(|t| t == "ActivityTaskCompleted") {
        let attributes = CompleteWorkflowExecutionDecisionAttributes::builder()
            .result("done")
            .build();
        return Some(
            Decision::builder()
                .decision_type(DecisionType::CompleteWorkflowExecution)
                .complete_workflow_execution_decision_attributes(attributes)
                .build()
                .expect("decision"),
        );
    }
    if kinds().any(|t| t == "ActivityTaskScheduled") {
        return None;
    }
    let attributes = ScheduleActivityTaskDecisionAttributes::builder()
        .activity_id(workflow_id)
        .activity_type(
            ActivityType::builder()
                .name("work")
                .version("1")
                .build()
                .expect("activity type"),
        )
        .input(workflow_id)
        .build()
        .expect("attributes");
    Some(
        Decision::builder()
            .decision_type(DecisionType::ScheduleActivityTask)
            .schedule_activity_task_decision_attributes(attributes)
            .build()
            .expect("decision"),
    )
}

async fn decider(client: Client, shared: Arc<Shared>, total: usize) {
    while shared.completed.load(Ordering::SeqCst) < total {
        let task = client
            .poll_for_decision_task()
            .domain(DOMAIN)
            .task_list(task_list(DECIDERS))
            .send()
            .await
            .expect("poll for a decision task");
        if task.task_token().is_empty() {
            continue;
        }
        let workflow_id = task
            .workflow_execution()
            .expect("execution")
            .workflow_id()
            .to_owned();
        let decision = decide(&workflow_id, task.events());
        let schedules = decision
            .as_ref()
            .is_some_and(|d| d.decision_type() == &DecisionType::ScheduleActivityTask);
        let completes = decision
            .as_ref()
            .is_some_and(|d| d.decision_type() == &DecisionType::CompleteWorkflowExecution);
        let sent = Instant::now();
        client
            .respond_decision_task_completed()
            .task_token(task.task_token())
            .set_decisions(decision.map(|d| vec![d]))
            .send()
            .await
            .expect("respond to the decision task");
        if schedules {
            shared
                .scheduled
                .lock()
                .expect("lock")
                .insert(workflow_id, sent);
        }
        if completes {
            shared.completed.fetch_add(1, Ordering::SeqCst);
        }
    }
}

async fn worker(client: Client, shared: Arc<Shared>, total: usize) {
    while shared.completed.load(Ordering::SeqCst) < total {
        let task = client
            .poll_for_activity_task()
            .domain(DOMAIN)
            .task_list(task_list(WORKERS))
            .send()
            .await
            .expect("poll for an activity task");
        let received = Instant::now();
        if task.task_token().is_empty() {
            continue;
        }
        shared
            .received
            .lock()
            .expect("lock")
            .push((task.activity_id().to_owned(), received));
        client
            .respond_activity_task_completed()
            .task_token(task.task_token())
            .result("ok")
            .send()
            .await
            .expect("complete the activity");
    }
}

async fn run() {
    let total: usize = std::env::var("WEFT_BENCH_WORKFLOWS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(500);
    let dir = std::env::var_os("WEFT_BENCH_DIR");
    let server = TestServer::start_in(dir.as_deref(), |config| {
        config.poll_timeout = Duration::from_secs(1);
    })
    .await;
    let client = server.client();
    setup(&client).await;

    let shared = Arc::new(Shared::default());
    let began = Instant::now();
    let mut loops = Vec::new();
    for _ in 0..DECIDER_LOOPS {
        loops.push(tokio::spawn(decider(
            server.client(),
            shared.clone(),
            total,
        )));
    }
    for _ in 0..WORKER_LOOPS {
        loops.push(tokio::spawn(worker(server.client(), shared.clone(), total)));
    }
    let starters = 8;
    let starts: Vec<_> = (0..starters)
        .map(|s| {
            let client = server.client();
            tokio::spawn(async move {
                for n in (s..total).step_by(starters) {
                    client
                        .start_workflow_execution()
                        .domain(DOMAIN)
                        .workflow_id(format!("wf-{n}"))
                        .workflow_type(
                            WorkflowType::builder()
                                .name("order")
                                .version("1")
                                .build()
                                .expect("workflow type"),
                        )
                        .send()
                        .await
                        .expect("start a workflow");
                }
            })
        })
        .collect();
    for start in starts {
        start.await.expect("starter");
    }
    // A task lost by the server would leave its workflow open forever: give up after a while
    // and say so, rather than hang.
    let all_done = async {
        for task in &mut loops {
            task.await.expect("decider or worker");
        }
    };
    if tokio::time::timeout(Duration::from_secs(120 + total as u64 / 5), all_done)
        .await
        .is_err()
    {
        println!(
            "  gave up waiting: {} of {total} workflows completed",
            shared.completed.load(Ordering::SeqCst)
        );
        for task in &loops {
            task.abort();
        }
    }
    let elapsed = began.elapsed();
    let total = shared.completed.load(Ordering::SeqCst);

    // Milliseconds from sending the scheduling call to the poll's return.
    let scheduled = shared.scheduled.lock().expect("lock").clone();
    let mut handoffs: Vec<f64> = shared
        .received
        .lock()
        .expect("lock")
        .iter()
        .filter_map(|(id, received)| {
            let scheduled = *scheduled.get(id)?;
            Some(if *received >= scheduled {
                received.duration_since(scheduled).as_secs_f64() * 1e3
            } else {
                -(scheduled.duration_since(*received).as_secs_f64() * 1e3)
            })
        })
        .collect();
    handoffs.sort_unstable_by(f64::total_cmp);
    let pct = |p: usize| {
        handoffs
            .get((handoffs.len().max(1) - 1) * p / 100)
            .copied()
            .unwrap_or(f64::NAN)
    };
    let stats = server.writer_stats();
    println!(
        "{total} workflows of one activity, {DECIDER_LOOPS} decider and {WORKER_LOOPS} worker \
         loops over HTTP (aws-sdk-swf), every change durably committed"
    );
    println!(
        "  {:.0} workflows/s ({:.2} s), {:.1} requests per commit",
        total as f64 / elapsed.as_secs_f64(),
        elapsed.as_secs_f64(),
        stats.requests() as f64 / stats.commits().max(1) as f64,
    );
    println!(
        "  activity hand-off (scheduling call sent -> worker poll returned): \
         p50 {:.2} ms  p99 {:.2} ms  ({} samples)",
        pct(50),
        pct(99),
        handoffs.len()
    );
    server.stop().await;
}
