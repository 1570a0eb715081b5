//! Records of Weft's extension beside SWF: uploaded Wasm modules, the bindings that put them to
//! work on a domain's task lists and functions, and the failures those bindings met; and the
//! bodies of its `/v1` API, which the server (`api::extension`) and the client (`client`) share.
//!
//! The records are stored as they are answered, so the API shows a binding as the store keeps
//! it.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::runtime::{GuestLimits, World};

use super::{BindingVersion, Pause, UpgradePolicy, UpgradeReport};

/// An uploaded module. Its code is stored apart, under the same key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModuleRecord {
    /// The sha256 of its bytes, lowercase hex: its name.
    pub digest: String,
    /// The world it was built for.
    pub world: World,
    /// Its size in bytes.
    pub size: u64,
    /// When it was first uploaded.
    pub uploaded_at: Timestamp,
    /// The name its uploader gave it, such as `order-decider`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The version label its uploader gave it, such as `1.4.0` or a commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The bindings that run it, as `GET /v1/modules` answers; never stored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub used_by: Vec<BindingRef>,
    /// Open runs pinned to it, as `GET /v1/modules` answers; never stored.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pinned_runs: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

/// A binding, by where it is: domain, kind and name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BindingRef {
    /// The domain.
    pub domain: String,
    /// What it serves.
    pub kind: BindingKind,
    /// The task list, or the function's name.
    pub name: String,
}

/// The name and version label an upload gives its module (the query of `POST /v1/modules`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModuleLabel {
    /// The module's name: 1 to 128 characters, no control characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its version label: 1 to 128 characters, no control characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
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
    pub fn world(self) -> World {
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
pub struct Binding {
    /// The account and region of its domain.
    pub account: String,
    /// See `account`.
    pub region: String,
    /// The domain's name.
    pub domain: String,
    /// What it serves.
    pub kind: BindingKind,
    /// The task list, or the function's name.
    pub name: String,
    /// The module's digest.
    pub module: String,
    /// Tasks it runs at once.
    pub concurrency: u32,
    /// The limits of each call.
    pub limits: GuestLimits,
    /// The hosts (`host` or `host:port`) its activity worker may send HTTP requests to; empty,
    /// the default, denies all. Always empty for deciders and functions, which have no
    /// `wasi:http`. Absent from bindings stored before it existed.
    #[serde(default)]
    pub http_hosts: Vec<String>,
    /// When it was made (or last replaced).
    pub created_at: Timestamp,
    /// The module it ran before it was last bound to another: what a rollback restores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_module: Option<String>,
    /// Every module it has been bound to, each once, in the order first bound. Kept for
    /// decision bindings, whose open runs stay pinned to older versions; a module deleted
    /// leaves the list (the others keep their numbers). Empty in bindings stored before
    /// versions were kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<BindingVersion>,
    /// The number the latest version got: a new module gets the next, never one a deleted
    /// version had.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub last_version: u32,
    /// What binding another module does to the open runs pinned to older versions (decision
    /// bindings): `pinned` or `replay` (`all` acts once, when given, and is never kept).
    #[serde(default, skip_serializing_if = "UpgradePolicy::is_pinned")]
    pub upgrade: UpgradePolicy,
    /// Whether a run of its list that a pinned run starts there (continue-as-new, a child)
    /// starts pinned to that run's module, if it is one of the binding's versions, rather than on
    /// the current one (decision bindings).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inherit_pin: bool,
    /// While a decider is ramped up: the share of new runs, in percent, that `module` takes;
    /// `previous_module` takes the rest. Absent once promoted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ramp: Option<u8>,
    /// After this many failed attempts in a row of its decider on one run's decision task, the
    /// run is paused (`model::pauses`) until someone resumes it (decision bindings; off when
    /// absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_after_failures: Option<u32>,
    /// What binding it to a new module did to open runs pinned to older ones, as `PUT` answers
    /// when its policy moved any; never stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upgraded: Option<UpgradeReport>,
}

#[cfg(test)]
impl Binding {
    /// A binding of `name` as `kind` in domain `d` of the open tenant (`us-east-1`) to a module
    /// of digest zero, as the Wasm runtime would make it, for tests of what it routes.
    pub(crate) fn for_tests(kind: BindingKind, name: &str) -> Binding {
        Binding {
            account: crate::DEFAULT_ACCOUNT_ID.into(),
            region: "us-east-1".into(),
            domain: "d".into(),
            kind,
            name: name.into(),
            module: "0".repeat(64),
            concurrency: 1,
            limits: Default::default(),
            http_hosts: Vec::new(),
            created_at: crate::clock::Timestamp::from_millis(0),
            previous_module: None,
            versions: Vec::new(),
            last_version: 0,
            upgrade: Default::default(),
            upgraded: None,
            ramp: None,
            inherit_pin: false,
            pause_after_failures: None,
        }
    }
}

impl Binding {
    /// The module a new run `run_id` (pinned to none yet) is decided by: the current one, or,
    /// while a ramp gives it only a share of new runs, the previous one for the others. The
    /// choice depends on the run id alone, so every node and every task of the run agree.
    pub fn module_for_new_run(&self, run_id: &str) -> &str {
        match (self.ramp, &self.previous_module) {
            (Some(share), Some(previous)) if !takes(share, run_id) => previous,
            _ => &self.module,
        }
    }

    /// The binding's version that is `module`.
    pub fn version_of(&self, module: &str) -> Option<&BindingVersion> {
        self.versions.iter().find(|v| v.module == module)
    }

    /// The most tasks one binding may run at once.
    pub(crate) const MAX_CONCURRENCY: u32 = 64;
    /// How many tasks a binding runs at once when its `Bind` does not say.
    pub const DEFAULT_CONCURRENCY: u32 = 4;
}

/// Whether a ramp giving the new module `share` percent of new runs gives it run `run_id`:
/// the run id's FNV-1a hash (the same on every node and in every version) decides.
fn takes(share: u8, run_id: &str) -> bool {
    let hash = run_id
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
    hash % 100 < u64::from(share)
}

/// A task a binding's guest did not finish: what it was and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GuestFailureRecord {
    /// When it happened.
    pub at: Timestamp,
    /// The execution it worked for.
    pub workflow_id: String,
    /// See `workflow_id`.
    pub run_id: String,
    /// The task: `decision task <started event id>`, `activity <id>` or `function <id>`.
    pub task: String,
    /// Why: the reason recorded in the history, or the decider's own error.
    pub reason: String,
    /// What the guest logged at `error` while it failed: a Python traceback, a JavaScript
    /// stack.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
}

/// A line a bound guest logged while it served a task of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunLogLine {
    /// When the task's call ended.
    pub at: Timestamp,
    /// `debug`, `info`, `warn` or `error`.
    pub level: String,
    /// The binding's kind.
    pub kind: BindingKind,
    /// The binding's name: the task list, or the function's name.
    pub binding: String,
    /// The task: `decision task <started event id>`, `activity <id>` or `function <id>`.
    pub task: String,
    /// What the guest wrote.
    pub message: String,
}

/// The answer of `GET /v1/domains/{domain}/workflows/{workflowId}/runs/{runId}/logs`: the
/// latest lines the run's bound guests logged on this node, oldest first.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunLogList {
    /// The lines.
    pub lines: Vec<RunLogLine>,
}

/// What a binding asks for (the body of `PUT /v1/domains/{domain}/bindings/{kind}/{name}`);
/// absent members take the server's defaults.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct Bind {
    /// The module's digest.
    pub module: String,
    /// Tasks run at once (default 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u32>,
    /// Limits of each call; absent members take the defaults, within the tenant's quotas.
    #[serde(default, skip_serializing_if = "BindLimits::is_empty")]
    pub limits: BindLimits,
    /// Hosts (`host` or `host:port`) an activity worker may send HTTP requests to; none by
    /// default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub http_hosts: Vec<String>,
    /// What binding another module does to open runs pinned to older ones (decision bindings
    /// only; `pinned` by default, or what the binding had).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upgrade: Option<UpgradePolicy>,
    /// Allows `upgrade: all`, which moves runs unchecked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub force: bool,
    /// Ramp a decider up: the share of new runs, 1 to 99 percent, that it takes, the module it
    /// replaces taking the rest, until it is bound without a ramp (`weft binding promote`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ramp: Option<u8>,
    /// Whether runs a pinned run of the list starts on it (by continue-as-new, or as children)
    /// start pinned to its module rather than on the current one (decision bindings only;
    /// off by default, or what the binding had).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inherit_pin: Option<bool>,
    /// Pause a run after this many failed attempts in a row of the decider on its decision
    /// task, 1 to 1000 (decision bindings only; off when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_after_failures: Option<u32>,
}

impl Bind {
    /// A binding to `digest` with the server's defaults.
    pub fn module(digest: &str) -> Bind {
        Bind {
            module: digest.to_owned(),
            ..Bind::default()
        }
    }
}

/// The limits a binding asks for, member by member; absent members take the server's defaults.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct BindLimits {
    /// CPU time per call, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<u64>,
    /// Linear memory, in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<u64>,
    /// Size of one answer, in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_bytes: Option<u64>,
}

impl BindLimits {
    fn is_empty(&self) -> bool {
        self.cpu_ms.is_none() && self.memory_bytes.is_none() && self.output_bytes.is_none()
    }
}

/// The answer of `GET /v1/modules`: the account's modules, by digest.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ModuleList {
    /// The modules.
    pub modules: Vec<ModuleRecord>,
}

/// The answer of `GET /v1/domains/{domain}/bindings`: the domain's bindings, by kind then name.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BindingList {
    /// The bindings.
    pub bindings: Vec<Binding>,
}

/// The answer of `GET /v1/domains/{domain}/bindings/{kind}/{name}/failures`: a binding's latest
/// failures, oldest first.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FailureList {
    /// The failures.
    pub failures: Vec<GuestFailureRecord>,
}

/// A failure of a bound guest on one run: which binding's guest, and the failure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunFailure {
    /// The binding's kind.
    pub kind: BindingKind,
    /// The binding's name: the task list, or the function's name.
    pub binding: String,
    /// When, on which task, and why.
    #[serde(flatten)]
    pub failure: GuestFailureRecord,
}

/// The answer of `GET /v1/domains/{domain}/workflows/{workflowId}/runs/{runId}/failures`: the
/// run's latest failures of bound guests, oldest first.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunFailureList {
    /// The failures.
    pub failures: Vec<RunFailure>,
}

/// One task list of a domain, as the console shows it: what waits there, who polls it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskListInfo {
    /// Its kind: decision or activity tasks, or a Lambda-style function's calls.
    pub kind: BindingKind,
    /// The task list, or the function's name.
    pub name: String,
    /// Tasks waiting in it.
    pub pending: u64,
    /// Polls waiting on it at this node, over HTTP or from in-process workers.
    pub pollers: u64,
    /// Whether a module is bound to serve it.
    pub bound: bool,
    /// Who paused it, when and why, while it is paused (`model::task_lists`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<Pause>,
    /// Tasks it hands out per second at most, if it has a limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// Its tasks started and not finished at most, if it has a cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u32>,
    /// How its tasks are keyed and the keys weighed, if they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fairness: Option<crate::model::Fairness>,
    /// The tasks waiting under each key (`""`: the key-less ones), while any is keyed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<KeyInfo>,
}

/// The tasks waiting in a task list under one fairness key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyInfo {
    /// The key; `""` for the tasks of runs without one.
    pub key: String,
    /// Tasks waiting under it.
    pub pending: u64,
    /// Its weight, while the list has fairness keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<u32>,
}

/// The answer of `GET /v1/domains/{domain}/task-lists`: every list of the domain with tasks
/// waiting, polls waiting or a binding, by kind then name.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskListList {
    /// The lists.
    pub task_lists: Vec<TaskListInfo>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramping(share: u8) -> Binding {
        Binding {
            account: "000000000000".into(),
            region: "us-east-1".into(),
            domain: "d".into(),
            kind: BindingKind::Decision,
            name: "deciders".into(),
            module: "new".into(),
            concurrency: 1,
            limits: GuestLimits::default(),
            http_hosts: Vec::new(),
            created_at: Timestamp::from_millis(0),
            previous_module: Some("old".into()),
            versions: Vec::new(),
            last_version: 0,
            upgrade: UpgradePolicy::Pinned,
            upgraded: None,
            ramp: Some(share),
            inherit_pin: false,
            pause_after_failures: None,
        }
    }

    #[test]
    fn a_ramp_gives_the_new_module_its_share_of_new_runs_and_keeps_them_as_it_grows() {
        let runs: Vec<String> = (0..2000).map(|n| format!("run-{n}")).collect();
        let taken = |share: u8| -> Vec<&String> {
            let binding = ramping(share);
            let new = |run: &&String| binding.module_for_new_run(run) == "new";
            runs.iter().filter(new).collect()
        };
        let (ten, thirty) = (taken(10), taken(30));
        assert!((150..250).contains(&ten.len()), "{}", ten.len());
        assert!((500..700).contains(&thirty.len()), "{}", thirty.len());
        // Raising the share only adds runs: none taken at 10% goes back at 30%.
        assert!(ten.iter().all(|run| thirty.contains(run)));
        // Without a ramp, or with nothing to ramp from, the new module takes every run.
        let promoted = Binding {
            ramp: None,
            ..ramping(10)
        };
        let first = Binding {
            previous_module: None,
            ..ramping(10)
        };
        for binding in [promoted, first] {
            assert!(
                runs.iter()
                    .all(|run| binding.module_for_new_run(run) == "new")
            );
        }
    }
}
