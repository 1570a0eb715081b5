//! Runs pinned to their decider, and upgrades that move them: the records and the `/v1` bodies
//! the server (`ops::pins`, `ops::upgrades`) and the client share.
//!
//! A run is pinned to the Wasm decider module that completes its first decision task; every
//! later decision task of the run is decided by that module, whatever is bound to its list
//! since, until an upgrade moves it (after replaying its history with the new module, unless
//! forced). External deciders polling the same list over HTTP are never pinned.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;

use super::Divergence;

/// The decider module a run is pinned to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pin {
    /// The module's digest.
    pub module: String,
    /// When the run was pinned to it: when that module completed the run's first decision
    /// task, or when an upgrade moved the run to it.
    pub at: Timestamp,
    /// The module an upgrade moved the run from, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_from: Option<String>,
}

/// A run's pin as the `/v1` run listing shows it: with the module's name and version label.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PinnedDecider {
    /// The pin.
    #[serde(flatten)]
    pub pin: Pin,
    /// The module's name, if its upload gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The module's version label, if its upload gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// What binding a new module to a decision task list does to the open runs pinned to the
/// modules it had before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UpgradePolicy {
    /// They stay on their modules until they close.
    #[default]
    Pinned,
    /// Each is replayed with the new module: those whose histories it decides as recorded
    /// move to it, the rest stay.
    Replay,
    /// All move to the new module, unchecked: for emergencies only, so given only with `force`,
    /// and acting once, at the bind that gives it (a binding never keeps it).
    All,
}

impl UpgradePolicy {
    /// Its name in JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            UpgradePolicy::Pinned => "pinned",
            UpgradePolicy::Replay => "replay",
            UpgradePolicy::All => "all",
        }
    }

    /// Whether it is the default, which a binding's JSON leaves out.
    pub fn is_pinned(&self) -> bool {
        *self == UpgradePolicy::Pinned
    }
}

/// One module a binding has been bound to: a version of the binding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BindingVersion {
    /// Its number: 1 for the binding's first module, one more for each module bound since.
    pub number: u32,
    /// The module's digest.
    pub module: String,
    /// When the binding was first bound to it.
    pub bound_at: Timestamp,
    /// Open runs pinned to it, as `GET /v1/domains/{domain}/bindings` answers; never stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned_runs: Option<u64>,
}

/// The query of `POST /v1/domains/{domain}/bindings/decision/{name}/upgrade`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpgradeQuery {
    /// Report what the upgrade would do, and move nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    /// Move every run without replaying it (`all`); refused without `force`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all: bool,
    /// See `all`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub force: bool,
}

/// What an upgrade did (or, dry, would do) to the open runs pinned to a binding's older
/// modules.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpgradeReport {
    /// The module the runs were moved to: the binding's current one.
    pub module: String,
    /// Whether nothing was moved.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    /// Each open run pinned to an older module, oldest start first.
    pub runs: Vec<RunUpgrade>,
}

/// What an upgrade did to one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunUpgrade {
    /// The workflow id.
    pub workflow_id: String,
    /// The run id.
    pub run_id: String,
    /// The module it was pinned to.
    pub from: String,
    /// Whether it moved (or, dry, would move) to the new module.
    pub moved: bool,
    /// Decision tasks of its history replayed with the new module.
    pub decision_tasks: u32,
    /// Why it stayed: the first decision the new module makes differently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
    /// Why it stayed, when no divergence says: its history grew while it was replayed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
