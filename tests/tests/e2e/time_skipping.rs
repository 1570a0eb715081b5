//! Time-skipping (issue 32): on a server started with `--time-skipping`, time jumps to the next
//! deadline whenever nothing else can happen, so a week-long timer, an hour-long heartbeat
//! timeout and a Wasm decider's 30-day timer pass in moments of real time, with histories whose
//! timestamps show the time that passed. `weft clock` reads the clock and moves it by hand.
//!
//! Each test's waits are bounded by real time (a decision task within 30 s, a run closed within
//! a minute): without the jumps they would wait hours and fail.

use std::time::Duration;

use serde_json::json;
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::types::{
    ActivityTaskTimeoutType, CloseStatus, EventType, HistoryEvent,
    ScheduleActivityTaskDecisionAttributes,
};
use weft_tests::guests::{self, order};

use crate::cli::Weft;
use crate::common::register_domain;
use crate::flow::{
    D, DECIDERS, WORKERS, act_type, activity_task, complete_workflow, decision_task, first,
    register_activity, register_workflow, respond, schedule_activity_with, start_timer, start_with,
};

const DAY: f64 = 86_400.0;

/// When `event` happened, in seconds since the epoch.
fn at(event: &HistoryEvent) -> f64 {
    event.event_timestamp().as_secs_f64()
}

#[tokio::test]
async fn a_week_long_timer_and_an_hour_long_heartbeat_timeout_pass_in_moments() {
    let server =
        TestServer::start_skipping_time_with(|c| c.poll_timeout = Duration::from_secs(5)).await;
    let c = server.client();
    register_domain(&c, D).await;
    register_workflow(&c, "week").await;
    register_activity(&c, "work").await;
    let ten_days = (10 * 86_400).to_string();
    let run_id = start_with(&c, "w", "week", |s| {
        s.execution_start_to_close_timeout(ten_days)
    })
    .await;

    let task = decision_task(&c, DECIDERS).await;
    let work = ScheduleActivityTaskDecisionAttributes::builder()
        .activity_id("a")
        .activity_type(act_type("work", "1"))
        .heartbeat_timeout("3600")
        .start_to_close_timeout("86400")
        .schedule_to_close_timeout("86400");
    let decisions = vec![start_timer("week", "604800"), schedule_activity_with(work)];
    respond(&c, task.task_token(), decisions).await;
    // The worker takes the task and is never heard from again.
    let _taken = activity_task(&c, WORKERS).await;

    // An hour later (on the clock): the heartbeat timeout.
    let task = decision_task(&c, DECIDERS).await;
    let timed_out = first(task.events(), "ActivityTaskTimedOut");
    let attributes = timed_out
        .activity_task_timed_out_event_attributes()
        .unwrap();
    assert_eq!(
        attributes.timeout_type(),
        &ActivityTaskTimeoutType::Heartbeat
    );
    respond(&c, task.task_token(), vec![]).await;

    // A week after the start: the timer.
    let task = decision_task(&c, DECIDERS).await;
    assert!(
        task.events()
            .iter()
            .any(|e| *e.event_type() == EventType::TimerFired)
    );
    respond(&c, task.task_token(), vec![complete_workflow(Some("done"))]).await;

    let run = guests::wait_closed(&server, D, "w", &run_id, Duration::from_secs(60)).await;
    assert_eq!(run.status, CloseStatus::Completed);
    let started = at(first(&run.events, "ActivityTaskStarted"));
    let timed_out = at(first(&run.events, "ActivityTaskTimedOut"));
    assert!(
        (3600.0..3700.0).contains(&(timed_out - started)),
        "the heartbeat timeout came {} s after the start",
        timed_out - started
    );
    let timer = at(first(&run.events, "TimerStarted"));
    let fired = at(first(&run.events, "TimerFired"));
    assert!(
        (7.0 * DAY..7.0 * DAY + 100.0).contains(&(fired - timer)),
        "the timer fired {} s after it started",
        fired - timer
    );
}

#[tokio::test]
async fn a_wasm_decider_s_thirty_day_window_passes_in_moments() {
    let server =
        TestServer::start_skipping_time_with(|c| c.poll_timeout = Duration::from_secs(1)).await;
    let c = server.client();
    guests::register_examples(&c, D).await;
    guests::deploy_order(&guests::weft_client(&server), D).await;
    let mut input: serde_json::Value = serde_json::from_str(order::SAMPLE_ORDER).unwrap();
    input["cancel_window_seconds"] = json!(30 * 86_400);
    let run_id = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id("order-1")
        .workflow_type(guests::workflow_type(order::WORKFLOW))
        .input(input.to_string())
        .execution_start_to_close_timeout((40 * 86_400).to_string())
        .send()
        .await
        .unwrap()
        .run_id
        .unwrap();

    let run = guests::wait_closed(&server, D, "order-1", &run_id, Duration::from_secs(60)).await;
    assert_eq!(run.status, CloseStatus::Completed, "{:?}", run.types());
    let window = at(first(&run.events, "TimerFired")) - at(first(&run.events, "TimerStarted"));
    assert!(
        (30.0 * DAY..30.0 * DAY + 100.0).contains(&window),
        "the window closed {window} s after it opened"
    );
}

#[tokio::test]
async fn weft_clock_shows_and_moves_a_skipping_clock_and_refuses_to_move_the_wall_clock() {
    let server = TestServer::start_skipping_time_with(|_| {}).await;
    let shown = Weft::at(&server).run(&["clock"]).await;
    assert!(shown.out().contains("time-skipping"), "{shown:?}");

    let moved = Weft::at(&server)
        .run(&["clock", "advance", "2h", "--json"])
        .await
        .json();
    assert_eq!(moved["timeSkipping"], true);
    let skipped = moved["skippedSeconds"].as_f64().unwrap();
    assert!((7200.0..7300.0).contains(&skipped), "{moved}");
    let bad = Weft::at(&server).run(&["clock", "advance", "soon"]).await;
    assert!(bad.err().contains("not a duration"), "{bad:?}");

    let wall = TestServer::start().await;
    let shown = Weft::at(&wall).run(&["clock"]).await;
    assert!(shown.out().contains("the wall clock"), "{shown:?}");
    let refused = Weft::at(&wall).run(&["clock", "advance", "1h"]).await;
    assert!(refused.err().contains("--time-skipping"), "{refused:?}");
}

#[tokio::test]
async fn time_skipping_is_refused_with_postgresql_and_with_tenants() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let data = data.to_str().unwrap();
    let serve = |extra: &[&str]| {
        let mut args = vec!["serve", "--time-skipping", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(&["--data", data]);
        args.extend_from_slice(extra);
        Weft::bare().run(&args)
    };
    let pg = serve(&["--store", "postgres://nobody@127.0.0.1:1/none"]).await;
    assert!(pg.err().contains("needs redb"), "{pg:?}");
    let config = dir.path().join("weft.toml");
    std::fs::write(
        &config,
        "[[tenants]]\nname = \"a\"\naccount_id = \"111111111111\"\ndomains = [\"*\"]\n\
         keys = [{ id = \"AKIDEXAMPLE\", secret = \"secret-of-sixteen-chars\" }]\n",
    )
    .unwrap();
    let tenants = serve(&["--config", config.to_str().unwrap()]).await;
    assert!(
        tenants.err().contains("refused with tenants"),
        "{tenants:?}"
    );
}
