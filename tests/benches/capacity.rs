//! Capacity per node: what a second and a third Weft node add when each node has a CPU of its
//! own. On a machine whose cores the nodes, the database and the load generator share, a
//! second node can only add cost; here each node (a `weft serve` process, release build) runs
//! in a cgroup of its own whose CPU quota (`cpu.cfs_quota_us`) stands for a small machine,
//! while PostgreSQL and this process (the clients) are left unlimited.
//!
//! For 1, 2 and 3 nodes on a fresh schema each, in interleaved rounds: one-activity workflows
//! a second (8 decider and 8 worker loops over HTTP per node, each node's own), then starts
//! alone a second (8 starters per node), so that each node is offered what one node is; per
//! node, the CPU it used and the share of its quota's periods in which it was throttled; the
//! database's CPU per workflow; the round trips per workflow (each node's `/metrics`). The
//! nodes are the bottleneck when their quotas are throttled most of the time while the
//! database has CPU to spare.
//!
//! Needs root (cgroup v1's `cpu` controller at `/sys/fs/cgroup/cpu`) and PostgreSQL:
//! `WEFT_TEST_POSTGRES=postgres://USER@HOST:PORT/DB cargo bench -p weft-tests --bench
//! capacity`. `WEFT_BENCH_NODE_CPU` sets each node's quota in cores (default 0.12),
//! `WEFT_BENCH_WORKFLOWS` the workflows per run (default 500), `WEFT_BENCH_ROUNDS` the rounds
//! (default 3). It prints figures and asserts nothing about time.

#[allow(
    dead_code,
    reason = "this bench takes the registrations and the loops; the rest serves other benches"
)]
mod one_activity;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::config::timeout::TimeoutConfig;
use weft_tests::process::{Weft, binary, build_release};

/// Where cgroup v1's `cpu` controller is mounted.
const CGROUP_CPU: &str = "/sys/fs/cgroup/cpu";
/// The quota's period, in µs.
const PERIOD_US: u64 = 100_000;

/// Decider loops, worker loops and starters per node: enough to keep a node's quota busy.
const LOOPS_PER_NODE: usize = 8;

fn main() {
    weft_tests::bench::run(async {
        let Some(url) = weft_tests::test_postgres() else {
            println!("capacity: set WEFT_TEST_POSTGRES=postgres://USER@HOST:PORT/DB");
            return;
        };
        if !Path::new(CGROUP_CPU).join("cpu.cfs_quota_us").exists() {
            println!("capacity: needs cgroup v1's cpu controller at {CGROUP_CPU}, as root");
            return;
        }
        build_release();
        let cores: f64 = weft_tests::bench::setting("WEFT_BENCH_NODE_CPU", 0.12);
        let total = one_activity::workflows();
        let rounds: usize = weft_tests::bench::setting("WEFT_BENCH_ROUNDS", 3);
        println!(
            "each node limited to {cores} cores; {total} workflows and {total} starts a run; \
             {rounds} rounds"
        );
        let mut results: Vec<Vec<Run>> = vec![Vec::new(); 3];
        for round in 1..=rounds {
            for count in 1..=3 {
                let run = measure(&url, count, cores, total).await;
                println!("round {round}, {count} node(s): {}", run.line());
                results[count - 1].push(run);
            }
        }
        summary(&results, cores);
    });
}

/// One node's process, in a cgroup of its own.
struct Node {
    /// Declared before its group: dropped (killed, and waited for) first.
    weft: Weft,
    group: Group,
    /// Its CPU time and throttling when the run began.
    cpu: Duration,
    throttled: Throttled,
}

/// cgroup v1's `cpu.stat`: periods, periods throttled, time throttled.
#[derive(Clone, Copy, Default)]
struct Throttled {
    periods: u64,
    throttled: u64,
    throttled_ns: u64,
}

impl Throttled {
    fn read(group: &Path) -> Throttled {
        let stat = std::fs::read_to_string(group.join("cpu.stat")).unwrap_or_default();
        let field = |name: &str| {
            stat.lines()
                .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
                .unwrap_or(0)
        };
        Throttled {
            periods: field("nr_periods "),
            throttled: field("nr_throttled "),
            throttled_ns: field("throttled_time "),
        }
    }
}

impl Node {
    /// Starts node `index` on `store` and moves it into a cgroup limited to `cores`.
    fn start(dir: &Path, index: usize, store: &str, cores: f64) -> Node {
        let data = dir.join(format!("data-{index}"));
        let log = dir.join(format!("weft-{index}.log"));
        let weft = Weft::start_binary(&binary(), &data, &log, Some(store), &[], "warn");
        let group =
            Path::new(CGROUP_CPU).join(format!("weft-capacity-{}-{index}", std::process::id()));
        std::fs::create_dir_all(&group).expect("a cgroup");
        let write = |file: &str, value: String| {
            std::fs::write(group.join(file), value).unwrap_or_else(|e| panic!("{file}: {e}"))
        };
        write("cpu.cfs_period_us", PERIOD_US.to_string());
        write(
            "cpu.cfs_quota_us",
            ((cores * PERIOD_US as f64) as u64).to_string(),
        );
        write("cgroup.procs", weft.pid().to_string());
        Node {
            cpu: weft.cpu_time(),
            throttled: Throttled::read(&group),
            weft,
            group: Group(group),
        }
    }

    /// A client of the node.
    fn client(&self) -> Client {
        let timeouts = TimeoutConfig::builder()
            .read_timeout(Duration::from_secs(90))
            .build();
        weft_tests::client_at(&self.weft.endpoint(), timeouts)
    }

    /// Starts measuring from now.
    fn reset(&mut self) {
        self.cpu = self.weft.cpu_time();
        self.throttled = Throttled::read(&self.group.0);
    }

    /// Its CPU time, the share of its quota's periods it was throttled in, and how long it
    /// was throttled, since [`Node::reset`].
    fn used(&self) -> (Duration, f64, Duration) {
        let now = Throttled::read(&self.group.0);
        let periods = (now.periods - self.throttled.periods).max(1);
        let share = (now.throttled - self.throttled.throttled) as f64 / periods as f64;
        let time = Duration::from_nanos(now.throttled_ns - self.throttled.throttled_ns);
        (self.weft.cpu_time() - self.cpu, share, time)
    }

    /// A counter from the node's `/metrics`.
    async fn counter(&self, name: &str) -> f64 {
        let metrics = weft_tests::raw_http(&self.weft.addr, "GET", "/metrics", &[], b"").await;
        metrics
            .body
            .lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or(0.0)
    }
}

/// A cgroup, removed when dropped (once its process is gone).
struct Group(PathBuf);

impl Drop for Group {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// What one run of `count` nodes measured.
#[derive(Clone)]
struct Run {
    count: usize,
    workflows_per_s: f64,
    starts_per_s: f64,
    /// The nodes' CPU per workflow, in µs, summed over the nodes.
    node_cpu_us: f64,
    /// Each node's throttled share of its periods during the workflows.
    throttled: Vec<f64>,
    /// Each node's time throttled during the workflows, per second of them.
    throttled_time: Vec<f64>,
    /// Each node's CPU during the workflows, in cores.
    node_cores: Vec<f64>,
    database_cpu_us: f64,
    database_cores: f64,
    round_trips: f64,
    /// Each node's throttled share of its periods during the starts.
    starts_throttled: Vec<f64>,
    /// The database's CPU during the starts, in cores.
    starts_database_cores: f64,
}

impl Run {
    fn line(&self) -> String {
        let pct: Vec<String> = self
            .throttled
            .iter()
            .map(|t| format!("{:.0}%", t * 100.0))
            .collect();
        let cores: Vec<String> = self.node_cores.iter().map(|c| format!("{c:.2}")).collect();
        let waited: Vec<String> = self
            .throttled_time
            .iter()
            .map(|t| format!("{t:.2}"))
            .collect();
        let starts: Vec<String> = (self.starts_throttled.iter())
            .map(|t| format!("{:.0}%", t * 100.0))
            .collect();
        format!(
            "{:.0} workflows/s, {:.0} starts/s; node CPU {:.0} µs/workflow (cores {}, throttled \
             in {} of periods, for {} s a second); database {:.0} µs/workflow ({:.2} cores); \
             {:.1} round trips per workflow; starting, nodes throttled in {} of periods, \
             database {:.2} cores",
            self.workflows_per_s,
            self.starts_per_s,
            self.node_cpu_us,
            cores.join(", "),
            pct.join(", "),
            waited.join(", "),
            self.database_cpu_us,
            self.database_cores,
            self.round_trips,
            starts.join(", "),
            self.starts_database_cores,
        )
    }
}

/// Runs `total` one-activity workflows, then `total` starts, on `count` fresh nodes.
async fn measure(url: &str, count: usize, cores: f64, total: usize) -> Run {
    let store = weft_tests::fresh_schema(url).expose().to_owned();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut nodes: Vec<Node> = (0..count)
        .map(|i| Node::start(dir.path(), i, &store, cores))
        .collect();
    let clients: Vec<Client> = nodes.iter().map(Node::client).collect();
    one_activity::setup(&clients[0]).await;

    nodes.iter_mut().for_each(Node::reset);
    let round_trips = sum(&nodes, "weft_store_round_trips_total").await;
    let database = one_activity::database_cpu();
    let began = Instant::now();
    // Each node is offered the same load whatever their number (its own loops and starters),
    // so that a node's batches, and so its cost per workflow, stay what one node's are.
    let loops = LOOPS_PER_NODE * count;
    let starts = one_activity::start_named_by(&clients, loops, total, "wf");
    let driven = one_activity::drive_by(&clients, (loops, loops), total, starts).await;
    let elapsed = driven.finished.unwrap_or_else(Instant::now) - began;
    let database = one_activity::database_cpu().saturating_sub(database);
    let round_trips = sum(&nodes, "weft_store_round_trips_total").await - round_trips;
    let used: Vec<(Duration, f64, Duration)> = nodes.iter().map(Node::used).collect();

    nodes.iter_mut().for_each(Node::reset);
    let database_before = one_activity::database_cpu();
    let began = Instant::now();
    one_activity::start_named_by(&clients, loops, total, "start").await;
    let starting = began.elapsed().as_secs_f64();
    let starts_per_s = total as f64 / starting;
    let starts_throttled = nodes.iter().map(|n| n.used().1).collect();
    let starts_database_cores = one_activity::database_cpu()
        .saturating_sub(database_before)
        .as_secs_f64()
        / starting;

    let done = driven.completed.max(1) as f64;
    let seconds = elapsed.as_secs_f64();
    Run {
        count,
        workflows_per_s: driven.completed as f64 / seconds,
        starts_per_s,
        node_cpu_us: used.iter().map(|u| u.0.as_secs_f64()).sum::<f64>() * 1e6 / done,
        throttled: used.iter().map(|u| u.1).collect(),
        throttled_time: used.iter().map(|u| u.2.as_secs_f64() / seconds).collect(),
        node_cores: used.iter().map(|u| u.0.as_secs_f64() / seconds).collect(),
        database_cpu_us: database.as_secs_f64() * 1e6 / done,
        database_cores: database.as_secs_f64() / seconds,
        round_trips: round_trips / done,
        starts_throttled,
        starts_database_cores,
    }
}

/// A counter summed over the nodes.
async fn sum(nodes: &[Node], name: &str) -> f64 {
    let mut total = 0.0;
    for node in nodes {
        total += node.counter(name).await;
    }
    total
}

/// The medians of each count of nodes, and of their ratios to one node in the same round:
/// the machine's speed drifts between rounds, and a ratio within a round cancels the drift.
fn summary(results: &[Vec<Run>], cores: f64) {
    let median = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    println!("\nmedians, each node limited to {cores} cores:");
    println!(
        "| nodes | workflows/s | × one node | starts/s | × one node | node CPU per workflow | \
         database CPU per workflow | round trips per workflow |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for runs in results {
        let m = |f: fn(&Run) -> f64| median(runs.iter().map(f).collect());
        let ratio = |f: fn(&Run) -> f64| {
            let ratios = runs.iter().zip(&results[0]).map(|(n, one)| f(n) / f(one));
            median(ratios.collect())
        };
        println!(
            "| {} | {:.0} | {:.2} | {:.0} | {:.2} | {:.2} ms | {:.2} ms | {:.1} |",
            runs[0].count,
            m(|r| r.workflows_per_s),
            ratio(|r| r.workflows_per_s),
            m(|r| r.starts_per_s),
            ratio(|r| r.starts_per_s),
            m(|r| r.node_cpu_us) / 1000.0,
            m(|r| r.database_cpu_us) / 1000.0,
            m(|r| r.round_trips),
        );
    }
}
