//! Records of Weft's extension beside SWF: uploaded Wasm modules, the bindings that put them to
//! work on a domain's task lists and functions, and the failures those bindings met.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::runtime::{GuestLimits, World};

/// An uploaded module. Its code is stored apart, under the same key.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ModuleRecord {
    /// The sha256 of its bytes, lowercase hex: its name.
    pub(crate) digest: String,
    /// The world it was built for.
    pub(crate) world: World,
    /// Its size in bytes.
    pub(crate) size: u64,
    /// When it was first uploaded.
    pub(crate) uploaded_at: Timestamp,
}

/// What a binding serves. Stored as its number in keys: never renumber.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BindingKind {
    /// A decision task list, served by a decider.
    Decision = 0,
    /// An activity task list, served by an activity worker.
    Activity = 1,
    /// A Lambda function name, served by a function.
    Function = 2,
}

impl BindingKind {
    /// Every kind, by number.
    pub(crate) const ALL: [BindingKind; 3] = [
        BindingKind::Decision,
        BindingKind::Activity,
        BindingKind::Function,
    ];

    /// The world a module must have to serve this kind.
    pub(crate) fn world(self) -> World {
        match self {
            BindingKind::Decision => World::Decider,
            BindingKind::Activity => World::ActivityWorker,
            BindingKind::Function => World::Function,
        }
    }

    /// Its name in URLs and JSON.
    pub fn name(self) -> &'static str {
        match self {
            BindingKind::Decision => "decision",
            BindingKind::Activity => "activity",
            BindingKind::Function => "function",
        }
    }

    /// The kind called `name` in URLs and JSON.
    pub(crate) fn from_name(name: &str) -> Option<BindingKind> {
        BindingKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A module bound to serve one task list or function name of a domain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Binding {
    /// The account and region of its domain.
    pub(crate) account: String,
    /// See `account`.
    pub(crate) region: String,
    /// The domain's name.
    pub(crate) domain: String,
    /// What it serves.
    pub(crate) kind: BindingKind,
    /// The task list, or the function's name.
    pub(crate) name: String,
    /// The module's digest.
    pub(crate) module: String,
    /// Tasks it runs at once.
    pub(crate) concurrency: u32,
    /// The limits of each call.
    pub(crate) limits: GuestLimits,
    /// The hosts (`host` or `host:port`) its activity worker may send HTTP requests to; empty,
    /// the default, denies all. Always empty for deciders and functions, which have no
    /// `wasi:http`. Absent from bindings stored before it existed.
    #[serde(default)]
    pub(crate) http_hosts: Vec<String>,
    /// When it was made (or last replaced).
    pub(crate) created_at: Timestamp,
}

impl Binding {
    /// The most tasks one binding may run at once.
    pub(crate) const MAX_CONCURRENCY: u32 = 64;
}

/// A task a binding's guest did not finish: what it was and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GuestFailureRecord {
    /// When it happened.
    pub(crate) at: Timestamp,
    /// The execution it worked for.
    pub(crate) workflow_id: String,
    /// See `workflow_id`.
    pub(crate) run_id: String,
    /// The task: `decision task <started event id>`, `activity <id>` or `function <id>`.
    pub(crate) task: String,
    /// Why: the reason recorded in the history, or the decider's own error.
    pub(crate) reason: String,
}
