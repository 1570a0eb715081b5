//! `weft schedule`: a schedule made, shown, paused, triggered, backfilled, changed and removed
//! through the real binary, on a server whose clock the test moves.

use std::time::Duration;

use weft_tests::TestServer;

use super::{Weft, weft, write};
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
    // The start request's members; the rest of the schedule stays.
    let started_as = run(schedule(&[
        "update",
        "hourly",
        "--priority",
        "-5",
        "--child-policy",
        "request-cancel",
        "--execution-timeout",
        "5m",
        "--task-timeout",
        "20s",
        "--json",
    ]))
    .await
    .json();
    let action = &started_as["schedule"]["action"];
    assert_eq!(
        (
            &action["taskPriority"],
            &action["childPolicy"],
            &action["executionStartToCloseTimeout"],
            &action["taskStartToCloseTimeout"],
            &action["input"],
        ),
        (
            &"-5".into(),
            &"REQUEST_CANCEL".into(),
            &"300".into(),
            &"20".into(),
            &"go".into()
        ),
        "{started_as}"
    );
    let policy = run(schedule(&[
        "update",
        "hourly",
        "--child-policy",
        "sometimes",
    ]))
    .await;
    assert!(policy.err().contains("request-cancel"), "{policy:?}");
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

#[tokio::test]
async fn apply_makes_a_declared_schedule_then_changes_it_only_when_it_differs() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let manifest = |cron: &str| {
        format!(
            "[domain]\nname = \"{D}\"\n\n[[workflow]]\nname = \"Report\"\nversion = \"1\"\n\
             task-list = \"reports\"\nexecution-timeout = \"1h\"\ntask-timeout = \"10s\"\n\n\
             [[schedule]]\nid = \"nightly\"\ntype = \"Report:1\"\ncron = [\"{cron}\"]\n\
             time-zone = \"Europe/Berlin\"\noverlap = \"buffer-one\"\n"
        )
    };
    let apply = || Weft::at(&server).dir(dir.path()).run(&["apply"]);
    // A start needs a child policy: the type gives none, nor does the schedule yet.
    write(dir.path(), "weft-app.toml", &manifest("30 2 * * *"));
    let refused = apply().await;
    assert!(
        refused
            .err()
            .contains("schedule nightly: neither it nor workflow Report:1 gives child-policy"),
        "{refused:?}"
    );
    let with_policy = |cron: &str| manifest(cron) + "child-policy = \"TERMINATE\"\n";
    write(dir.path(), "weft-app.toml", &with_policy("30 2 * * *"));
    let first = apply().await;
    assert!(first.out().contains("made  schedule nightly"), "{first:?}");
    let again = apply().await;
    assert!(
        again.out().contains("unchanged  schedule nightly"),
        "{again:?}"
    );
    assert!(again.out().contains("nothing to change"), "{again:?}");

    write(dir.path(), "weft-app.toml", &with_policy("0 3 * * *"));
    let changed = apply().await;
    assert!(
        changed.out().contains("changed  schedule nightly"),
        "{changed:?}"
    );
    let weft = weft_tests::guests::weft_client(&server);
    let held = weft.schedule(D, "nightly").await.expect("the schedule");
    assert_eq!(held.schedule.spec.cron, ["0 3 * * *"]);
    assert_eq!(held.schedule.overlap, weft_host::client::Overlap::BufferOne);
}
