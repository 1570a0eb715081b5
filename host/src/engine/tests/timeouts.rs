//! Every timeout (spec §8.5), the retention purge (§8.15) and the event limit (§8.16), to the
//! millisecond: each test moves the clock to one millisecond before the deadline (nothing may
//! happen), then onto it (exactly the expected events), then far beyond (nothing more).

use serde_json::{Value, json};

use crate::Limits;
use crate::model::decisions::{Decision, attrs as d};
use crate::model::{Activity, CloseStatus, TaskKind, TaskList, Timeout};
use crate::store::StoreError;

use super::super::{
    Claimed, Completion, TaskRef, claim, complete_decision_task, record_heartbeat, signal,
    start_run, started_decision, started_task,
};
use super::{Fixture, act, checked, domain, new_run, reload};

const SEC: i64 = 1000;

/// Starts the fixture's run; answers its seq.
async fn started(fx: &Fixture) -> u64 {
    fx.change(|eng| Ok(start_run(eng, new_run(), None)?.seq))
        .await
}

/// Claims the first task of `list`, as a poll would.
async fn claim_task(fx: &Fixture, kind: TaskKind, list: &'static str) -> Option<TaskRef> {
    fx.change(move |eng| {
        Ok(match claim(eng, kind, list, None)? {
            Some(Claimed::Decision(c)) => Some(c.task),
            Some(Claimed::Activity(c)) => Some(c.task),
            Some(Claimed::Function(c)) => Some(c.task),
            None => None,
        })
    })
    .await
}

/// Completes the decision task `task` of run `seq`.
async fn decide(fx: &Fixture, seq: u64, task: TaskRef, completion: Completion) {
    fx.change(move |eng| {
        let mut run = reload(eng, seq)?;
        complete_decision_task(eng, &domain(), &mut run, task, completion)
    })
    .await;
}

/// Schedules activity `a` on list `al` with timeouts [schedule-to-start, schedule-to-close,
/// start-to-close, heartbeat].
fn schedule(timeouts: [&str; 4]) -> Decision {
    let [s2s, s2c, stc, hb] = timeouts.map(Timeout::parse);
    Decision::ScheduleActivityTask(d::ScheduleActivityTask {
        activity_type: act(),
        activity_id: "a".into(),
        control: None,
        input: None,
        schedule_to_close_timeout: s2c,
        task_list: Some(TaskList { name: "al".into() }),
        task_priority: None,
        schedule_to_start_timeout: s2s,
        start_to_close_timeout: stc,
        heartbeat_timeout: hb,
    })
}

/// A run whose first decision scheduled activity `a` (event 5) with `timeouts`.
async fn with_activity(fx: &Fixture, timeouts: [&str; 4]) -> u64 {
    let seq = started(fx).await;
    let task = claim_task(fx, TaskKind::Decision, "dl").await.unwrap();
    let completion = Completion {
        decisions: vec![schedule(timeouts)],
        ..Completion::default()
    };
    decide(fx, seq, task, completion).await;
    seq
}

/// The event with id `id` of run `seq`.
async fn event(fx: &Fixture, seq: u64, id: usize) -> Value {
    fx.events(seq).await.swap_remove(id - 1)
}

/// Whether the activity task `task` still accepts its worker.
async fn activity_open(fx: &Fixture, task: TaskRef) -> bool {
    fx.change(move |eng| Ok(started_task::<Activity>(&*eng.tx, eng.domain, task).is_ok()))
        .await
}

/// Asserts that after `millis` more, nothing at all happens.
async fn quiet_for(fx: &Fixture, seq: u64, millis: i64) {
    let before = fx.events(seq).await.len();
    assert_eq!(fx.advance(millis).await, 0, "no deadline may come");
    assert_eq!(fx.events(seq).await.len(), before);
}

#[tokio::test]
async fn an_activity_nobody_takes_times_out_schedule_to_start() {
    let fx = Fixture::new().await;
    let seq = with_activity(&fx, ["5", "20", "10", "NONE"]).await;
    quiet_for(&fx, seq, 5 * SEC - 1).await;
    assert_eq!(fx.advance(1).await, 1);
    assert_eq!(
        fx.event_types(seq).await[5..],
        ["ActivityTaskTimedOut", "DecisionTaskScheduled"]
    );
    let timed_out = event(&fx, seq, 6).await;
    assert_eq!(
        timed_out["activityTaskTimedOutEventAttributes"],
        json!({"timeoutType": "SCHEDULE_TO_START", "scheduledEventId": 5, "startedEventId": 0})
    );
    assert_eq!(timed_out["eventTimestamp"], json!(1005.0));
    // Off its list for good, and its schedule-to-close deadline is gone with it.
    assert_eq!(claim_task(&fx, TaskKind::Activity, "al").await, None);
    quiet_for(&fx, seq, 100 * SEC).await;
}

#[tokio::test]
async fn a_started_activity_times_out_start_to_close_despite_heartbeats() {
    let fx = Fixture::new().await;
    let seq = with_activity(&fx, ["5", "100", "10", "NONE"]).await;
    fx.advance(3 * SEC).await;
    let task = claim_task(&fx, TaskKind::Activity, "al").await.unwrap();
    // The schedule-to-start deadline (at 5 s) was disarmed by the start.
    for _ in 0..3 {
        quiet_for(&fx, seq, 3 * SEC).await;
        fx.change(move |eng| {
            let run = checked(started_task::<Activity>(&*eng.tx, eng.domain, task))?;
            record_heartbeat(eng, &run, task, Some("beat".into()))
        })
        .await;
    }
    quiet_for(&fx, seq, SEC - 1).await;
    assert_eq!(fx.advance(1).await, 1);
    let timed_out = event(&fx, seq, 7).await;
    assert_eq!(
        timed_out["activityTaskTimedOutEventAttributes"],
        json!({
            "timeoutType": "START_TO_CLOSE",
            "scheduledEventId": 5,
            "startedEventId": 6,
            "details": "beat"
        })
    );
    assert_eq!(
        event(&fx, seq, 8).await["eventType"],
        "DecisionTaskScheduled"
    );
    // The worker's token is dead: a late answer is an unknown task and changes nothing.
    assert!(!activity_open(&fx, task).await);
    quiet_for(&fx, seq, 200 * SEC).await;
}

#[tokio::test]
async fn heartbeats_keep_an_activity_alive_until_they_stop() {
    let fx = Fixture::new().await;
    let seq = with_activity(&fx, ["5", "NONE", "NONE", "4"]).await;
    let task = claim_task(&fx, TaskKind::Activity, "al").await.unwrap();
    for n in 0..5 {
        quiet_for(&fx, seq, 4 * SEC - 1).await;
        fx.change(move |eng| {
            let run = checked(started_task::<Activity>(&*eng.tx, eng.domain, task))?;
            record_heartbeat(eng, &run, task, Some(format!("beat {n}")))
        })
        .await;
    }
    // A heartbeat without details still resets the timeout and keeps the last details.
    fx.change(move |eng| {
        let run = checked(started_task::<Activity>(&*eng.tx, eng.domain, task))?;
        record_heartbeat(eng, &run, task, None)
    })
    .await;
    quiet_for(&fx, seq, 4 * SEC - 1).await;
    assert_eq!(fx.advance(1).await, 1);
    assert_eq!(
        event(&fx, seq, 7).await["activityTaskTimedOutEventAttributes"],
        json!({
            "timeoutType": "HEARTBEAT",
            "scheduledEventId": 5,
            "startedEventId": 6,
            "details": "beat 4"
        })
    );
    assert!(!activity_open(&fx, task).await);
    quiet_for(&fx, seq, 100 * SEC).await;
}

#[tokio::test]
async fn schedule_to_close_covers_the_wait_and_the_work() {
    let fx = Fixture::new().await;
    let seq = with_activity(&fx, ["8", "10", "30", "NONE"]).await;
    fx.advance(5 * SEC).await;
    let task = claim_task(&fx, TaskKind::Activity, "al").await.unwrap();
    quiet_for(&fx, seq, 5 * SEC - 1).await;
    assert_eq!(fx.advance(1).await, 1);
    assert_eq!(
        event(&fx, seq, 7).await["activityTaskTimedOutEventAttributes"],
        json!({"timeoutType": "SCHEDULE_TO_CLOSE", "scheduledEventId": 5, "startedEventId": 6})
    );
    assert!(!activity_open(&fx, task).await);
    // Its start-to-close deadline went with it.
    quiet_for(&fx, seq, 100 * SEC).await;
}

#[tokio::test]
async fn simultaneous_activity_timeouts_report_schedule_to_close_once() {
    let fx = Fixture::new().await;
    let seq = with_activity(&fx, ["5", "10", "10", "10"]).await;
    // Started at once, so three deadlines fall on the same millisecond.
    claim_task(&fx, TaskKind::Activity, "al").await.unwrap();
    quiet_for(&fx, seq, 10 * SEC - 1).await;
    fx.advance(1).await;
    let types = fx.event_types(seq).await;
    assert_eq!(
        types[6..],
        ["ActivityTaskTimedOut", "DecisionTaskScheduled"]
    );
    assert_eq!(
        event(&fx, seq, 7).await["activityTaskTimedOutEventAttributes"]["timeoutType"],
        "SCHEDULE_TO_CLOSE"
    );
}

#[tokio::test]
async fn a_worker_that_answers_in_time_disarms_every_activity_timeout() {
    let fx = Fixture::new().await;
    let seq = with_activity(&fx, ["5", "10", "8", "2"]).await;
    let task = claim_task(&fx, TaskKind::Activity, "al").await.unwrap();
    fx.change(move |eng| {
        let mut run = checked(started_task::<Activity>(&*eng.tx, eng.domain, task))?;
        let outcome = super::super::ActivityOutcome::Completed { result: None };
        super::super::close_activity(eng, &mut run, task, outcome)
    })
    .await;
    let len = fx.events(seq).await.len();
    quiet_for(&fx, seq, 100 * SEC).await;
    assert_eq!(fx.events(seq).await.len(), len);
}

#[tokio::test]
async fn a_decision_task_times_out_start_to_close_and_is_scheduled_again() {
    let fx = Fixture::new().await;
    let seq = started(&fx).await;
    fx.advance(7 * SEC).await;
    let task = claim_task(&fx, TaskKind::Decision, "dl").await.unwrap();
    quiet_for(&fx, seq, 60 * SEC - 1).await;
    assert_eq!(fx.advance(1).await, 1);
    assert_eq!(
        fx.event_types(seq).await[3..],
        ["DecisionTaskTimedOut", "DecisionTaskScheduled"]
    );
    assert_eq!(
        event(&fx, seq, 4).await["decisionTaskTimedOutEventAttributes"],
        json!({"timeoutType": "START_TO_CLOSE", "scheduledEventId": 2, "startedEventId": 3})
    );
    // The late decider's token is dead; the new task is on the same list, without a deadline.
    let stale = fx.change(move |eng| Ok(started_decision(&*eng.tx, eng.domain, task).is_err()));
    assert!(stale.await);
    quiet_for(&fx, seq, 100 * SEC).await;
    let again = claim_task(&fx, TaskKind::Decision, "dl").await.unwrap();
    assert_eq!((again.scheduled, again.started), (5, 6));
}

#[tokio::test]
async fn an_unclaimed_override_reverts_to_the_original_task_list() {
    let fx = Fixture::new().await;
    let seq = started(&fx).await;
    let task = claim_task(&fx, TaskKind::Decision, "dl").await.unwrap();
    let completion = Completion {
        task_list: Some(TaskList {
            name: "other".into(),
        }),
        task_list_schedule_to_start_timeout: Some(Timeout::Seconds(5)),
        ..Completion::default()
    };
    decide(&fx, seq, task, completion).await;
    fx.change(move |eng| {
        let mut run = reload(eng, seq)?;
        signal(eng, &mut run, "go".into(), None, None)
    })
    .await;
    // 5 signaled, 6 scheduled on the override list with its schedule-to-start timeout.
    let scheduled = event(&fx, seq, 6).await;
    let attrs = &scheduled["decisionTaskScheduledEventAttributes"];
    assert_eq!(attrs["taskList"]["name"], "other");
    assert_eq!(attrs["scheduleToStartTimeout"], "5");
    quiet_for(&fx, seq, 5 * SEC - 1).await;
    assert_eq!(fx.advance(1).await, 1);
    assert_eq!(
        event(&fx, seq, 7).await["decisionTaskTimedOutEventAttributes"],
        json!({"timeoutType": "SCHEDULE_TO_START", "scheduledEventId": 6, "startedEventId": 0})
    );
    let again = event(&fx, seq, 8).await;
    let attrs = &again["decisionTaskScheduledEventAttributes"];
    assert_eq!(attrs["taskList"]["name"], "dl");
    assert_eq!(attrs["scheduleToStartTimeout"], "NONE");
    assert_eq!(claim_task(&fx, TaskKind::Decision, "other").await, None);
    quiet_for(&fx, seq, 30 * SEC).await;
    let task = claim_task(&fx, TaskKind::Decision, "dl").await.unwrap();
    assert_eq!(task.scheduled, 8);
}

#[tokio::test]
async fn a_run_times_out_then_is_purged_when_its_retention_ends() {
    let fx = Fixture::new().await;
    let seq = with_activity(&fx, ["NONE", "NONE", "NONE", "NONE"]).await;
    fx.change(move |eng| {
        let mut run = reload(eng, seq)?;
        signal(eng, &mut run, "s".into(), None, None)
    })
    .await;
    let task = claim_task(&fx, TaskKind::Decision, "dl").await.unwrap();
    let timer = Decision::StartTimer(d::StartTimer {
        timer_id: "t".into(),
        control: None,
        start_to_fire_timeout: Timeout::Seconds(900),
    });
    let completion = Completion {
        decisions: vec![timer],
        ..Completion::default()
    };
    decide(&fx, seq, task, completion).await;
    // Open: an activity, a timer due after the run's own deadline.
    quiet_for(&fx, seq, 600 * SEC - 1 - fx.elapsed()).await;
    assert_eq!(fx.advance(1).await, 1);
    let last = fx.events(seq).await.pop().unwrap();
    assert_eq!(last["eventType"], "WorkflowExecutionTimedOut");
    assert_eq!(
        last["workflowExecutionTimedOutEventAttributes"],
        json!({"timeoutType": "START_TO_CLOSE", "childPolicy": "TERMINATE"})
    );
    let run = fx.run(seq).await.unwrap();
    assert_eq!(run.closed.map(|c| c.status), Some(CloseStatus::TimedOut));
    assert!(run.open.activities == 0 && run.open.timers == 0);
    assert_eq!(claim_task(&fx, TaskKind::Activity, "al").await, None);
    // Kept for the domain's day of retention, then gone with its history and names.
    let day = 24 * 60 * 60 * SEC;
    quiet_for(&fx, seq, day - 1).await;
    assert_eq!(fx.advance(1).await, 1);
    assert!(fx.run(seq).await.is_none());
    assert!(fx.events(seq).await.is_empty());
    let named = fx.store.read(|tx| {
        Ok::<_, StoreError>(
            tx.open_run(1, &"w".into())?.is_none() && tx.next_deadline(true)?.is_none(),
        )
    });
    assert!(named.await.unwrap());
}

#[tokio::test]
async fn deadlines_survive_a_restart_and_fire_when_it_is_back() {
    let fx = Fixture::new().await;
    let seq = with_activity(&fx, ["5", "NONE", "NONE", "NONE"]).await;
    // The store closes, the deadline passes, the store opens again.
    let fx = fx.restart(60 * SEC);
    assert_eq!(fx.advance(0).await, 1);
    let timed_out = event(&fx, seq, 6).await;
    assert_eq!(
        timed_out["activityTaskTimedOutEventAttributes"]["timeoutType"],
        "SCHEDULE_TO_START"
    );
    // It is recorded when it is acted on: that is when the decider can learn of it.
    assert_eq!(timed_out["eventTimestamp"], json!(1060.0));
}

#[tokio::test]
async fn a_run_reaching_the_event_limit_is_terminated() {
    let limits = Limits {
        max_events_per_run: 10,
        ..Limits::default()
    };
    let fx = Fixture::with_limits(limits).await;
    let seq = started(&fx).await;
    // Events 1 and 2 are the start and its decision task; signals bring it to 8.
    for n in 0..6 {
        fx.change(move |eng| {
            let mut run = reload(eng, seq)?;
            signal(eng, &mut run, format!("s{n}"), None, None)
        })
        .await;
    }
    assert!(fx.run(seq).await.unwrap().is_open());
    let failed = fx
        .change(move |eng| {
            let Some(mut run) = eng.open_run(seq)? else {
                return Ok(true);
            };
            signal(eng, &mut run, "last".into(), None, None)?;
            Ok(run.is_open())
        })
        .await;
    assert!(!failed, "the signal that reached the limit closes the run");
    let events = fx.events(seq).await;
    assert_eq!(events.len(), 10);
    assert_eq!(events[8]["eventType"], "WorkflowExecutionSignaled");
    assert_eq!(
        events[9]["workflowExecutionTerminatedEventAttributes"],
        json!({"childPolicy": "TERMINATE", "cause": "EVENT_LIMIT_EXCEEDED"})
    );
    let run = fx.run(seq).await.unwrap();
    assert_eq!(run.closed.map(|c| c.status), Some(CloseStatus::Terminated));
    let gone = fx.change(move |eng| Ok(eng.open_run(seq)?.is_none()));
    assert!(gone.await);
}
