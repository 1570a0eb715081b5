//! The causes and timeout types history events carry.

use serde::{Deserialize, Serialize};

/// Every failure cause and timeout type that events carry, as SWF spells them.
///
/// One enum for all of them keeps the list in one place; which values each event may carry is
/// in spec §3 (the `*Cause` and `*TimeoutType` enums).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[allow(
    dead_code,
    reason = "the model's full list; timeouts and limits raise some later, IAM denials never"
)]
pub(crate) enum Cause {
    UnhandledDecision,
    OperationNotPermitted,
    ActivityTypeDeprecated,
    ActivityTypeDoesNotExist,
    ActivityIdAlreadyInUse,
    OpenActivitiesLimitExceeded,
    DefaultScheduleToCloseTimeoutUndefined,
    DefaultTaskListUndefined,
    DefaultScheduleToStartTimeoutUndefined,
    DefaultStartToCloseTimeoutUndefined,
    DefaultHeartbeatTimeoutUndefined,
    ActivityIdUnknown,
    WorkflowTypeDeprecated,
    WorkflowTypeDoesNotExist,
    DefaultExecutionStartToCloseTimeoutUndefined,
    DefaultTaskStartToCloseTimeoutUndefined,
    DefaultChildPolicyUndefined,
    TimerIdAlreadyInUse,
    OpenTimersLimitExceeded,
    TimerIdUnknown,
    UnknownExternalWorkflowExecution,
    OpenChildrenLimitExceeded,
    OpenWorkflowsLimitExceeded,
    WorkflowAlreadyRunning,
    LambdaServiceNotAvailableInRegion,
    OpenLambdaFunctionsLimitExceeded,
    IdAlreadyInUse,
    ChildPolicyApplied,
    EventLimitExceeded,
    OperatorInitiated,
    StartToClose,
    ScheduleToStart,
    ScheduleToClose,
    Heartbeat,
}
