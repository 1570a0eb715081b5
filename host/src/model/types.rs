//! Workflow and activity types: one life cycle, two kinds of configuration.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;

use super::rules::{NoneAllowed, Rule};
use super::shapes::empty_as_none;
use super::{ChildPolicy, Domain, Priority, RegistrationStatus, TaskList, Timeout};

/// Which registry a type lives in. The discriminant is part of the store's keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Workflow = 0,
    Activity = 1,
}

impl Kind {
    /// The shape name, as in fault messages: `WorkflowType=[name=N, version=V]`.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Kind::Workflow => "WorkflowType",
            Kind::Activity => "ActivityType",
        }
    }

    /// The member that names a type of this kind in inputs and outputs.
    pub(crate) fn member(self) -> &'static str {
        match self {
            Kind::Workflow => "workflowType",
            Kind::Activity => "activityType",
        }
    }
}

/// The compile-time side of a [`Kind`]: what its configuration looks like.
pub(crate) trait TypeKind: Send + Sync + 'static {
    /// The registry.
    const KIND: Kind;
    /// The defaults registered with a type, stored and described exactly as given.
    type Config: Serialize + DeserializeOwned + Clone + Send + Sync + 'static;

    /// The configuration's prose rules (durations, names, priority), by member.
    const RULES: &'static [(&'static str, Rule)];

    /// The record as either registry's.
    fn wrap(record: TypeRecord<Self::Config>) -> AnyType;
    /// The record, if `any` is of this registry.
    fn unwrap(any: AnyType) -> Option<TypeRecord<Self::Config>>;
    /// The record, borrowed, if `any` is of this registry.
    fn peek(any: &AnyType) -> Option<&TypeRecord<Self::Config>>;
}

/// A type record of either registry: what the store's interface, which knows no generics,
/// carries.
#[derive(Clone, Debug)]
pub(crate) enum AnyType {
    Workflow(TypeRecord<WorkflowTypeConfiguration>),
    Activity(TypeRecord<ActivityTypeConfiguration>),
}

/// The registry-specific parts of [`TypeKind`] for the registry whose [`AnyType`] variant is
/// `$variant`.
macro_rules! any_type {
    ($variant:ident) => {
        fn wrap(record: TypeRecord<Self::Config>) -> AnyType {
            AnyType::$variant(record)
        }
        fn unwrap(any: AnyType) -> Option<TypeRecord<Self::Config>> {
            match any {
                AnyType::$variant(record) => Some(record),
                _ => None,
            }
        }
        fn peek(any: &AnyType) -> Option<&TypeRecord<Self::Config>> {
            match any {
                AnyType::$variant(record) => Some(record),
                _ => None,
            }
        }
    };
}

/// Workflow types.
pub(crate) struct WorkflowKind;

/// Activity types.
pub(crate) struct ActivityKind;

/// `WorkflowTypeConfiguration`: defaults for executions of the type (spec §8.6).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct WorkflowTypeConfiguration {
    #[serde(
        deserialize_with = "empty_as_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) default_task_start_to_close_timeout: Option<Timeout>,
    #[serde(
        deserialize_with = "empty_as_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) default_execution_start_to_close_timeout: Option<Timeout>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default_task_list: Option<TaskList>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default_task_priority: Option<Priority>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default_child_policy: Option<ChildPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default_lambda_role: Option<String>,
}

/// `ActivityTypeConfiguration`: defaults for tasks of the type (spec §8.6).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct ActivityTypeConfiguration {
    #[serde(
        deserialize_with = "empty_as_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) default_task_start_to_close_timeout: Option<Timeout>,
    #[serde(
        deserialize_with = "empty_as_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) default_task_heartbeat_timeout: Option<Timeout>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default_task_list: Option<TaskList>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default_task_priority: Option<Priority>,
    #[serde(
        deserialize_with = "empty_as_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) default_task_schedule_to_start_timeout: Option<Timeout>,
    #[serde(
        deserialize_with = "empty_as_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) default_task_schedule_to_close_timeout: Option<Timeout>,
}

impl TypeKind for WorkflowKind {
    const KIND: Kind = Kind::Workflow;
    type Config = WorkflowTypeConfiguration;
    any_type!(Workflow);

    const RULES: &'static [(&'static str, Rule)] = &[
        (
            "defaultTaskStartToCloseTimeout",
            Rule::Duration(NoneAllowed::Yes),
        ),
        (
            "defaultExecutionStartToCloseTimeout",
            Rule::Duration(NoneAllowed::No),
        ),
        ("defaultTaskList", Rule::TaskList),
        ("defaultTaskPriority", Rule::Priority),
    ];
}

impl TypeKind for ActivityKind {
    const KIND: Kind = Kind::Activity;
    type Config = ActivityTypeConfiguration;
    any_type!(Activity);

    const RULES: &'static [(&'static str, Rule)] = &[
        (
            "defaultTaskStartToCloseTimeout",
            Rule::Duration(NoneAllowed::Yes),
        ),
        (
            "defaultTaskHeartbeatTimeout",
            Rule::Duration(NoneAllowed::Yes),
        ),
        (
            "defaultTaskScheduleToStartTimeout",
            Rule::Duration(NoneAllowed::Yes),
        ),
        (
            "defaultTaskScheduleToCloseTimeout",
            Rule::Duration(NoneAllowed::Yes),
        ),
        ("defaultTaskList", Rule::TaskList),
        ("defaultTaskPriority", Rule::Priority),
    ];
}

/// A registered type, as stored. Its name and version are the key.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct TypeRecord<C> {
    pub(crate) description: Option<String>,
    pub(crate) created_at: Timestamp,
    /// When the type itself was deprecated; its domain may deprecate it too (see
    /// [`TypeRecord::deprecated_since`]).
    pub(crate) deprecated_at: Option<Timestamp>,
    pub(crate) config: C,
}

impl<C> TypeRecord<C> {
    /// When the type became deprecated, on its own or through its domain, whichever came first.
    ///
    /// Deprecating a domain deprecates its types (spec §4.1), but the type keeps its own flag so
    /// that undeprecating the domain restores exactly the types that were not deprecated alone.
    pub(crate) fn deprecated_since(&self, domain: &Domain) -> Option<Timestamp> {
        match (self.deprecated_at, domain.deprecated_at) {
            (Some(own), Some(inherited)) => Some(own.min(inherited)),
            (own, inherited) => own.or(inherited),
        }
    }

    /// The status clients see.
    pub(crate) fn status(&self, domain: &Domain) -> RegistrationStatus {
        match self.deprecated_since(domain) {
            None => RegistrationStatus::Registered,
            Some(_) => RegistrationStatus::Deprecated,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn configurations_are_typed_and_read_stored_ones_unchanged() {
        // As stored by releases that kept the strings: `""` was "not set".
        let stored = json!({"defaultTaskHeartbeatTimeout": "30",
            "defaultTaskScheduleToCloseTimeout": "NONE",
            "defaultTaskScheduleToStartTimeout": "",
            "defaultTaskPriority": "-5"});
        let config: ActivityTypeConfiguration = serde_json::from_value(stored).unwrap();
        assert_eq!(
            config.default_task_heartbeat_timeout,
            Some(Timeout::Seconds(30))
        );
        assert_eq!(
            config.default_task_schedule_to_close_timeout,
            Some(Timeout::None)
        );
        assert_eq!(config.default_task_schedule_to_start_timeout, None);
        assert_eq!(config.default_task_priority, Some(Priority(-5)));
        assert_eq!(
            serde_json::to_value(&config).unwrap(),
            json!({"defaultTaskHeartbeatTimeout": "30",
                "defaultTaskScheduleToCloseTimeout": "NONE",
                "defaultTaskPriority": "-5"})
        );
    }
}
