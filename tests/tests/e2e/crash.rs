//! Crash safety: the real `weft` binary is killed with SIGKILL several times while deciders,
//! activity workers, a starter and a signaller keep it busy, and restarted on the same data each
//! time. Afterwards every workflow must have completed, every acknowledged call must be in its
//! run's history, no task may have been handed out twice, every timer must have fired once, and
//! every history must pass `weft_host::check`.
//!
//! On redb one node runs. When the suite runs on PostgreSQL (`WEFT_TEST_POSTGRES`), three
//! nodes share a fresh schema: the clients are spread across them, each moving on to the next
//! node when its own does not answer (as behind a load balancer), and each kill takes a node
//! chosen at random while the others go on.
//!
//! Tasks handed out but lost in a crash come back through their start-to-close timeouts, which
//! are a few seconds here; every fourth workflow also loses a task on purpose, so that timeouts
//! armed before a crash fire after it. Half the kills come at any moment, half just after a
//! client starts sending a change to the node, when a commit or its answer is most likely in
//! flight. The kill times (and nodes) come from a seed printed at the start; set
//! `WEFT_CRASH_SEED` to replay them (the rest of the interleaving is up to the scheduler).
//!
//! The partition test runs the same workload and checks on three PostgreSQL nodes, each in a
//! network namespace of its own (`wiring.rs`; it needs root, and runs with the PostgreSQL
//! suite), with the clocks of two nodes 2 s ahead and 1 s behind, while twelve faults come one
//! after another on nodes chosen at random: the node cut off its database, cut off its
//! clients, cut off both (its link down), its link slow and dropping packets, or killed.
//! Clients retry what a node cut off its database answers (503) on the next node. The history
//! checker holds what matters most here: no run has two decision tasks started at once, no
//! timer fires twice though the node that armed it was cut off and another took over, and no
//! event is stamped before the one before it, whatever the clocks. With the binary's test
//! switch `WEFT_TEST_UNGUARDED_RUNS` set (no lock on runs, no retry of a second event of one
//! id), it fails: two nodes append the same event id to a history, and a client is answered an
//! internal failure.
//!
//! The binary is `target/<profile>/weft`, which `cargo test --workspace` builds with the
//! `test-switches` feature the partition test needs (the tests crate asks for it); after
//! changing the host, `cargo test -p weft-tests` alone does not build it, so build it first
//! (`cargo build`, at the top of the workspace).

mod actors;
mod ledger;
mod wiring;

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tempfile::TempDir;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::ChildPolicy;

use crate::common::register_domain;
use crate::flow::{D, DECIDERS, WORKERS, since_ever, task_list};
use actors::{ACTIVITY, Conn, Crew, Mishap, Nodes, WORKFLOW};
use ledger::Run;
use weft_tests::process::Weft;
use wiring::{Fault, Wiring};

/// Workflows started, one every [`START_PAUSE`].
const WORKFLOWS: usize = 40;
const START_PAUSE: Duration = Duration::from_millis(150);
const DECIDERS_RUNNING: usize = 3;
const WORKERS_RUNNING: usize = 6;
/// How many nodes share the database when the suite runs on PostgreSQL.
const PG_NODES: usize = 3;
/// How many times a node is killed.
const KILLS: usize = 8;
/// How many faults the partition test brings.
const FAULTS: usize = 12;
/// How long the server runs between a start and the next kill, in ms.
const UP_MS: (u64, u64) = (500, 1500);
/// How long after a client starts sending a change an aimed kill comes, at most, in µs.
const AIM_US: u64 = 8000;
/// How long it stays down, in ms.
const DOWN_MS: (u64, u64) = (0, 400);
/// The decision and activity start-to-close timeouts: how long a task lost in a crash waits.
const TASK_TIMEOUT: &str = "3";
/// The same in the partition test: longer than the nodes' clocks differ (a deadline fires by
/// the clock of the node that takes it, so up to 3 s early there).
const PARTITION_TASK_TIMEOUT: &str = "8";
/// How long the whole test may take before it gives up waiting for the workflows.
const LIMIT: Duration = Duration::from_secs(60);
/// How long the workflows have to close after the last fault, at least.
const SETTLE: Duration = Duration::from_secs(30);

/// A small xorshift generator: reproducible from its seed, good enough to pick moments.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> XorShift {
        // Zero is xorshift's one fixed point.
        XorShift(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn millis(&mut self, low: u64, high: u64) -> Duration {
        Duration::from_millis(low + self.below(high - low + 1))
    }
}

/// The seed: `WEFT_CRASH_SEED` if set, else the clock.
fn seed() -> u64 {
    if let Some(seed) = std::env::var("WEFT_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return seed;
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    now.as_nanos() as u64
}

/// The nodes under test and their state: redb in a data directory, or a PostgreSQL schema.
struct Cluster {
    dir: TempDir,
    store: Option<String>,
    /// The running nodes; `None` while one is down.
    nodes: Vec<Option<Weft>>,
    /// Publishes each node's endpoint when it starts.
    endpoints: Vec<watch::Sender<String>>,
    /// Each node's network in the partition test; none in the crash test.
    wiring: Vec<Wiring>,
}

impl Cluster {
    /// [`PG_NODES`] nodes on a fresh schema when the suite runs on PostgreSQL, else one on redb;
    /// with the endpoints the clients follow. `partitioned`, each node in a network of its own
    /// ([`Wiring`]; PostgreSQL only).
    async fn start(partitioned: bool) -> (Cluster, Nodes) {
        let store = weft_tests::test_postgres().map(|url| {
            let schema = weft_tests::fresh_schema(&url);
            schema.expose().to_owned()
        });
        let count = if store.is_some() { PG_NODES } else { 1 };
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut wiring = Vec::new();
        for node in (0..count).filter(|_| partitioned) {
            wiring.push(Wiring::new(node).await);
        }
        let mut cluster = Cluster {
            dir,
            store,
            nodes: (0..count).map(|_| None).collect(),
            endpoints: Vec::new(),
            wiring,
        };
        let mut receivers = Vec::new();
        for node in 0..count {
            let weft = cluster.launch(node).await;
            if let Some(wiring) = cluster.wiring.get(node) {
                wiring.check_skew(&weft).await;
            }
            let (publish, endpoint) = watch::channel(cluster.endpoint(node, &weft));
            cluster.nodes[node] = Some(weft);
            cluster.endpoints.push(publish);
            receivers.push(endpoint);
        }
        (cluster, receivers.into())
    }

    /// Where node `node`, just started as `weft`, is reached by its clients.
    fn endpoint(&self, node: usize, weft: &Weft) -> String {
        match self.wiring.get(node) {
            Some(wiring) => {
                wiring.serve(weft);
                wiring.endpoint()
            }
            None => weft.endpoint(),
        }
    }

    /// Node `node`'s data directory and log.
    fn paths(&self, node: usize) -> (PathBuf, PathBuf) {
        let dir = self.dir.path();
        (
            dir.join(format!("data-{node}")),
            dir.join(format!("weft-{node}.log")),
        )
    }

    /// Starts node `node` off the async threads.
    async fn launch(&self, node: usize) -> Weft {
        let ((data, log), store) = (self.paths(node), self.store.clone());
        let starting = match self.wiring.get(node) {
            Some(wiring) => {
                let store = store.expect("the partition test runs on PostgreSQL");
                tokio::task::spawn_blocking(wiring.launch(&data, &log, &store))
            }
            None => tokio::task::spawn_blocking(move || Weft::start(&data, &log, store.as_deref())),
        };
        tokio::time::timeout(Duration::from_secs(30), starting)
            .await
            .expect("weft starts within 30 s")
            .expect("weft starts")
    }

    /// Kills node `node` after `aim`, and waits until it is gone.
    async fn kill(&mut self, node: usize, aim: Duration) {
        let dying = self.nodes[node].take();
        // Off the async threads: the timer wheel is too coarse for the aim, and the kill waits
        // for the process to be gone.
        tokio::task::spawn_blocking(move || {
            std::thread::sleep(aim);
            drop(dying);
        })
        .await
        .expect("the kill");
    }

    /// Starts node `node` again and tells the clients where it is.
    async fn restart(&mut self, node: usize) {
        let weft = self.launch(node).await;
        self.endpoints[node].send_replace(self.endpoint(node, &weft));
        self.nodes[node] = Some(weft);
    }

    /// Kills a node now and then ([`KILLS`] times), half the kills aimed at a change on its way
    /// to the node, and starts it again.
    async fn kills(&mut self, crew: &Crew, rng: &mut XorShift, began: Instant) {
        let count = self.nodes.len();
        for kill in 1..=KILLS {
            tokio::time::sleep(rng.millis(UP_MS.0, UP_MS.1)).await;
            let node = rng.below(count as u64) as usize;
            // Every other kill is aimed at a change on its way to the node, being committed or
            // being answered; the others come at any moment.
            let aim = if kill % 2 == 0 {
                let sending = crew.sending[node].notified();
                let _ = tokio::time::timeout(Duration::from_secs(1), sending).await;
                Duration::from_micros(rng.below(AIM_US))
            } else {
                Duration::ZERO
            };
            self.kill(node, aim).await;
            let killed = began.elapsed();
            tokio::time::sleep(rng.millis(DOWN_MS.0, DOWN_MS.1)).await;
            self.restart(node).await;
            println!(
                "kill {kill} of node {node} at {killed:.1?}, back at {:.1?}",
                began.elapsed()
            );
        }
    }

    /// Brings [`FAULTS`] faults, one after another, each on a node at random.
    async fn storms(&mut self, rng: &mut XorShift, began: Instant) {
        let count = self.nodes.len();
        for n in 1..=FAULTS {
            tokio::time::sleep(rng.millis(UP_MS.0, UP_MS.1)).await;
            let node = rng.below(count as u64) as usize;
            let fault = Fault::draw(rng);
            let length = fault.length(rng);
            let at = began.elapsed();
            match fault {
                Fault::Kill => {
                    self.kill(node, Duration::ZERO).await;
                    tokio::time::sleep(length).await;
                    self.restart(node).await;
                }
                _ => {
                    fault.begin(&self.wiring[node]);
                    tokio::time::sleep(length).await;
                    fault.end(&self.wiring[node]);
                }
            }
            println!("fault {n}: {fault:?} of node {node} at {at:.1?} for {length:.1?}");
        }
    }

    /// A running node's address.
    fn addr(&self) -> &str {
        let mut running = self.nodes.iter().flatten();
        &running.next().expect("a node is running").addr
    }

    /// The errors and panics in the nodes' logs.
    /// In the partition test, a node cut off its database logs that it is unavailable: not
    /// counted.
    fn logged_errors(&self) -> Vec<String> {
        let logs = (0..self.nodes.len()).map(|node| self.paths(node).1);
        let text: String = logs
            .map(|log| std::fs::read_to_string(log).unwrap_or_default())
            .collect();
        let cut_off = |line: &str| {
            !self.wiring.is_empty()
                && (line.to_lowercase().contains("unavailable") || line.contains("r2d2"))
        };
        text.lines()
            .filter(|line| line.contains("ERROR") || line.contains("panicked"))
            .filter(|line| !cut_off(line))
            .map(|line| format!("weft logged: {line}"))
            .collect()
    }
}

/// Registers the domain and the types, with short task timeouts.
async fn register(c: &Client, task_timeout: &str) {
    register_domain(c, D).await;
    c.register_workflow_type()
        .domain(D)
        .name(WORKFLOW)
        .version("1")
        .default_task_list(task_list(DECIDERS))
        .default_execution_start_to_close_timeout("300")
        .default_task_start_to_close_timeout(task_timeout)
        .default_child_policy(ChildPolicy::Terminate)
        .send()
        .await
        .expect("register the workflow type");
    c.register_activity_type()
        .domain(D)
        .name(ACTIVITY)
        .version("1")
        .default_task_list(task_list(WORKERS))
        .default_task_schedule_to_close_timeout("NONE")
        .default_task_schedule_to_start_timeout("NONE")
        .default_task_start_to_close_timeout(task_timeout)
        .default_task_heartbeat_timeout("NONE")
        .send()
        .await
        .expect("register the activity type");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_work_survives_sigkill() {
    survives(false).await;
}

/// The partition test: three nodes on PostgreSQL, each in a network namespace of its own with
/// a slow, lossy link and a skewed clock, while its database link, its clients' link or its
/// whole link is cut, its link storms, or it is killed. Needs root (`ip netns`, `tc`); runs
/// with the PostgreSQL suite.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_work_survives_partitions_and_skewed_clocks() {
    if weft_tests::test_postgres().is_none() || !weft_tests::netns::Netns::available() {
        eprintln!("skipped: the partition test needs WEFT_TEST_POSTGRES and root");
        return;
    }
    survives(true).await;
}

/// Runs the workload through kills (and, `partitioned`, the partition test's faults) and
/// checks what the clients were told against what the nodes stored.
async fn survives(partitioned: bool) {
    let seed = seed();
    println!("crash test seed {seed} (replay the faults' times with WEFT_CRASH_SEED={seed})");
    let mut rng = XorShift::new(seed);
    let began = Instant::now();
    let (mut cluster, nodes) = Cluster::start(partitioned).await;
    let task_timeout = match partitioned {
        true => PARTITION_TASK_TIMEOUT,
        false => TASK_TIMEOUT,
    };
    register(&Conn::new(nodes.clone(), 0).client(), task_timeout).await;

    let crew = Crew::new(nodes.len());
    let ids: Vec<String> = (0..WORKFLOWS).map(|i| format!("wf-{i}")).collect();
    let actors = spawn_actors(&nodes, &crew, &ids, &mut rng);
    match partitioned {
        true => cluster.storms(&mut rng, began).await,
        false => cluster.kills(&crew, &mut rng, began).await,
    }

    let client = Conn::new(nodes.clone(), 0).client();
    // After the last fault, the tasks it lost come back through their timeouts.
    let deadline = (began + LIMIT).max(Instant::now() + SETTLE);
    let all_closed = wait_until_closed(&client, deadline).await;
    println!("all closed: {all_closed} at {:.1?}", began.elapsed());
    crew.stop.store(true, Ordering::Relaxed);
    for actor in actors {
        tokio::time::timeout(Duration::from_secs(15), actor)
            .await
            .expect("the actors stop")
            .expect("no actor panics");
    }

    let runs = runs(&client, cluster.addr()).await;
    let ledger = crew.ledger.lock();
    println!(
        "{} runs on {} nodes; acknowledged: {} starts, {} signals, {} activity completions, {} \
         decision completions; {} tasks handed out; {} calls retried then answered, {} of them \
         with a fault; {:.1?} in all",
        runs.len(),
        nodes.len(),
        ledger.starts.len(),
        ledger.signals.len(),
        ledger.completions.len(),
        ledger.decisions.len(),
        ledger.hand_offs(),
        ledger.retried.0 + ledger.retried.1,
        ledger.retried.1,
        began.elapsed()
    );
    let mut problems = ledger::verify(&ledger, &ids, &runs);
    problems.extend(mishaps_seen(&runs));
    problems.extend(cluster.logged_errors());
    if !problems.is_empty() {
        cluster.nodes.clear();
        let kept = cluster.dir.keep();
        panic!(
            "seed {seed}: {} problems (data and logs kept in {}):\n{}",
            problems.len(),
            kept.display(),
            problems.join("\n")
        );
    }
}

/// Starts the starter, the signaller, the deciders and the workers, each on the next node
/// round the nodes.
fn spawn_actors(
    nodes: &Nodes,
    crew: &Crew,
    ids: &[String],
    rng: &mut XorShift,
) -> Vec<JoinHandle<()>> {
    let mut next = 0;
    let mut conn = || {
        next += 1;
        Conn::new(nodes.clone(), next - 1)
    };
    let (ids, crew) = (ids.to_vec(), crew.clone());
    let mut actors = vec![
        tokio::spawn(actors::starter(
            conn(),
            crew.clone(),
            ids.clone(),
            START_PAUSE,
        )),
        tokio::spawn(actors::signaller(conn(), crew.clone(), ids, rng.next())),
    ];
    for i in 0..DECIDERS_RUNNING {
        let name = format!("decider-{i}");
        actors.push(tokio::spawn(actors::decider(conn(), crew.clone(), name)));
    }
    for i in 0..WORKERS_RUNNING {
        let (name, seed) = (format!("worker-{i}"), rng.next());
        actors.push(tokio::spawn(actors::worker(
            conn(),
            crew.clone(),
            name,
            seed,
        )));
    }
    actors
}

/// Whether the planned mishaps show in the histories: every lost decision and lost activity
/// timed out, crashes or not. Prints what the histories hold.
fn mishaps_seen(runs: &[Run]) -> Vec<String> {
    let count = |event_type: &str| {
        let events = runs.iter().flat_map(|r| &r.events);
        events.filter(|e| e["eventType"] == event_type).count()
    };
    let planned = |mishap| (0..WORKFLOWS).filter(|i| Mishap::of(*i) == mishap).count();
    let timed_out = [
        (
            "decision",
            count("DecisionTaskTimedOut"),
            planned(Mishap::LostDecision),
        ),
        (
            "activity",
            count("ActivityTaskTimedOut"),
            planned(Mishap::LostActivity),
        ),
    ];
    println!(
        "timed out: {} decision tasks, {} activity tasks; {} signals delivered",
        timed_out[0].1,
        timed_out[1].1,
        count("WorkflowExecutionSignaled"),
    );
    timed_out
        .into_iter()
        .filter(|(_, seen, planned)| seen < planned)
        .map(|(kind, seen, planned)| format!("{seen} {kind} tasks timed out, not {planned}"))
        .collect()
}

/// Waits until every workflow has closed, or `deadline`; whether they did.
async fn wait_until_closed(c: &Client, deadline: Instant) -> bool {
    while Instant::now() < deadline {
        let closed = c
            .count_closed_workflow_executions()
            .domain(D)
            .start_time_filter(since_ever())
            .send()
            .await;
        if closed.is_ok_and(|count| count.count() as usize >= WORKFLOWS) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    false
}

/// Every run in the domain, open or closed, with its history.
async fn runs(c: &Client, addr: &str) -> Vec<Run> {
    let closed = c
        .list_closed_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .into_paginator()
        .items()
        .send()
        .try_collect()
        .await
        .expect("list closed runs");
    let open = c
        .list_open_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .into_paginator()
        .items()
        .send()
        .try_collect()
        .await
        .expect("list open runs");
    let mut runs = Vec::new();
    for info in closed.into_iter().chain(open) {
        let Some(execution) = info.execution() else {
            continue;
        };
        let (workflow_id, run_id) = (execution.workflow_id(), execution.run_id());
        runs.push(Run {
            workflow_id: workflow_id.to_owned(),
            run_id: run_id.to_owned(),
            close_status: info.close_status().map(|s| s.as_str().to_owned()),
            events: weft_tests::history_json(addr, D, workflow_id, run_id).await,
        });
    }
    runs
}
