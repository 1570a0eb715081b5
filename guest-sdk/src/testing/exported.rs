//! Histories exported from `GetWorkflowExecutionHistory` (feature `serde`): a decider unit-tested
//! against what really happened, task by task, as `weft replay` checks a component.
//!
//! The wire names events and decisions as SWF does (`"eventType": "TimerStarted"` with
//! `timerStartedEventAttributes`, `scheduledEventId`, `"childPolicy": "REQUEST_CANCEL"`); the
//! generated types name them as the WIT does, which follows SWF's names (`TimerStarted`,
//! `scheduled_event_id`, `ChildPolicy::RequestCancel`). So one renaming, in each direction, lets
//! serde do the rest: no per-type code.
//!
//! ```
//! use weft_guest::testing::Recorded;
//! use weft_guest::{Decision, History};
//!
//! let exported = r#"{"events": [
//!   {"eventId": 1, "eventTimestamp": 1700000000.0, "eventType": "WorkflowExecutionStarted",
//!    "workflowExecutionStartedEventAttributes": {"input": "hi", "childPolicy": "TERMINATE",
//!      "taskList": {"name": "d"}, "workflowType": {"name": "Echo", "version": "1"}}},
//!   {"eventId": 2, "eventTimestamp": 1700000000.0, "eventType": "DecisionTaskScheduled",
//!    "decisionTaskScheduledEventAttributes": {"taskList": {"name": "d"}}},
//!   {"eventId": 3, "eventTimestamp": 1700000001.0, "eventType": "DecisionTaskStarted",
//!    "decisionTaskStartedEventAttributes": {"scheduledEventId": 2}},
//!   {"eventId": 4, "eventTimestamp": 1700000001.5, "eventType": "DecisionTaskCompleted",
//!    "decisionTaskCompletedEventAttributes": {"scheduledEventId": 2, "startedEventId": 3}},
//!   {"eventId": 5, "eventTimestamp": 1700000001.5, "eventType": "WorkflowExecutionCompleted",
//!    "workflowExecutionCompletedEventAttributes": {"result": "hi", "decisionTaskCompletedEventId": 4}}
//! ]}"#;
//! let recorded = Recorded::from_json(exported).unwrap();
//! assert_eq!(recorded.decision_task(3).unwrap().input(), Some("hi"));
//!
//! let echo = |h: &History| Ok::<_, String>(vec![Decision::complete(h.input().map(Into::into))]);
//! assert_eq!(recorded.replay(echo), Vec::<String>::new());
//! let shout = |h: &History| {
//!     Ok::<_, String>(vec![Decision::complete(h.input().map(str::to_uppercase))])
//! };
//! assert_eq!(
//!     recorded.replay(shout),
//!     [r#"decision task 3, decision 0: CompleteWorkflowExecution's result is "HI" in the replay, "hi" in the history (event 5)"#]
//! );
//! ```

use std::fmt::Display;

use serde_json::{Map, Value};

use crate::decisions::Decision;
use crate::events::HistoryEvent;
use crate::tasks::DecisionTask;
use crate::types::{WorkflowExecution, WorkflowType};
use crate::{History, Response};

/// A history exported from `GetWorkflowExecutionHistory`.
#[derive(Clone, Debug)]
pub struct Recorded {
    execution: WorkflowExecution,
    workflow_type: WorkflowType,
    events: Vec<HistoryEvent>,
    /// The same events in wire JSON, which the replay compares decisions with.
    wire: Vec<Value>,
}

impl Recorded {
    /// The history in `json`: `GetWorkflowExecutionHistory`'s answer (`{"events": [...]}`,
    /// pages concatenated) or its events alone. The history does not name its run: it is
    /// `workflow-1`/`run-1` (see [`Recorded::execution`]).
    pub fn from_json(json: &str) -> Result<Recorded, String> {
        let value: Value = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
        let wire = match value {
            Value::Object(mut answer) => answer.remove("events"),
            events @ Value::Array(_) => Some(events),
            _ => None,
        };
        let Some(Value::Array(mut wire)) = wire else {
            return Err("not a history: neither {\"events\": [...]} nor [...]".into());
        };
        // Exported newest first (`reverseOrder`) or in pages: oldest first from here on.
        wire.sort_by_key(|event| event["eventId"].as_u64());
        let events = wire
            .iter()
            .map(|event| {
                serde_json::from_value(event_from_wire(event))
                    .map_err(|e| format!("event {}: {e}", event["eventId"]))
            })
            .collect::<Result<Vec<HistoryEvent>, String>>()?;
        let started = wire.first().and_then(|e| {
            let attributes = &e["workflowExecutionStartedEventAttributes"]["workflowType"];
            serde_json::from_value(attributes.clone()).ok()
        });
        let workflow_type = started.ok_or("the history does not start with its execution")?;
        Ok(Recorded {
            execution: WorkflowExecution {
                workflow_id: "workflow-1".into(),
                run_id: "run-1".into(),
            },
            workflow_type,
            events,
            wire,
        })
    }

    /// The same history, of the run `workflow_id`/`run_id` (what a decider reads in
    /// [`History::workflow_execution`]).
    #[must_use]
    pub fn execution(mut self, workflow_id: &str, run_id: &str) -> Recorded {
        self.execution = WorkflowExecution {
            workflow_id: workflow_id.into(),
            run_id: run_id.into(),
        };
        self
    }

    /// Its events, oldest first.
    pub fn events(&self) -> &[HistoryEvent] {
        &self.events
    }

    /// The decision task whose `DecisionTaskStarted` event is `started_event_id`, as its decider
    /// got it; none if there is no such event.
    pub fn decision_task(&self, started_event_id: u64) -> Option<History> {
        let seen = self
            .events
            .partition_point(|e| e.event_id <= started_event_id);
        let last = self.events[..seen].last()?;
        let is_started = matches!(
            last.attributes,
            crate::events::EventAttributes::DecisionTaskStarted(_)
        );
        if !is_started || last.event_id != started_event_id {
            return None;
        }
        let previous = self.events[..seen]
            .iter()
            .rev()
            .find_map(|e| match &e.attributes {
                crate::events::EventAttributes::DecisionTaskCompleted(c) => {
                    Some(c.started_event_id)
                }
                _ => None,
            })
            .unwrap_or(0);
        Some(History::new(DecisionTask {
            workflow_execution: self.execution.clone(),
            workflow_type: self.workflow_type.clone(),
            events: self.events[..seen].to_vec(),
            previous_started_event_id: previous,
            started_event_id,
        }))
    }

    /// Runs `decide` on each completed decision task of the history, in order, and answers
    /// where its decisions differ from the recorded ones, in words; none if it replays the
    /// history. A decision agrees with its event if the event is its own or its failure, and
    /// every member the decision sets that the event has is equal.
    pub fn replay<R, E>(&self, decide: impl Fn(&History) -> Result<R, E>) -> Vec<String>
    where
        R: Into<Response>,
        E: Display,
    {
        let mut differences = Vec::new();
        for (completed, started) in self.completed_tasks() {
            let Some(history) = self.decision_task(started) else {
                continue;
            };
            let recorded: Vec<&Value> =
                self.wire.iter().filter(|e| made_by(e, completed)).collect();
            let decided = match decide(&history) {
                Ok(answer) => answer.into().decisions,
                Err(e) => {
                    differences.push(format!("decision task {started}: the decider failed: {e}"));
                    continue;
                }
            };
            if let Some((at, difference)) = compare(&decided, &recorded) {
                differences.push(format!(
                    "decision task {started}, decision {at}: {difference}"
                ));
            }
        }
        differences
    }

    /// `(DecisionTaskCompleted, its DecisionTaskStarted)` of each completed decision task.
    fn completed_tasks(&self) -> Vec<(u64, u64)> {
        self.events
            .iter()
            .filter_map(|e| match &e.attributes {
                crate::events::EventAttributes::DecisionTaskCompleted(c) => {
                    Some((e.event_id, c.started_event_id))
                }
                _ => None,
            })
            .collect()
    }
}

/// Where `decided` first parts from `recorded`, the events made by the task's decisions.
fn compare(decided: &[Decision], recorded: &[&Value]) -> Option<(usize, String)> {
    for at in 0..decided.len().max(recorded.len()) {
        let difference = match (decided.get(at), recorded.get(at)) {
            (Some(decision), Some(event)) => differs(&decision_to_wire(decision), event),
            // SWF records nothing after a decision that closed the run.
            (Some(_), None) if recorded.last().is_some_and(|e| closes_run(e)) => None,
            (Some(decision), None) => Some(format!(
                "the replay decided {}, which was not decided then",
                decision_to_wire(decision)["decisionType"]
                    .as_str()
                    .unwrap_or("?")
            )),
            (None, Some(event)) => Some(format!(
                "the replay decided nothing more, but {} was decided then (event {})",
                event["eventType"].as_str().unwrap_or("?"),
                event["eventId"]
            )),
            (None, None) => None,
        };
        if let Some(difference) = difference {
            return Some((at, difference));
        }
    }
    None
}

/// How `decision` (wire JSON) differs from `event`, the event recorded in its place.
fn differs(decision: &Value, event: &Value) -> Option<String> {
    let kind = decision["decisionType"].as_str().unwrap_or("?");
    let recorded = event["eventType"].as_str().unwrap_or("?");
    let id = &event["eventId"];
    let (done, failed) = records(kind);
    if recorded != done && recorded != failed {
        return Some(format!(
            "the replay decided {kind}, but {recorded} was recorded then (event {id})"
        ));
    }
    let ours = decision[format!("{}DecisionAttributes", lower_first(kind))].as_object()?;
    let theirs = event[format!("{}EventAttributes", lower_first(recorded))].as_object()?;
    ours.iter().find_map(|(member, value)| {
        let was = theirs.get(member).filter(|was| *was != value)?;
        Some(format!(
            "{kind}'s {member} is {value} in the replay, {was} in the history (event {id})"
        ))
    })
}

/// The event a decision of type `kind` is recorded as, and the one its immediate failure is.
fn records(kind: &str) -> (String, String) {
    match weft_workflow_core::decision_named(kind) {
        Some(d) => (d.recorded.into(), d.refused.into()),
        None => (
            format!("{kind} (no such decision)"),
            format!("{kind}Failed"),
        ),
    }
}

/// Whether the wire event `event` was made by a decision of the task completed by event
/// `completed`.
fn made_by(event: &Value, completed: u64) -> bool {
    let Some(attributes) = attributes(event) else {
        return false;
    };
    let member = |name| attributes.get(name).and_then(Value::as_u64);
    let task = member("decisionTaskCompletedEventId");
    weft_workflow_core::made_by(task, member("initiatedEventId")) == Some(completed)
}

fn closes_run(event: &Value) -> bool {
    event["eventType"]
        .as_str()
        .is_some_and(weft_workflow_core::closes_run)
}

fn attributes(event: &Value) -> Option<&Map<String, Value>> {
    let kind = event["eventType"].as_str()?;
    event[format!("{}EventAttributes", lower_first(kind))].as_object()
}

/// A wire event as serde reads a [`HistoryEvent`]: `{"event_id", "event_timestamp",
/// "attributes": {"<EventType>": {...}}}`, members in snake case, enums' values as their cases.
fn event_from_wire(event: &Value) -> Value {
    let kind = event["eventType"].as_str().unwrap_or_default();
    let attributes = event
        .get(format!("{}EventAttributes", lower_first(kind)))
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    serde_json::json!({
        "event_id": event["eventId"],
        "event_timestamp": event["eventTimestamp"],
        "attributes": { kind: from_wire(&attributes, "") },
    })
}

/// The members that hold an enumeration (SWF's causes, timeout types and child policies): their
/// values are `UPPER_SNAKE` on the wire, `UpperCamel` cases in Rust.
const ENUMS: [&str; 3] = ["cause", "timeout_type", "child_policy"];

/// Wire JSON as serde reads the generated types: members in snake case, enums as cases.
fn from_wire(value: &Value, member: &str) -> Value {
    match value {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(name, value)| {
                    let name = snake(name);
                    let value = from_wire(value, &name);
                    (name, value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| from_wire(v, "")).collect()),
        Value::String(case) if ENUMS.contains(&member) => Value::String(
            case.split('_')
                .map(|word| {
                    let lower = word.to_lowercase();
                    let mut chars = lower.chars();
                    chars.next().map_or_else(String::new, |c| {
                        c.to_ascii_uppercase().to_string() + chars.as_str()
                    })
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A decision in wire JSON, as `RespondDecisionTaskCompleted` takes it.
fn decision_to_wire(decision: &Decision) -> Value {
    let Ok(Value::Object(serialized)) = serde_json::to_value(decision) else {
        return Value::Null;
    };
    let Some((kind, attributes)) = serialized.into_iter().next() else {
        return Value::Null;
    };
    serde_json::json!({
        "decisionType": kind,
        format!("{}DecisionAttributes", lower_first(&kind)): to_wire(&attributes, ""),
    })
}

/// serde's JSON of a generated value as wire JSON: members in camel case, absent ones left out,
/// enums as SWF's values.
fn to_wire(value: &Value, member: &str) -> Value {
    match value {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .filter(|(_, value)| !value.is_null())
                .map(|(name, value)| (camel(name), to_wire(value, name)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| to_wire(v, "")).collect()),
        Value::String(case) if ENUMS.contains(&member) => {
            let mut wire = String::new();
            for (i, c) in case.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    wire.push('_');
                }
                wire.push(c.to_ascii_uppercase());
            }
            Value::String(wire)
        }
        other => other.clone(),
    }
}

/// `scheduledEventId` → `scheduled_event_id`.
fn snake(name: &str) -> String {
    let mut snake = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    snake
}

/// `scheduled_event_id` → `scheduledEventId`.
fn camel(name: &str) -> String {
    let mut words = name.split('_');
    let first = words.next().unwrap_or_default().to_owned();
    words.fold(first, |mut camel, word| {
        let mut chars = word.chars();
        if let Some(c) = chars.next() {
            camel.push(c.to_ascii_uppercase());
            camel.push_str(chars.as_str());
        }
        camel
    })
}

/// `TimerStarted` → `timerStarted`.
fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_lowercase().to_string() + chars.as_str()
    })
}
