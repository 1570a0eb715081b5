//! A server's CPU per one-activity workflow: Weft (`weft serve`, durable and `--ephemeral`)
//! against fakecloud (a Rust AWS emulator that implements SWF, in its memory and persistent
//! storage modes), each a child process of its own driven by the same clients, in interleaved
//! rounds on a fresh server each.
//!
//! Four lanes, each an aws-sdk-swf client with task lists of its own, run their workflows one
//! after the other: start, poll the decision task, schedule the activity, poll it, complete it,
//! poll the decision task, complete the workflow. Every poll finds its task waiting (fakecloud
//! answers an empty poll at once, where Weft would hold it; a lane that polled before its task
//! was there would measure that difference, so the empty polls are counted and printed), and
//! the server's CPU is read from `/proc` before and after, so what it costs is the seven
//! requests of each workflow and nothing else. Neither checks signatures (Weft without tenants,
//! fakecloud by default).
//!
//! fakecloud is run from `WEFT_BENCH_FAKECLOUD` if set, else from `target/tools/bin/fakecloud`,
//! which the bench installs on first use (`cargo install fakecloud`: a long build of its own);
//! `WEFT_BENCH_FAKECLOUD=none` measures Weft alone. `WEFT_BENCH_WORKFLOWS` sets the workflows
//! per measurement (default 1000), `WEFT_BENCH_ROUNDS` the rounds (default 3).
//! `WEFT_BENCH_BASELINE=PATH` names an earlier `weft` build kept aside, measured in both modes
//! in the same interleaved rounds: a change's before-and-after figures, taken together so that
//! the machine's drift between runs does not pass for the change's effect.
//!
//! It prints figures and asserts nothing about time.
//!
//! `cargo bench -p weft-tests --bench server_cpu`.

#[allow(
    dead_code,
    reason = "this bench takes the registrations, the decisions and the settings; the rest \
              serves the other benches"
)]
mod one_activity;

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use one_activity::{DOMAIN, decide, task_list, workflow_type};
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::config::timeout::TimeoutConfig;
use weft_tests::process::{self, Spent, Weft};

/// The fakecloud release measured.
const FAKECLOUD_VERSION: &str = "0.51.0";
/// Clients running workflows at once, each on task lists of its own.
const LANES: usize = 4;
/// Workflows each server runs before it is measured: its connections made, its caches warm.
const WARM_UP: usize = 40;

/// The servers and storage modes measured.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    WeftDurable,
    WeftEphemeral,
    BaselineDurable,
    BaselineEphemeral,
    FakecloudMemory,
    FakecloudPersistent,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::WeftDurable => "Weft, durable (redb, fsync per commit)",
            Mode::WeftEphemeral => "Weft, --ephemeral (in memory)",
            Mode::BaselineDurable => "baseline Weft, durable",
            Mode::BaselineEphemeral => "baseline Weft, --ephemeral",
            Mode::FakecloudMemory => "fakecloud, memory",
            Mode::FakecloudPersistent => "fakecloud, persistent",
        }
    }
}

/// The other programs measured beside this build's `weft`.
#[derive(Clone, Default)]
struct Others {
    fakecloud: Option<PathBuf>,
    baseline: Option<PathBuf>,
}

/// A server under measurement, as a child process.
enum Server {
    Weft(Weft),
    Other(Child, String),
}

impl Server {
    fn start(mode: Mode, dir: &Path, others: &Others) -> Server {
        let (data, log) = (dir.join("data"), dir.join("server.log"));
        let weft = |binary: &Path, args: &[&str]| {
            Server::Weft(Weft::start_binary(binary, &data, &log, None, args, "warn"))
        };
        let baseline = || others.baseline.as_deref().expect("the baseline's path");
        match mode {
            Mode::WeftDurable => weft(&process::binary(), &[]),
            Mode::WeftEphemeral => weft(&process::binary(), &["--ephemeral"]),
            Mode::BaselineDurable => weft(baseline(), &[]),
            Mode::BaselineEphemeral => weft(baseline(), &["--ephemeral"]),
            Mode::FakecloudMemory | Mode::FakecloudPersistent => {
                let fakecloud = others.fakecloud.as_deref().expect("fakecloud's path");
                let persistent = (mode == Mode::FakecloudPersistent).then_some(&*data);
                start_fakecloud(fakecloud, persistent, &log)
            }
        }
    }

    fn endpoint(&self) -> String {
        match self {
            Server::Weft(weft) => weft.endpoint(),
            Server::Other(_, endpoint) => endpoint.clone(),
        }
    }

    fn spent(&self) -> Spent {
        match self {
            Server::Weft(weft) => weft.spent(),
            Server::Other(child, _) => process::spent_by(child.id()),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Server::Other(child, _) = self {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Starts fakecloud on a free local port, its state in memory or, with `persistent`, mirrored to
/// that directory, and waits until it accepts connections.
fn start_fakecloud(binary: &Path, persistent: Option<&Path>, log: &Path) -> Server {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|free| free.local_addr())
        .expect("a free port")
        .port();
    let mut command = Command::new(binary);
    command
        .args([
            "--addr",
            &format!("127.0.0.1:{port}"),
            "--log-level",
            "warn",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).expect("the log file"));
    if let Some(data) = persistent {
        command.args(["--storage-mode", "persistent", "--data-path"]);
        command.arg(data);
    }
    let child = command.spawn().expect("fakecloud starts");
    let began = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "fakecloud did not listen on {port} within a minute; its log:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Server::Other(child, format!("http://127.0.0.1:{port}"))
}

/// The fakecloud binary: `WEFT_BENCH_FAKECLOUD`, or the one in `target/tools`, installed there
/// first if missing; `None` if the variable says `none`.
fn fakecloud() -> Option<PathBuf> {
    match std::env::var_os("WEFT_BENCH_FAKECLOUD") {
        Some(none) if none == "none" => return None,
        Some(path) => return Some(PathBuf::from(path)),
        None => {}
    }
    // target/release/deps/server_cpu-HASH -> target
    let exe = std::env::current_exe().expect("the bench's path");
    let target = exe
        .ancestors()
        .nth(3)
        .expect("the bench lives in target/<profile>/deps");
    let root = target.join("tools");
    let binary = root.join("bin").join("fakecloud");
    if !binary.exists() {
        println!(
            "installing fakecloud {FAKECLOUD_VERSION} into {}",
            root.display()
        );
        let installed = process::cargo()
            .args([
                "install",
                "fakecloud",
                "--locked",
                "--version",
                FAKECLOUD_VERSION,
            ])
            .arg("--root")
            .arg(&root)
            .status()
            .expect("cargo runs");
        assert!(installed.success(), "fakecloud does not install");
    }
    Some(binary)
}

fn main() {
    process::build_release();
    let others = Others {
        fakecloud: fakecloud(),
        baseline: std::env::var_os("WEFT_BENCH_BASELINE").map(PathBuf::from),
    };
    weft_tests::bench::run(run(others));
}

async fn run(others: Others) {
    let total = one_activity::workflows();
    let rounds = weft_tests::bench::setting("WEFT_BENCH_ROUNDS", 3);
    let mut modes = vec![Mode::WeftDurable, Mode::WeftEphemeral];
    if others.baseline.is_some() {
        modes.extend([Mode::BaselineDurable, Mode::BaselineEphemeral]);
    }
    match others.fakecloud {
        Some(_) => modes.extend([Mode::FakecloudMemory, Mode::FakecloudPersistent]),
        None => println!("(WEFT_BENCH_FAKECLOUD=none: fakecloud is not measured)"),
    }
    println!(
        "Server CPU per one-activity workflow, {total} workflows per server over {LANES} \
         lanes, {rounds} rounds:"
    );
    let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); modes.len()];
    for round in 1..=rounds {
        for (i, &mode) in modes.iter().enumerate() {
            let figures = measure(mode, &others, total).await;
            let per_workflow = |d: Duration| d.as_secs_f64() * 1e6 / total as f64;
            println!(
                "  round {round}  {:<40} {:>6.0} µs of server CPU per workflow ({:.0} user, \
                 {:.0} system; {:.1} context switches)  {:>5.0} workflows/s  ({} empty polls)",
                mode.name(),
                figures.cpu_per_workflow,
                per_workflow(figures.spent.user),
                per_workflow(figures.spent.system),
                figures.spent.switches as f64 / total as f64,
                figures.per_second,
                figures.empty_polls,
            );
            cpu[i].push(figures.cpu_per_workflow);
        }
    }
    println!("Medians:");
    for (mode, figures) in modes.iter().zip(&mut cpu) {
        figures.sort_by(f64::total_cmp);
        let median = figures[figures.len() / 2];
        println!("  {:<40} {median:>6.0} µs per workflow", mode.name());
    }
}

/// What one server's measured run showed.
struct Figures {
    cpu_per_workflow: f64,
    spent: Spent,
    per_second: f64,
    empty_polls: usize,
}

/// Runs `total` workflows on a fresh server in `mode` after a warm-up, and what its process
/// spent on them.
async fn measure(mode: Mode, others: &Others, total: usize) -> Figures {
    let dir = tempfile::tempdir().expect("temporary directory");
    let (path, others) = (dir.path().to_owned(), others.clone());
    let server = tokio::task::spawn_blocking(move || Server::start(mode, &path, &others))
        .await
        .expect("the server starts");
    let client = weft_tests::client_at(&server.endpoint(), TimeoutConfig::disabled());
    one_activity::setup(&client).await;
    run_lanes(&client, "warm-up", WARM_UP).await;
    let (spent, began) = (server.spent(), Instant::now());
    let empty_polls = run_lanes(&client, "wf", total).await;
    let (spent, elapsed) = (server.spent() - spent, began.elapsed());
    let cpu = spent.user + spent.system;
    Figures {
        cpu_per_workflow: cpu.as_secs_f64() * 1e6 / total as f64,
        spent,
        per_second: total as f64 / elapsed.as_secs_f64(),
        empty_polls,
    }
}

/// Runs `total` workflows named `{prefix}-LANE-N` over [`LANES`] lanes; the empty polls.
async fn run_lanes(client: &Client, prefix: &str, total: usize) -> usize {
    let lanes: Vec<_> = (0..LANES)
        .map(|lane| {
            let (client, prefix) = (client.clone(), prefix.to_owned());
            let count = (lane..total).step_by(LANES).count();
            tokio::spawn(async move { run_lane(&client, &prefix, lane, count).await })
        })
        .collect();
    let mut empty = 0;
    for lane in lanes {
        empty += lane.await.expect("a lane");
    }
    empty
}

/// Runs `count` workflows one after the other on the lane's own task lists; the empty polls.
async fn run_lane(client: &Client, prefix: &str, lane: usize, count: usize) -> usize {
    let (deciders, workers) = (format!("deciders-{lane}"), format!("workers-{lane}"));
    let mut empty = 0;
    for n in 0..count {
        let id = format!("{prefix}-{lane}-{n}");
        client
            .start_workflow_execution()
            .domain(DOMAIN)
            .workflow_id(&id)
            .workflow_type(workflow_type())
            .task_list(task_list(&deciders))
            .input(&id)
            .send()
            .await
            .expect("start a workflow");
        // Schedule the activity; then, once it completed, complete the workflow.
        for _ in 0..2 {
            let task = loop {
                let task = client
                    .poll_for_decision_task()
                    .domain(DOMAIN)
                    .task_list(task_list(&deciders))
                    .send()
                    .await
                    .expect("poll for a decision task");
                match task.task_token().is_empty() {
                    true => empty += 1,
                    false => break task,
                }
            };
            client
                .respond_decision_task_completed()
                .task_token(task.task_token())
                .set_decisions(decide(&id, task.events(), &workers).map(|d| vec![d]))
                .send()
                .await
                .expect("respond to the decision task");
            if task
                .events()
                .iter()
                .any(|e| e.event_type().as_str() == "ActivityTaskCompleted")
            {
                break;
            }
            empty += complete_activity(client, &workers).await;
        }
    }
    empty
}

/// Polls `workers` until it hands out an activity task and completes it; the empty polls.
async fn complete_activity(client: &Client, workers: &str) -> usize {
    let mut empty = 0;
    loop {
        let task = client
            .poll_for_activity_task()
            .domain(DOMAIN)
            .task_list(task_list(workers))
            .send()
            .await
            .expect("poll for an activity task");
        if task.task_token().is_empty() {
            empty += 1;
            continue;
        }
        client
            .respond_activity_task_completed()
            .task_token(task.task_token())
            .result("ok")
            .send()
            .await
            .expect("complete the activity");
        return empty;
    }
}
