//! Replaying a decider over recorded histories: what to replay (`POST
//! /v1/domains/{domain}/replay`'s body) and what the replay found. The server and the client
//! share these types.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What to replay: a decider, over the newest runs of a domain that the filters pick.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct Replay {
    /// The decider: an uploaded module's digest.
    pub module: String,
    /// Only runs of this workflow type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workflow_type: Option<TypeRef>,
    /// Only runs whose decision tasks go to this task list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_list: Option<String>,
    /// How many runs, newest first, open or closed: [`Replay::DEFAULT_LAST`] if absent, at
    /// most [`Replay::MAX_LAST`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<u32>,
    /// Compare every attribute of every decision. By default only what a change can break a
    /// run with is compared: the decision types, the ids they name (activity, timer, child,
    /// function, marker, target workflow) and the types they run; inputs, timeouts, task lists
    /// and durations may differ.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
}

impl Replay {
    /// Runs replayed when `last` is absent.
    pub const DEFAULT_LAST: u32 = 10;
    /// The most runs one replay may take.
    pub const MAX_LAST: u32 = 1000;
}

/// A workflow type, by name and version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a JSON object")]
pub struct TypeRef {
    /// The type's name.
    pub name: String,
    /// Its version.
    pub version: String,
}

/// What a replay found, run by run, newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayReport {
    /// The runs replayed.
    pub runs: Vec<RunReplay>,
}

impl ReplayReport {
    /// The runs whose replay diverged.
    pub fn diverged(&self) -> impl Iterator<Item = &RunReplay> {
        self.runs.iter().filter(|run| run.divergence.is_some())
    }

    /// The open runs whose replay diverged: those the replayed decider would break, were it
    /// deployed.
    pub fn diverged_open(&self) -> impl Iterator<Item = &RunReplay> {
        self.diverged().filter(|run| run.open)
    }
}

/// One run's replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReplay {
    /// The run's workflow id.
    pub workflow_id: String,
    /// The run's id.
    pub run_id: String,
    /// Its workflow type.
    pub workflow_type: TypeRef,
    /// Whether the run is open: only an open run still gets decision tasks, so only its
    /// divergence can break anything.
    #[serde(default)]
    pub open: bool,
    /// The decision tasks replayed, the one that diverged included.
    pub decision_tasks: u32,
    /// Where the replayed decisions first part from the recorded ones; none if they never do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
}

/// The first decision of a run that the replay did not decide as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Divergence {
    /// The `DecisionTaskStarted` event of the decision task.
    pub started_event_id: u64,
    /// The decision's place in the task's answer, from 0.
    pub decision: u32,
    /// What differs, in words.
    pub message: String,
    /// The decision the replay made there, in wire JSON; none if it made none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed: Option<Value>,
    /// The event recorded for the decision made then, in wire JSON; none if none was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<Value>,
}
