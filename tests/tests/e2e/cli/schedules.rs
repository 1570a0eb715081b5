//! `weft schedule`: a schedule made, shown, paused, triggered, backfilled, changed and removed
//! through the real binary, on a server whose clock the test moves.

use std::time::Duration;

use weft_tests::TestServer;

use super::weft;
use crate::common::register_domain;
use crate::flow::{D, register_workflow};

/// 2026-01-01T00:00:30Z, in milliseconds.
const START: i64 = 1_767_225_630_000;

#[tokio::test]
async fn a_schedule_is_run_from_the_command_line() {
    let server = TestServer::start_manual_at(START, None).await;
    let swf = server.client();
    register_domain(&swf, D).await;
    register_workflow(&swf, "w").await;
    let schedule = |args: &[&str]| {
        let mut all = vec!["schedule"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--domain", D]);
        all.iter().map(|s| s.to_string()).collect::<Vec<String>>()
    };
    let run = |args: Vec<String>| {
        let server = &server;
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            weft(server, &args).await
        }
    };

    let created = run(schedule(&[
        "create",
        "--id",
        "hourly",
        "--type",
        "w:1",
        "--every",
        "1h",
        "--overlap",
        "buffer-one",
        "--input",
        "go",
    ]))
    .await;
    assert!(
        created
            .out()
            .starts_with("hourly  every 1h  w:1  next 2026-01-01T01:00:00Z  0 runs started"),
        "{created:?}"
    );
    let listed = run(schedule(&["list"])).await;
    assert_eq!(listed.out().lines().count(), 1, "{listed:?}");

    server.advance(Duration::from_secs(3600)).await;
    let described = run(schedule(&["describe", "hourly", "--json"]))
        .await
        .json();
    assert_eq!(described["info"]["actions"], 1);
    assert_eq!(described["schedule"]["overlap"], "bufferOne");
    assert_eq!(
        described["info"]["running"][0]["workflowId"],
        "hourly-2026-01-01T01:00:00Z"
    );

    let paused = run(schedule(&[
        "pause",
        "hourly",
        "--note",
        "fixing the decider",
    ]))
    .await;
    assert!(
        paused.out().contains("paused: fixing the decider"),
        "{paused:?}"
    );
    let unpaused = run(schedule(&["unpause", "hourly"])).await;
    assert!(
        unpaused.out().contains("next 2026-01-01T02:00:00Z"),
        "{unpaused:?}"
    );

    let changed = run(schedule(&[
        "update",
        "hourly",
        "--cron",
        "0 9 * * *",
        "--time-zone",
        "Europe/Berlin",
    ]))
    .await;
    assert!(
        changed.out().starts_with(
            "hourly  cron \"0 9 * * *\" Europe/Berlin  w:1  next 2026-01-01T08:00:00Z"
        ),
        "{changed:?}"
    );
    let triggered = run(schedule(&["trigger", "hourly"])).await;
    assert_eq!(
        triggered.out(),
        "triggered hourly: 0 run(s) started\n",
        "a run is open: one waits"
    );
    let backfilled = run(schedule(&[
        "backfill",
        "hourly",
        "--from",
        "2025-12-30T00:00:00Z",
        "--to",
        "2025-12-31T23:59:59Z",
    ]))
    .await;
    assert_eq!(
        backfilled.out(),
        "backfilled hourly: 2 time(s), 0 run(s) started\n"
    );

    let refused = run(schedule(&[
        "create",
        "--id",
        "bad",
        "--type",
        "w:1",
        "--cron",
        "61 * * * *",
    ]))
    .await;
    assert!(refused.err().contains("spec.cron"), "{refused:?}");
    let neither = run(schedule(&["create", "--id", "bad", "--type", "w:1"])).await;
    assert!(neither.err().contains("--every"), "{neither:?}");
    let overlap = run(schedule(&[
        "create",
        "--id",
        "bad",
        "--type",
        "w:1",
        "--every",
        "1m",
        "--overlap",
        "sometimes",
    ]))
    .await;
    assert!(overlap.err().contains("buffer-one"), "{overlap:?}");

    assert_eq!(
        run(schedule(&["delete", "hourly"])).await.out(),
        "deleted hourly\n"
    );
    let gone = run(schedule(&["describe", "hourly"])).await;
    assert!(gone.err().contains("Unknown schedule: hourly"), "{gone:?}");
}
