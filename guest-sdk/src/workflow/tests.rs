//! The workflow runtime against histories that `HistoryBuilder` records as SWF would: every
//! scenario of `guest-sdk/workflows.json`, which the Python and JavaScript SDKs' tests play too,
//! with the workflows it names written here.

use std::any::Any;
use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, UNIX_EPOCH};

use serde_json::{Value, json};

use super::{Either, Error, ErrorKind, RetryPolicy, Workflow, join, join_all, run, select};
use crate::events::EventAttributes as E;
use crate::history::SwfName;
use crate::testing::HistoryBuilder;
use crate::types::{ActivityTaskTimeoutType, StartChildWorkflowExecutionFailedCause as Cause};
use crate::{Decision, History, Response};

/// The scenarios every SDK's tests play.
const SCENARIOS: &str = include_str!("../../workflows.json");

// The workflows the scenarios name.

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
type Decider = fn(&History) -> Result<Response, String>;

/// Each workflow under its own name.
macro_rules! registry {
    ($($workflow:ident),* $(,)?) => {
        vec![$((stringify!($workflow), (|history: &History| run(history, $workflow)) as Decider)),*]
    };
}

fn registry() -> Vec<(&'static str, Decider)> {
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

// The runner.

#[test]
fn every_scenario_of_the_shared_file() {
    let file: Value = serde_json::from_str(SCENARIOS).expect("workflows.json is JSON");
    let scenarios = file["scenarios"]
        .as_array()
        .expect("workflows.json has scenarios");
    let registry = registry();
    let mut named = BTreeSet::new();
    let mut failures = Vec::new();
    for scenario in scenarios {
        named.extend(named_workflows(scenario));
        let name = scenario["name"]
            .as_str()
            .unwrap_or("a scenario without a name");
        match catch_unwind(AssertUnwindSafe(|| play(scenario, &registry))) {
            Ok(Ok(())) => {}
            Ok(Err(failure)) => failures.push(format!("{name}: {failure}")),
            Err(panic) => failures.push(format!("{name}: panicked: {}", panic_message(&*panic))),
        }
    }
    let names = registry.iter().map(|(name, _)| *name);
    let unnamed: Vec<_> = names.filter(|name| !named.contains(name)).collect();
    if !unnamed.is_empty() {
        failures.push(format!("workflows no scenario names: {unnamed:?}"));
    }
    assert!(
        failures.is_empty(),
        "of {} scenarios:\n{}",
        scenarios.len(),
        failures.join("\n")
    );
}

/// The workflows a scenario runs: its own, and those its steps decide `with`.
fn named_workflows(scenario: &Value) -> Vec<&str> {
    let steps = scenario["steps"].as_array().into_iter().flatten();
    let with = steps.filter_map(|step| step["with"].as_str());
    scenario["workflow"]
        .as_str()
        .into_iter()
        .chain(with)
        .collect()
}

fn play(scenario: &Value, registry: &[(&str, Decider)]) -> Result<(), String> {
    let missing: Vec<_> = named_workflows(scenario)
        .into_iter()
        .filter(|name| !registry.iter().any(|(n, _)| n == name))
        .collect();
    if !missing.is_empty() {
        return Err(format!("workflows missing from the registry: {missing:?}"));
    }
    let start = &scenario["start"];
    let (name, version) = (text(&start["workflow"][0])?, text(&start["workflow"][1])?);
    let mut h = HistoryBuilder::new(name, version, start["input"].as_str());
    if let Some(execution) = scenario.get("execution") {
        h.execution(text(&execution[0])?, text(&execution[1])?);
    }
    let workflow = text(&scenario["workflow"])?;
    let steps = scenario["steps"].as_array().ok_or("no steps")?;
    for (i, s) in steps.iter().enumerate() {
        step(&mut h, workflow, s, registry).map_err(|e| format!("step {}: {e}", i + 1))?;
    }
    Ok(())
}

fn step(
    h: &mut HistoryBuilder,
    workflow: &str,
    step: &Value,
    registry: &[(&str, Decider)],
) -> Result<(), String> {
    let members = step.as_object().ok_or("a step is an object")?;
    if let Some(expected) = members.get("decide") {
        let workflow = members.get("with").map_or(Ok(workflow), text)?;
        let decider = registry
            .iter()
            .find(|(n, _)| *n == workflow)
            .map(|(_, d)| d);
        let decider = decider.ok_or_else(|| format!("no workflow {workflow}"))?;
        let history = h.decision_task();
        let meanwhile = members.get("meanwhile").and_then(Value::as_array);
        for arriving in meanwhile.into_iter().flatten() {
            self::step(h, workflow, arriving, registry)?;
        }
        let once = decider(&history).map(|answer| answer.decisions);
        let twice = decider(&history).map(|answer| answer.decisions);
        if once != twice {
            return Err(format!("two replays of one task: {once:?} and {twice:?}"));
        }
        let answered = match &once {
            Ok(decisions) => json!(decisions.iter().map(short).collect::<Vec<_>>()),
            Err(message) => json!({ "nondeterminism": message }),
        };
        if &answered != expected {
            return Err(format!("decided {answered}, not {expected}"));
        }
        if let Ok(decisions) = once {
            h.respond(&decisions);
        }
    } else if let Some(expected) = members.get("count") {
        let names = expected.as_object().ok_or("count an object")?.keys();
        let counted = names.map(|name| {
            let events = h.events().iter();
            let n = events
                .filter(|e| event_type(&e.attributes) == *name)
                .count();
            (name.clone(), json!(n))
        });
        let counted = Value::Object(counted.collect());
        if &counted != expected {
            return Err(format!(
                "the history's events are {counted}, not {expected}"
            ));
        }
    } else {
        let mut calls = members.iter();
        let (Some((method, args)), None) = (calls.next(), calls.next()) else {
            return Err("a step is one builder call".into());
        };
        record(h, method, args.as_array().ok_or("arguments a list")?)?;
    }
    Ok(())
}

/// The builder method `method` called with `args`.
fn record(h: &mut HistoryBuilder, method: &str, args: &[Value]) -> Result<(), String> {
    match (method, args) {
        ("advance", [seconds]) => h.advance(seconds.as_f64().ok_or("seconds a number")?),
        ("signal", [name, input]) => h.signal(text(name)?, or_none(input)?),
        ("cancel_requested", []) => h.cancel_requested(),
        ("timer_fired", [id]) => h.timer_fired(text(id)?),
        ("activity_started", [id]) => h.activity_started(text(id)?),
        ("activity_completed", [id, result]) => h.activity_completed(text(id)?, or_none(result)?),
        ("activity_failed", [id, reason, details]) => {
            h.activity_failed(text(id)?, or_none(reason)?, or_none(details)?)
        }
        ("activity_timed_out", [id, timeout]) => {
            use ActivityTaskTimeoutType as T;
            let cases = [
                T::StartToClose,
                T::ScheduleToStart,
                T::ScheduleToClose,
                T::Heartbeat,
            ];
            h.activity_timed_out(text(id)?, swf_case(cases, timeout)?)
        }
        ("activity_canceled", [id, details]) => h.activity_canceled(text(id)?, or_none(details)?),
        ("child_started", [id]) => h.child_started(text(id)?),
        ("child_start_failed", [id, cause]) => {
            let cases = [
                Cause::WorkflowTypeDoesNotExist,
                Cause::WorkflowTypeDeprecated,
                Cause::WorkflowAlreadyRunning,
                Cause::OpenChildrenLimitExceeded,
                Cause::OperationNotPermitted,
            ];
            h.child_start_failed(text(id)?, swf_case(cases, cause)?)
        }
        ("child_completed", [id, result]) => h.child_completed(text(id)?, or_none(result)?),
        ("child_failed", [id, reason, details]) => {
            h.child_failed(text(id)?, or_none(reason)?, or_none(details)?)
        }
        ("child_timed_out", [id]) => h.child_timed_out(text(id)?),
        ("child_canceled", [id, details]) => h.child_canceled(text(id)?, or_none(details)?),
        ("child_terminated", [id]) => h.child_terminated(text(id)?),
        ("lambda_started", [id]) => h.lambda_started(text(id)?),
        ("lambda_completed", [id, result]) => h.lambda_completed(text(id)?, or_none(result)?),
        ("lambda_failed", [id, reason, details]) => {
            h.lambda_failed(text(id)?, or_none(reason)?, or_none(details)?)
        }
        ("lambda_timed_out", [id]) => h.lambda_timed_out(text(id)?),
        ("external_signaled", [id]) => h.external_signaled(text(id)?),
        ("external_cancel_requested", [id]) => h.external_cancel_requested(text(id)?),
        _ => {
            return Err(format!(
                "no builder step {method} of {} arguments",
                args.len()
            ));
        }
    };
    Ok(())
}

fn text(value: &Value) -> Result<&str, String> {
    value
        .as_str()
        .ok_or_else(|| format!("{value} is not a string"))
}

fn or_none(value: &Value) -> Result<Option<&str>, String> {
    if value.is_null() {
        Ok(None)
    } else {
        text(value).map(Some)
    }
}

/// The case of an SWF enumeration that SWF names `value`.
fn swf_case<T: SwfName>(cases: impl IntoIterator<Item = T>, value: &Value) -> Result<T, String> {
    let name = text(value)?;
    let case = cases.into_iter().find(|case| case.swf_name() == name);
    case.ok_or_else(|| format!("no case {name} here"))
}

/// SWF's name for an event's type: `TimerStarted`.
fn event_type(attributes: &E) -> String {
    let debug = format!("{attributes:?}");
    let variant = debug.split(['(', ' ', '{']).next().unwrap_or_default();
    variant.rsplit("::").next().unwrap_or_default().to_owned()
}

/// A decision in the file's words: ids and names as they are, payloads as JSON.
fn short(decision: &Decision) -> String {
    let json = |payload: &Option<String>| Value::from(payload.clone()).to_string();
    let with_input = |words: String, input: &Option<String>| match input {
        Some(_) => format!("{words} {}", json(input)),
        None => words,
    };
    match decision {
        Decision::ScheduleActivityTask(a) => {
            with_input(format!("activity {}", a.activity_id), &a.input)
        }
        Decision::ScheduleLambdaFunction(a) => {
            with_input(format!("lambda {} {}", a.id, a.name), &a.input)
        }
        Decision::StartTimer(a) => format!("timer {} {}s", a.timer_id, a.start_to_fire_timeout),
        Decision::CancelTimer(a) => format!("cancel timer {}", a.timer_id),
        Decision::RequestCancelActivityTask(a) => format!("cancel activity {}", a.activity_id),
        Decision::StartChildWorkflowExecution(a) => format!("child {}", a.workflow_id),
        Decision::SignalExternalWorkflowExecution(a) => {
            format!("signal {} {}", a.workflow_id, a.signal_name)
        }
        Decision::RequestCancelExternalWorkflowExecution(a) => {
            format!("cancel external {}", a.workflow_id)
        }
        Decision::RecordMarker(a) => format!("marker {} {}", a.marker_name, json(&a.details)),
        Decision::CompleteWorkflowExecution(a) => format!("complete {}", json(&a.result)),
        Decision::FailWorkflowExecution(a) => {
            format!("fail {} {}", json(&a.reason), json(&a.details))
        }
        Decision::CancelWorkflowExecution(a) => format!("cancel {}", json(&a.details)),
        Decision::ContinueAsNewWorkflowExecution(a) => format!("continue {}", json(&a.input)),
    }
}

fn panic_message(panic: &(dyn Any + Send)) -> &str {
    let text = panic.downcast_ref::<String>().map(String::as_str);
    text.or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic without a message")
}
