//! Resetting a run (`POST /v1/domains/{domain}/workflows/{workflowId}/reset`): the bodies the
//! server (`ops::resets`) and the client share.
//!
//! A reset starts a new run of the same workflow id whose history is the old run's events up to
//! one of its decision tasks, carried as they were recorded (ids, timestamps and attributes),
//! ending before that task's `DecisionTaskStarted`: the task is handed out again and decided
//! anew. Signals the old run received after that point are recorded again in the new run,
//! unless the request says not to. The old run, if still open, is terminated.

use serde::{Deserialize, Serialize};

use super::Divergence;

/// What a reset asks for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct ResetRequest {
    /// The run to reset; without one, the workflow id's open run or, if none is open, its
    /// newest closed run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The decision task decided again.
    pub to: ResetPoint,
    /// Why, recorded as the old run's termination reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Reset even though the binding's current decider decides the carried events otherwise
    /// than recorded.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub force: bool,
    /// Record again the signals the old run received after the reset point (the default).
    #[serde(default = "yes", skip_serializing_if = "Clone::clone")]
    pub reapply_signals: bool,
}

fn yes() -> bool {
    true
}

/// Which decision task a reset decides again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "an event id, \"first\" or \"lastGood\" (the decision task to decide again)"
)]
pub enum ResetPoint {
    /// The decision task this event belongs to: its `DecisionTaskScheduled`,
    /// `DecisionTaskStarted`, `DecisionTaskCompleted` or `DecisionTaskTimedOut`.
    Event(u64),
    /// A task named by where it is.
    Named(NamedPoint),
}

/// A decision task named by where it is in the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NamedPoint {
    /// The run's first decision task: only the start (and what came before its first task
    /// started) is carried.
    First,
    /// The last decision task started before the first failure the history records (an event
    /// whose type ends in `Failed` or `TimedOut`); the last decision task if there is none.
    LastGood,
}

/// What a reset did (the answer of `POST .../reset`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResetReport {
    /// The workflow id.
    pub workflow_id: String,
    /// The new run's id.
    pub run_id: String,
    /// The run it was reset from.
    pub reset_run_id: String,
    /// Whether that run was open, and so was terminated.
    pub terminated: bool,
    /// The new run's history begins with the old run's events 1 to this one.
    pub carried_events: u64,
    /// The `DecisionTaskScheduled` event (carried) of the decision task decided again.
    pub decision_task: u64,
    /// Signals recorded again after the carried events.
    pub reapplied_signals: u64,
    /// The decider module the new run is pinned to, if a Wasm decider is bound to its list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// The carried decision tasks that module replayed.
    pub replayed_decision_tasks: u32,
    /// Where it decided otherwise than recorded: only when the reset was forced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
}
