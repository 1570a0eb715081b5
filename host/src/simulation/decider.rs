//! The simulated decider: reads a decision task's history as a decider does, and decides at
//! random among all thirteen decisions, valid or not (an activity id in use, a timer never
//! started, a function never bound, a cancel nobody asked for), so that every decision's failure
//! event is reached too.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::rng::Rng;

/// The workflow type every run is of.
pub(super) const WORKFLOW: (&str, &str) = ("wf", "1");
/// The activity type scheduled.
pub(super) const ACTIVITY: (&str, &str) = ("act", "1");
/// The Lambda function the domain binds.
pub(super) const FUNCTION: &str = "fn";
/// Workflow ids that clients start, signal, cancel and terminate; children take others.
pub(super) const IDS: [&str; 6] = ["w0", "w1", "w2", "w3", "w4", "w5"];

/// What a history leaves open, by the event that opened each.
#[derive(Default)]
struct Open {
    activities: BTreeMap<u64, String>,
    timers: BTreeMap<u64, String>,
    children: BTreeMap<u64, String>,
    cancel_requested: bool,
    /// Whether the run is a child: its parent hears how it closes.
    child: bool,
}

impl Open {
    fn of(events: &[Value]) -> Open {
        let mut open = Open::default();
        for event in events {
            let id = event["eventId"].as_u64().unwrap_or(0);
            let kind = event["eventType"].as_str().unwrap_or("");
            let attrs = attributes(event);
            let opened = |member: &str| attrs[member].as_u64().unwrap_or(0);
            let text = |member: &str| attrs[member].as_str().unwrap_or("").to_owned();
            match kind {
                "ActivityTaskScheduled" => {
                    open.activities.insert(id, text("activityId"));
                }
                "ActivityTaskCompleted"
                | "ActivityTaskFailed"
                | "ActivityTaskTimedOut"
                | "ActivityTaskCanceled" => {
                    open.activities.remove(&opened("scheduledEventId"));
                }
                "TimerStarted" => {
                    open.timers.insert(id, text("timerId"));
                }
                "TimerFired" | "TimerCanceled" => {
                    open.timers.remove(&opened("startedEventId"));
                }
                "StartChildWorkflowExecutionInitiated" => {
                    open.children.insert(id, text("workflowId"));
                }
                "StartChildWorkflowExecutionFailed"
                | "ChildWorkflowExecutionCompleted"
                | "ChildWorkflowExecutionFailed"
                | "ChildWorkflowExecutionTimedOut"
                | "ChildWorkflowExecutionCanceled"
                | "ChildWorkflowExecutionTerminated" => {
                    open.children.remove(&opened("initiatedEventId"));
                }
                "WorkflowExecutionCancelRequested" => open.cancel_requested = true,
                "WorkflowExecutionStarted" => {
                    open.child = attrs["parentWorkflowExecution"].is_object();
                }
                _ => {}
            }
        }
        open
    }
}

/// An event's attributes member.
pub(super) fn attributes(event: &Value) -> &Value {
    event
        .as_object()
        .and_then(|e| e.iter().find(|(k, _)| k.ends_with("EventAttributes")))
        .map_or(&Value::Null, |(_, v)| v)
}

/// Decisions for the task started by event `started` with history `events`.
pub(super) fn decide(rng: &mut Rng, started: u64, events: &[Value]) -> Vec<Value> {
    let open = Open::of(events);
    let mut decisions = Vec::new();
    for n in 0..rng.range(0, 3) {
        decisions.push(ongoing(rng, &open, &format!("{started}-{n}")));
    }
    // A parent waits for its children more often than not, so their outcomes reach it.
    let closing = match (open.cancel_requested, open.children.is_empty(), open.child) {
        (true, _, _) => 60,
        (false, false, _) => 5,
        (false, true, true) => 35,
        (false, true, false) => 20,
    };
    if rng.chance(closing) {
        decisions.push(closing_decision(rng, &open));
    }
    decisions
}

/// One decision that leaves the run open.
fn ongoing(rng: &mut Rng, open: &Open, fresh: &str) -> Value {
    match rng.weighted(&[20, 6, 12, 5, 4, 5, 3, 6, 5]) {
        0 => schedule_activity(rng, open, fresh),
        1 => {
            let activity_id = in_use_or(rng, &open.activities, "never");
            decision(
                "RequestCancelActivityTask",
                json!({"activityId": activity_id}),
            )
        }
        2 => {
            let fresh = format!("t{fresh}");
            let timer_id = match rng.chance(75) {
                true => fresh,
                false => in_use_or(rng, &open.timers, &fresh),
            };
            // Now and then at once; mostly long enough to be canceled or reused.
            let fire = rng.range(0, 600).to_string();
            decision(
                "StartTimer",
                json!({"timerId": timer_id, "startToFireTimeout": fire}),
            )
        }
        3 => {
            let timer_id = in_use_or(rng, &open.timers, "never");
            decision("CancelTimer", json!({"timerId": timer_id}))
        }
        4 => decision("RecordMarker", json!({"markerName": "m", "details": fresh})),
        5 => {
            let target = *rng.pick(&IDS).expect("ids");
            let a = json!({"workflowId": target, "signalName": "s", "input": fresh});
            decision("SignalExternalWorkflowExecution", a)
        }
        6 => {
            let other = *rng.pick(&IDS).expect("ids");
            let target = in_use_or(rng, &open.children, other);
            let a = json!({"workflowId": target});
            decision("RequestCancelExternalWorkflowExecution", a)
        }
        7 => decision("StartChildWorkflowExecution", child(rng, fresh)),
        _ => {
            let name = if rng.chance(90) { FUNCTION } else { "unbound" };
            let a = json!({"id": format!("l{fresh}"), "name": name,
                           "startToCloseTimeout": rng.range(1, 30).to_string()});
            decision("ScheduleLambdaFunction", a)
        }
    }
}

/// Mostly one of the ids `ids` (of what is open), else (or if none is) `made_up`.
fn in_use_or(rng: &mut Rng, ids: &BTreeMap<u64, String>, made_up: &str) -> String {
    let ids: Vec<&String> = ids.values().collect();
    match rng.chance(85).then(|| rng.pick(&ids).copied()) {
        Some(Some(id)) => id.clone(),
        _ => made_up.to_owned(),
    }
}

/// A ScheduleActivityTask decision: mostly a fresh activity id, now and then one in use; now
/// and then of a type never registered; each timeout now and then set.
fn schedule_activity(rng: &mut Rng, open: &Open, fresh: &str) -> Value {
    let fresh = format!("a{fresh}");
    let activity_id = match rng.chance(90) {
        true => fresh,
        false => in_use_or(rng, &open.activities, &fresh),
    };
    let name = if rng.chance(95) {
        ACTIVITY.0
    } else {
        "unregistered"
    };
    let mut a = json!({
        "activityType": {"name": name, "version": ACTIVITY.1},
        "activityId": activity_id,
    });
    let timeouts = [
        "scheduleToStartTimeout",
        "startToCloseTimeout",
        "scheduleToCloseTimeout",
        "heartbeatTimeout",
    ];
    for member in timeouts {
        if rng.chance(30) {
            a[member] = json!(timeout(rng, 1, 120));
        }
    }
    decision("ScheduleActivityTask", a)
}

/// A StartChildWorkflowExecution decision's attributes: a fresh child, or (rarely) a workflow
/// id the clients use, which may be taken.
fn child(rng: &mut Rng, fresh: &str) -> Value {
    let workflow_id = match rng.chance(90) {
        true => format!("c{fresh}"),
        false => (*rng.pick(&IDS).expect("ids")).to_owned(),
    };
    let policy = *rng
        .pick(&["TERMINATE", "REQUEST_CANCEL", "ABANDON"])
        .expect("policies");
    json!({
        "workflowType": {"name": WORKFLOW.0, "version": WORKFLOW.1},
        "workflowId": workflow_id,
        "childPolicy": policy,
        "executionStartToCloseTimeout": rng.range(30, 900).to_string(),
        "taskStartToCloseTimeout": rng.range(20, 120).to_string(),
    })
}

/// A decision that closes the run (or fails to).
fn closing_decision(rng: &mut Rng, open: &Open) -> Value {
    let weights = match (open.cancel_requested, open.child) {
        (true, _) => [4, 2, 10, 2],
        (false, true) => [8, 5, 1, 1],
        (false, false) => [10, 3, 2, 4],
    };
    match rng.weighted(&weights) {
        0 => decision("CompleteWorkflowExecution", json!({"result": "done"})),
        1 => decision("FailWorkflowExecution", json!({"reason": "sim"})),
        2 => decision("CancelWorkflowExecution", json!({"details": "sim"})),
        _ => decision(
            "ContinueAsNewWorkflowExecution",
            json!({"input": "again", "executionStartToCloseTimeout": rng.range(30, 900).to_string()}),
        ),
    }
}

/// A timeout: seconds in `low..=high`, or now and then `NONE`.
pub(super) fn timeout(rng: &mut Rng, low: u64, high: u64) -> String {
    match rng.chance(10) {
        true => "NONE".into(),
        false => rng.range(low, high).to_string(),
    }
}

/// The decision of type `kind` with attributes `attrs`.
fn decision(kind: &str, attrs: Value) -> Value {
    let member = format!(
        "{}{}DecisionAttributes",
        kind[..1].to_lowercase(),
        &kind[1..]
    );
    json!({"decisionType": kind, member: attrs})
}
