//! The bodies of Weft's run listing and batch actions under `/v1`: every run of a domain, open
//! and closed together, newest first, with whether it is failing; and one action applied to
//! every open run a filter picks. The server (`ops::runs`) and the client share them.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;

use super::{Pause, PinnedDecider, TypeRef};

/// Which runs a listing, count or batch picks: the query of `GET /v1/domains/{domain}/runs`.
///
/// At most one of `workflowId`, `tag`, `type`, `closeStatus` and `module` (the visibility index
/// holds one filter besides time, as SWF's lists do).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct RunFilter {
    /// `open`, `closed`, or both when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<RunState>,
    /// Runs of this workflow id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow_id: Option<String>,
    /// Runs carrying this tag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Runs of the workflow type of this name.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_name: Option<String>,
    /// With `type`: only this version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Closed runs that ended so (`COMPLETED`, `FAILED`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub close_status: Option<String>,
    /// Runs started at or after this time (epoch seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_after: Option<Timestamp>,
    /// Runs started at or before this time (epoch seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_before: Option<Timestamp>,
    /// Runs closed at or after this time: closed runs by close time, newest close first.
    /// Not with `startedAfter` or `startedBefore`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_after: Option<Timestamp>,
    /// Runs closed at or before this time; see `closedAfter`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_before: Option<Timestamp>,
    /// Open runs pinned to this decider module: its digest, or its first 8 or more hex digits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
}

/// Open or closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    /// Still running.
    Open,
    /// Ended, however it ended.
    Closed,
}

/// The query of `GET /v1/domains/{domain}/runs`: the filter and the page.
///
/// Unknown members are refused by the flattened [`RunFilter`], which sees what this struct leaves.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunQuery {
    /// Which runs.
    #[serde(flatten)]
    pub filter: RunFilter,
    /// Runs per page: 1 to 1000, 100 by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// Oldest start first instead of newest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub oldest_first: bool,
    /// The previous page's `nextPageToken`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// A run as the `/v1` listing shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    /// The workflow id.
    pub workflow_id: String,
    /// The run id.
    pub run_id: String,
    /// Its workflow type.
    pub workflow_type: TypeRef,
    /// `OPEN`, or how it closed (`COMPLETED`, `FAILED`, …).
    pub status: String,
    /// When it started.
    pub started_at: Timestamp,
    /// When it closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_at: Option<Timestamp>,
    /// Its tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Whether cancellation was requested of the run, also once it closed (SWF's describe
    /// answers false for every closed run).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cancel_requested: bool,
    /// Why the open run is failing, when its last decision or activity attempt failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing: Option<Failing>,
    /// Whether the run was recorded elsewhere and imported (`weft import`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub imported: bool,
    /// The Wasm decider module it is pinned to, if one decided it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decider: Option<PinnedDecider>,
    /// Who paused it, when and why, while it is paused (`model::pauses`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<Pause>,
}

/// The failure that makes a run failing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Failing {
    /// When the attempt failed.
    pub at: Timestamp,
    /// What failed and why, in words.
    pub reason: String,
}

/// A page of runs (the answer of `GET /v1/domains/{domain}/runs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunList {
    /// The runs, newest start (or close, by `closedAfter`/`closedBefore`) first unless
    /// `oldestFirst`.
    pub runs: Vec<RunSummary>,
    /// Present when more runs follow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// How many runs a filter picks (the answer of `GET /v1/domains/{domain}/runs/count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCount {
    /// The exact count.
    pub count: u64,
}

/// What a batch does to each open run (the body of `POST /v1/domains/{domain}/runs/batch`).
///
/// Unknown members are refused by the flattened [`BatchAction`], which sees what this struct
/// leaves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", expecting = "a JSON object")]
pub struct Batch {
    /// Which runs; only open runs are acted on, so `status` may only be `open`.
    #[serde(default)]
    pub filter: RunFilter,
    /// What to do to each.
    #[serde(flatten)]
    pub action: BatchAction,
}

/// A batch's action, with the members of the SWF call it makes for each run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "action",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum BatchAction {
    /// TerminateWorkflowExecution.
    Terminate {
        /// The termination's reason.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// Its details.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        details: Option<String>,
    },
    /// RequestCancelWorkflowExecution.
    RequestCancel,
    /// SignalWorkflowExecution.
    Signal {
        /// The signal's name.
        signal_name: String,
        /// Its input.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input: Option<String>,
    },
    /// A pause (`model::pauses`).
    Pause {
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A resume of a paused run.
    Resume,
    /// A reset (`model::resets`) to the decision task `to` names, unchecked against the
    /// decider (as with `force`), signals received after it recorded again.
    Reset {
        /// The decision task decided again.
        to: super::NamedPoint,
        /// Why, recorded as the old run's termination reason.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

impl BatchAction {
    /// Its name in the API: `terminate`, `requestCancel`, `signal`, `pause`, `resume` or
    /// `reset`.
    pub fn name(&self) -> &'static str {
        match self {
            BatchAction::Terminate { .. } => "terminate",
            BatchAction::RequestCancel => "requestCancel",
            BatchAction::Signal { .. } => "signal",
            BatchAction::Pause { .. } => "pause",
            BatchAction::Resume => "resume",
            BatchAction::Reset { .. } => "reset",
        }
    }
}

/// What a batch did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchOutcome {
    /// Open runs the filter picked.
    pub matched: u64,
    /// Runs the action was applied to.
    pub done: u64,
    /// The runs it could not be applied to (one closed meanwhile, say), and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<BatchFailure>,
}

/// A run a batch could not act on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchFailure {
    /// The workflow id.
    pub workflow_id: String,
    /// The run id.
    pub run_id: String,
    /// The fault's message.
    pub message: String,
}
