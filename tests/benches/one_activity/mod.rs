//! N workflows of one activity each, against the real server in this process, as the
//! benchmarks run them (`workflows.rs`; `wasm.rs` for comparison): the registrations, the
//! starts, and external deciders and activity workers over HTTP, each loop with its own
//! aws-sdk-swf client. The decider schedules the activity on the first decision task and
//! completes the workflow once the activity completed. Every change is acknowledged only after a
//! durable commit.
//!
//! The hand-off latency is measured on the activity side: from the moment the
//! RespondDecisionTaskCompleted that schedules an activity is sent to the moment a worker's poll
//! returns that activity (matched by activityId): the scheduling request, its durable commit and
//! the delivery to a waiting poller.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use weft_host::{StoreUrl, WriterStats};
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{
    ActivityType, ChildPolicy, CompleteWorkflowExecutionDecisionAttributes, Decision, DecisionType,
    HistoryEvent, ScheduleActivityTaskDecisionAttributes, TaskList, WorkflowType,
};

pub(crate) const DOMAIN: &str = "bench";
/// The workflow type's default task list.
pub(crate) const DECIDERS: &str = "deciders";
/// The activity type's default task list.
pub(crate) const WORKERS: &str = "workers";
/// The activity type, `work`/`1`: what `tests/guests/one-activity-decider` schedules too.
const ACTIVITY: (&str, &str) = ("work", "1");
const DECIDER_LOOPS: usize = 8;
const WORKER_LOOPS: usize = 8;

/// Workflows to run: `WEFT_BENCH_WORKFLOWS`, 500 by default.
pub(crate) fn workflows() -> usize {
    weft_tests::bench::setting("WEFT_BENCH_WORKFLOWS", 500)
}

/// A server with 1-second long polls, its state in `store` (a PostgreSQL schema other nodes
/// may share) or else in redb on a fresh data directory under `WEFT_BENCH_DIR` (the system's
/// temporary directory if unset), which picks the disk.
pub(crate) async fn start_node(store: Option<StoreUrl>) -> TestServer {
    start_node_with(store, false).await
}

/// [`start_node`], with its state in memory only if `ephemeral` (`weft serve --ephemeral`).
pub(crate) async fn start_node_with(store: Option<StoreUrl>, ephemeral: bool) -> TestServer {
    let dir = std::env::var_os("WEFT_BENCH_DIR");
    TestServer::start_in(dir.as_deref(), move |config| {
        config.poll_timeout = Duration::from_secs(1);
        config.store = store.clone();
        config.ephemeral = ephemeral;
    })
    .await
}

pub(crate) fn task_list(name: &str) -> TaskList {
    TaskList::builder().name(name).build().expect("task list")
}

/// The workflow type [`setup`] registers, `one-activity`/`1`.
pub(crate) fn workflow_type() -> WorkflowType {
    WorkflowType::builder()
        .name("one-activity")
        .version("1")
        .build()
        .expect("workflow type")
}

/// Registers the domain, the workflow type (on [`DECIDERS`]) and the activity type (on
/// [`WORKERS`]).
pub(crate) async fn setup(client: &Client) {
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
        .name("one-activity")
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
        .name(ACTIVITY.0)
        .version(ACTIVITY.1)
        .default_task_list(task_list(WORKERS))
        .default_task_schedule_to_close_timeout("600")
        .default_task_schedule_to_start_timeout("600")
        .default_task_start_to_close_timeout("60")
        .default_task_heartbeat_timeout("NONE")
        .send()
        .await
        .expect("register the activity type");
}

/// Starts `total` workflows `wf-0`, `wf-1`... from 8 clients at once, spread across `nodes`,
/// each with its workflow id as input.
pub(crate) async fn start_workflows(nodes: &[TestServer], total: usize) {
    start_named(nodes, total, "wf").await;
}

/// Starts `total` workflows `{prefix}-0`, `{prefix}-1`... as [`start_workflows`] does.
pub(crate) async fn start_named(nodes: &[TestServer], total: usize, prefix: &str) {
    let clients: Vec<Client> = nodes.iter().map(TestServer::client).collect();
    start_named_with(&clients, total, prefix).await;
}

/// [`start_named`] through `clients` (of several nodes, say), round the list.
pub(crate) async fn start_named_with(clients: &[Client], total: usize, prefix: &str) {
    start_named_by(clients, 8, total, prefix).await
}

/// [`start_named_with`] by `starters` starters at once.
pub(crate) async fn start_named_by(
    clients: &[Client],
    starters: usize,
    total: usize,
    prefix: &str,
) {
    let starts: Vec<_> = (0..starters)
        .map(|s| {
            let client = clients[s % clients.len()].clone();
            let prefix = prefix.to_owned();
            tokio::spawn(async move {
                for n in (s..total).step_by(starters) {
                    let id = format!("{prefix}-{n}");
                    client
                        .start_workflow_execution()
                        .domain(DOMAIN)
                        .workflow_id(&id)
                        .workflow_type(workflow_type())
                        .input(id)
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
}

/// Measures a run from when it was made: wall time, the process's CPU time, and the writers'
/// requests, commits and database round trips, summed over the nodes.
pub(crate) struct Meter {
    began: Instant,
    cpu: Duration,
    /// The database server's CPU time (its processes on this machine).
    database_cpu: Duration,
    stats: Vec<WriterStats>,
    /// Requests, commits and round trips when the run began.
    counts: [u64; 3],
}

/// What a run of workflows achieved.
pub(crate) struct Figures {
    /// Workflows completed.
    pub(crate) completed: usize,
    /// From the first start to the last completion.
    pub(crate) elapsed: Duration,
    /// CPU time of the whole process (server, guests or external loops, starters).
    pub(crate) cpu: Duration,
    /// CPU time of the PostgreSQL server's processes on this machine (zero on redb).
    pub(crate) database_cpu: Duration,
    /// SWF requests the clients made (set by the caller that counts them).
    pub(crate) requests: usize,
    /// Writer requests per durable commit.
    pub(crate) requests_per_commit: f64,
    /// Round trips to the database per completed workflow (zero on redb).
    pub(crate) round_trips_per_workflow: f64,
}

impl Meter {
    pub(crate) fn start(nodes: &[TestServer]) -> Meter {
        let stats: Vec<WriterStats> = nodes.iter().map(|n| n.writer_stats().clone()).collect();
        Meter {
            began: Instant::now(),
            cpu: cpu_time(),
            database_cpu: database_cpu(),
            counts: counts(&stats),
            stats,
        }
    }

    /// The figures of a run that completed `completed` workflows and ended at `end`.
    pub(crate) fn figures(&self, completed: usize, end: Instant) -> Figures {
        let [requests, commits, round_trips] = counts(&self.stats);
        let commits = (commits - self.counts[1]).max(1);
        Figures {
            completed,
            elapsed: end - self.began,
            cpu: cpu_time() - self.cpu,
            database_cpu: database_cpu().saturating_sub(self.database_cpu),
            requests: 0,
            requests_per_commit: (requests - self.counts[0]) as f64 / commits as f64,
            round_trips_per_workflow: (round_trips - self.counts[2]) as f64
                / completed.max(1) as f64,
        }
    }
}

/// The CPU time of the PostgreSQL server's processes on this machine so far (zero if none):
/// the database's share of a run, when it runs here.
pub(crate) fn database_cpu() -> Duration {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Duration::ZERO;
    };
    let ticks: u64 = entries
        .flatten()
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter(|stat| stat.contains("(postgres)"))
        .map(|stat| ticks(&stat))
        .sum();
    Duration::from_millis(ticks * 10)
}

/// User and system clock ticks in a `/proc/PID/stat` line.
fn ticks(stat: &str) -> u64 {
    // After the command name in parentheses: state, ppid, ... utime (14th), stime (15th).
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
    [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum()
}

/// Requests, commits and round trips so far, over all of `stats`.
fn counts(stats: &[WriterStats]) -> [u64; 3] {
    stats.iter().fold([0; 3], |[r, c, t], s| {
        [r + s.requests(), c + s.commits(), t + s.round_trips()]
    })
}

impl Figures {
    pub(crate) fn per_second(&self) -> f64 {
        self.completed as f64 / self.elapsed.as_secs_f64()
    }

    /// Microseconds of CPU per completed workflow.
    pub(crate) fn cpu_per_workflow(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e6 / self.completed.max(1) as f64
    }

    /// Prints what the run cost the database, if it ran on one: round trips per workflow and
    /// per request, and the database server's CPU per workflow.
    pub(crate) fn print_database(&self) {
        if self.round_trips_per_workflow == 0.0 {
            return;
        }
        let per_request =
            self.round_trips_per_workflow * self.completed as f64 / self.requests.max(1) as f64;
        println!(
            "  {:.1} database round trips per workflow, {:.2} per request ({} requests); \
             {:.0} µs of database CPU per workflow",
            self.round_trips_per_workflow,
            per_request,
            self.requests,
            self.database_cpu.as_secs_f64() * 1e6 / self.completed.max(1) as f64,
        );
    }
}

/// The CPU time this process has used, all threads (user and system), from `/proc/self/stat`
/// in clock ticks of 10 ms (Linux's `USER_HZ`); zero where there is no `/proc`.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    Duration::from_millis(ticks(&stat) * 10)
}

/// How long to wait for `total` workflows before giving up: a task lost by the server would
/// leave its workflow open forever.
pub(crate) fn patience(total: usize) -> Duration {
    Duration::from_secs(120 + total as u64 / 5)
}

/// What the deciders and workers share: when each activity was scheduled, when it reached a
/// worker, and how many workflows are done.
#[derive(Default)]
struct Shared {
    scheduled: Mutex<HashMap<String, Instant>>,
    /// When a worker's poll returned each activity.
    received: Mutex<Vec<(String, Instant)>>,
    completed: AtomicUsize,
    /// When the last workflow completed: the end of the run, before the loops' last long polls.
    finished: Mutex<Option<Instant>>,
    /// SWF requests the loops made, empty polls included.
    requests: AtomicUsize,
}

/// The figures of a run with external deciders and workers.
pub(crate) struct HttpRun {
    pub(crate) figures: Figures,
    /// Milliseconds from sending the scheduling call to the worker's poll returning, sorted.
    handoffs: Vec<f64>,
}

/// Runs `total` workflows on `nodes` (set up with [`setup`]; several share one database) with
/// external deciders and workers, spread across the nodes.
pub(crate) async fn run_http(nodes: &[TestServer], total: usize) -> HttpRun {
    let meter = Meter::start(nodes);
    let clients: Vec<Client> = nodes.iter().map(TestServer::client).collect();
    let driven = drive(&clients, total, start_workflows(nodes, total)).await;
    let mut figures = meter.figures(
        driven.completed,
        driven.finished.unwrap_or_else(Instant::now),
    );
    figures.requests = total + driven.requests;
    HttpRun {
        figures,
        handoffs: driven.handoffs,
    }
}

/// What [`drive`] saw.
pub(crate) struct Driven {
    /// Workflows completed.
    pub(crate) completed: usize,
    /// When the last one completed, if they all did.
    pub(crate) finished: Option<Instant>,
    /// SWF requests the loops made, empty polls included (starts not).
    pub(crate) requests: usize,
    /// Milliseconds from sending the scheduling call to the worker's poll returning, sorted.
    pub(crate) handoffs: Vec<f64>,
}

/// Runs `total` workflows, which `starts` starts, to completion with external deciders and
/// workers, each loop on the next of `clients` (of several nodes, say) round the list.
pub(crate) async fn drive(
    clients: &[Client],
    total: usize,
    starts: impl std::future::Future<Output = ()>,
) -> Driven {
    drive_by(clients, (DECIDER_LOOPS, WORKER_LOOPS), total, starts).await
}

/// [`drive`] with `(deciders, workers)` loops.
pub(crate) async fn drive_by(
    clients: &[Client],
    (deciders, workers): (usize, usize),
    total: usize,
    starts: impl std::future::Future<Output = ()>,
) -> Driven {
    let shared = Arc::new(Shared::default());
    let client = |i: usize| clients[i % clients.len()].clone();
    let mut loops = Vec::new();
    for i in 0..deciders {
        loops.push(tokio::spawn(decider(client(i), shared.clone(), total)));
    }
    for i in 0..workers {
        loops.push(tokio::spawn(worker(client(i), shared.clone(), total)));
    }
    starts.await;
    let all_done = async {
        for task in &mut loops {
            task.await.expect("decider or worker");
        }
    };
    if tokio::time::timeout(patience(total), all_done)
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
    Driven {
        completed: shared.completed.load(Ordering::SeqCst),
        finished: *shared.finished.lock().expect("lock"),
        requests: shared.requests.load(Ordering::SeqCst),
        handoffs,
    }
}

impl HttpRun {
    /// Prints the figures: workflows per second, requests per commit, CPU per workflow, the
    /// hand-off latency.
    pub(crate) fn print(&self) {
        self.print_kept("every change durably committed");
    }

    /// [`HttpRun::print`], saying how the state was kept.
    pub(crate) fn print_kept(&self, kept: &str) {
        let pct = |p: usize| {
            self.handoffs
                .get((self.handoffs.len().max(1) - 1) * p / 100)
                .copied()
                .unwrap_or(f64::NAN)
        };
        let f = &self.figures;
        println!(
            "{} workflows of one activity, {DECIDER_LOOPS} decider and {WORKER_LOOPS} worker \
             loops over HTTP (aws-sdk-swf), {kept}",
            f.completed
        );
        println!(
            "  {:.0} workflows/s ({:.2} s), {:.1} requests per commit, {:.0} µs of CPU per \
             workflow",
            f.per_second(),
            f.elapsed.as_secs_f64(),
            f.requests_per_commit,
            f.cpu_per_workflow(),
        );
        f.print_database();
        println!(
            "  activity hand-off (scheduling call sent -> worker poll returned): \
             p50 {:.2} ms  p99 {:.2} ms  ({} samples)",
            pct(50),
            pct(99),
            self.handoffs.len()
        );
    }
}

/// The decision for a decision task with `events`: schedule the activity (on the task list
/// `workers`) first, complete the workflow once it completed, nothing otherwise.
pub(crate) fn decide(
    workflow_id: &str,
    events: &[HistoryEvent],
    workers: &str,
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
                .name(ACTIVITY.0)
                .version(ACTIVITY.1)
                .build()
                .expect("activity type"),
        )
        .input(workflow_id)
        .task_list(task_list(workers))
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
        shared.requests.fetch_add(1, Ordering::Relaxed);
        if task.task_token().is_empty() {
            continue;
        }
        let workflow_id = task
            .workflow_execution()
            .expect("execution")
            .workflow_id()
            .to_owned();
        let decision = decide(&workflow_id, task.events(), WORKERS);
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
        shared.requests.fetch_add(1, Ordering::Relaxed);
        if schedules {
            shared
                .scheduled
                .lock()
                .expect("lock")
                .insert(workflow_id, sent);
        }
        if completes && shared.completed.fetch_add(1, Ordering::SeqCst) + 1 == total {
            *shared.finished.lock().expect("lock") = Some(Instant::now());
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
        shared.requests.fetch_add(1, Ordering::Relaxed);
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
        shared.requests.fetch_add(1, Ordering::Relaxed);
    }
}
