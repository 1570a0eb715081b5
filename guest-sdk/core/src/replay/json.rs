//! The workflow core for SDKs that reach it through one function taking and answering JSON
//! (`call`): Python and JavaScript, whose guests import it (`weft:swf/replay`) and whose unit
//! tests load it as a Wasm module. Events and decisions are SWF's wire JSON.
//!
//! Each call crosses from the language into the core, so the SDK keeps what its code reads
//! (outcomes, started children, signals), which `next` hands over once per decision task, and
//! sends what its code does (commands, cancels, the close) in the `batch` of its next request.
//!
//! A request is `{"op": NAME, ...arguments, "batch": [REQUEST, ...]}`: the batch's requests
//! (`issue`, `cancel`, `cancelTimer`, `deprecatePatch`, `close`) are applied first, in order. The answer
//! is `{"ok": VALUE}`, or `{"err": MESSAGE}` with `"nondeterminism": true` where the code
//! contradicts the history.
//!
//! | op | arguments | `ok` |
//! |---|---|---|
//! | `begin` | `task`: `{events, workflowExecution, startedEventId}` | `{input, workflowId, runId, workflowType}` (`{name, version}`, for a module serving several) |
//! | `next` | | `null` once done; else, to run the code: `{now, replaying, cancelRequested, outcomes, children, signals}` |
//! | `issue` | `decision`, `awaited` | `{slot, id}`: its slot (`null` if not awaited; else the number of awaited commands before it) and id |
//! | `cancel` | the command's `slot`; or `activityId`, `timerId` or `childWorkflowId` | `null`; an error for a command SWF cannot cancel |
//! | `cancelTimer` | `id`, or the timer's `slot` (as `cancel`) | `null` |
//! | `patched` | `change` | `true` or `false` |
//! | `deprecatePatch` | `change` | `null` |
//! | `random` | | the next number, as a decimal string (64 bits) |
//! | `close` | `decision` | `null` |
//! | `answer` | | the decisions, in order |
//!
//! `next`'s `outcomes` are `[slot, OUTCOME]` pairs for the commands that ended since the last
//! `next`, an OUTCOME being `{result}` or `{failure: {ending, reason, details, words}}`;
//! `children` `[slot, {workflowId, runId}]` for the children that started; `signals`
//! `[name, input]` for the signals that came, in order. `begin` starts a new replay; the others
//! act on the one begun.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value, json};

use super::{
    Cancel, Ending, Event, Members, Outcome, PATCH_MARKER, ReadEvent, Replay, Shape, State,
};

/// A replay reached through JSON: the history, the walk through it, the state, and what of it
/// the SDK was told.
pub struct Session {
    events: Vec<Value>,
    replay: Replay,
    state: State<Value>,
    /// For each slot, whether its outcome and its child run were handed over.
    told: Vec<(bool, bool)>,
}

/// Why a request failed.
struct Fault {
    message: String,
    nondeterminism: bool,
}

impl From<String> for Fault {
    fn from(message: String) -> Self {
        Fault {
            message,
            nondeterminism: false,
        }
    }
}

/// Answers `request` (JSON) on `session`, the replay begun by an earlier `begin`, if any.
pub fn call(session: &mut Option<Session>, request: &str) -> String {
    match serde_json::from_str::<Value>(request) {
        Ok(request) => call_value(session, request),
        Err(e) => json!({ "err": alloc::format!("the request is not JSON: {e}") }),
    }
    .to_string()
}

/// [`call`], on a request already parsed.
pub fn call_value(session: &mut Option<Session>, request: Value) -> Value {
    match answer(session, request) {
        Ok(value) => json!({ "ok": value }),
        Err(Fault {
            message,
            nondeterminism: false,
        }) => json!({ "err": message }),
        Err(Fault { message, .. }) => json!({ "err": message, "nondeterminism": true }),
    }
}

fn answer(session: &mut Option<Session>, mut request: Value) -> Result<Value, Fault> {
    if !request.is_object() {
        return Err(String::from("a request is a JSON object: {\"op\": ...}").into());
    }
    if request["op"] == "begin" {
        let begun = Session::begin(request["task"].take())?;
        let state = &begun.state;
        let started = (begun.events.iter()).find(|e| e["eventType"] == "WorkflowExecutionStarted");
        let (name, version) = started
            .and_then(|e| e.read().members.type_)
            .unwrap_or_default();
        let answer = json!({
            "input": state.input(),
            "workflowId": state.workflow_id(),
            "runId": state.run_id(),
            "workflowType": { "name": name, "version": version },
        });
        *session = Some(begun);
        return Ok(answer);
    }
    let Some(session) = session else {
        return Err(String::from("no replay begun: `begin` first").into());
    };
    if let Value::Array(batch) = request["batch"].take() {
        for done in batch {
            session.apply(done)?;
        }
    }
    if request["op"] == "next" {
        return session.next().map_err(|message| Fault {
            message,
            nondeterminism: true,
        });
    }
    Ok(session.apply(request)?)
}

impl Session {
    fn begin(mut task: Value) -> Result<Session, String> {
        let Some(Value::Array(events)) = task.get_mut("events").map(Value::take) else {
            return Err(String::from("the task has no `events` list"));
        };
        let execution = &task["workflowExecution"];
        let input = events
            .iter()
            .find(|e| e["eventType"] == "WorkflowExecutionStarted")
            .and_then(|e| e.read().members.input);
        let state = State::new(
            execution["workflowId"].as_str().unwrap_or_default(),
            execution["runId"].as_str().unwrap_or_default(),
            input,
        );
        let current = task["startedEventId"].as_u64().unwrap_or_default();
        Ok(Session {
            replay: Replay::new(&events, current),
            events,
            state,
            told: Vec::new(),
        })
    }

    /// Answers one request other than `begin` and `next`.
    fn apply(&mut self, mut request: Value) -> Result<Value, String> {
        if !request.is_object() {
            return Err(alloc::format!("a request is a JSON object, not {request}"));
        }
        let state = &mut self.state;
        let op = request["op"].as_str().unwrap_or_default();
        let text = |name: &str| request[name].as_str().unwrap_or_default();
        Ok(match op {
            "issue" => self.issue(request["decision"].take(), request["awaited"] == true)?,
            // `cancel` of a timer by its older name, which guests built before `cancel` send.
            "cancelTimer" => {
                let slot = match request["slot"].as_u64() {
                    Some(slot) => Some(slot as usize).filter(|s| state.timer_in(*s).is_some()),
                    None => state.slot_of("StartTimer", text("id")),
                };
                if let Some(slot) = slot {
                    state.cancel(slot, cancel_decision)?;
                }
                Value::Null
            }
            "cancel" => {
                let by_id = [
                    ("activityId", "ScheduleActivityTask"),
                    ("timerId", "StartTimer"),
                    ("childWorkflowId", "StartChildWorkflowExecution"),
                ];
                let slot = match request["slot"].as_u64() {
                    Some(slot) => Some(slot as usize),
                    None => (by_id.iter())
                        .find(|(key, _)| request[*key].is_string())
                        .and_then(|(key, kind)| state.slot_of(kind, text(key))),
                };
                if let Some(slot) = slot {
                    state.cancel(slot, cancel_decision)?;
                }
                Value::Null
            }
            "patched" => {
                let change = text("change");
                let marker = json!({ "markerName": PATCH_MARKER, "details": change });
                Value::Bool(state.patched(change, || decision("RecordMarker", marker)))
            }
            "deprecatePatch" => {
                state.deprecate_patch(text("change"));
                Value::Null
            }
            "random" => Value::String(state.random().to_string()),
            "close" => {
                let close = request["decision"].take();
                let shape = decision_shape(&close)?;
                state.close(close, shape);
                Value::Null
            }
            "answer" => Value::Array(state.answer()),
            _ => return Err(alloc::format!("no operation {op:?}")),
        })
    }

    /// Begins the next decision task: what the code is to read there, or `null` once done.
    fn next(&mut self) -> Result<Value, String> {
        if !self.replay.next(&self.events, &mut self.state)? {
            return Ok(Value::Null);
        }
        let state = &mut self.state;
        self.told.resize(state.slots(), (false, false));
        let (mut outcomes, mut children) = (Vec::new(), Vec::new());
        for (slot, (outcome_told, child_told)) in self.told.iter_mut().enumerate() {
            if let (false, Some(outcome)) = (*outcome_told, state.outcome(slot)) {
                *outcome_told = true;
                outcomes.push(json!([slot, outcome_json(outcome)]));
            }
            if let (false, Some((workflow_id, run_id))) = (*child_told, state.child(slot)) {
                *child_told = true;
                children.push(json!([slot, { "workflowId": workflow_id, "runId": run_id }]));
            }
        }
        let signals: Vec<Value> = state.take_signals().map(|s| json!([s.0, s.1])).collect();
        Ok(json!({
            "now": state.now(),
            "replaying": state.replaying(),
            "cancelRequested": state.cancel_requested(),
            "outcomes": outcomes,
            "children": children,
            "signals": signals,
        }))
    }

    /// Issues `decision`, with the default id if it names none.
    fn issue(&mut self, mut decision: Value, awaited: bool) -> Result<Value, String> {
        let mut shape = decision_shape(&decision)?;
        let key = match shape.decision {
            "ScheduleActivityTask" => "activityId",
            "StartTimer" => "timerId",
            "ScheduleLambdaFunction" => "id",
            "StartChildWorkflowExecution" => "workflowId",
            _ => "",
        };
        if !key.is_empty() && shape.id.is_empty() {
            let m = members(attributes(&decision));
            let type_name = m.type_.map_or(m.name, |(name, _)| name);
            shape.id = self.state.default_id(shape.decision, type_name);
            if let Some(a) = attributes_mut(&mut decision) {
                a.insert(key.to_string(), Value::String(shape.id.clone()));
            }
        }
        let id = shape.id.clone();
        let slot = self.state.issue(decision, shape, awaited);
        Ok(json!({ "slot": slot, "id": id }))
    }
}

/// The decision that cancels `target`, in wire JSON.
fn cancel_decision(target: Cancel<'_>) -> Value {
    match target {
        Cancel::Timer(id) => decision("CancelTimer", json!({ "timerId": id })),
        Cancel::Activity(id) => decision("RequestCancelActivityTask", json!({ "activityId": id })),
        Cancel::Child(workflow_id, run_id) => {
            let mut attributes = json!({ "workflowId": workflow_id });
            if let Some(run_id) = run_id {
                attributes["runId"] = run_id.into();
            }
            decision("RequestCancelExternalWorkflowExecution", attributes)
        }
    }
}

/// A decision of type `decision_type` with these attributes, in wire JSON.
fn decision(decision_type: &str, attributes: Value) -> Value {
    let mut decision = Map::new();
    decision.insert("decisionType".into(), decision_type.into());
    decision.insert(
        attributes_key(decision_type, "DecisionAttributes"),
        attributes,
    );
    Value::Object(decision)
}

/// `scheduleActivityTaskDecisionAttributes` for `ScheduleActivityTask`.
fn attributes_key(type_name: &str, suffix: &str) -> String {
    let mut key = String::with_capacity(type_name.len() + suffix.len());
    let mut chars = type_name.chars();
    key.extend(chars.next().map(|c| c.to_ascii_lowercase()));
    key.extend(chars);
    key.push_str(suffix);
    key
}

/// An event's or decision's attributes: its one member named `...Attributes`.
fn attributes(value: &Value) -> &Value {
    let members = value.as_object().into_iter().flatten();
    let mut found = members.filter(|(k, _)| k.ends_with("Attributes"));
    found.next().map_or(&Value::Null, |(_, a)| a)
}

fn attributes_mut(value: &mut Value) -> Option<&mut Map<String, Value>> {
    let members = value.as_object_mut()?.iter_mut();
    let mut found = members.filter(|(k, _)| k.ends_with("Attributes"));
    found.next()?.1.as_object_mut()
}

fn decision_shape(decision: &Value) -> Result<Shape, String> {
    let decision_type = decision["decisionType"].as_str().unwrap_or_default();
    let members = members(attributes(decision));
    Shape::of_decision(decision_type, &members)
        .ok_or_else(|| alloc::format!("SWF has no decision {decision_type:?}"))
}

impl ReadEvent for Value {
    fn read(&self) -> Event<'_> {
        Event {
            id: self["eventId"].as_u64().unwrap_or_default(),
            event_type: self["eventType"].as_str().unwrap_or_default(),
            timestamp: self["eventTimestamp"].as_f64().unwrap_or_default(),
            members: members(attributes(self)),
        }
    }
}

/// The members replay reads, from attributes in wire JSON.
fn members(a: &Value) -> Members<'_> {
    let id = |k: &str| a[k].as_u64().unwrap_or_default();
    let text = |k: &str| a[k].as_str().unwrap_or_default();
    let optional = |k: &str| a[k].as_str();
    let pair = |k: &str, first: &str, second: &str| {
        let (first, second) = (a[k][first].as_str()?, a[k][second].as_str()?);
        Some((first, second))
    };
    Members {
        decision_task_completed_event_id: id("decisionTaskCompletedEventId"),
        started_event_id: id("startedEventId"),
        scheduled_event_id: id("scheduledEventId"),
        initiated_event_id: id("initiatedEventId"),
        activity_id: text("activityId"),
        timer_id: text("timerId"),
        marker_name: text("markerName"),
        workflow_id: text("workflowId"),
        id: text("id"),
        name: text("name"),
        type_: pair("activityType", "name", "version")
            .or_else(|| pair("workflowType", "name", "version")),
        workflow_execution: pair("workflowExecution", "workflowId", "runId"),
        signal_name: text("signalName"),
        input: optional("input"),
        result: optional("result"),
        reason: optional("reason"),
        details: optional("details"),
        cause: optional("cause"),
        timeout_type: optional("timeoutType"),
    }
}

fn outcome_json(outcome: &Outcome) -> Value {
    match outcome {
        Ok(result) => json!({ "result": result }),
        Err(failure) => {
            let ending = match failure.ending {
                Ending::Failed => "failed",
                Ending::TimedOut => "timed_out",
                Ending::Canceled => "canceled",
                Ending::Terminated => "terminated",
                Ending::NotStarted => "not_started",
            };
            json!({ "failure": {
                "ending": ending,
                "reason": failure.reason,
                "details": failure.details,
                "words": failure.to_string(),
            }})
        }
    }
}
