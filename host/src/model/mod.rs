//! The SWF domain model: wire shapes shared by operations, the rules the model states only in
//! prose, the records the store keeps, and the wire format of history events and decisions.

mod batches;
mod clock;
pub(crate) mod decisions;
mod domain;
pub(crate) mod events;
mod execution;
mod pauses;
mod pins;
mod replay;
mod resets;
pub(crate) mod routes;
mod rules;
mod runs;
pub(crate) mod schedules;
mod shapes;
mod task_lists;
mod tasks;
pub(crate) mod transfer;
mod types;
mod values;
mod wasm;

pub(crate) use batches::BatchRecord;
pub use batches::{BatchJob, BatchJobList, BatchJobRequest, BatchJobState};
pub use clock::{ClockAdvance, ClockState};
pub(crate) use domain::{Domain, DomainArn};
pub(crate) use execution::{
    Activity, ActivityDue, Child, Closed, DecisionTask, ExecutionConfig, Item, ItemKind, Lambda,
    NextDecision, OpenCounts, OpenItems, Parent, Run, Slot, TaskState, Timer,
};
pub(crate) use pauses::MAX_PAUSE_REASON;
pub use pauses::{Pause, PauseReport, PauseRequest};
pub use pins::{
    BindingVersion, Pin, PinnedDecider, RunUpgrade, UpgradePolicy, UpgradeQuery, UpgradeReport,
};
pub use replay::{Divergence, Replay, ReplayReport, RunReplay, TypeRef};
pub use resets::{NamedPoint, ResetPoint, ResetReport, ResetRequest};
pub(crate) use rules::{
    CONTROL_CHARACTERS, LAMBDA_DEFAULT_TIMEOUT, NoneAllowed, is_control, name_problem,
};
pub use runs::{
    Batch, BatchAction, BatchFailure, BatchOutcome, Failing, RunCount, RunFilter, RunList,
    RunQuery, RunState, RunSummary,
};
pub use schedules::{
    Backfill, Overlap, ScheduleAction, ScheduleDefinition, ScheduleDescription, ScheduleList,
    ScheduleNote, ScheduleOutcome, ScheduleSpec, ScheduleState, ScheduledRun, StartAction,
};
pub(crate) use schedules::{Schedule, Times};
pub(crate) use shapes::{
    ChildPolicy, CloseStatus, Empty, RegistrationStatus, ResourceTag, TaskList, TypeName,
    WorkflowExecution,
};
pub use task_lists::{
    Fairness, ListLimitReport, ListLimitRequest, ListPauseReport, ListPauseRequest,
};
pub(crate) use task_lists::{
    ListControl, MAX_LIST_CONCURRENCY, MAX_LIST_RATE, MAX_WEIGHT, MAX_WEIGHTED_KEYS, keyed_queue,
    keyed_queues_end, queue_key,
};
pub(crate) use tasks::{ListKey, Queued, TaskKind};
pub use transfer::{ExportedHistory, ExportedRun, ImportAnswer, RunImport, export_file_name};
pub(crate) use types::{
    ActivityKind, ActivityTypeConfiguration, AnyType, Kind, TypeKind, TypeRecord, WorkflowKind,
    WorkflowTypeConfiguration,
};
pub(crate) use values::{Priority, RunId, Timeout, WorkflowId};
pub use wasm::{
    Bind, BindLimits, Binding, BindingKind, BindingList, BindingRef, FailureList,
    GuestFailureRecord, KeyInfo, ModuleLabel, ModuleList, ModuleRecord, RunFailure, RunFailureList,
    RunLogLine, RunLogList, TaskListInfo, TaskListList,
};

/// Everything a caller can see lives in one scope: an AWS account in one region, as on AWS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Scope {
    /// The 12-digit account id.
    pub(crate) account: String,
    /// The region from the request's SigV4 credential scope.
    pub(crate) region: String,
}
