//! What the real `weft serve` (release build, redb) holds in memory: its resident set from
//! `/proc` when it has just started, after many runs are started and left open, while many long
//! polls wait, and once their connections have closed. The target is that the resident set
//! stays within the start's plus the configured store cache (`--store-cache`) plus 10 MiB.
//!
//! `cargo bench -p weft-tests --bench memory`. `WEFT_BENCH_RUNS` sets the open runs (default
//! 20,000), `WEFT_BENCH_POLLS` the waiting polls (default 2,000), `WEFT_BENCH_CACHE_MIB` the
//! store cache (default 64, weft's own default).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;
use weft_tests::aws_sdk_swf::config::timeout::TimeoutConfig;
use weft_tests::aws_sdk_swf::types::{TaskList, WorkflowType};
use weft_tests::polls;
use weft_tests::process::Weft;

/// Starts in flight at once.
const CONCURRENCY: usize = 32;
/// Polls per task list: SWF's limit per list stays out of the way.
const POLLS_PER_LIST: usize = 100;
/// How long the server is left alone before each reading, so what it frees is given back
/// (it looks every 5 s: `api/edge/trim.rs`).
const SETTLE: Duration = Duration::from_secs(6);

fn main() {
    weft_tests::process::build_release();
    weft_tests::bench::run(run());
}

async fn run() {
    let (runs, polls) = (
        weft_tests::bench::setting("WEFT_BENCH_RUNS", 20_000),
        weft_tests::bench::setting("WEFT_BENCH_POLLS", 2_000),
    );
    let cache_mib = weft_tests::bench::setting("WEFT_BENCH_CACHE_MIB", 64);
    let dir = tempfile::tempdir().expect("temporary directory");
    let (data, log): (PathBuf, PathBuf) = (dir.path().join("data"), dir.path().join("weft.log"));
    // The open tenant's long polls, and one address's connections, above the polls.
    let config = dir.path().join("weft.toml");
    let limits = format!("[limits]\nmax_long_polls = {}\n", polls + 1);
    std::fs::write(&config, limits).expect("weft.toml written");
    let weft = tokio::task::spawn_blocking(move || {
        let (cache, per_address) = (cache_mib.to_string(), (polls + 64).to_string());
        let args = [
            "--poll-timeout",
            "60",
            "--store-cache",
            &cache,
            "--max-connections-per-address",
            &per_address,
            "--config",
            config.to_str().expect("a UTF-8 path"),
        ];
        Weft::start_with(&data, &log, None, &args, "warn")
    })
    .await
    .expect("weft starts");
    let c = weft_tests::client_at(&weft.endpoint(), TimeoutConfig::disabled());
    c.register_domain()
        .name("mem")
        .workflow_execution_retention_period_in_days("1")
        .send()
        .await
        .expect("domain");
    c.register_workflow_type()
        .domain("mem")
        .name("wf")
        .version("1")
        .default_task_list(TaskList::builder().name("deciders").build().unwrap())
        .default_task_start_to_close_timeout("60")
        .default_execution_start_to_close_timeout("86400")
        .default_child_policy("TERMINATE".into())
        .send()
        .await
        .expect("workflow type");

    let started = resident(&weft).await;
    println!(
        "memory: redb, store cache {cache_mib} MiB; target: at most {} MiB (start + cache + 10)",
        (started >> 20) + cache_mib + 10
    );
    println!(
        "  started                          {:>7} KiB",
        started >> 10
    );

    let began = Instant::now();
    let mut starts = JoinSet::new();
    for worker in 0..CONCURRENCY as u64 {
        let c = c.clone();
        starts.spawn(async move {
            let ty = WorkflowType::builder()
                .name("wf")
                .version("1")
                .build()
                .unwrap();
            for i in (worker..runs).step_by(CONCURRENCY) {
                c.start_workflow_execution()
                    .domain("mem")
                    .workflow_id(format!("w{i}"))
                    .workflow_type(ty.clone())
                    .input("x".repeat(200))
                    .send()
                    .await
                    .expect("started");
            }
        });
    }
    while starts.join_next().await.is_some() {}
    let seconds = began.elapsed().as_secs_f64();
    let opened = resident(&weft).await;
    let per_run = opened.saturating_sub(started) as f64 / runs as f64;
    println!(
        "  {runs} runs open               {:>7} KiB  ({per_run:.0} B per run; started {:.0}/s)",
        opened >> 10,
        runs as f64 / seconds
    );

    let list = |i| format!("list-{}", i / POLLS_PER_LIST);
    let connections = polls::open_polls(&weft.addr, "mem", polls as usize, list).await;
    let waiting = resident(&weft).await;
    let per_poll = waiting.saturating_sub(opened) as f64 / polls as f64;
    println!(
        "  {polls} polls waiting           {:>7} KiB  ({per_poll:.0} B per poll)",
        waiting >> 10
    );
    drop(connections);
    polls::until_waiting(&weft.addr, "mem", 0).await;
    let closed = resident(&weft).await;
    println!(
        "  polls closed                     {:>7} KiB  ({:+} KiB kept)",
        closed >> 10,
        (closed as i64 - opened as i64) >> 10
    );
    let peak = opened.max(closed);
    let bound = started + (cache_mib << 20) + (10 << 20);
    println!(
        "  highest after load: {} MiB, {} the target of {} MiB",
        peak >> 20,
        if peak <= bound { "within" } else { "OVER" },
        bound >> 20
    );
}

/// The server's resident set once it has been left alone for [`SETTLE`].
async fn resident(weft: &Weft) -> u64 {
    tokio::time::sleep(SETTLE).await;
    weft.resident_bytes()
}
