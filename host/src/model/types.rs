//! Workflow and activity types: one life cycle, two kinds of configuration.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::fault::Violations;

use super::rules::NoneAllowed;
use super::shapes::empty_as_none;
use super::{ChildPolicy, Domain, RegistrationStatus, TaskList};

/// Which registry a type lives in. The discriminant is part of the store's keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

    /// Checks the configuration's prose rules (durations, names, priority).
    fn validate(config: &Self::Config, v: &mut Violations);

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
    pub(crate) default_task_start_to_close_timeout: Option<String>,
    #[serde(
        deserialize_with = "empty_as_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) default_execution_start_to_close_timeout: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default_task_list: Option<TaskList>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default_task_priority: Option<String>,
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
    pub(crate) default_task_start_to_close_timeout: Option<String>,
    #[serde(
        deserialize_with = "empty_as_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) default_task_heartbeat_timeout: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default_task_list: Option<TaskList>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default_task_priority: Option<String>,
    #[serde(
        deserialize_with = "empty_as_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) default_task_schedule_to_start_timeout: Option<String>,
    #[serde(
        deserialize_with = "empty_as_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) default_task_schedule_to_close_timeout: Option<String>,
}

impl TypeKind for WorkflowKind {
    const KIND: Kind = Kind::Workflow;
    type Config = WorkflowTypeConfiguration;
    any_type!(Workflow);

    fn validate(c: &WorkflowTypeConfiguration, v: &mut Violations) {
        v.duration(
            "defaultTaskStartToCloseTimeout",
            c.default_task_start_to_close_timeout.as_deref(),
            NoneAllowed::Yes,
        );
        v.duration(
            "defaultExecutionStartToCloseTimeout",
            c.default_execution_start_to_close_timeout.as_deref(),
            NoneAllowed::No,
        );
        if let Some(list) = &c.default_task_list {
            v.name("defaultTaskList.name", &list.name);
        }
        v.priority("defaultTaskPriority", c.default_task_priority.as_deref());
    }
}

impl TypeKind for ActivityKind {
    const KIND: Kind = Kind::Activity;
    type Config = ActivityTypeConfiguration;
    any_type!(Activity);

    fn validate(c: &ActivityTypeConfiguration, v: &mut Violations) {
        for (path, value) in [
            (
                "defaultTaskStartToCloseTimeout",
                &c.default_task_start_to_close_timeout,
            ),
            (
                "defaultTaskHeartbeatTimeout",
                &c.default_task_heartbeat_timeout,
            ),
            (
                "defaultTaskScheduleToStartTimeout",
                &c.default_task_schedule_to_start_timeout,
            ),
            (
                "defaultTaskScheduleToCloseTimeout",
                &c.default_task_schedule_to_close_timeout,
            ),
        ] {
            v.duration(path, value.as_deref(), NoneAllowed::Yes);
        }
        if let Some(list) = &c.default_task_list {
            v.name("defaultTaskList.name", &list.name);
        }
        v.priority("defaultTaskPriority", c.default_task_priority.as_deref());
    }
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
