//! Wire shapes used by several operations. Member names are the model's, in camelCase.

use serde::{Deserialize, Deserializer, Serialize};

use super::{RunId, WorkflowId};

/// A task list, named by the scheduler of a task and by its pollers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TaskList {
    pub(crate) name: String,
}

/// The identity of a workflow or activity type (`WorkflowType` / `ActivityType` on the wire).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TypeName {
    pub(crate) name: String,
    pub(crate) version: String,
}

/// A tag on a domain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ResourceTag {
    pub(crate) key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) value: Option<String>,
}

/// Whether a domain or type is usable for new work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(crate) enum RegistrationStatus {
    Registered,
    Deprecated,
}

/// What happens to a workflow's open children when it is terminated or times out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(crate) enum ChildPolicy {
    Terminate,
    RequestCancel,
    Abandon,
}

/// The output of operations that return nothing: an empty body on the wire.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub(crate) struct Empty {}

/// Deserializes an optional string member into `T`, reading `""` as absent.
///
/// The model gives optional durations a minimum length of 0, so SDKs let `""` through; SWF reads it
/// as "not set", as it does an empty `runId`.
pub(crate) fn empty_as_none<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<String, Error: std::fmt::Display>,
{
    Option::<String>::deserialize(d)?
        .filter(|s| !s.is_empty())
        .map(T::try_from)
        .transpose()
        .map_err(serde::de::Error::custom)
}

/// A run, named as on the wire (`WorkflowExecution`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WorkflowExecution {
    pub(crate) workflow_id: WorkflowId,
    pub(crate) run_id: RunId,
}

/// How a closed run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(crate) enum CloseStatus {
    Completed,
    Failed,
    Canceled,
    Terminated,
    ContinuedAsNew,
    TimedOut,
}

impl CloseStatus {
    /// Its name on the wire, such as `CONTINUED_AS_NEW`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CloseStatus::Completed => "COMPLETED",
            CloseStatus::Failed => "FAILED",
            CloseStatus::Canceled => "CANCELED",
            CloseStatus::Terminated => "TERMINATED",
            CloseStatus::ContinuedAsNew => "CONTINUED_AS_NEW",
            CloseStatus::TimedOut => "TIMED_OUT",
        }
    }
}
