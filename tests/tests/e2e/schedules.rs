//! Schedules (`/v1/domains/{domain}/schedules`): runs started at the times an interval or cron
//! expressions name, on the manual clock, through Weft's client, and the runs read back with
//! aws-sdk-swf as any SWF client would see them.

use std::time::Duration;

use chrono::DateTime;
use weft_host::client::{
    Backfill, Client as WeftClient, ClientError, Overlap, ScheduleDefinition, ScheduleDescription,
    ScheduleSpec, StartAction, Timestamp, TypeRef,
};
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::ExecutionStatus;
use weft_tests::guests::weft_client;

use crate::flow::*;

/// Milliseconds since the epoch of an RFC 3339 time.
fn at(text: &str) -> i64 {
    DateTime::parse_from_rfc3339(text)
        .expect("an RFC 3339 time")
        .timestamp_millis()
}

fn time(text: &str) -> Timestamp {
    Timestamp::from_millis(at(text))
}

/// A server on the manual clock standing at `now`, with domain [`D`] and workflow type `w`.
async fn server_at(now: &str) -> (TestServer, Client, WeftClient) {
    let server = TestServer::start_manual_at(at(now), None).await;
    let swf = server.client();
    crate::common::register_domain(&swf, D).await;
    register_workflow(&swf, "w").await;
    let weft = weft_client(&server);
    (server, swf, weft)
}

/// A schedule of `w` runs by `spec`, as `overlap` says.
fn definition(spec: ScheduleSpec, overlap: Overlap) -> ScheduleDefinition {
    ScheduleDefinition {
        spec,
        action: StartAction {
            workflow_type: TypeRef {
                name: "w".into(),
                version: "1".into(),
            },
            task_list: None,
            task_priority: None,
            input: Some("scheduled".into()),
            execution_start_to_close_timeout: Some("86400".into()),
            tag_list: vec!["nightly".into()],
            task_start_to_close_timeout: None,
            child_policy: None,
            lambda_role: None,
        },
        overlap,
        // The tests move the clock in steps of minutes and days.
        catchup_window: Some(86_400),
        limit: None,
    }
}

fn every(secs: u64) -> ScheduleSpec {
    ScheduleSpec {
        every: Some(secs),
        ..ScheduleSpec::default()
    }
}

/// Waits until the open runs whose ids begin with `prefix` are `expected` (a run a close
/// starts comes a moment after the close is answered).
async fn until_open(swf: &Client, prefix: &str, expected: &[String]) {
    let began = std::time::Instant::now();
    loop {
        let open = open_runs(swf, prefix).await;
        if open == expected {
            return;
        }
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "{prefix}: open {open:?}, expected {expected:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The workflow ids of the open runs whose ids begin with `prefix`, sorted.
async fn open_runs(swf: &Client, prefix: &str) -> Vec<String> {
    let mut ids: Vec<String> = swf
        .list_open_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .send()
        .await
        .expect("list open runs")
        .execution_infos()
        .iter()
        .filter_map(|info| info.execution().map(|e| e.workflow_id().to_owned()))
        .filter(|id| id.starts_with(prefix))
        .collect();
    ids.sort();
    ids
}

async fn terminate(swf: &Client, workflow_id: &str) {
    swf.terminate_workflow_execution()
        .domain(D)
        .workflow_id(workflow_id)
        .send()
        .await
        .unwrap_or_else(|e| panic!("terminate {workflow_id}: {e:?}"));
}

async fn describe_schedule(weft: &WeftClient, id: &str) -> ScheduleDescription {
    weft.schedule(D, id).await.expect("describe the schedule")
}

/// The error code and message of a refused call.
fn refused<T: std::fmt::Debug>(result: Result<T, ClientError>) -> (u16, String) {
    match result {
        Err(ClientError::Refused {
            status, message, ..
        }) => (status, message),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn an_interval_schedule_starts_one_run_per_time_named_for_it() {
    let (server, swf, weft) = server_at("2026-01-01T00:00:30Z").await;
    let made = weft
        .create_schedule(D, "s", &definition(every(60), Overlap::Skip))
        .await
        .expect("make the schedule");
    assert_eq!(
        made.next_times[..2],
        [time("2026-01-01T00:01:00Z"), time("2026-01-01T00:02:00Z")]
    );

    server.advance(Duration::from_secs(30)).await;
    let first = "s-2026-01-01T00:01:00Z";
    assert_eq!(open_runs(&swf, "s-").await, [first]);
    let run_id = describe_schedule(&weft, "s").await.info.running[0]
        .run_id
        .clone();
    let info = describe(&swf, first, &run_id).await;
    let execution = info.execution_info().expect("info");
    assert_eq!(execution.tag_list(), ["nightly"]);
    let started = history(&swf, first, &run_id).await;
    let input = started[0]
        .workflow_execution_started_event_attributes()
        .unwrap()
        .input();
    assert_eq!(input, Some("scheduled"));

    // Overlap `skip`: the next time passes while the first run is open.
    server.advance(Duration::from_secs(60)).await;
    assert_eq!(open_runs(&swf, "s-").await, [first]);
    let state = describe_schedule(&weft, "s").await.info;
    assert_eq!((state.actions, state.skipped), (1, 1));

    terminate(&swf, first).await;
    server.advance(Duration::from_secs(60)).await;
    assert_eq!(open_runs(&swf, "s-").await, ["s-2026-01-01T00:03:00Z"]);
    let state = describe_schedule(&weft, "s").await.info;
    assert_eq!(state.actions, 2);
    assert_eq!(state.recent.len(), 2);
    assert_eq!(state.running.len(), 1);
}

#[tokio::test]
async fn each_overlap_policy_acts_on_times_that_come_while_a_run_is_open() {
    let (server, swf, weft) = server_at("2026-01-01T00:00:30Z").await;
    for (name, overlap) in Overlap::ALL {
        weft.create_schedule(D, name, &definition(every(60), overlap))
            .await
            .expect("make the schedule");
    }
    // 00:01 starts each one's first run; 00:02 and 00:03 come while it is open.
    server.advance(Duration::from_secs(150)).await;
    let t = |name: &str, minute: u32| format!("{name}-2026-01-01T00:0{minute}:00Z");
    let expected_open = |name: &str| match name {
        "terminateOther" => vec![t(name, 3)],
        "allowAll" => vec![t(name, 1), t(name, 2), t(name, 3)],
        _ => vec![t(name, 1)],
    };
    for (name, _) in Overlap::ALL {
        assert_eq!(
            open_runs(&swf, &format!("{name}-")).await,
            expected_open(name),
            "{name}"
        );
    }
    let state = |name| describe_schedule(&weft, name);
    assert_eq!(state("skip").await.info.skipped, 2);
    let one = state("bufferOne").await.info;
    assert_eq!((one.buffered.len(), one.skipped), (1, 1));
    assert_eq!(state("bufferAll").await.info.buffered.len(), 2);
    let cancel = state("cancelOther").await.info;
    assert_eq!(
        (cancel.buffered, cancel.skipped),
        ([time("2026-01-01T00:03:00Z")].into(), 1)
    );
    let asked = describe(&swf, &t("cancelOther", 1), &cancel.running[0].run_id).await;
    assert!(asked.execution_info().unwrap().cancel_requested());
    let metrics = crate::observability::scrape(&server, None).await;
    for line in [
        r#"weft_schedule_runs_started{domain="d",schedule="allowAll"} 3"#,
        r#"weft_schedule_times_skipped{domain="d",schedule="skip"} 2"#,
        r#"weft_schedule_times_missed{domain="d",schedule="skip"} 0"#,
        r#"weft_schedule_paused{domain="d",schedule="skip"} 0"#,
    ] {
        assert!(metrics.contains(line), "{line} in:\n{metrics}");
    }
    let replaced = state("terminateOther").await.info.recent[0].clone();
    let run_id = replaced.run_id.expect("the first run started");
    let terminated = describe(&swf, &replaced.workflow_id, &run_id).await;
    let status = terminated.execution_info().unwrap().execution_status();
    assert_eq!(status, &ExecutionStatus::Closed);

    // The first runs close: what waits starts at once, before any later time.
    for name in ["skip", "bufferOne", "bufferAll", "cancelOther"] {
        terminate(&swf, &t(name, 1)).await;
    }
    until_open(&swf, "bufferOne-", &[t("bufferOne", 2)]).await;
    until_open(&swf, "bufferAll-", &[t("bufferAll", 2)]).await;
    until_open(&swf, "cancelOther-", &[t("cancelOther", 3)]).await;
    assert_eq!(open_runs(&swf, "skip-").await, Vec::<String>::new());
    assert_eq!(state("bufferAll").await.info.buffered.len(), 1);
    drop(server);
}

#[tokio::test]
async fn a_cron_schedule_follows_its_time_zone_across_daylight_saving_changes() {
    let nightly = || {
        let spec = ScheduleSpec {
            cron: vec!["30 2 * * *".into()],
            time_zone: Some("Europe/Berlin".into()),
            ..ScheduleSpec::default()
        };
        definition(spec, Overlap::AllowAll)
    };
    let (server, swf, weft) = server_at("2026-03-28T12:00:00Z").await;
    let made = weft
        .create_schedule(D, "nightly", &nightly())
        .await
        .expect("make the schedule");
    // 02:30 does not exist in Berlin on 2026-03-29: the run comes right after the change.
    assert_eq!(
        made.next_times[..2],
        [time("2026-03-29T01:00:00Z"), time("2026-03-30T00:30:00Z")]
    );
    server.advance_to(at("2026-03-29T01:00:00Z")).await;
    assert_eq!(
        open_runs(&swf, "nightly-").await,
        ["nightly-2026-03-29T01:00:00Z"]
    );

    // On 2026-10-25 02:30 happens twice: one run, at the first.
    let (_server, swf, weft) = server_at("2026-11-01T00:00:00Z").await;
    weft.create_schedule(D, "nightly", &nightly())
        .await
        .expect("make the schedule");
    let range = Backfill {
        from: time("2026-10-24T00:00:00Z"),
        to: time("2026-10-27T00:00:00Z"),
    };
    let backfilled = weft
        .backfill_schedule(D, "nightly", &range)
        .await
        .expect("backfill");
    assert_eq!((backfilled.times, backfilled.started), (3, 3));
    assert_eq!(
        open_runs(&swf, "nightly-").await,
        [
            "nightly-2026-10-24T00:30:00Z",
            "nightly-2026-10-25T00:30:00Z",
            "nightly-2026-10-26T01:30:00Z"
        ]
    );
    // Times still to come are the schedule's own: a backfill past now acts on none of them.
    let ahead = Backfill {
        from: time("2026-11-01T00:00:00Z"),
        to: time("2026-11-09T00:00:00Z"),
    };
    let none = weft
        .backfill_schedule(D, "nightly", &ahead)
        .await
        .expect("backfill");
    assert_eq!((none.times, none.started), (0, 0));
}

#[tokio::test]
async fn times_missed_while_the_server_was_down_are_caught_up_within_the_window() {
    let (server, swf, weft) = server_at("2026-01-01T00:00:30Z").await;
    let mut catching_up = definition(every(60), Overlap::AllowAll);
    catching_up.catchup_window = Some(150);
    weft.create_schedule(D, "s", &catching_up)
        .await
        .expect("make the schedule");
    server.advance(Duration::from_secs(30)).await;
    assert_eq!(open_runs(&swf, "s-").await, ["s-2026-01-01T00:01:00Z"]);

    // Down from 00:01 to 00:06: 00:02 and 00:03 are over 150 s late when it comes back.
    drop((swf, weft));
    let server = server.restart_after(Duration::from_secs(300)).await;
    server.advance(Duration::ZERO).await;
    let (swf, weft) = (server.client(), weft_client(&server));
    let runs = open_runs(&swf, "s-").await;
    assert_eq!(
        runs,
        [
            "s-2026-01-01T00:01:00Z",
            "s-2026-01-01T00:04:00Z",
            "s-2026-01-01T00:05:00Z",
            "s-2026-01-01T00:06:00Z"
        ]
    );
    let state = describe_schedule(&weft, "s").await.info;
    assert_eq!((state.actions, state.missed), (4, 2));
}

#[tokio::test]
async fn a_paused_schedule_starts_nothing_until_unpaused_and_trigger_starts_one_now() {
    let (server, swf, weft) = server_at("2026-01-01T00:00:30Z").await;
    weft.create_schedule(D, "s", &definition(every(60), Overlap::AllowAll))
        .await
        .expect("make the schedule");
    let paused = weft
        .pause_schedule(D, "s", true, Some("deploying a fix".into()))
        .await
        .expect("pause");
    assert!(paused.info.paused);
    assert_eq!(paused.info.note, "deploying a fix");
    assert!(paused.next_times.is_empty());
    server.advance(Duration::from_secs(180)).await;
    assert_eq!(open_runs(&swf, "s-").await, Vec::<String>::new());

    // Unpaused at 00:03:30: the times it slept through are not caught up.
    let unpaused = weft
        .pause_schedule(D, "s", false, None)
        .await
        .expect("unpause");
    assert_eq!(unpaused.next_times[0], time("2026-01-01T00:04:00Z"));
    let triggered = weft.trigger_schedule(D, "s").await.expect("trigger");
    assert_eq!(triggered.started, 1);
    assert_eq!(open_runs(&swf, "s-").await, ["s-2026-01-01T00:03:30Z"]);
    server.advance(Duration::from_secs(30)).await;
    assert_eq!(open_runs(&swf, "s-").await.len(), 2);

    weft.delete_schedule(D, "s").await.expect("delete");
    assert_eq!(refused(weft.schedule(D, "s").await).0, 404);
    server.advance(Duration::from_secs(60)).await;
    assert_eq!(
        open_runs(&swf, "s-").await.len(),
        2,
        "a deleted schedule starts nothing"
    );
    assert!(weft.schedules(D).await.expect("list").is_empty());
}

#[tokio::test]
async fn a_limit_stops_a_schedule_after_its_runs() {
    let (server, swf, weft) = server_at("2026-01-01T00:00:30Z").await;
    let mut limited = definition(every(60), Overlap::AllowAll);
    limited.limit = Some(2);
    weft.create_schedule(D, "s", &limited)
        .await
        .expect("make the schedule");
    server.advance(Duration::from_secs(300)).await;
    assert_eq!(open_runs(&swf, "s-").await.len(), 2);
    assert!(describe_schedule(&weft, "s").await.next_times.is_empty());
}

#[tokio::test]
async fn a_bad_schedule_is_refused_saying_what_to_fix() {
    let (_server, _swf, weft) = server_at("2026-01-01T00:00:30Z").await;
    let cron = |expr: &str| ScheduleSpec {
        cron: vec![expr.into()],
        ..ScheduleSpec::default()
    };
    let bad = [
        (definition(cron("61 * * * *"), Overlap::Skip), "spec.cron"),
        (
            definition(ScheduleSpec::default(), Overlap::Skip),
            "spec.every",
        ),
        (
            definition(
                ScheduleSpec {
                    time_zone: Some("Mars/Olympus".into()),
                    ..cron("* * * * *")
                },
                Overlap::Skip,
            ),
            "Mars/Olympus",
        ),
    ];
    for (definition, named) in bad {
        let (status, message) = refused(weft.create_schedule(D, "s", &definition).await);
        assert_eq!(status, 400, "{message}");
        assert!(message.contains(named), "{message} names {named}");
    }
    let mut unknown = definition(every(60), Overlap::Skip);
    unknown.action.workflow_type.name = "nope".into();
    let (status, message) = refused(weft.create_schedule(D, "s", &unknown).await);
    assert_eq!(status, 404, "{message}");
    assert!(message.contains("nope"), "{message}");

    weft.create_schedule(D, "s", &definition(every(60), Overlap::Skip))
        .await
        .expect("make the schedule");
    let (status, message) = refused(
        weft.create_schedule(D, "s", &definition(every(60), Overlap::Skip))
            .await,
    );
    assert_eq!(status, 409, "{message}");
    assert_eq!(refused(weft.trigger_schedule(D, "other").await).0, 404);
    let backwards = Backfill {
        from: time("2026-01-01T00:00:00Z"),
        to: time("2025-01-01T00:00:00Z"),
    };
    assert_eq!(
        refused(weft.backfill_schedule(D, "s", &backwards).await).0,
        400
    );
    assert_eq!(refused(weft.schedules("nowhere").await).0, 404);
}

/// With two nodes on one PostgreSQL database, each with its timer loop on a clock of its own
/// moved in step, each of 100 nominal times starts exactly one run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_nominal_time_starts_one_run_across_nodes() {
    let (a, swf, weft) = server_at("2026-01-01T00:00:30Z").await;
    let Some(b) = a.manual_node_sharing().await else {
        return;
    };
    weft.create_schedule(D, "s", &definition(every(60), Overlap::AllowAll))
        .await
        .expect("make the schedule");
    for _ in 0..100 {
        let step = Duration::from_secs(60);
        tokio::join!(a.advance(step), b.advance(step));
    }
    let runs = open_runs(&swf, "s-").await;
    assert_eq!(runs.len(), 100, "one run per time: {runs:?}");
    runs.windows(2).for_each(|w| assert_ne!(w[0], w[1]));
    let state = describe_schedule(&weft, "s").await.info;
    assert_eq!((state.actions, state.skipped, state.missed), (100, 0, 0));
}
