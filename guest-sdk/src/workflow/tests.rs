//! The workflow runtime against histories that `HistoryBuilder` records as SWF would.

use std::time::Duration;

use super::*;
use crate::IntoResult;
use crate::decisions::Decision as D;
use crate::events::EventAttributes as E;
use crate::testing::HistoryBuilder;

/// Runs `workflow` on the builder's next decision task and records what it decides.
fn decide<Fut, R>(h: &mut HistoryBuilder, workflow: impl FnOnce(Workflow) -> Fut) -> Vec<Decision>
where
    Fut: Future<Output = Result<R, Error>>,
    R: IntoResult,
{
    h.decide(|history| run(history, workflow))
        .expect("no nondeterminism")
}

/// The ids and types of what `decisions` schedule or start, and the close, in short.
fn names(decisions: &[Decision]) -> Vec<String> {
    decisions
        .iter()
        .map(|d| match d {
            D::ScheduleActivityTask(a) => format!("activity {}", a.activity_id),
            D::StartTimer(a) => format!("timer {} {}s", a.timer_id, a.start_to_fire_timeout),
            D::CancelTimer(a) => format!("cancel timer {}", a.timer_id),
            D::CompleteWorkflowExecution(a) => format!("complete {:?}", a.result),
            D::FailWorkflowExecution(a) => format!("fail {:?} {:?}", a.reason, a.details),
            D::CancelWorkflowExecution(a) => format!("cancel {:?}", a.details),
            D::RecordMarker(a) => format!("marker {} {:?}", a.marker_name, a.details),
            D::ScheduleLambdaFunction(a) => format!("lambda {} {}", a.id, a.name),
            D::StartChildWorkflowExecution(a) => format!("child {}", a.workflow_id),
            D::SignalExternalWorkflowExecution(a) => format!("signal {}", a.workflow_id),
            D::RequestCancelExternalWorkflowExecution(a) => format!("cancel {}", a.workflow_id),
            D::ContinueAsNewWorkflowExecution(a) => format!("continue {:?}", a.input),
            D::RequestCancelActivityTask(a) => format!("cancel activity {}", a.activity_id),
        })
        .collect()
}

async fn greet(workflow: Workflow) -> Result<Option<String>, Error> {
    let name = workflow.input().unwrap_or_else(|| "world".into());
    let greeting = workflow.activity("Greet", "1.0").input(name).await?;
    workflow.sleep(Duration::from_secs(1)).await?;
    Ok(greeting)
}

#[test]
fn a_workflow_runs_an_activity_then_a_timer_then_completes_with_the_result() {
    let mut h = HistoryBuilder::new("Hello", "1.0", Some("Ada"));
    let first = decide(&mut h, greet);
    assert_eq!(names(&first), ["activity Greet-1"]);
    let D::ScheduleActivityTask(scheduled) = &first[0] else {
        unreachable!()
    };
    assert_eq!(scheduled.input.as_deref(), Some("Ada"));
    h.activity_completed("Greet-1", Some("Hello, Ada!"));
    assert_eq!(names(&decide(&mut h, greet)), ["timer timer-1 1s"]);
    h.timer_fired("timer-1");
    assert_eq!(
        names(&decide(&mut h, greet)),
        [r#"complete Some("Hello, Ada!")"#]
    );
}

#[test]
fn a_task_with_nothing_new_decides_nothing() {
    let mut h = HistoryBuilder::new("Hello", "1.0", None);
    decide(&mut h, greet);
    h.signal("unrelated", None);
    assert_eq!(decide(&mut h, greet), vec![]);
}

async fn charge_or_refund(workflow: Workflow) -> Result<Option<String>, Error> {
    workflow.activity("Reserve", "1.0").await?;
    match workflow.activity("Charge", "1.0").await {
        Ok(receipt) => Ok(receipt),
        Err(error) => {
            workflow.activity("Release", "1.0").await?;
            Err(error)
        }
    }
}

#[test]
fn an_activity_failure_is_an_error_at_its_await_and_can_be_compensated() {
    let mut h = HistoryBuilder::new("Order", "1.0", None);
    decide(&mut h, charge_or_refund);
    h.activity_completed("Reserve-1", None);
    assert_eq!(
        names(&decide(&mut h, charge_or_refund)),
        ["activity Charge-2"]
    );
    h.activity_failed("Charge-2", Some("card declined"), Some("ending 0000"));
    assert_eq!(
        names(&decide(&mut h, charge_or_refund)),
        ["activity Release-3"]
    );
    h.activity_completed("Release-3", None);
    assert_eq!(
        names(&decide(&mut h, charge_or_refund)),
        [r#"fail Some("card declined") Some("ending 0000")"#]
    );
}

async fn flaky(workflow: Workflow) -> Result<Option<String>, Error> {
    let policy = RetryPolicy::attempts(5).initial_interval(Duration::from_secs(2));
    workflow.activity("Flaky", "1.0").retry(policy).await
}

#[test]
fn a_retry_policy_retries_with_backoff_timers_until_an_attempt_succeeds() {
    let mut h = HistoryBuilder::new("Retry", "1.0", None);
    assert_eq!(names(&decide(&mut h, flaky)), ["activity Flaky-1"]);
    h.activity_failed("Flaky-1", Some("busy"), None);
    assert_eq!(names(&decide(&mut h, flaky)), ["timer timer-1 2s"]);
    h.timer_fired("timer-1");
    assert_eq!(names(&decide(&mut h, flaky)), ["activity Flaky-2"]);
    h.activity_timed_out(
        "Flaky-2",
        crate::types::ActivityTaskTimeoutType::StartToClose,
    );
    assert_eq!(names(&decide(&mut h, flaky)), ["timer timer-2 4s"]);
    h.timer_fired("timer-2");
    assert_eq!(names(&decide(&mut h, flaky)), ["activity Flaky-3"]);
    h.activity_completed("Flaky-3", Some("done"));
    assert_eq!(names(&decide(&mut h, flaky)), [r#"complete Some("done")"#]);

    let count = |f: fn(&E) -> bool| h.events().iter().filter(|e| f(&e.attributes)).count();
    assert_eq!(count(|e| matches!(e, E::ActivityTaskScheduled(_))), 3);
    assert_eq!(count(|e| matches!(e, E::TimerStarted(_))), 2);
}

#[test]
fn a_retry_policy_stops_at_a_non_retryable_reason() {
    async fn strict(workflow: Workflow) -> Result<Option<String>, Error> {
        let policy = RetryPolicy::attempts(0).non_retryable(["card declined"]);
        workflow.activity("Charge", "1.0").retry(policy).await
    }
    let mut h = HistoryBuilder::new("Retry", "1.0", None);
    decide(&mut h, strict);
    h.activity_failed("Charge-1", Some("card declined"), None);
    assert_eq!(
        names(&decide(&mut h, strict)),
        [r#"fail Some("card declined") None"#]
    );
}

async fn cancellable(workflow: Workflow) -> Result<Option<String>, Error> {
    let work = workflow.activity("Work", "1.0");
    match select(work, workflow.cancellation()).await {
        Either::Left(result) => result,
        Either::Right(()) => {
            workflow.activity("Cleanup", "1.0").await?;
            Err(Error::canceled().with_details("cleaned up"))
        }
    }
}

#[test]
fn a_cancel_request_reaches_the_code_which_cleans_up_and_closes_canceled() {
    let mut h = HistoryBuilder::new("Job", "1.0", None);
    assert_eq!(names(&decide(&mut h, cancellable)), ["activity Work-1"]);
    h.cancel_requested();
    assert_eq!(names(&decide(&mut h, cancellable)), ["activity Cleanup-2"]);
    h.activity_completed("Cleanup-2", None);
    assert_eq!(
        names(&decide(&mut h, cancellable)),
        [r#"cancel Some("cleaned up")"#]
    );
}

async fn before_change(workflow: Workflow) -> Result<Option<String>, Error> {
    workflow.activity("Charge", "1.0").await?;
    workflow.activity("Ship", "1.0").await
}

async fn after_change(workflow: Workflow) -> Result<Option<String>, Error> {
    workflow.activity("Charge", "1.0").await?;
    if workflow.patched("fraud-check") {
        workflow.activity("CheckFraud", "1.0").await?;
    }
    workflow.activity("Ship", "1.0").await
}

#[test]
fn patched_takes_the_old_branch_on_an_old_history_and_the_new_one_on_a_fresh_run() {
    // A run that passed the change's point under the old code keeps the old path.
    let mut old = HistoryBuilder::new("Order", "1.0", None);
    decide(&mut old, before_change);
    old.activity_completed("Charge-1", None);
    assert_eq!(names(&decide(&mut old, before_change)), ["activity Ship-2"]);
    old.activity_completed("Ship-2", Some("shipped"));
    assert_eq!(
        names(&decide(&mut old, after_change)),
        [r#"complete Some("shipped")"#]
    );

    // A fresh run takes the new one, and records that it did.
    let mut fresh = HistoryBuilder::new("Order", "1.0", None);
    decide(&mut fresh, after_change);
    fresh.activity_completed("Charge-1", None);
    assert_eq!(
        names(&decide(&mut fresh, after_change)),
        [
            r#"marker weft-patch Some("fraud-check")"#,
            "activity CheckFraud-2"
        ]
    );
    fresh.activity_completed("CheckFraud-2", None);
    assert_eq!(
        names(&decide(&mut fresh, after_change)),
        ["activity Ship-3"]
    );

    // Once the old code is gone, deprecate_patch accepts both kinds of history.
    async fn deprecated(workflow: Workflow) -> Result<Option<String>, Error> {
        workflow.activity("Charge", "1.0").await?;
        workflow.deprecate_patch("fraud-check");
        workflow.activity("CheckFraud", "1.0").await?;
        workflow.activity("Ship", "1.0").await
    }
    fresh.activity_completed("Ship-3", Some("shipped"));
    assert_eq!(
        names(&decide(&mut fresh, deprecated)),
        [r#"complete Some("shipped")"#]
    );
}

#[test]
fn swapping_two_activities_is_a_nondeterminism_naming_both() {
    async fn swapped(workflow: Workflow) -> Result<Option<String>, Error> {
        workflow.activity("Ship", "1.0").await?;
        workflow.activity("Charge", "1.0").await
    }
    let mut h = HistoryBuilder::new("Order", "1.0", None);
    decide(&mut h, before_change);
    h.activity_completed("Charge-1", None);
    let error = h
        .decide(|history| run(history, swapped))
        .expect_err("the history has Charge first");
    assert!(error.starts_with("nondeterminism at event 5"), "{error}");
    assert!(
        error.contains(r#"ScheduleActivityTask "Charge-1" (Charge 1.0)"#),
        "{error}"
    );
    assert!(
        error.contains(r#"ScheduleActivityTask "Ship-1" (Ship 1.0)"#),
        "{error}"
    );
}

#[test]
fn an_activity_the_code_no_longer_decides_is_a_nondeterminism() {
    async fn nothing(_: Workflow) -> Result<Option<String>, Error> {
        std::future::pending().await
    }
    let mut h = HistoryBuilder::new("Order", "1.0", None);
    decide(&mut h, before_change);
    let error = h
        .decide(|history| run(history, nothing))
        .expect_err("Charge");
    assert!(error.contains("no longer decides"), "{error}");
}

#[test]
fn a_changed_timer_duration_or_input_replays_as_before() {
    async fn longer(workflow: Workflow) -> Result<Option<String>, Error> {
        workflow
            .activity("Greet", "1.0")
            .input("someone else")
            .await?;
        workflow.sleep(Duration::from_secs(60)).await?;
        Ok(None)
    }
    let mut h = HistoryBuilder::new("Hello", "1.0", None);
    decide(&mut h, greet);
    h.activity_completed("Greet-1", None);
    decide(&mut h, greet);
    h.timer_fired("timer-1");
    assert_eq!(names(&decide(&mut h, longer)), ["complete None"]);
}

async fn race(workflow: Workflow) -> Result<Option<String>, Error> {
    let a = workflow.activity("A", "1.0");
    let b = workflow.activity("B", "1.0");
    let winner = match select(a, b).await {
        Either::Left(result) => format!("A {}", result?.unwrap_or_default()),
        Either::Right(result) => format!("B {}", result?.unwrap_or_default()),
    };
    workflow.sleep(Duration::from_secs(1)).await?;
    Ok(Some(winner))
}

#[test]
fn select_takes_what_its_task_saw_first_and_of_two_at_once_the_first_given() {
    // B finished first, alone before a task: B wins, and keeps winning on replay once A has
    // finished too.
    let mut h = HistoryBuilder::new("Race", "1.0", None);
    assert_eq!(
        names(&decide(&mut h, race)),
        ["activity A-1", "activity B-2"]
    );
    h.activity_completed("B-2", Some("b"));
    assert_eq!(names(&decide(&mut h, race)), ["timer timer-1 1s"]);
    h.activity_completed("A-1", Some("a"));
    h.timer_fired("timer-1");
    assert_eq!(names(&decide(&mut h, race)), [r#"complete Some("B b")"#]);

    // Both finished before the next task: the first given wins, whichever finished first.
    for (first, second, winner) in [("A-1", "B-2", "A a"), ("B-2", "A-1", "A a")] {
        let mut h = HistoryBuilder::new("Race", "1.0", None);
        decide(&mut h, race);
        h.activity_completed(first, Some(&first[..1].to_lowercase()));
        h.activity_completed(second, Some(&second[..1].to_lowercase()));
        decide(&mut h, race);
        h.timer_fired("timer-1");
        let done = format!("complete Some({winner:?})");
        assert_eq!(names(&decide(&mut h, race)), [done]);
    }
}

#[test]
fn join_all_waits_for_every_outcome_in_the_order_given() {
    async fn fan_out(workflow: Workflow) -> Result<Option<String>, Error> {
        let parts = ["x", "y", "z"].map(|part| workflow.activity("Part", "1.0").input(part));
        let results: Result<Vec<_>, Error> = join_all(parts).await.into_iter().collect();
        Ok(Some(
            results?.into_iter().flatten().collect::<Vec<_>>().join(","),
        ))
    }
    let mut h = HistoryBuilder::new("Fan", "1.0", None);
    let first = decide(&mut h, fan_out);
    assert_eq!(
        names(&first),
        ["activity Part-1", "activity Part-2", "activity Part-3"]
    );
    h.activity_completed("Part-3", Some("Z"));
    h.activity_completed("Part-1", Some("X"));
    assert_eq!(decide(&mut h, fan_out), vec![]);
    h.activity_completed("Part-2", Some("Y"));
    assert_eq!(
        names(&decide(&mut h, fan_out)),
        [r#"complete Some("X,Y,Z")"#]
    );
}

#[test]
fn an_error_says_how_it_ended_in_every_sdks_words() {
    async fn ends(workflow: Workflow) -> Result<Option<String>, Error> {
        let parts = [(); 5].map(|()| workflow.activity("Part", "1.0"));
        let ends = join_all(parts).await.into_iter().map(|end| match end {
            Ok(result) => result.unwrap_or_default(),
            Err(error) => error.to_string(),
        });
        Ok(Some(ends.collect::<Vec<_>>().join(" | ")))
    }
    let mut h = HistoryBuilder::new("Ends", "1.0", None);
    decide(&mut h, ends);
    h.activity_failed("Part-1", Some("card declined"), Some("ending 0000"));
    h.activity_failed("Part-2", None, None);
    h.activity_timed_out("Part-3", crate::types::ActivityTaskTimeoutType::Heartbeat);
    h.activity_canceled("Part-4", Some("not needed"));
    h.activity_completed("Part-5", Some("done"));
    assert_eq!(
        names(&decide(&mut h, ends)),
        [concat!(
            r#"complete Some("card declined: ending 0000 | failed | timed out (HEARTBEAT)"#,
            r#" | canceled | done")"#
        )]
    );
    let refused = Error::of(
        ErrorKind::NotStarted,
        Some("ACTIVITY_TYPE_DEPRECATED"),
        None,
    );
    assert_eq!(
        refused.to_string(),
        "could not be scheduled (ACTIVITY_TYPE_DEPRECATED)"
    );
}

async fn approval(workflow: Workflow) -> Result<Option<String>, Error> {
    match select(
        workflow.signal("approve"),
        workflow.sleep(Duration::from_secs(3600)),
    )
    .await
    {
        Either::Left(by) => Ok(by),
        Either::Right(_) => Err(Error::failed("not approved in time")),
    }
}

#[test]
fn a_signal_is_awaited_by_name_with_a_timer_as_its_timeout() {
    let mut h = HistoryBuilder::new("Approval", "1.0", None);
    assert_eq!(names(&decide(&mut h, approval)), ["timer timer-1 3600s"]);
    h.signal("approve", Some("ada"));
    assert_eq!(
        names(&decide(&mut h, approval)),
        [r#"complete Some("ada")"#]
    );

    let mut h = HistoryBuilder::new("Approval", "1.0", None);
    decide(&mut h, approval);
    h.timer_fired("timer-1");
    assert_eq!(
        names(&decide(&mut h, approval)),
        [r#"fail Some("not approved in time") None"#]
    );
}

#[test]
fn a_timer_is_cancelled_once_it_lost_its_race() {
    async fn reminder(workflow: Workflow) -> Result<Option<String>, Error> {
        let mut timer = workflow.sleep(Duration::from_secs(60));
        let done = workflow.signal("done");
        match select(done, &mut timer).await {
            Either::Left(_) => timer.cancel(),
            Either::Right(_) => return Ok(Some("reminded".into())),
        }
        std::future::pending().await
    }
    let mut h = HistoryBuilder::new("Reminder", "1.0", None);
    decide(&mut h, reminder);
    h.signal("done", None);
    assert_eq!(names(&decide(&mut h, reminder)), ["cancel timer timer-1"]);
    assert_eq!(decide(&mut h, reminder), vec![]);
}

#[test]
fn children_functions_signals_cancel_requests_and_markers_are_issued_and_awaited() {
    async fn everything(workflow: Workflow) -> Result<Option<String>, Error> {
        workflow.record_marker("began", Some("1".into()));
        let price = workflow.lambda("price").input("sku-1").await?;
        let child = workflow.child("Ship", "1.0").start().await?;
        workflow
            .signal_external(&child.execution().workflow_id, "hurry")
            .await?;
        let shipped = child.result().await?;
        workflow.request_cancel_external("other").await?;
        Ok(Some(format!(
            "{} {}",
            price.unwrap_or_default(),
            shipped.unwrap_or_default()
        )))
    }
    let mut h = HistoryBuilder::new("All", "1.0", None);
    h.execution("parent", "run-1");
    assert_eq!(
        names(&decide(&mut h, everything)),
        [r#"marker began Some("1")"#, "lambda price-1 price"]
    );
    h.lambda_completed("price-1", Some("9.99"));
    assert_eq!(names(&decide(&mut h, everything)), ["child parent-Ship-1"]);
    h.child_started("parent-Ship-1");
    assert_eq!(names(&decide(&mut h, everything)), ["signal parent-Ship-1"]);
    let initiated = last_event(&h, |e| {
        matches!(e, E::SignalExternalWorkflowExecutionInitiated(_))
    });
    h.event(E::ExternalWorkflowExecutionSignaled(
        crate::events::ExternalWorkflowExecutionSignaledEventAttributes {
            workflow_execution: child_run("parent-Ship-1"),
            initiated_event_id: initiated,
        },
    ));
    h.child_completed("parent-Ship-1", Some("shipped"));
    assert_eq!(names(&decide(&mut h, everything)), ["cancel other"]);
    let initiated = last_event(&h, |e| {
        matches!(e, E::RequestCancelExternalWorkflowExecutionInitiated(_))
    });
    h.event(E::ExternalWorkflowExecutionCancelRequested(
        crate::events::ExternalWorkflowExecutionCancelRequestedEventAttributes {
            workflow_execution: child_run("other"),
            initiated_event_id: initiated,
        },
    ));
    assert_eq!(
        names(&decide(&mut h, everything)),
        [r#"complete Some("9.99 shipped")"#]
    );
}

/// The id of the last event of the builder's history that `is` picks.
fn last_event(h: &HistoryBuilder, is: fn(&E) -> bool) -> u64 {
    let event = h.events().iter().rev().find(|e| is(&e.attributes));
    event.expect("recorded").event_id
}

fn child_run(workflow_id: &str) -> crate::types::WorkflowExecution {
    crate::types::WorkflowExecution {
        workflow_id: workflow_id.into(),
        run_id: "child-run".into(),
    }
}

#[test]
fn returning_continue_as_new_continues_the_run() {
    async fn again(workflow: Workflow) -> Result<(), Error> {
        Err(workflow.continue_as_new(Decision::continue_as_new().input("next")))
    }
    let mut h = HistoryBuilder::new("Loop", "1.0", None);
    assert_eq!(names(&decide(&mut h, again)), [r#"continue Some("next")"#]);
}

#[test]
fn a_close_refused_for_new_events_is_made_again_at_the_next_task() {
    async fn quick(_: Workflow) -> Result<String, Error> {
        Ok("done".into())
    }
    let mut h = HistoryBuilder::new("Quick", "1.0", None);
    let history = h.decision_task();
    h.signal("late", None);
    let first = run(&history, quick).expect("decides").decisions;
    h.respond(&first);
    assert!(matches!(
        h.events().last().map(|e| &e.attributes),
        Some(E::CompleteWorkflowExecutionFailed(_))
    ));
    assert_eq!(names(&decide(&mut h, quick)), [r#"complete Some("done")"#]);
}

#[test]
fn now_and_random_are_the_same_on_every_replay() {
    async fn stamp(workflow: Workflow) -> Result<String, Error> {
        let first = (workflow.now(), workflow.random());
        workflow.sleep(Duration::from_secs(5)).await?;
        let second = (workflow.now(), workflow.random());
        Ok(format!("{first:?} {second:?}"))
    }
    let mut h = HistoryBuilder::new("Stamp", "1.0", None);
    decide(&mut h, stamp);
    h.advance(5.0);
    h.timer_fired("timer-1");
    let history = h.decision_task();
    let once = run(&history, stamp).expect("decides");
    let twice = run(&history, stamp).expect("decides");
    assert_eq!(once, twice);
    let D::CompleteWorkflowExecution(done) = &once.decisions[0] else {
        panic!("{once:?}")
    };
    let result = done.result.as_deref().unwrap_or_default();
    let times: Vec<&str> = result.matches("tv_sec: ").collect();
    assert_eq!(times.len(), 2, "{result}");
    assert_ne!(
        result.split(") ").next(),
        result.split(") ").nth(1),
        "time moved on"
    );
}

#[test]
fn random_draws_the_sequence_every_sdk_draws_for_the_run() {
    async fn draw(workflow: Workflow) -> Result<String, Error> {
        Ok(format!("{} {}", workflow.random(), workflow.random()))
    }
    let mut h = HistoryBuilder::new("Draw", "1.0", None);
    let answer = run(&h.decision_task(), draw).expect("decides");
    // The Python and JavaScript SDKs' tests pin the same numbers for run-1.
    assert_eq!(
        names(&answer.decisions),
        [r#"complete Some("16238719912012046523 1765330518796435643")"#]
    );
}
