//! A consistency checker for run histories: the rules every history Weft records must keep
//! (spec §7 and §8.1–§8.2), checked on the wire JSON exactly as GetWorkflowExecutionHistory
//! serves it.
//!
//! Tests run it on the histories they fetch. Debug builds also run it over every stored history
//! when the store opens, so that a crash that left a history broken is noticed at
//! the next start rather than by a confused decider much later.
//!
//! # Rules
//!
//! * Each event is an object with `eventId`, `eventType`, `eventTimestamp` and exactly one more
//!   member: the attributes named after its type. Ids run 1, 2, …, n in order; timestamps never
//!   decrease.
//! * Event 1 is `WorkflowExecutionStarted`, and no other event is.
//! * Every event id an event names points at an earlier event of the right type; 0 only where
//!   the model means "none" (a timeout or cancellation of a task that never started, a child
//!   start that failed before anything was initiated).
//! * Tasks (activity, decision, Lambda), timers, children and external requests are opened once,
//!   started at most once and closed at most once, in that order. An event that closes a started
//!   one names that start; members the opening event and later ones both carry (`timerId`,
//!   `workflowId`, …) agree.
//! * At most one decision task is started at a time, and at most one is scheduled and not yet
//!   started: the next one, which may be recorded while another is started (spec §8.2 rule 4).
//! * A change the decider must hear about (spec §7's "decision task" column) is followed by a
//!   `DecisionTaskScheduled`, unless one is scheduled and not yet started (it delivers the
//!   change too). While a decision task is started, that `DecisionTaskScheduled` comes in the
//!   same step, before the started task completes or times out; changes the task's own
//!   decisions cause get theirs after the batch. The decisions of a task cannot close the run
//!   while a next task was scheduled during it (UNHANDLED_DECISION). So the history of an open
//!   run never ends with a change owed a decision task: that run would wait forever.
//! * Events recorded for a decision name the latest `DecisionTaskCompleted`: a batch is recorded
//!   in one step, right after its completion.
//! * At most one event closes the run, and it is the last.

mod rules;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

use crate::model::events::event_attributes_member;

use rules::{Need, Ref, Role, Start};

/// The problems in `events`, a run's history in wire JSON as stored or served (whole, or as far
/// as recorded: the events of one step are recorded together, so a history never ends in the
/// middle of one); empty if it is consistent. Each problem names the event it was found at.
pub fn check_history(events: &[Value]) -> Vec<String> {
    let mut checker = Checker::default();
    for (position, event) in events.iter().enumerate() {
        checker.event(position as u64 + 1, event);
    }
    checker.finish();
    checker.problems
}

/// Checks every history in the store and names the first run whose history breaks a rule.
///
/// Debug builds run it at start-up: a full read of every history is too slow to impose on
/// production, and the point is to catch Weft's own bugs while it is being developed.
#[cfg(debug_assertions)]
pub(crate) fn stored(store: &crate::store::Store) -> Result<(), crate::Error> {
    use crate::store::Cursor;

    let tx = store.snapshot()?;
    for seq in tx.history_seqs()? {
        let all = Cursor {
            after: None,
            reverse: false,
            limit: usize::MAX,
        };
        let page = tx.history(seq, 1, u64::MAX, all)?;
        // Unreadable JSON becomes `null`, which the checker reports as not an event.
        let events: Vec<Value> = page
            .items
            .iter()
            .map(|(_, json)| serde_json::from_slice(json).unwrap_or(Value::Null))
            .collect();
        let problems = check_history(&events);
        if !problems.is_empty() {
            let run = match tx.run(seq)? {
                Some(run) => format!(
                    "{}/{}/{} (seq {seq})",
                    run.domain_name, run.execution.workflow_id, run.execution.run_id
                ),
                None => format!("seq {seq} (no run record)"),
            };
            return Err(crate::Error::InconsistentHistory { run, problems });
        }
    }
    Ok(())
}

/// Where a problem was found: an event's id (its position) and type.
#[derive(Clone, Copy)]
struct Here<'a> {
    id: u64,
    event_type: &'a str,
}

impl fmt::Display for Here<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "event {} ({})", self.id, self.event_type)
    }
}

/// Something with a life cycle (task, timer, child, external request), named by the id of the
/// event that opened it.
struct Thing<'a> {
    /// The opening event's attributes, for the members later events repeat.
    attrs: &'a Map<String, Value>,
    started: Option<u64>,
    closed: Option<u64>,
}

/// The state of a history read so far.
#[derive(Default)]
struct Checker<'a> {
    problems: Vec<String>,
    /// The type of each event so far, by position; `None` if it had none.
    types: Vec<Option<&'a str>>,
    last_timestamp: Option<f64>,
    things: HashMap<u64, Thing<'a>>,
    /// The decision task scheduled and not yet started, by its `DecisionTaskScheduled`.
    scheduled_decision: Option<u64>,
    /// The decision task started and not yet closed, by its `DecisionTaskScheduled`.
    started_decision: Option<u64>,
    latest_completion: Option<u64>,
    /// The first change since the last `DecisionTaskScheduled` that a decision task is owed for.
    owed: Option<u64>,
    /// The next decision task, scheduled while the latest completed one was started: its
    /// decider had not seen the changes it was scheduled for.
    unhandled: Option<u64>,
    /// The event that closed the run.
    closed_by: Option<u64>,
}

impl<'a> Checker<'a> {
    fn problem(&mut self, here: Here<'_>, what: impl fmt::Display) {
        self.problems.push(format!("{here}: {what}"));
    }

    /// Checks the event at `position` (1-based), which should be its id.
    fn event(&mut self, position: u64, event: &'a Value) {
        let object = event.as_object();
        let event_type = object
            .and_then(|o| o.get("eventType"))
            .and_then(Value::as_str);
        self.types.push(event_type);
        let here = Here {
            id: position,
            event_type: event_type.unwrap_or("no eventType"),
        };
        let Some(object) = object else {
            return self.problem(here, format_args!("not a JSON object: {event}"));
        };
        self.envelope(here, object);
        let Some(event_type) = event_type else {
            return;
        };
        let Some(rule) = rules::find(event_type) else {
            return self.problem(here, "unknown eventType");
        };
        if let Some(close) = self.closed_by {
            self.problem(
                here,
                format_args!("recorded after event {close} closed the run"),
            );
        }
        let attrs_member = event_attributes_member(event_type);
        let Some(attrs) = object.get(&attrs_member).and_then(Value::as_object) else {
            return self.problem(
                here,
                format_args!("{attrs_member} is missing or not an object"),
            );
        };
        let named: Vec<(&str, Option<u64>)> = rule
            .refs
            .iter()
            .map(|r| (r.member, self.reference(here, attrs, r)))
            .collect();
        let named = |member: &str| {
            named
                .iter()
                .find(|(m, _)| *m == member)
                .and_then(|(_, id)| *id)
        };
        match rule.role {
            Role::Other => {}
            Role::Opens => self.open(here, attrs),
            Role::Starts(key) => {
                if let Some(opened) = named(key) {
                    self.start(here, attrs, opened);
                    if event_type == "DecisionTaskStarted" {
                        self.decision_started(here, opened);
                    }
                }
            }
            Role::Closes(key, start) => {
                if let Some(opened) = named(key) {
                    self.close(here, attrs, opened, start);
                }
            }
        }
        if rule.decided {
            let completion = named("decisionTaskCompletedEventId");
            if completion.is_some() && completion != self.latest_completion {
                let latest = self.latest_completion.unwrap_or(0);
                self.problem(
                    here,
                    format_args!(
                        "decisionTaskCompletedEventId {} is not the latest \
                         DecisionTaskCompleted ({latest})",
                        completion.unwrap_or(0)
                    ),
                );
            }
        }
        if rule.decided
            && rule.closes_run
            && let Some(unhandled) = self.unhandled
        {
            self.problem(
                here,
                format_args!(
                    "closes the run although decision task {unhandled} was scheduled while its \
                     own was started: the events before it are unhandled"
                ),
            );
        }
        self.owe(here, rule.triggers);
        if rule.closes_run && self.closed_by.is_none() {
            self.closed_by = Some(here.id);
        }
    }

    /// Keeps track of the decision task the run owes, after an event that `triggers` one or not.
    fn owe(&mut self, here: Here<'_>, triggers: bool) {
        match here.event_type {
            "DecisionTaskScheduled" => self.owed = None,
            "DecisionTaskCompleted" | "DecisionTaskTimedOut" => {
                // A change while the task was started must have scheduled the next one at once.
                if let Some(owed) = self.owed {
                    self.problem(
                        here,
                        format_args!(
                            "event {owed} changed the run while this decision task was started, \
                             and no DecisionTaskScheduled followed it"
                        ),
                    );
                    self.owed = None;
                }
                if here.event_type == "DecisionTaskCompleted" {
                    self.latest_completion = Some(here.id);
                    self.unhandled = self.scheduled_decision;
                }
            }
            _ => {}
        }
        // A decision task scheduled and not yet started will deliver the change with the rest.
        if triggers && self.scheduled_decision.is_none() && self.owed.is_none() {
            self.owed = Some(here.id);
        }
    }

    /// A decider got the decision task scheduled as event `opened`: the one scheduled and not
    /// yet started, while no other is started.
    fn decision_started(&mut self, here: Here<'_>, opened: u64) {
        if let Some(other) = self.started_decision {
            self.problem(
                here,
                format_args!(
                    "handed out while the decision task scheduled as event {other} is started"
                ),
            );
        }
        if self.scheduled_decision == Some(opened) {
            self.scheduled_decision = None;
        }
        self.started_decision = Some(opened);
    }

    /// The rules about the history's end.
    fn finish(&mut self) {
        if let (None, Some(owed)) = (self.closed_by, self.owed) {
            let last = Here {
                id: self.types.len() as u64,
                event_type: self
                    .types
                    .last()
                    .copied()
                    .flatten()
                    .unwrap_or("no eventType"),
            };
            self.problem(
                last,
                format_args!(
                    "the run is open and owes event {owed} a decision task, but none was \
                     scheduled after it"
                ),
            );
        }
    }

    /// The members every event has: id, timestamp, the place of `WorkflowExecutionStarted`, and
    /// no members besides its own attributes.
    fn envelope(&mut self, here: Here<'_>, object: &Map<String, Value>) {
        match object.get("eventId").and_then(Value::as_u64) {
            Some(id) if id == here.id => {}
            Some(id) => self.problem(here, format_args!("has eventId {id} at this position")),
            None => self.problem(here, "has no numeric eventId"),
        }
        match object.get("eventTimestamp").and_then(Value::as_f64) {
            Some(at) => {
                if let Some(before) = self.last_timestamp.filter(|before| at < *before) {
                    let what = format!("timestamp {at} is before the previous event's {before}");
                    self.problem(here, what);
                }
                self.last_timestamp = Some(at);
            }
            None => self.problem(here, "has no numeric eventTimestamp"),
        }
        let is_start = here.event_type == "WorkflowExecutionStarted";
        if here.id == 1 && !is_start {
            self.problem(here, "the first event is not WorkflowExecutionStarted");
        } else if here.id != 1 && is_start {
            self.problem(here, "WorkflowExecutionStarted is not the first event");
        }
        let own = event_attributes_member(here.event_type);
        for member in object.keys() {
            let known = ["eventId", "eventType", "eventTimestamp", own.as_str()];
            if !known.contains(&member.as_str()) {
                self.problem(here, format_args!("has a stray member {member}"));
            }
        }
    }

    /// The event that `r` names, if it validly names one; reports it if not.
    fn reference(&mut self, here: Here<'_>, attrs: &Map<String, Value>, r: &Ref) -> Option<u64> {
        let member = r.member;
        let id = match (attrs.get(member), r.need) {
            (None, Need::Optional) => return None,
            (None, _) => {
                self.problem(here, format_args!("{member} is missing"));
                return None;
            }
            (Some(value), _) => match value.as_u64() {
                Some(id) => id,
                None => {
                    self.problem(here, format_args!("{member} is not an event id: {value}"));
                    return None;
                }
            },
        };
        if id == 0 {
            if matches!(r.need, Need::Event) {
                self.problem(here, format_args!("{member} is 0"));
            }
            return None;
        }
        if id >= here.id {
            self.problem(here, format_args!("{member} {id} is not an earlier event"));
            return None;
        }
        let target = self.types[(id - 1) as usize].unwrap_or("event without a type");
        if !r.to.contains(&target) {
            let expected = r.to.join(" or ");
            self.problem(
                here,
                format_args!("{member} {id} names a {target}, not a {expected}"),
            );
            return None;
        }
        Some(id)
    }

    fn open(&mut self, here: Here<'_>, attrs: &'a Map<String, Value>) {
        if here.event_type == "DecisionTaskScheduled" {
            if let Some(waiting) = self.scheduled_decision {
                self.problem(
                    here,
                    format_args!(
                        "the decision task scheduled as event {waiting} is not started yet"
                    ),
                );
            }
            self.scheduled_decision = Some(here.id);
        }
        let thing = Thing {
            attrs,
            started: None,
            closed: None,
        };
        self.things.insert(here.id, thing);
    }

    fn start(&mut self, here: Here<'_>, attrs: &Map<String, Value>, opened: u64) {
        self.agree(here, attrs, opened);
        let thing = &self.things[&opened];
        let problem = match (thing.closed, thing.started) {
            (Some(closed), _) => format!("starts event {opened}'s task, closed by event {closed}"),
            (None, Some(started)) => {
                format!("starts event {opened}'s task, already started by event {started}")
            }
            (None, None) => {
                self.things.get_mut(&opened).expect("looked up").started = Some(here.id);
                return;
            }
        };
        self.problem(here, problem);
    }

    fn close(&mut self, here: Here<'_>, attrs: &Map<String, Value>, opened: u64, start: Start) {
        self.agree(here, attrs, opened);
        let thing = &self.things[&opened];
        if let Some(closed) = thing.closed {
            let what = format!("closes event {opened}, already closed by event {closed}");
            return self.problem(here, what);
        }
        let started = thing.started;
        let named = attrs.get("startedEventId").and_then(Value::as_u64);
        let problem = match (start, started) {
            (Start::Unnamed, _) => None,
            (Start::Required, None) => Some(format!("closes event {opened}, which never started")),
            (Start::Required | Start::IfAny, _) if named != Some(started.unwrap_or(0)) => {
                let actual = started.map_or("it never started".to_owned(), |s| {
                    format!("it started as event {s}")
                });
                Some(format!(
                    "startedEventId {} does not match event {opened}: {actual}",
                    named.unwrap_or(0)
                ))
            }
            _ => None,
        };
        if let Some(problem) = problem {
            self.problem(here, problem);
        }
        self.things.get_mut(&opened).expect("looked up").closed = Some(here.id);
        if self.started_decision == Some(opened) {
            self.started_decision = None;
        }
        if self.scheduled_decision == Some(opened) {
            self.scheduled_decision = None;
        }
    }

    /// Reports members that both this event and the one that opened its thing carry, with
    /// different values.
    fn agree(&mut self, here: Here<'_>, attrs: &Map<String, Value>, opened: u64) {
        let first = self.things[&opened].attrs;
        let differing: Vec<String> = rules::SHARED
            .iter()
            .filter_map(|member| match (first.get(*member), attrs.get(*member)) {
                (Some(was), Some(now)) if was != now => Some(format!(
                    "{member} {now} differs from event {opened}'s {was}"
                )),
                _ => None,
            })
            .collect();
        for problem in differing {
            self.problem(here, problem);
        }
    }
}
