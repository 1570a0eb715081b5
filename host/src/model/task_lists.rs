//! Operator controls of one task list (`/v1/domains/{domain}/task-lists/{kind}/{name}/...`):
//! what the store keeps of them, and the bodies the server and the client share.
//!
//! A paused list hands none of its tasks to any poller (over HTTP or in-process, at any node)
//! until it resumes; tasks keep being queued on it, polls on it wait as on an empty list, and
//! tasks already started run on. SWF's operations see nothing of it but the wait.

use serde::{Deserialize, Serialize};

use super::{BindingKind, Pause};

/// The controls kept for one task list; a list without any keeps no record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListControl {
    /// Set while the list is paused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) paused: Option<Pause>,
}

impl ListControl {
    /// Whether it controls nothing, so that no record need be kept.
    pub(crate) fn is_empty(&self) -> bool {
        self.paused.is_none()
    }
}

/// What a task list's pause or resume asks for.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a JSON object"
)]
pub struct ListPauseRequest {
    /// Why (a pause only; at most 256 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who asks; without one, the caller's account.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<String>,
}

/// What a task list's pause or resume did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPauseReport {
    /// The list's kind.
    pub kind: BindingKind,
    /// The list (for functions, the function's name).
    pub name: String,
    /// Its pause now: `None` once resumed. A list paused already keeps its first pause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<Pause>,
    /// Whether the request changed anything.
    pub changed: bool,
}
