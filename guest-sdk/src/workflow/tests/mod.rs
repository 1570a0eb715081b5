//! The workflow runtime against histories that `HistoryBuilder` records as SWF would: every
//! scenario of `guest-sdk/workflows.json`, which the Python and JavaScript SDKs' tests play too,
//! with the workflows it names in `scenarios.rs`.

use std::any::Any;
use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::{Value, json};

use crate::Decision;
use crate::events::EventAttributes as E;
use crate::history::SwfName;
use crate::testing::HistoryBuilder;
use crate::types::{ActivityTaskTimeoutType, StartChildWorkflowExecutionFailedCause as Cause};

/// The scenarios every SDK's tests play.
const SCENARIOS: &str = include_str!("../../../workflows.json");

mod scenarios;

use scenarios::{Decider, registry};

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
