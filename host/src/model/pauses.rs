//! Pausing a run (`POST /v1/domains/{domain}/workflows/{workflowId}/pause` and `.../resume`):
//! the bodies the server (`ops::pauses`) and the client share, and the pause a run keeps.
//!
//! While a run is paused none of its queued tasks (decision, activity, Lambda function) is
//! handed out, to any poller: they are held off their lists, in their places. Tasks already
//! started run on and may be answered; timers and timeouts keep firing and the tasks they
//! schedule are held too. Resuming puts every held task back where it was queued, so it is
//! handed out in the order it would have been. SWF has no such state: the history records
//! nothing of it, and SWF's own operations answer as for any open run.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;

/// The longest reason a pause keeps, as SWF's termination reasons.
pub(crate) const MAX_PAUSE_REASON: usize = 256;

/// Why and by whom a run is paused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pause {
    /// When it was paused.
    pub at: Timestamp,
    /// Who paused it: the caller's `identity`, else its account; for a pause the server made,
    /// what made it (a binding whose decider kept failing).
    pub by: String,
    /// Why, as the caller said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What a pause or resume asks for.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct PauseRequest {
    /// The run; without one, the workflow id's open run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Why (a pause only; at most [`MAX_PAUSE_REASON`] characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who asks, as SWF's `identity` members name a caller; without one, the caller's account.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<String>,
}

/// What a pause or resume did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PauseReport {
    /// The run's id.
    pub run_id: String,
    /// Its pause now: `None` once resumed. A run paused already keeps its first pause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<Pause>,
    /// Whether the request changed anything: false for a pause of a paused run, or a resume
    /// of a running one.
    pub changed: bool,
    /// The queued tasks the change took off their lists (pause) or put back (resume).
    pub tasks: usize,
}
