//! simpleflow (botify-labs), and boto3 alone, as their users run them: `simpleflow decider.start` and
//! `worker.start`, which fork their pollers, unchanged, against the real `weft serve` over
//! HTTPS with its self-signed certificate trusted through `AWS_CA_BUNDLE` (issue 32). Over
//! plain HTTP the forked pollers share one kept-alive socket and read each other's answers;
//! over TLS each must open its own, as against AWS. Then the same under `--time-skipping`: a
//! week-long timer beside an activity whose worker never heartbeats, through simpleflow and
//! through a plain boto3 decider and worker (`tests/clients/week_boto3.py`).
//!
//! Runs when `WEFT_CLIENT_TESTS` is set; simpleflow comes from PyPI into the client tests'
//! venv (`tests/clients/requirements.txt`); the driver is `tests/clients/simpleflow_runs.py`.

use std::path::Path;

use serde_json::{Value, json};
use weft_tests::clients::{self, Output};
use weft_tests::process::Weft;

/// `weft serve --tls-self-signed` with 5 s long polls (botocore reads for at most 60 s, and
/// simpleflow cannot say otherwise) and `args`; the server, its endpoint and its CA's file.
async fn serve(args: &'static [&'static str]) -> (Weft, tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let (data, log) = (dir.path().join("data"), dir.path().join("weft.log"));
    let mut weft = tokio::task::spawn_blocking(move || {
        let mut all = vec!["--tls-self-signed", "--poll-timeout", "5"];
        all.extend_from_slice(args);
        Weft::start_with(&data, &log, None, &all, "warn")
    })
    .await
    .unwrap();
    let trust = weft.next_line();
    let ca = trust
        .split_once("AWS_CA_BUNDLE=")
        .expect(&trust)
        .1
        .to_owned();
    (weft, dir, ca)
}

/// The script `name` with `args` against `weft`, trusting `ca`, with `home` for its home
/// directory; what it printed, as JSON.
async fn python(weft: &Weft, ca: &str, home: &Path, name: &str, args: &[&str]) -> Value {
    let env = clients::pyenv().await;
    let mut python = env.script(name, args);
    clients::with_credentials(&mut python, "weft", "weft-secret");
    // simpleflow's users keep botocore's retries, which its forked pollers need once: each
    // one's first request goes out on the connection they inherited, which breaks.
    python.env_remove("AWS_MAX_ATTEMPTS");
    python
        .env("AWS_ENDPOINT_URL_SWF", weft.endpoint())
        .env("AWS_CA_BUNDLE", ca)
        // simpleflow reads ~/.swf before the environment.
        .env("HOME", home);
    let out: Output = clients::run(python).await;
    assert_eq!(out.code, Some(0), "{out:?}");
    serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

/// Asserts that `run` (as the scripts print it) completed after a week's timer and an hour's
/// heartbeat timeout, by its timestamps.
fn assert_week_passed(run: &Value) {
    assert_eq!(run["closeStatus"], "COMPLETED", "{run}");
    assert_eq!(run["timeoutType"], "HEARTBEAT", "{run}");
    let timer = run["timerSeconds"].as_f64().unwrap();
    assert!((604_800.0..604_900.0).contains(&timer), "{run}");
    let timeout = run["timeoutSeconds"].as_f64().unwrap();
    assert!((3600.0..3700.0).contains(&timeout), "{run}");
}

#[tokio::test]
async fn simpleflow_s_forking_decider_and_worker_complete_their_runs_over_https() {
    if !clients::enabled() {
        return;
    }
    let (weft, dir, ca) = serve(&[]).await;
    assert_eq!(weft.scheme, "https");
    let args = ["add", "sf", "2"];
    let runs = python(&weft, &ca, dir.path(), "simpleflow_runs.py", &args).await;
    assert_eq!(
        runs,
        json!([
            ["COMPLETED", "100"],
            ["COMPLETED", "101"],
            ["COMPLETED", "102"]
        ])
    );
}

#[tokio::test]
async fn a_week_passes_in_moments_under_time_skipping_through_simpleflow_and_boto3() {
    if !clients::enabled() {
        return;
    }
    let (weft, dir, ca) = serve(&["--time-skipping"]).await;
    let args = ["week", "sf", "1"];
    let run = python(&weft, &ca, dir.path(), "simpleflow_runs.py", &args).await;
    assert_week_passed(&run);
    let endpoint = weft.endpoint();
    let run = python(
        &weft,
        &ca,
        dir.path(),
        "week_boto3.py",
        &[&endpoint, "boto3"],
    )
    .await;
    assert_week_passed(&run);
}
