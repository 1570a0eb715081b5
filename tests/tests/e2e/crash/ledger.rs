//! What the clients were told: every acknowledged call and every task a poll handed out; and the
//! comparison of the final histories with it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;

/// The ledger, shared by every actor. Never held across an await.
#[derive(Clone, Default)]
pub(super) struct Shared(Arc<Mutex<Ledger>>);

impl Shared {
    pub(super) fn lock(&self) -> MutexGuard<'_, Ledger> {
        // An actor that panicked holding the lock fails the test through its join handle.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A task a poll handed out: the run and the task's `startedEventId`.
type Handed = (String, i64);

#[derive(Default)]
pub(super) struct Ledger {
    /// Acknowledged StartWorkflowExecution calls: workflow id → run id.
    pub(super) starts: HashMap<String, String>,
    /// Acknowledged SignalWorkflowExecution calls: (workflow id, input).
    pub(super) signals: Vec<(String, String)>,
    /// Acknowledged RespondActivityTaskCompleted calls: (run id, startedEventId, result).
    pub(super) completions: Vec<(String, i64, String)>,
    /// Acknowledged RespondDecisionTaskCompleted calls: (run id, startedEventId).
    pub(super) decisions: Vec<Handed>,
    /// Tasks handed out by polls, with the type of the event that must have started them.
    handed_out: HashMap<Handed, &'static str>,
    /// Tasks handed out more than once.
    duplicates: Vec<Handed>,
    /// Calls that got no answer at first, then succeeded (.0) or failed (.1) when retried.
    pub(super) retried: (usize, usize),
    /// Calls that got a fault the workflow did not expect.
    pub(super) surprises: Vec<String>,
}

impl Ledger {
    /// Records that a poll handed out the task started by event `started` (of `event_type`).
    pub(super) fn handed_out(&mut self, run: &str, started: i64, event_type: &'static str) {
        let task = (run.to_owned(), started);
        if self.handed_out.insert(task.clone(), event_type).is_some() {
            self.duplicates.push(task);
        }
    }

    /// How many tasks polls handed out.
    pub(super) fn hand_offs(&self) -> usize {
        self.handed_out.len()
    }
}

/// A run at the end: its names, close status (`None` if open) and history.
pub(super) struct Run {
    pub(super) workflow_id: String,
    pub(super) run_id: String,
    pub(super) close_status: Option<String>,
    pub(super) events: Vec<Value>,
}

/// Everything that disagrees between the ledger and the final runs of `workflows`.
pub(super) fn verify(ledger: &Ledger, workflows: &[String], runs: &[Run]) -> Vec<String> {
    let mut problems = Vec::new();
    let by_run: HashMap<&str, &Run> = runs.iter().map(|r| (r.run_id.as_str(), r)).collect();
    for run in runs {
        let name = format!("{}/{}", run.workflow_id, run.run_id);
        let timers = ["TimerStarted", "TimerFired"].map(|t| {
            let events = run.events.iter();
            events.filter(|e| e["eventType"] == t).count()
        });
        if run.close_status.as_deref() != Some("COMPLETED") {
            problems.push(format!(
                "{name} is {:?}, not COMPLETED; its last events: {}",
                run.close_status,
                tail(&run.events)
            ));
        } else if timers != [1, 1] {
            problems.push(format!(
                "{name}: its timer started {} times and fired {} times, not once",
                timers[0], timers[1]
            ));
        }
        for problem in weft_host::check::check_history(&run.events) {
            problems.push(format!("{name}: {problem}"));
        }
    }
    for workflow_id in workflows {
        if !runs.iter().any(|r| &r.workflow_id == workflow_id) {
            problems.push(format!("{workflow_id} has no run"));
        }
    }
    for (workflow_id, run_id) in &ledger.starts {
        if !by_run.contains_key(run_id.as_str()) {
            problems.push(format!(
                "the acknowledged start {workflow_id}/{run_id} is lost"
            ));
        }
    }
    for (workflow_id, input) in &ledger.signals {
        let delivered = runs
            .iter()
            .filter(|r| &r.workflow_id == workflow_id)
            .any(|r| {
                find(&r.events, "WorkflowExecutionSignaled", |a| {
                    a["input"] == *input
                })
            });
        if !delivered {
            problems.push(format!(
                "the acknowledged signal {input:?} to {workflow_id} is lost"
            ));
        }
    }
    let history = |run: &str| by_run.get(run).map_or(&[][..], |r| r.events.as_slice());
    for (run, started, result) in &ledger.completions {
        let recorded = find(history(run), "ActivityTaskCompleted", |a| {
            a["startedEventId"] == *started && a["result"] == *result
        });
        if !recorded {
            problems.push(format!(
                "the acknowledged completion of activity task {run}#{started} ({result:?}) is lost"
            ));
        }
    }
    for (run, started) in &ledger.decisions {
        if !find(history(run), "DecisionTaskCompleted", |a| {
            a["startedEventId"] == *started
        }) {
            problems.push(format!(
                "the acknowledged completion of decision task {run}#{started} is lost"
            ));
        }
    }
    for ((run, started), event_type) in &ledger.handed_out {
        let event = usize::try_from(*started)
            .ok()
            .and_then(|id| history(run).get(id.wrapping_sub(1)));
        if event.is_none_or(|e| e["eventType"] != *event_type) {
            problems.push(format!(
                "task {run}#{started} was handed out, but event {started} is not its \
                 {event_type}: {event:?}"
            ));
        }
    }
    for (run, started) in &ledger.duplicates {
        problems.push(format!("task {run}#{started} was handed out twice"));
    }
    problems.extend(ledger.surprises.iter().cloned());
    problems
}

/// Whether `events` hold an event of `event_type` whose attributes satisfy `test`.
fn find(events: &[Value], event_type: &str, test: impl Fn(&Value) -> bool) -> bool {
    let member = attributes_member(event_type);
    events
        .iter()
        .any(|e| e["eventType"] == event_type && test(&e[&member]))
}

fn attributes_member(event_type: &str) -> String {
    let mut chars = event_type.chars();
    let head: String = chars
        .next()
        .map(|c| c.to_ascii_lowercase())
        .into_iter()
        .collect();
    format!("{head}{}EventAttributes", chars.as_str())
}

/// The last events of a history as `id:type`, to show where a run got stuck.
pub(super) fn tail(events: &[Value]) -> String {
    let start = events.len().saturating_sub(8);
    let shown: Vec<String> = events[start..]
        .iter()
        .map(|e| {
            format!(
                "{}:{}",
                e["eventId"],
                e["eventType"].as_str().unwrap_or("?")
            )
        })
        .collect();
    shown.join(" ")
}
