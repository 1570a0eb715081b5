//! When decision tasks are scheduled (spec §8.2) and when a close decision fails (§8.7).

use serde_json::Value;

use crate::check::check_history;
use crate::model::decisions::{Decision, attrs as d};
use crate::model::{DecisionTask, TaskKind};
use crate::store::StoreError;

use super::super::{
    Claimed, Completion, TaskRef, claim, complete_decision_task, signal, start_run, terminate,
};
use super::{Fixture, domain, new_run, reload};

/// Starts a run and hands its first decision task (scheduled as event 2) to a decider.
async fn started_task(fx: &Fixture) -> (u64, TaskRef) {
    let seq = fx
        .change(|eng| Ok(start_run(eng, new_run(), None)?.seq))
        .await;
    let task = claim_decision(fx).await.expect("the first decision task");
    (seq, task)
}

/// The decision task a poller of list `dl` gets now, if any.
async fn claim_decision(fx: &Fixture) -> Option<TaskRef> {
    fx.change(|eng| match claim(eng, TaskKind::Decision, "dl", None)? {
        Some(Claimed::Decision(c)) => Ok(Some(c.task)),
        Some(_) => Err(StoreError::broken("not a decision task")),
        None => Ok(None),
    })
    .await
}

async fn signals(fx: &Fixture, seq: u64, names: &'static [&'static str]) {
    fx.change(move |eng| {
        let mut run = reload(eng, seq)?;
        for name in names {
            signal(eng, &mut run, (*name).into(), None, None)?;
        }
        Ok(())
    })
    .await;
}

/// Completes `task` with `decisions`; answers the run's decision task state afterwards.
async fn complete(fx: &Fixture, seq: u64, task: TaskRef, decisions: Vec<Decision>) -> DecisionTask {
    fx.change(move |eng| {
        let mut run = reload(eng, seq)?;
        let completion = Completion {
            decisions,
            ..Completion::default()
        };
        complete_decision_task(eng, &domain(), &mut run, task, completion)?;
        Ok(run.decision)
    })
    .await
}

fn marker() -> Decision {
    Decision::RecordMarker(d::RecordMarker {
        marker_name: "m".into(),
        details: None,
    })
}

fn assert_consistent(events: &[Value]) {
    assert_eq!(check_history(events), Vec::<String>::new());
}

#[tokio::test]
async fn a_trigger_while_a_task_is_started_schedules_the_next_at_once_and_holds_it_back() {
    let fx = Fixture::new().await;
    let seq = fx
        .change(|eng| Ok(start_run(eng, new_run(), None)?.seq))
        .await;
    // Scheduled, not started: a signal rides along with the pending task.
    signals(&fx, seq, &["s1"]).await;
    let task = claim_decision(&fx).await.expect("a decision task");
    // Started: the first signal schedules the next task right after it; the second rides along.
    signals(&fx, seq, &["s2", "s3"]).await;
    assert_eq!(
        claim_decision(&fx).await,
        None,
        "held back while one is started"
    );
    let state = complete(&fx, seq, task, vec![marker()]).await;
    assert!(
        matches!(state, DecisionTask::Scheduled { scheduled: 6, .. }),
        "{state:?}"
    );
    assert_eq!(
        fx.event_types(seq).await,
        [
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "WorkflowExecutionSignaled",
            "DecisionTaskStarted",
            "WorkflowExecutionSignaled",
            "DecisionTaskScheduled",
            "WorkflowExecutionSignaled",
            "DecisionTaskCompleted",
            "MarkerRecorded",
        ][..]
    );
    let next = claim_decision(&fx)
        .await
        .expect("released once the first completed");
    assert_eq!((next.scheduled, next.started), (6, 10));
    assert_consistent(&fx.events(seq).await);
}

#[tokio::test]
async fn a_close_fails_while_a_next_task_is_scheduled() {
    let fx = Fixture::new().await;
    let (seq, task) = started_task(&fx).await;
    signals(&fx, seq, &["late"]).await;
    let close = Decision::CompleteWorkflowExecution(d::CompleteWorkflowExecution { result: None });
    let state = complete(&fx, seq, task, vec![close]).await;
    assert!(matches!(
        state,
        DecisionTask::Scheduled { scheduled: 5, .. }
    ));
    let run = fx.run(seq).await.unwrap();
    assert!(run.is_open(), "the run must stay open");
    let types = fx.event_types(seq).await;
    assert_eq!(
        types[3..],
        [
            "WorkflowExecutionSignaled",
            "DecisionTaskScheduled",
            "DecisionTaskCompleted",
            "CompleteWorkflowExecutionFailed",
        ]
    );
    assert_consistent(&fx.events(seq).await);
}

#[tokio::test]
async fn a_batch_that_triggers_schedules_after_its_events() {
    let fx = Fixture::new().await;
    let (seq, task) = started_task(&fx).await;
    // Canceling a timer that does not exist fails, and the decider must hear of it.
    let cancel = Decision::CancelTimer(d::CancelTimer {
        timer_id: "none".into(),
    });
    let state = complete(&fx, seq, task, vec![cancel, marker()]).await;
    assert!(matches!(
        state,
        DecisionTask::Scheduled { scheduled: 7, .. }
    ));
    let types = fx.event_types(seq).await;
    assert_eq!(
        types[3..],
        [
            "DecisionTaskCompleted",
            "CancelTimerFailed",
            "MarkerRecorded",
            "DecisionTaskScheduled",
        ]
    );
    assert_consistent(&fx.events(seq).await);
}

#[tokio::test]
async fn a_started_task_timing_out_releases_the_scheduled_one_without_a_third() {
    let fx = Fixture::new().await;
    let (seq, task) = started_task(&fx).await;
    signals(&fx, seq, &["late"]).await;
    // The run's decision tasks time out 60 s after they start.
    assert_eq!(fx.advance(60_000).await, 1);
    let types = fx.event_types(seq).await;
    assert_eq!(
        types[3..],
        [
            "WorkflowExecutionSignaled",
            "DecisionTaskScheduled",
            "DecisionTaskTimedOut",
        ]
    );
    let timed_out = &fx.events(seq).await[5]["decisionTaskTimedOutEventAttributes"];
    assert_eq!(timed_out["scheduledEventId"], task.scheduled);
    assert_eq!(timed_out["startedEventId"], task.started);
    let next = claim_decision(&fx).await.expect("the held task");
    assert_eq!(next.scheduled, 5);
    assert_consistent(&fx.events(seq).await);
}

#[tokio::test]
async fn an_event_is_never_stamped_before_the_one_before_it() {
    let fx = Fixture::new().await;
    let seq = fx
        .change(|eng| Ok(start_run(eng, new_run(), None)?.seq))
        .await;
    let started_at = fx.run(seq).await.unwrap().started_at;
    // Another node's clock, or a time read before waiting for the run's lock: behind.
    fx.clock.advance(-5_000);
    signals(&fx, seq, &["s1"]).await;
    fx.change(move |eng| {
        let mut run = reload(eng, seq)?;
        terminate(eng, &mut run, None, None, None, None)
    })
    .await;

    let events = fx.events(seq).await;
    assert_consistent(&events);
    let at = started_at.as_millis() as f64 / 1000.0;
    for event in &events[2..] {
        assert_eq!(event["eventTimestamp"], at, "{event}");
    }
    let closed = fx.run(seq).await.unwrap().closed.expect("closed");
    assert_eq!(closed.at, started_at);
}
