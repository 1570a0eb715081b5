//! The four activity timeouts: schedule-to-start, start-to-close, heartbeat, schedule-to-close.

use super::*;

#[tokio::test]
async fn an_activity_nobody_picks_up_times_out_schedule_to_start() {
    let (server, c) = manual_server().await;
    // Its schedule-to-close deadline comes later, once the task is closed: it must not fire too.
    let run = job(
        &c,
        vec![timed_activity("a1", "nobody", |a| {
            a.schedule_to_start_timeout("1")
                .schedule_to_close_timeout("2")
        })],
    )
    .await;
    let scheduled = millis(&history(&c, "job", &run).await[4]);

    // Just before the deadline the task still waits on its list.
    server.advance_to(scheduled + 999).await;
    assert_eq!(pending_activities(&c, "nobody").await, 1);
    let events = pass_deadline(&server, &c, &run, scheduled + 1000, "ActivityTaskTimedOut").await;
    assert_types(
        &events,
        &activity_history(&["ActivityTaskTimedOut", "DecisionTaskScheduled"]),
    );
    assert_on_time(&events[5], scheduled, 1);
    let timed_out = only_activity_timeout(&events);
    assert_eq!(
        timed_out.timeout_type(),
        &ActivityTaskTimeoutType::ScheduleToStart
    );
    assert_eq!(timed_out.scheduled_event_id(), 5);
    assert_eq!(timed_out.started_event_id(), 0);
    assert_eq!(timed_out.details(), None);

    // The task left its list: no worker ever gets it.
    assert_eq!(pending_activities(&c, "nobody").await, 0);
    no_activity_task(&server, &c, "nobody").await;
    // Past the schedule-to-close deadline too, the one timeout is all there is; the decider
    // hears of it.
    server.advance_to(scheduled + 2500).await;
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(
        types(task.events())[..7],
        activity_history(&["ActivityTaskTimedOut", "DecisionTaskScheduled"])
    );
    assert_eq!(count(task.events(), "ActivityTaskTimedOut"), 1);
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    assert_eq!(
        count(&history(&c, "job", &run).await, "ActivityTaskTimedOut"),
        1
    );
}

/// Heartbeats `token` every 0.5 s (moving the clock between them) with details "beat-1",
/// "beat-2", … until a heartbeat is refused (at most `limit` times); the details of the last
/// one accepted and the refusal's fault.
async fn heartbeat_until_refused(
    server: &TestServer,
    c: &Client,
    token: &str,
    limit: usize,
) -> (String, String) {
    let mut accepted = String::new();
    for n in 1..=limit {
        let details = format!("beat-{n}");
        match heartbeat(c, token, Some(&details)).await {
            Ok(cancel_requested) => {
                assert!(!cancel_requested);
                accepted = details;
            }
            Err(fault) => return (accepted, fault),
        }
        server.advance(Duration::from_millis(500)).await;
    }
    panic!("{limit} heartbeats were all accepted: the task never timed out");
}

#[tokio::test]
async fn a_running_activity_times_out_start_to_close_whatever_its_heartbeats() {
    let (server, c) = manual_server().await;
    let run = job(
        &c,
        vec![timed_activity("a1", WORKERS, |a| {
            a.start_to_close_timeout("2")
        })],
    )
    .await;
    let work = activity_task(&c, WORKERS).await;
    // Heartbeats do not extend start-to-close: it fires 2 s after the start all the same.
    let (last_details, refusal) = heartbeat_until_refused(&server, &c, work.task_token(), 12).await;
    assert_eq!(refusal, "UnknownResourceFault");

    let events = history(&c, "job", &run).await;
    assert_types(
        &events,
        &activity_history(&[
            "ActivityTaskStarted",
            "ActivityTaskTimedOut",
            "DecisionTaskScheduled",
        ]),
    );
    assert_on_time(&events[6], millis(&events[5]), 2);
    let timed_out = only_activity_timeout(&events);
    assert_eq!(
        timed_out.timeout_type(),
        &ActivityTaskTimeoutType::StartToClose
    );
    assert_eq!(timed_out.scheduled_event_id(), 5);
    assert_eq!(timed_out.started_event_id(), 6);
    // Beats at 0, 0.5, 1 and 1.5 s were taken; the one at 2 s came to a task timed out.
    assert_eq!(last_details, "beat-4");
    assert_eq!(timed_out.details(), Some("beat-4"));

    // Too late to answer.
    assert_activity_token_dead(&c, work.task_token()).await;
    assert_eq!(history(&c, "job", &run).await, events);
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(count(task.events(), "ActivityTaskTimedOut"), 1);
}

#[tokio::test]
async fn heartbeats_keep_an_activity_alive_until_they_stop() {
    let (server, c) = manual_server().await;
    let run = job(
        &c,
        vec![timed_activity("a1", WORKERS, |a| a.heartbeat_timeout("2"))],
    )
    .await;
    let work = activity_task(&c, WORKERS).await;
    // Six heartbeats 0.5 s apart keep it alive for 3 s, past its 2 s heartbeat timeout.
    let mut last_sent = 0;
    for n in 1..=6 {
        last_sent = server.now_millis();
        let details = format!("beat-{n}");
        assert_eq!(
            heartbeat(&c, work.task_token(), Some(&details)).await,
            Ok(false),
            "{details}"
        );
        if n < 6 {
            server.advance(Duration::from_millis(500)).await;
        }
    }
    let events = history(&c, "job", &run).await;
    assert_eq!(
        count(&events, "ActivityTaskTimedOut"),
        0,
        "{:?}",
        types(&events)
    );
    let started = millis(&events[5]);
    assert_eq!(last_sent - started, 2500);

    // Then it stops: 2 s after the last heartbeat, it is timed out with that heartbeat's details.
    let events = pass_deadline(&server, &c, &run, last_sent + 2000, "ActivityTaskTimedOut").await;
    assert_types(
        &events,
        &activity_history(&[
            "ActivityTaskStarted",
            "ActivityTaskTimedOut",
            "DecisionTaskScheduled",
        ]),
    );
    assert_on_time(&events[6], last_sent, 2);
    let timed_out = only_activity_timeout(&events);
    assert_eq!(
        timed_out.timeout_type(),
        &ActivityTaskTimeoutType::Heartbeat
    );
    assert_eq!(timed_out.scheduled_event_id(), 5);
    assert_eq!(timed_out.started_event_id(), 6);
    assert_eq!(timed_out.details(), Some("beat-6"));

    assert_activity_token_dead(&c, work.task_token()).await;
    assert_eq!(history(&c, "job", &run).await, events);
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(count(task.events(), "ActivityTaskTimedOut"), 1);
}

#[tokio::test]
async fn schedule_to_close_counts_the_wait_in_the_queue_and_the_run() {
    let (server, c) = manual_server().await;
    let run = job(
        &c,
        vec![
            timed_activity("picked", WORKERS, |a| a.schedule_to_close_timeout("2")),
            timed_activity("queued", "nobody", |a| a.schedule_to_close_timeout("2")),
        ],
    )
    .await;
    let events = history(&c, "job", &run).await;
    assert_types(&events, &activity_history(&["ActivityTaskScheduled"]));
    let scheduled = millis(&events[4]);
    // "picked" waits 1 s in its queue before a worker takes it: its deadline does not move.
    server.advance_to(scheduled + 1000).await;
    let work = activity_task(&c, WORKERS).await;
    assert_eq!(work.activity_id(), "picked");
    assert_eq!(
        heartbeat(&c, work.task_token(), Some("half")).await,
        Ok(false)
    );

    let events = pass_deadline(&server, &c, &run, scheduled + 2000, "ActivityTaskTimedOut").await;
    let started = first(&events, "ActivityTaskStarted");
    assert_eq!(started.event_id(), 7);
    let mut timeouts: Vec<&HistoryEvent> = events
        .iter()
        .filter(|e| e.event_type().as_str() == "ActivityTaskTimedOut")
        .collect();
    assert_eq!(timeouts.len(), 2, "{:?}", types(&events));
    timeouts.sort_by_key(|e| {
        e.activity_task_timed_out_event_attributes()
            .unwrap()
            .scheduled_event_id()
    });
    for (event, scheduled_event_id, started_event_id, details) in
        [(timeouts[0], 5, 7, Some("half")), (timeouts[1], 6, 0, None)]
    {
        assert_on_time(event, scheduled, 2);
        let timed_out = event.activity_task_timed_out_event_attributes().unwrap();
        assert_eq!(
            timed_out.timeout_type(),
            &ActivityTaskTimeoutType::ScheduleToClose
        );
        assert_eq!(timed_out.scheduled_event_id(), scheduled_event_id);
        assert_eq!(timed_out.started_event_id(), started_event_id);
        assert_eq!(timed_out.details(), details);
    }
    // Counted from the scheduling, not from the start 1 s later.
    assert_eq!(millis(timeouts[0]) - millis(started), 1000);
    // One decision task for both.
    assert_eq!(
        count(&events, "DecisionTaskScheduled"),
        2,
        "{:?}",
        types(&events)
    );
    let first_timeout = first(&events, "ActivityTaskTimedOut").event_id();
    assert!(
        last(&events, "DecisionTaskScheduled").event_id() > first_timeout,
        "{:?}",
        types(&events)
    );

    assert_activity_token_dead(&c, work.task_token()).await;
    assert_eq!(pending_activities(&c, "nobody").await, 0);
    assert_eq!(history(&c, "job", &run).await, events);
}

#[tokio::test]
async fn heartbeats_without_details_keep_an_activity_alive_without_a_commit() {
    let (server, c) = manual_server().await;
    let run = job(
        &c,
        vec![timed_activity("a1", WORKERS, |a| a.heartbeat_timeout("2"))],
    )
    .await;
    let work = activity_task(&c, WORKERS).await;
    assert_eq!(heartbeat(&c, work.task_token(), Some("d")).await, Ok(false));
    // Heartbeats 0.5 s apart for 3 s, past the 2 s deadline the one with details armed: on
    // redb each is only noted in memory, and the deadline, when it comes, re-arms from the
    // latest. On PostgreSQL, which other nodes share, each is committed.
    let mut last_sent = 0;
    for _ in 0..6 {
        server.advance(Duration::from_millis(500)).await;
        last_sent = server.now_millis();
        let commits = server.writer_stats().commits();
        assert_eq!(heartbeat(&c, work.task_token(), None).await, Ok(false));
        let committed = server.writer_stats().commits() - commits;
        let expected = u64::from(server.on_postgres());
        assert_eq!(
            committed, expected,
            "commits made by a heartbeat without details"
        );
    }
    let events = history(&c, "job", &run).await;
    assert_eq!(
        count(&events, "ActivityTaskTimedOut"),
        0,
        "{:?}",
        types(&events)
    );

    // Then they stop: 2 s after the last one, it times out with the last details it recorded.
    let events = pass_deadline(&server, &c, &run, last_sent + 2000, "ActivityTaskTimedOut").await;
    assert_on_time(&events[6], last_sent, 2);
    let timed_out = only_activity_timeout(&events);
    assert_eq!(
        timed_out.timeout_type(),
        &ActivityTaskTimeoutType::Heartbeat
    );
    assert_eq!(timed_out.details(), Some("d"));
}
