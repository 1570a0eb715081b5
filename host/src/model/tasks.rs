//! Task queues: their kinds and what waits on them.

use super::BindingKind;

/// The kinds of task queue; they are separate namespaces (spec §8.3). Stored (in task queue keys
/// and task tokens): never renumber.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum TaskKind {
    Decision = 0,
    Activity = 1,
    /// Lambda function tasks (spec §6.13), queued under the function's name. Only the
    /// in-process function worker takes them; HTTP polls never ask for this kind.
    Function = 2,
}

impl TaskKind {
    /// The kind stored as `key` (`kind as u8`), if it is one.
    pub(crate) fn from_key(key: u8) -> Option<TaskKind> {
        match key {
            0 => Some(TaskKind::Decision),
            1 => Some(TaskKind::Activity),
            2 => Some(TaskKind::Function),
            _ => None,
        }
    }

    /// The kind of binding that serves tasks of this kind; its name names the kind in the
    /// console and the metrics.
    pub(crate) fn served_by(self) -> BindingKind {
        match self {
            TaskKind::Decision => BindingKind::Decision,
            TaskKind::Activity => BindingKind::Activity,
            TaskKind::Function => BindingKind::Function,
        }
    }
}

/// A task list: (domain id, kind, name).
pub(crate) type ListKey = (u64, TaskKind, String);

/// The tasks waiting on one list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Queued {
    pub(crate) domain: u64,
    pub(crate) kind: TaskKind,
    pub(crate) list: String,
    pub(crate) count: u64,
}
