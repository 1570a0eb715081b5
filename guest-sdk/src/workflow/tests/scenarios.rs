//! The workflows the shared scenarios name (`guest-sdk/workflows.json`), each under its name in
//! [`registry`].

use std::time::{Duration, UNIX_EPOCH};

use super::super::{Either, Error, ErrorKind, RetryPolicy, Workflow, join, join_all, run, select};
use crate::{Decision, History, Response};

async fn greet(workflow: Workflow) -> Result<Option<String>, Error> {
    let name = workflow.input().unwrap_or_else(|| "world".into());
    let greeting = workflow.activity("Greet", "1.0").input(name).await?;
    workflow.sleep(Duration::from_secs(1)).await?;
    Ok(greeting)
}

async fn longer(workflow: Workflow) -> Result<Option<String>, Error> {
    workflow
        .activity("Greet", "1.0")
        .input("someone else")
        .await?;
    workflow.sleep(Duration::from_secs(60)).await?;
    Ok(None)
}

async fn charge_or_release(workflow: Workflow) -> Result<Option<String>, Error> {
    workflow.activity("Reserve", "1.0").await?;
    match workflow.activity("Charge", "1.0").await {
        Ok(receipt) => Ok(receipt),
        Err(error) => {
            workflow.activity("Release", "1.0").await?;
            Err(error)
        }
    }
}

async fn flaky(workflow: Workflow) -> Result<Option<String>, Error> {
    let policy = RetryPolicy::attempts(5).initial_interval(Duration::from_secs(2));
    workflow.activity("Flaky", "1.0").retry(policy).await
}

async fn strict(workflow: Workflow) -> Result<Option<String>, Error> {
    let policy = RetryPolicy::attempts(0).non_retryable(["card declined"]);
    workflow.activity("Charge", "1.0").retry(policy).await
}

async fn backoff(workflow: Workflow) -> Result<Option<String>, Error> {
    let policy = RetryPolicy::attempts(4)
        .initial_interval(Duration::from_secs(2))
        .backoff(1.5)
        .maximum_interval(Duration::from_secs(4));
    workflow
        .activity("Charge", "1.0")
        .id("charge")
        .retry(policy)
        .await
}

async fn hurried_retry(workflow: Workflow) -> Result<Option<String>, Error> {
    let policy = RetryPolicy::attempts(2).initial_interval(Duration::from_secs(60));
    let charge = workflow.activity("Charge", "1.0").retry(policy);
    let hurry = async {
        workflow.signal("hurry").await;
        workflow.cancel_timer("timer-1");
    };
    join(charge, hurry).await.0
}

async fn uncaught(workflow: Workflow) -> Result<Option<String>, Error> {
    workflow.activity("Part", "1.0").await?;
    workflow.child("Item", "1.0").await
}

async fn cancellable(workflow: Workflow) -> Result<Option<String>, Error> {
    match select(workflow.activity("Work", "1.0"), workflow.cancellation()).await {
        Either::Left(result) => result,
        Either::Right(()) => {
            workflow.activity("Cleanup", "1.0").await?;
            Err(Error::canceled().with_details("cleaned up"))
        }
    }
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

async fn deprecated(workflow: Workflow) -> Result<Option<String>, Error> {
    workflow.activity("Charge", "1.0").await?;
    workflow.deprecate_patch("fraud-check");
    workflow.activity("CheckFraud", "1.0").await?;
    workflow.activity("Ship", "1.0").await
}

async fn swapped(workflow: Workflow) -> Result<Option<String>, Error> {
    workflow.activity("Ship", "1.0").await?;
    workflow.activity("Charge", "1.0").await
}

async fn quoted(workflow: Workflow) -> Result<Option<String>, Error> {
    workflow.activity("Charge", "1.0").id(r#"say "hi""#).await
}

async fn nothing(_: Workflow) -> Result<Option<String>, Error> {
    std::future::pending().await
}

async fn both_at_once(workflow: Workflow) -> Result<Option<String>, Error> {
    let charge = workflow.activity("Charge", "1.0");
    let (charged, shipped) = join(charge, workflow.activity("Ship", "1.0")).await;
    charged?;
    shipped
}

async fn race(workflow: Workflow) -> Result<Option<String>, Error> {
    let winner = match select(workflow.activity("A", "1.0"), workflow.activity("B", "1.0")).await {
        Either::Left(result) => format!("A {}", result?.unwrap_or_default()),
        Either::Right(result) => format!("B {}", result?.unwrap_or_default()),
    };
    workflow.sleep(Duration::from_secs(1)).await?;
    Ok(Some(winner))
}

async fn fan_out(workflow: Workflow) -> Result<Option<String>, Error> {
    let parts = ["x", "y", "z"].map(|part| workflow.activity("Part", "1.0").input(part));
    let results: Result<Vec<_>, Error> = join_all(parts).await.into_iter().collect();
    Ok(Some(
        results?.into_iter().flatten().collect::<Vec<_>>().join(","),
    ))
}

/// Each outcome in words: a result as it is, an error as it displays.
fn in_words(ends: impl IntoIterator<Item = Result<Option<String>, Error>>) -> String {
    let words = ends.into_iter().map(|end| match end {
        Ok(result) => result.unwrap_or_default(),
        Err(error) => error.to_string(),
    });
    words.collect::<Vec<_>>().join(" | ")
}

async fn activity_ends(workflow: Workflow) -> Result<Option<String>, Error> {
    let parts = join_all([(); 5].map(|()| workflow.activity("Part", "1.0")));
    let (parts, child) = join(parts, workflow.child("Nope", "1.0").id("nope")).await;
    Ok(Some(in_words(parts.into_iter().chain([child]))))
}

async fn child_and_function_ends(workflow: Workflow) -> Result<Option<String>, Error> {
    let children = join_all([(); 4].map(|()| workflow.child("Item", "1.0")));
    let functions = join_all([(); 2].map(|()| workflow.lambda("price")));
    let (children, functions) = join(children, functions).await;
    Ok(Some(in_words(children.into_iter().chain(functions))))
}

async fn approval(workflow: Workflow) -> Result<Option<String>, Error> {
    let timeout = workflow.sleep(Duration::from_secs(3600));
    match select(workflow.signal("approve"), timeout).await {
        Either::Left(by) => Ok(by),
        Either::Right(_) => Err(Error::failed("not approved in time")),
    }
}

async fn two_signals(workflow: Workflow) -> Result<Option<String>, Error> {
    let first = workflow.signal("step").await.unwrap_or_default();
    let second = workflow.signal("step").await.unwrap_or_default();
    Ok(Some(format!("{first} {second}")))
}

async fn half(workflow: Workflow) -> Result<Option<String>, Error> {
    workflow.sleep(Duration::from_millis(1500)).await?;
    Ok(None)
}

async fn reminder(workflow: Workflow) -> Result<Option<String>, Error> {
    let mut timer = workflow.sleep(Duration::from_secs(60));
    match select(workflow.signal("done"), &mut timer).await {
        Either::Left(_) => timer.cancel(),
        Either::Right(_) => return Ok(Some("reminded".into())),
    }
    std::future::pending().await
}

async fn everything(workflow: Workflow) -> Result<Option<String>, Error> {
    workflow.record_marker("began", Some("1".into()));
    let price = workflow.lambda("price").input("sku-1").await?;
    let child = workflow.child("Ship", "1.0").start().await?;
    workflow
        .signal_external(&child.execution().workflow_id, "hurry")
        .await?;
    let shipped = child.result().await?;
    workflow.request_cancel_external("other").await?;
    let (price, shipped) = (price.unwrap_or_default(), shipped.unwrap_or_default());
    Ok(Some(format!("{price} {shipped}")))
}

async fn child_run(workflow: Workflow) -> Result<Option<String>, Error> {
    let run = workflow.child("Ship", "1.0").id("ship").start().await?;
    workflow.record_marker("child", Some(run.execution().run_id.clone()));
    run.result().await
}

async fn child_not_started(workflow: Workflow) -> Result<Option<String>, Error> {
    match workflow.child("Nope", "1.0").id("nope").start().await {
        Ok(_) => Ok(None),
        Err(error) => {
            let reason = error.reason().unwrap_or_default();
            Ok(Some(format!("{} {reason}", kind_in_words(error.kind()))))
        }
    }
}

async fn stoppable(workflow: Workflow) -> Result<Option<String>, Error> {
    let mut work = workflow.activity("Work", "1.0").id("work").into_future();
    let ended = match select(&mut work, workflow.signal("stop")).await {
        Either::Left(ended) => ended,
        Either::Right(_) => {
            workflow.cancel_activity("work");
            work.cancel();
            work.await
        }
    };
    match ended {
        Err(error) if error.kind() == ErrorKind::Canceled => {
            workflow.activity("Undo", "1.0").await?;
            Ok(Some("undone".into()))
        }
        ended => ended,
    }
}

async fn stoppable_child(workflow: Workflow) -> Result<Option<String>, Error> {
    let mut ship = workflow.child("Ship", "1.0").id("ship").into_future();
    match select(&mut ship, workflow.signal("stop")).await {
        Either::Left(ended) => ended,
        Either::Right(_) => {
            workflow.cancel_child("ship");
            match ship.await {
                Err(error) if error.kind() == ErrorKind::Canceled => Ok(Some("stopped".into())),
                ended => ended,
            }
        }
    }
}

/// An error's kind as the other SDKs name it: `NotStarted` is `not_started`.
fn kind_in_words(kind: ErrorKind) -> String {
    let mut words = String::new();
    for c in format!("{kind:?}").chars() {
        if c.is_ascii_uppercase() && !words.is_empty() {
            words.push('_');
        }
        words.push(c.to_ascii_lowercase());
    }
    words
}

async fn again(workflow: Workflow) -> Result<(), Error> {
    Err(workflow.continue_as_new(Decision::continue_as_new().input("next")))
}

async fn quick(_: Workflow) -> Result<String, Error> {
    Ok("done".into())
}

async fn stamp(workflow: Workflow) -> Result<String, Error> {
    let seconds = |w: &Workflow| {
        w.now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs()
    };
    let first = format!("{} {}", seconds(&workflow), workflow.random());
    workflow.sleep(Duration::from_secs(5)).await?;
    Ok(format!(
        "{first} {} {}",
        seconds(&workflow),
        workflow.random()
    ))
}

async fn draw(workflow: Workflow) -> Result<String, Error> {
    let [a, b, c] = [(); 3].map(|()| workflow.random());
    Ok(format!("{a} {b} {c}"))
}

/// A workflow run over a decision task, as the registry holds it.
pub(super) type Decider = fn(&History) -> Result<Response, String>;

/// Each workflow under its own name.
macro_rules! registry {
    ($($workflow:ident),* $(,)?) => {
        vec![$((stringify!($workflow), (|history: &History| run(history, $workflow)) as Decider)),*]
    };
}

pub(super) fn registry() -> Vec<(&'static str, Decider)> {
    registry![
        greet,
        longer,
        charge_or_release,
        flaky,
        strict,
        backoff,
        hurried_retry,
        uncaught,
        cancellable,
        before_change,
        after_change,
        deprecated,
        swapped,
        quoted,
        nothing,
        both_at_once,
        race,
        fan_out,
        activity_ends,
        child_and_function_ends,
        approval,
        two_signals,
        half,
        reminder,
        everything,
        child_run,
        child_not_started,
        stoppable,
        stoppable_child,
        again,
        quick,
        stamp,
        draw,
    ]
}
