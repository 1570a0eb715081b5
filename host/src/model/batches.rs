//! Batch jobs (`/v1/domains/{domain}/batches`): one action (terminate, request cancel, signal,
//! pause, resume) over the open runs a filter picks, run by the server at a bounded rate,
//! surviving restarts, with its progress kept; the bodies the server (`ops::batches`) and the
//! client share, and what the store keeps.
//!
//! A job acts on the open runs the filter picks that started no later than the job was made,
//! oldest first. Each second (of the server's clock) it takes up to `rate` of them and acts on
//! each in the transaction that records its progress, so a run is acted on once, whichever node
//! takes the step and however often the server restarts. A run the action does not apply to (a
//! resume of a run not paused, a run closed while the step read it) counts as failed, with the
//! reason; a run that closes before the job reaches it is no longer listed, and not counted, so
//! `done + failed` may end below `matched`. Jobs are kept after they end.

use serde::{Deserialize, Serialize};

use super::{Batch, BatchAction, BatchFailure, RunFilter};
use crate::clock::Timestamp;

/// The failures a job keeps, the latest: beyond them, it counts them only.
pub(crate) const FAILURES_KEPT: usize = 100;

/// What a batch job is made with (the body of `POST /v1/domains/{domain}/batches`): the
/// filter and action of a [`Batch`], and its rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", expecting = "a JSON object")]
pub struct BatchJobRequest {
    /// Which runs, and what to do to each.
    #[serde(flatten)]
    pub batch: Batch,
    /// Runs acted on per second; at most the server's setting, which is also the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<u32>,
    /// Who asks; without one, the caller's account.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<String>,
}

/// Where a job stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BatchJobState {
    /// Acting on runs, a step each second.
    Running,
    /// Every run it picked was acted on (or failed).
    Done,
    /// Canceled before it was done: the runs left were not acted on.
    Canceled,
}

impl BatchJobState {
    /// Its name, as the API spells it.
    pub fn name(self) -> &'static str {
        match self {
            BatchJobState::Running => "running",
            BatchJobState::Done => "done",
            BatchJobState::Canceled => "canceled",
        }
    }
}

/// A batch job, as the API shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchJob {
    /// Its id, unique in the store.
    pub id: String,
    /// What it does to each run.
    #[serde(flatten)]
    pub action: BatchAction,
    /// Which runs.
    pub filter: RunFilter,
    /// Runs acted on per second.
    pub rate: u32,
    /// Where it stands.
    pub state: BatchJobState,
    /// Who made it: the caller's `identity`, else its account.
    pub by: String,
    /// When it was made; it acts on runs started no later.
    pub created_at: Timestamp,
    /// When it was done or canceled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Timestamp>,
    /// Open runs the filter picked when it was made.
    pub matched: u64,
    /// Runs acted on.
    pub done: u64,
    /// Runs it could not act on.
    pub failed: u64,
    /// The latest of those, with why (at most 100).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<BatchFailure>,
}

/// The answer of `GET /v1/domains/{domain}/batches`: the domain's jobs, newest first.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchJobList {
    /// The jobs.
    pub jobs: Vec<BatchJob>,
}

/// A job as the store keeps it: the job, whose domain, and where its next step starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BatchRecord {
    /// A number unique in the store; its deadlines name it.
    pub(crate) seq: u64,
    /// Its domain's id, account, region and name.
    pub(crate) domain: u64,
    pub(crate) account: String,
    pub(crate) region: String,
    pub(crate) domain_name: String,
    pub(crate) job: BatchJob,
    /// The (start time in ms, run seq) of the last run it acted on, in the open listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cursor: Option<(i64, u64)>,
}

impl BatchRecord {
    /// Notes that acting on the run (`workflow_id`, `run_id`) failed for `message`.
    pub(crate) fn failed(&mut self, workflow_id: String, run_id: String, message: String) {
        let job = &mut self.job;
        job.failed += 1;
        if job.failures.len() == FAILURES_KEPT {
            job.failures.remove(0);
        }
        job.failures.push(BatchFailure {
            workflow_id,
            run_id,
            message,
        });
    }
}
