//! The testing Environment's world: cancel requests and termination at chosen times, and slow
//! activities the workflow cancels.

use std::future::IntoFuture as _;
use std::time::Duration;

use crate::Failure;
use crate::decisions::Decision;
use crate::testing::Environment;
use crate::workflow::{self, Either, Error, ErrorKind, RetryPolicy, Workflow, select};

const HOUR: Duration = Duration::from_secs(3600);

/// Works for an hour unless asked to cancel, then cleans up and closes canceled.
async fn cancellable(wf: Workflow) -> Result<Option<String>, Error> {
    match select(wf.activity("Work", "1.0"), wf.cancellation()).await {
        Either::Left(result) => result,
        Either::Right(()) => {
            wf.activity("Cleanup", "1.0").await?;
            Err(Error::canceled().with_details("cleaned up"))
        }
    }
}

fn slow_work() -> Environment {
    Environment::new("Job", "1.0", None)
        .activity_taking("Work", HOUR, |_| Ok(Some("worked".into())))
        .activity("Cleanup", |_| Ok(None))
}

#[test]
fn a_cancel_request_at_a_chosen_time_reaches_the_workflow_which_compensates() {
    let run = slow_work()
        .cancel_request(Duration::from_secs(60))
        .run(|h| workflow::run(h, cancellable));
    let Some(Decision::CancelWorkflowExecution(canceled)) = &run.close else {
        panic!("{:?}", run.close)
    };
    assert_eq!(canceled.details.as_deref(), Some("cleaned up"));
    assert_eq!(run.events("ActivityTaskCompleted").len(), 1, "only Cleanup");
    assert!(run.elapsed() < HOUR, "{:?}", run.elapsed());

    let uncanceled = slow_work().run(|h| workflow::run(h, cancellable));
    assert_eq!(uncanceled.result(), Some("worked"));
}

#[test]
fn a_termination_at_a_chosen_time_ends_the_run_there() {
    let run = slow_work()
        .terminate(Duration::from_secs(600), Some("enough"))
        .run(|h| workflow::run(h, cancellable));
    assert!(run.terminated() && run.close.is_none(), "{:?}", run.close);
    assert_eq!(run.events("ActivityTaskCompleted").len(), 0);
    let late = slow_work()
        .terminate(2 * HOUR, None)
        .run(|h| workflow::run(h, cancellable));
    assert!(!late.terminated());
    assert_eq!(late.result(), Some("worked"));
}

/// Runs Work; on signal "stop" cancels it and undoes it if it ended canceled.
async fn stoppable(wf: Workflow) -> Result<Option<String>, Error> {
    let mut work = wf.activity("Work", "1.0").id("work").into_future();
    let ended = match select(&mut work, wf.signal("stop")).await {
        Either::Left(ended) => ended,
        Either::Right(_) => {
            work.cancel();
            work.await
        }
    };
    match ended {
        Err(e) if e.kind() == ErrorKind::Canceled => {
            wf.activity("Undo", "1.0").await?;
            Ok(Some("undone".into()))
        }
        ended => ended,
    }
}

#[test]
fn a_slow_activity_the_workflow_cancels_ends_canceled_unless_its_worker_ignores_it() {
    let stopped = || {
        slow_work()
            .activity("Undo", |_| Ok(None))
            .signal(Duration::from_secs(60), "stop", None)
    };
    let run = stopped().run(|h| workflow::run(h, stoppable));
    assert_eq!(run.result(), Some("undone"));
    assert_eq!(run.events("ActivityTaskCancelRequested").len(), 1);
    assert_eq!(run.events("ActivityTaskCanceled").len(), 1);

    let run = stopped()
        .ignoring_cancel("Work")
        .run(|h| workflow::run(h, stoppable));
    assert_eq!(run.result(), Some("worked"));
    assert_eq!(run.events("ActivityTaskCanceled").len(), 0);
}

/// Charges with retries a minute apart; cancels the charge on signal "stop".
async fn charge(wf: Workflow) -> Result<Option<String>, Error> {
    let policy = RetryPolicy::attempts(5).initial_interval(Duration::from_secs(60));
    let mut charge = wf
        .activity("Charge", "1.0")
        .id("charge")
        .retry(policy)
        .into_future();
    if let Either::Left(ended) = select(&mut charge, wf.signal("stop")).await {
        return ended;
    }
    charge.cancel();
    match charge.await {
        Err(e) if e.kind() == ErrorKind::Canceled => Ok(Some("canceled".into())),
        ended => ended,
    }
}

#[test]
fn a_retried_activity_canceled_while_it_waits_to_retry_ends_canceled_without_another_attempt() {
    let declined = || Err(Failure::new("declined"));
    let run = Environment::new("Pay", "1.0", None)
        .activity("Charge", move |_| declined())
        .signal(Duration::from_secs(30), "stop", None)
        .run(|h| workflow::run(h, charge));
    assert_eq!(run.result(), Some("canceled"));
    assert_eq!(run.events("ActivityTaskScheduled").len(), 1);
    assert_eq!(run.events("TimerCanceled").len(), 1);

    let unstopped = Environment::new("Pay", "1.0", None)
        .activity("Charge", move |_| declined())
        .run(|h| workflow::run(h, charge));
    assert_eq!(unstopped.events("ActivityTaskScheduled").len(), 5);
}
