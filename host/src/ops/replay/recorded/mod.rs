//! A recorded history, cut into the decision tasks its decider was handed, each with the events
//! its decisions were recorded as; and the comparison of a replay's decisions with them.
//!
//! SWF keeps no copy of a decider's answer, but each decision leaves one event naming the
//! `DecisionTaskCompleted` event of its task: the decision's own event (`ActivityTaskScheduled`,
//! `TimerStarted`, ...) or its immediate failure (`ScheduleActivityTaskFailed`, ...), in the
//! order of the decisions. Events that come of an `*Initiated` event later (a signal's or a
//! child's failure) name it too, with their `initiatedEventId`; they are not decisions. A
//! decision after one that closed the run is not recorded at all.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::model::Divergence;
use crate::model::events::{decision_attributes_member, event_attributes_member};

/// One completed decision task of a history.
pub(crate) struct RecordedTask {
    /// How many of the history's events its decider got: those up to its `DecisionTaskStarted`.
    seen: usize,
    /// The `DecisionTaskStarted` event of the decision task completed before it; 0 if none.
    previous_started_event_id: u64,
    /// Its `DecisionTaskStarted` event.
    pub(crate) started_event_id: u64,
    /// The events its decisions were recorded as, in the decisions' order.
    pub(crate) recorded: Vec<Value>,
}

impl RecordedTask {
    /// The task as `PollForDecisionTask` handed it out, all events included, in wire JSON: the
    /// first events of `events`, the history it was cut from, of the run `execution` of
    /// `workflow_type`. Built when asked, so that a long history's tasks are not all held at
    /// once.
    pub(crate) fn task(&self, execution: &Value, workflow_type: &Value, events: &[Value]) -> Value {
        json!({
            "events": &events[..self.seen],
            "previousStartedEventId": self.previous_started_event_id,
            "startedEventId": self.started_event_id,
            "workflowExecution": execution,
            "workflowType": workflow_type,
        })
    }
}

/// The completed decision tasks of `events` (a whole history, oldest first, in wire JSON), in
/// order.
pub(crate) fn recorded_tasks(events: &[Value]) -> Vec<RecordedTask> {
    let mut made_by: HashMap<u64, Vec<Value>> = HashMap::new();
    for event in events {
        let Some(attributes) = attributes(event) else {
            continue;
        };
        let completed = attributes.get("decisionTaskCompletedEventId");
        let initiated = attributes.get("initiatedEventId").and_then(Value::as_u64);
        let completed = completed.and_then(Value::as_u64);
        if let Some(completed) = weft_workflow_core::made_by(completed, initiated) {
            made_by.entry(completed).or_default().push(event.clone());
        }
    }
    let mut tasks = Vec::new();
    let mut previous_started = 0;
    for event in events {
        if event["eventType"] != "DecisionTaskCompleted" {
            continue;
        }
        let started = event["decisionTaskCompletedEventAttributes"]["startedEventId"]
            .as_u64()
            .unwrap_or(0);
        tasks.push(RecordedTask {
            seen: events.partition_point(|e| e["eventId"].as_u64() <= Some(started)),
            previous_started_event_id: previous_started,
            started_event_id: started,
            recorded: made_by.remove(&event_id(event)).unwrap_or_default(),
        });
        previous_started = started;
    }
    tasks
}

/// Where `decisions` (a replay's answer to `task`, in wire JSON) first part from what was
/// recorded; none if they do not. A decision agrees with its event if the event is its own or
/// its failure, and the members compared that the decision sets and the event also has are
/// equal: members the decision leaves out took defaults when it was recorded. `strict`
/// compares every member, otherwise only those of [`IDENTITY`].
pub(crate) fn compare(
    task: &RecordedTask,
    decisions: &[Value],
    strict: bool,
) -> Option<Divergence> {
    let diverged = |at: usize, message: String| Divergence {
        started_event_id: task.started_event_id,
        decision: u32::try_from(at).unwrap_or(u32::MAX),
        message,
        replayed: decisions.get(at).cloned(),
        recorded: task.recorded.get(at).cloned(),
    };
    for at in 0..decisions.len().max(task.recorded.len()) {
        let (decision, event) = match (decisions.get(at), task.recorded.get(at)) {
            (Some(decision), Some(event)) => (decision, event),
            // The run closed at the decision before: SWF records nothing after it.
            (Some(_), None) if task.recorded.last().is_some_and(closes_run) => return None,
            (Some(decision), None) => {
                let kind = decision["decisionType"].as_str().unwrap_or("?");
                let message = format!("the replay decided {kind}, which was not decided then");
                return Some(diverged(at, message));
            }
            (None, Some(event)) => {
                let message = format!(
                    "the replay decided nothing more, but {} was decided then (event {})",
                    event["eventType"].as_str().unwrap_or("?"),
                    event_id(event)
                );
                return Some(diverged(at, message));
            }
            (None, None) => unreachable!("at is within the longer list"),
        };
        if let Some(message) = differs(decision, event, strict) {
            return Some(diverged(at, message));
        }
    }
    None
}

/// The members that say what a decision is about, rather than how: the ids it names and the
/// types it runs. A change to any other (an input, a timeout, a timer's duration, a task list)
/// cannot break a run whose history has the decision.
const IDENTITY: [&str; 9] = [
    "activityId",
    "activityType",
    "timerId",
    "markerName",
    "workflowId",
    "workflowType",
    "id",
    "name",
    "signalName",
];

/// How `decision` differs from `event`, the event recorded in its place; `strict` compares
/// every member, otherwise only those of [`IDENTITY`].
fn differs(decision: &Value, event: &Value, strict: bool) -> Option<String> {
    let kind = decision["decisionType"].as_str().unwrap_or("?");
    let recorded = event["eventType"].as_str().unwrap_or("?");
    let id = event_id(event);
    let Some((done, failed)) = records(kind) else {
        return Some(format!("the replay decided {kind}, which is no decision"));
    };
    if recorded != done && recorded != failed {
        return Some(format!(
            "the replay decided {kind}, but {recorded} was recorded then (event {id})"
        ));
    }
    let ours = decision[decision_attributes_member(kind)].as_object()?;
    let theirs = attributes(event)?;
    ours.iter()
        .filter(|(member, value)| {
            !value.is_null() && (strict || IDENTITY.contains(&member.as_str()))
        })
        .find_map(|(member, value)| {
            let was = theirs.get(member).filter(|was| *was != value)?;
            Some(format!(
                "{kind}'s {member} is {value} in the replay, {was} in the history (event {id})"
            ))
        })
}

/// The event a decision of type `kind` is recorded as, and the one its immediate failure is.
fn records(kind: &str) -> Option<(&'static str, &'static str)> {
    weft_workflow_core::decision_named(kind).map(|d| (d.recorded, d.refused))
}

/// Whether `event` closed its run.
fn closes_run(event: &Value) -> bool {
    event["eventType"]
        .as_str()
        .is_some_and(weft_workflow_core::closes_run)
}

/// The event's attributes.
fn attributes(event: &Value) -> Option<&Map<String, Value>> {
    let event_type = event["eventType"].as_str()?;
    event[event_attributes_member(event_type)].as_object()
}

fn event_id(event: &Value) -> u64 {
    event["eventId"].as_u64().unwrap_or(0)
}

#[cfg(test)]
mod tests;
