//! What imports cost the real `weft serve` (release build, redb): several runs of a large
//! history sent at once, with the server's peak resident set above its idle one, its CPU time
//! and the wall time, and how each import was answered.
//!
//! `cargo bench -p weft-tests --bench imports`. `WEFT_BENCH_IMPORT_MIB` sets each import's
//! size (default 60, under the default 64 MiB limit), `WEFT_BENCH_AT_ONCE` how many are sent
//! at once (default 4). `WEFT_BENCH_BINARY` runs another `weft` (an earlier build) instead.

use std::path::PathBuf;
use std::time::Instant;

use weft_tests::imports::{import_body, signalled_history};
use weft_tests::process::Weft;
use weft_tests::raw_http;

/// Each signal's input: under SWF's 32,768 characters.
const INPUT: usize = 30_000;

fn main() {
    if std::env::var_os("WEFT_BENCH_BINARY").is_none() {
        weft_tests::process::build_release();
    }
    weft_tests::bench::run(run());
}

async fn run() {
    let mib: usize = weft_tests::bench::setting("WEFT_BENCH_IMPORT_MIB", 60);
    let at_once: usize = weft_tests::bench::setting("WEFT_BENCH_AT_ONCE", 4);
    let dir = tempfile::tempdir().expect("temporary directory");
    let (data, log): (PathBuf, PathBuf) = (dir.path().join("data"), dir.path().join("weft.log"));
    let weft = tokio::task::spawn_blocking(move || Weft::start(&data, &log, None))
        .await
        .expect("weft starts");
    let register = r#"{"name": "d", "workflowExecutionRetentionPeriodInDays": "1"}"#;
    let headers = [
        ("Content-Type", "application/x-amz-json-1.0"),
        ("X-Amz-Target", "SimpleWorkflowService.RegisterDomain"),
    ];
    let registered = raw_http(&weft.addr, "POST", "/", &headers, register.as_bytes()).await;
    assert_eq!(registered.status, 200, "{}", registered.body);

    let signals = (mib << 20) / (INPUT + 150);
    let input = "x".repeat(INPUT);
    let bodies: Vec<Vec<u8>> = (0..at_once)
        .map(|n| import_body(&format!("big-{n}"), "r", signalled_history(signals, &input)))
        .collect();
    let size = bodies[0].len();
    let (idle, cpu) = (weft.resident_bytes(), weft.cpu_time());
    let began = Instant::now();
    let json = [("Content-Type", "application/json")];
    let sends = (bodies.iter())
        .map(|body| raw_http(&weft.addr, "POST", "/v1/domains/d/imports", &json, body));
    let answers = futures_util::future::join_all(sends).await;
    let elapsed = began.elapsed();
    let statuses: Vec<String> = (answers.iter())
        .map(|a| match a.status {
            200 => "200".to_owned(),
            status => format!("{status} ({})", a.body.chars().take(80).collect::<String>()),
        })
        .collect();
    let peak = weft.peak_resident_bytes().saturating_sub(idle);
    println!(
        "imports: {at_once} at once of {:.1} MiB ({} events each): answered {}",
        size as f64 / f64::from(1 << 20),
        signals + 3,
        statuses.join(", ")
    );
    println!(
        "imports: {:.1} s; server CPU {:.1} s; peak resident set {:.0} MiB above idle ({:.0} MiB)",
        elapsed.as_secs_f64(),
        (weft.cpu_time() - cpu).as_secs_f64(),
        peak as f64 / f64::from(1 << 20),
        idle as f64 / f64::from(1 << 20),
    );
}
