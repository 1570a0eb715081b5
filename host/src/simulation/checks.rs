//! The invariants checked after every step, against the store as it is (read without faults)
//! and against what the clients were told.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::Value;

use crate::check::check_history;
use crate::clock::Timestamp;
use crate::model::ItemKind;
use crate::store::{Counter, Cursor, Reads};

use super::decider::attributes;

/// How long a closed run is kept: the domain's retention, one day.
pub(super) const RETENTION_MS: i64 = 24 * 3600 * 1000;

/// The event types that close a run, with the close status each gives it.
const CLOSES: [(&str, &str); 6] = [
    ("WorkflowExecutionCompleted", "COMPLETED"),
    ("WorkflowExecutionFailed", "FAILED"),
    ("WorkflowExecutionCanceled", "CANCELED"),
    ("WorkflowExecutionTerminated", "TERMINATED"),
    ("WorkflowExecutionContinuedAsNew", "CONTINUED_AS_NEW"),
    ("WorkflowExecutionTimedOut", "TIMED_OUT"),
];

/// What the clients were told had happened: each must be in the store for as long as its run
/// is kept.
#[derive(Default)]
pub(super) struct Ledger {
    /// Tasks handed out, as (run id, started event id).
    pub(super) handed: HashSet<(String, u64)>,
    /// Acknowledged starts (and resets): (workflow id, run id).
    pub(super) starts: Vec<(String, String)>,
    /// Acknowledged signals: (workflow id, their input, which no other signal has).
    pub(super) signals: Vec<(String, String)>,
    /// Acknowledged cancel requests, by run id.
    pub(super) cancels: Vec<String>,
    /// Acknowledged terminations, by run id.
    pub(super) terminations: Vec<String>,
    /// Acknowledged answers to tasks: (run id, started event id, the event that records it).
    pub(super) answers: Vec<(String, u64, &'static str)>,
}

/// A stored run as the checks last read it.
pub(super) struct Stored {
    pub(super) workflow_id: String,
    pub(super) run_id: String,
    pub(super) events: Vec<Value>,
    pub(super) open: bool,
}

impl Stored {
    /// The status the run closed with, if it did.
    pub(super) fn close_status(&self) -> Option<&'static str> {
        let last = self.events.last()?["eventType"].as_str()?;
        CLOSES.iter().find(|(t, _)| *t == last).map(|(_, s)| *s)
    }

    fn has(&self, event_type: &str, member: &str, value: &Value) -> bool {
        self.events
            .iter()
            .any(|e| e["eventType"] == event_type && attributes(e)[member] == *value)
    }
}

/// What the checks remember of the store between steps.
#[derive(Default)]
pub(super) struct Memory {
    /// Every stored run, by seq.
    pub(super) runs: BTreeMap<u64, Stored>,
    /// Runs purged: their workflow ids, by run id.
    gone: HashMap<String, String>,
    /// When each run was last seen open or closed: (time, open).
    last_seen: HashMap<u64, (Timestamp, bool)>,
    /// How many events of each type were recorded: what the workload reached.
    pub(super) reached: BTreeMap<String, u64>,
}

impl Memory {
    /// Reads what changed in the store and checks every invariant of the stored state; the
    /// runs are of domain `domain`.
    pub(super) fn check(
        &mut self,
        tx: &dyn Reads,
        domain: u64,
        now: Timestamp,
    ) -> Result<(), String> {
        let seqs: BTreeSet<u64> = tx.history_seqs().map_err(err)?.into_iter().collect();
        self.purged(&seqs, now)?;
        let mut open_runs = 0;
        for &seq in &seqs {
            let run = tx.run(seq).map_err(err)?;
            let run = run.ok_or_else(|| format!("history {seq} has no run"))?;
            let stored = self.runs.entry(seq).or_insert_with(|| Stored {
                workflow_id: run.execution.workflow_id.to_string(),
                run_id: run.execution.run_id.to_string(),
                events: Vec::new(),
                open: true,
            });
            let name = format!("{}/{}", stored.workflow_id, stored.run_id);
            let known = stored.events.len() as u64;
            let all = Cursor {
                after: None,
                reverse: false,
                limit: usize::MAX,
            };
            let page = tx.history(seq, known + 1, u64::MAX, all).map_err(err)?;
            if !page.items.is_empty() {
                for (_, json) in &page.items {
                    let event: Value = serde_json::from_slice(json).unwrap_or(Value::Null);
                    if let Some(kind) = event["eventType"].as_str() {
                        *self.reached.entry(kind.to_owned()).or_default() += 1;
                    }
                    stored.events.push(event);
                }
                let problems = check_history(&stored.events);
                if !problems.is_empty() {
                    return Err(format!("{name}'s history breaks SWF's rules: {problems:?}"));
                }
            }
            if run.next_event_id != stored.events.len() as u64 + 1 {
                return Err(format!(
                    "{name}: the record's next event is {}, the history holds {}",
                    run.next_event_id,
                    stored.events.len()
                ));
            }
            stored.open = stored.close_status().is_none();
            if stored.open != run.is_open() {
                return Err(format!(
                    "{name}: the record and the history disagree on open"
                ));
            }
            self.last_seen.insert(seq, (now, stored.open));
            if stored.open {
                open_runs += 1;
                let counted = [
                    run.open.activities,
                    run.open.timers,
                    run.open.children,
                    run.open.lambdas,
                ];
                items_agree(tx, seq, &name, counted, &stored.events)?;
            }
        }
        let counted = tx.count(domain, Counter::OpenRuns).map_err(err)?;
        if counted != open_runs {
            return Err(format!(
                "the domain counts {counted} open runs, holds {open_runs}"
            ));
        }
        match tx.next_deadline(true).map_err(err)? {
            Some(at) if at <= now => Err(format!("a deadline due at {at:?} was not fired")),
            _ => Ok(()),
        }
    }

    /// Forgets the runs no longer stored, each of which must have been closed for its
    /// retention.
    fn purged(&mut self, seqs: &BTreeSet<u64>, now: Timestamp) -> Result<(), String> {
        let gone: Vec<u64> = self
            .runs
            .keys()
            .filter(|s| !seqs.contains(s))
            .copied()
            .collect();
        for seq in gone {
            let stored = self.runs.remove(&seq).expect("a remembered run");
            let (seen, open) = self.last_seen.remove(&seq).expect("seen");
            let closed_at = match open {
                true => seen,
                false => stored
                    .events
                    .last()
                    .and_then(|e| e["eventTimestamp"].as_f64())
                    .and_then(Timestamp::from_secs_f64)
                    .unwrap_or(seen),
            };
            if now.as_millis() - closed_at.as_millis() < RETENTION_MS {
                return Err(format!(
                    "{}/{} was purged before its retention ended",
                    stored.workflow_id, stored.run_id
                ));
            }
            self.gone.insert(stored.run_id, stored.workflow_id);
        }
        Ok(())
    }

    /// The stored run `run_id`, or why there is none: purged, or never stored.
    fn run(&self, run_id: &str) -> Result<Option<&Stored>, String> {
        match self.runs.values().find(|s| s.run_id == run_id) {
            Some(stored) => Ok(Some(stored)),
            None if self.gone.contains_key(run_id) => Ok(None),
            None => Err(format!("run {run_id} was acknowledged but never stored")),
        }
    }

    /// Checks that everything acknowledged is stored, unless its run is purged.
    pub(super) fn check_ledger(&self, ledger: &Ledger) -> Result<(), String> {
        for (workflow_id, run_id) in &ledger.starts {
            if let Some(stored) = self.run(run_id)?
                && stored.workflow_id != *workflow_id
            {
                return Err(format!("run {run_id} is not of {workflow_id}"));
            }
        }
        for (workflow_id, input) in &ledger.signals {
            let input = Value::from(input.as_str());
            let found = self.runs.values().any(|s| {
                s.workflow_id == *workflow_id && s.has("WorkflowExecutionSignaled", "input", &input)
            });
            if !found && !self.lost_some_run_of(workflow_id) {
                return Err(format!(
                    "the signal {input} to {workflow_id} was acknowledged, not recorded"
                ));
            }
        }
        let last = |stored: &Stored, event_type: &str| {
            stored
                .events
                .last()
                .is_some_and(|e| e["eventType"] == event_type)
        };
        for run_id in &ledger.terminations {
            if let Some(stored) = self.run(run_id)?
                && !last(stored, "WorkflowExecutionTerminated")
            {
                return Err(format!(
                    "{run_id}'s acknowledged termination is not recorded"
                ));
            }
        }
        for run_id in &ledger.cancels {
            if let Some(stored) = self.run(run_id)?
                && !stored
                    .events
                    .iter()
                    .any(|e| e["eventType"] == "WorkflowExecutionCancelRequested")
            {
                return Err(format!(
                    "{run_id}'s acknowledged cancel request is not recorded"
                ));
            }
        }
        for (run_id, started, event_type) in &ledger.answers {
            if let Some(stored) = self.run(run_id)?
                && !stored.has(event_type, "startedEventId", &Value::from(*started))
            {
                return Err(format!(
                    "{run_id}: the answer to the task started by event {started} was \
                     acknowledged, but no {event_type} names it"
                ));
            }
        }
        Ok(())
    }

    /// Whether some run of `workflow_id` was purged (the ledger cannot tell which run a
    /// signal without a run id reached).
    fn lost_some_run_of(&self, workflow_id: &str) -> bool {
        self.gone.values().any(|w| w == workflow_id)
    }
}

/// The stored error as the simulation reports it.
fn err(error: crate::store::StoreError) -> String {
    format!("the store failed a read: {error}")
}

/// Checks that the open run `seq`'s item counts, its stored items and its history agree on
/// what it holds open: activities, timers, children and Lambda function tasks.
fn items_agree(
    tx: &dyn Reads,
    seq: u64,
    name: &str,
    counted: [usize; 4],
    events: &[Value],
) -> Result<(), String> {
    let kinds = [
        ItemKind::Activity,
        ItemKind::Timer,
        ItemKind::Child,
        ItemKind::Lambda,
    ];
    let in_history = open_in_history(events);
    for (i, kind) in kinds.into_iter().enumerate() {
        let stored = tx.item_keys(seq, kind).map_err(err)?;
        if stored.len() != counted[i] || stored != in_history[i] {
            return Err(format!(
                "{name}: open {kind:?} items: counted {}, stored {stored:?}, in the history {:?}",
                counted[i], in_history[i]
            ));
        }
    }
    Ok(())
}

/// The events that opened what `events` leave open: activities, timers, children and Lambda
/// function tasks, each in order.
fn open_in_history(events: &[Value]) -> [Vec<u64>; 4] {
    let mut open: [BTreeSet<u64>; 4] = Default::default();
    for event in events {
        let id = event["eventId"].as_u64().unwrap_or(0);
        let attrs = attributes(event);
        let by = |member: &str| attrs[member].as_u64().unwrap_or(0);
        match event["eventType"].as_str().unwrap_or("") {
            "ActivityTaskScheduled" => _ = open[0].insert(id),
            "ActivityTaskCompleted"
            | "ActivityTaskFailed"
            | "ActivityTaskTimedOut"
            | "ActivityTaskCanceled" => _ = open[0].remove(&by("scheduledEventId")),
            "TimerStarted" => _ = open[1].insert(id),
            "TimerFired" | "TimerCanceled" => _ = open[1].remove(&by("startedEventId")),
            "StartChildWorkflowExecutionInitiated" => _ = open[2].insert(id),
            "StartChildWorkflowExecutionFailed"
            | "ChildWorkflowExecutionCompleted"
            | "ChildWorkflowExecutionFailed"
            | "ChildWorkflowExecutionTimedOut"
            | "ChildWorkflowExecutionCanceled"
            | "ChildWorkflowExecutionTerminated" => _ = open[2].remove(&by("initiatedEventId")),
            "LambdaFunctionScheduled" => _ = open[3].insert(id),
            "LambdaFunctionCompleted" | "LambdaFunctionFailed" | "LambdaFunctionTimedOut" => {
                _ = open[3].remove(&by("scheduledEventId"))
            }
            _ => {}
        }
    }
    open.map(|set| set.into_iter().collect())
}

/// The decision tasks queued on list `dl` and the activity tasks on list `al` for the runs
/// `runs`, as their histories tell: scheduled, neither started nor timed out nor canceled. A
/// decision task scheduled while another is started waits off the list until that one ends.
pub(super) fn pending<'a>(runs: impl Iterator<Item = &'a Stored>) -> [u64; 2] {
    let mut pending = [0; 2];
    for run in runs.filter(|r| r.open) {
        let mut decisions = BTreeSet::new();
        let mut activities = BTreeSet::new();
        let mut started_decision = None;
        for event in &run.events {
            let id = event["eventId"].as_u64().unwrap_or(0);
            let attrs = attributes(event);
            let scheduled = attrs["scheduledEventId"].as_u64().unwrap_or(0);
            match event["eventType"].as_str().unwrap_or("") {
                "DecisionTaskScheduled" => _ = decisions.insert(id),
                "DecisionTaskStarted" => {
                    decisions.remove(&scheduled);
                    started_decision = Some(scheduled);
                }
                "DecisionTaskTimedOut" | "DecisionTaskCompleted" => {
                    decisions.remove(&scheduled);
                    if started_decision == Some(scheduled) {
                        started_decision = None;
                    }
                }
                "ActivityTaskScheduled" if attrs["taskList"]["name"] == "al" => {
                    _ = activities.insert(id)
                }
                "ActivityTaskStarted" | "ActivityTaskCanceled" | "ActivityTaskTimedOut" => {
                    _ = activities.remove(&scheduled)
                }
                _ => {}
            }
        }
        if started_decision.is_none() {
            pending[0] += decisions.len() as u64;
        }
        pending[1] += activities.len() as u64;
    }
    pending
}
