//! What an archive that takes no writes costs the real `weft serve` (release build, redb):
//! closed runs wait for it to write them before their purge, and the server should spend
//! next to nothing on them. Its CPU and the lines it logs per second, over a window after
//! every run's retention ended, with the archive's folder unwritable.
//!
//! `cargo bench -p weft-tests --bench archive`. `WEFT_BENCH_RUNS` sets the closed runs
//! waiting (default 300), `WEFT_BENCH_WINDOW_SECS` the window (default 10).
//! `WEFT_BENCH_BINARY` runs another `weft` (an earlier build) instead.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use weft_tests::aws_sdk_swf::config::timeout::TimeoutConfig;
use weft_tests::aws_sdk_swf::types::{ChildPolicy, TaskList, WorkflowType};
use weft_tests::process::Weft;

fn main() {
    if std::env::var_os("WEFT_BENCH_BINARY").is_none() {
        weft_tests::process::build_release();
    }
    weft_tests::bench::run(run());
}

async fn run() {
    let runs: usize = weft_tests::bench::setting("WEFT_BENCH_RUNS", 300);
    let window = Duration::from_secs(weft_tests::bench::setting("WEFT_BENCH_WINDOW_SECS", 10));
    let dir = tempfile::tempdir().expect("temporary directory");
    let (data, log) = (dir.path().join("data"), dir.path().join("weft.log"));
    let archive: PathBuf = dir.path().join("archive");
    std::fs::create_dir_all(&archive).expect("the archive folder");
    // The account's folder a file: nothing can be written under it, even by root.
    std::fs::write(archive.join("000000000000"), b"not a folder").expect("the blocker");
    let weft = {
        let (log, archive) = (log.clone(), archive.clone());
        tokio::task::spawn_blocking(move || {
            let archive = archive.to_str().expect("a UTF-8 path").to_owned();
            let args = ["--archive", &archive, "--retain-closed-for", "1"];
            Weft::start_with(&data, &log, None, &args, "info")
        })
        .await
        .expect("weft starts")
    };
    let c = weft_tests::client_at(&weft.endpoint(), TimeoutConfig::disabled());
    c.register_domain()
        .name("d")
        .workflow_execution_retention_period_in_days("1")
        .send()
        .await
        .expect("domain");
    c.register_workflow_type()
        .domain("d")
        .name("w")
        .version("1")
        .default_task_list(TaskList::builder().name("l").build().unwrap())
        .default_execution_start_to_close_timeout("3600")
        .default_task_start_to_close_timeout("60")
        .default_child_policy(ChildPolicy::Terminate)
        .send()
        .await
        .expect("type");
    let ty = WorkflowType::builder()
        .name("w")
        .version("1")
        .build()
        .unwrap();
    for n in 0..runs {
        let id = format!("w{n}");
        (c.start_workflow_execution().domain("d").workflow_id(&id))
            .workflow_type(ty.clone())
            .send()
            .await
            .expect("started");
        (c.terminate_workflow_execution()
            .domain("d")
            .workflow_id(&id))
        .send()
        .await
        .expect("terminated");
    }
    // Every run's retention over, and the archive's first failures behind.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let lines = || std::fs::read_to_string(&log).map_or(0, |text| text.lines().count());
    let (cpu, logged, began) = (weft.cpu_time(), lines(), Instant::now());
    tokio::time::sleep(window).await;
    let (cpu, logged) = (weft.cpu_time() - cpu, lines() - logged);
    let secs = began.elapsed().as_secs_f64();
    println!(
        "archive down, {runs} runs waiting: {:.1} % of a core, {:.1} log lines/s over {secs:.0} s",
        100.0 * cpu.as_secs_f64() / secs,
        logged as f64 / secs
    );
}
