//! Starting runs: resolving a start request against its workflow type (spec §8.6), and creating
//! the run. StartWorkflowExecution, StartChildWorkflowExecution and ContinueAsNewWorkflowExecution
//! all start runs this way.

use crate::clock::Timestamp;
use crate::fault::Fault;
use crate::model::events::{Cause, attrs};
use crate::model::{
    ChildPolicy, DecisionTask, Domain, ExecutionConfig, Kind, OpenItems, Parent, Pin, Priority,
    RegistrationStatus, Run, RunId, TaskList, Timeout, TypeName, TypeRecord, WorkflowExecution,
    WorkflowId, WorkflowKind, WorkflowTypeConfiguration,
};
use crate::store::{Counter, Listing, Reads, StoreError, TypeReads};

use super::{Engine, pin_run};

/// What a start asks for; unset members come from the type's defaults.
#[derive(Clone, Debug, Default)]
pub(crate) struct StartRequest {
    pub(crate) task_list: Option<TaskList>,
    pub(crate) task_priority: Option<Priority>,
    pub(crate) execution_start_to_close_timeout: Option<Timeout>,
    pub(crate) task_start_to_close_timeout: Option<Timeout>,
    pub(crate) child_policy: Option<ChildPolicy>,
    pub(crate) lambda_role: Option<String>,
}

/// Why a start request cannot be resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StartError {
    TypeUnknown,
    TypeDeprecated,
    /// Neither the request nor the type gives this member (its wire name).
    Undefined(&'static str),
}

impl StartError {
    /// The decision failure cause for the error.
    pub(crate) fn cause(self) -> Cause {
        match self {
            StartError::TypeUnknown => Cause::WorkflowTypeDoesNotExist,
            StartError::TypeDeprecated => Cause::WorkflowTypeDeprecated,
            StartError::Undefined("taskList") => Cause::DefaultTaskListUndefined,
            StartError::Undefined("executionStartToCloseTimeout") => {
                Cause::DefaultExecutionStartToCloseTimeoutUndefined
            }
            StartError::Undefined("taskStartToCloseTimeout") => {
                Cause::DefaultTaskStartToCloseTimeoutUndefined
            }
            StartError::Undefined(_) => Cause::DefaultChildPolicyUndefined,
        }
    }

    /// The fault StartWorkflowExecution answers with.
    pub(crate) fn fault(self, ty: &TypeName) -> Fault {
        match self {
            StartError::TypeUnknown => Fault::unknown_type(Kind::Workflow, ty),
            StartError::TypeDeprecated => Fault::type_deprecated(Kind::Workflow, ty),
            StartError::Undefined(member) => Fault::default_undefined(member, ty),
        }
    }
}

/// Resolves `request` for workflow type `ty` of the domain: the configuration the run will
/// have, or why there is none.
pub(crate) fn resolve_start(
    tx: &dyn Reads,
    domain: &Domain,
    ty: &TypeName,
    request: StartRequest,
) -> Result<Result<ExecutionConfig, StartError>, StoreError> {
    let record = tx.type_record::<WorkflowKind>(domain, &ty.name, &ty.version)?;
    Ok(resolve_with(domain, record, request))
}

/// Resolves `request` against the workflow type's `record`, if there is one.
fn resolve_with(
    domain: &Domain,
    record: Option<TypeRecord<WorkflowTypeConfiguration>>,
    request: StartRequest,
) -> Result<ExecutionConfig, StartError> {
    let record = record.ok_or(StartError::TypeUnknown)?;
    if record.status(domain) == RegistrationStatus::Deprecated {
        return Err(StartError::TypeDeprecated);
    }
    let defaults = record.config;
    let task_list = request
        .task_list
        .filter(|l| !l.name.is_empty())
        .or(defaults.default_task_list)
        .ok_or(StartError::Undefined("taskList"))?;
    let execution_start_to_close_timeout = request
        .execution_start_to_close_timeout
        .or(defaults.default_execution_start_to_close_timeout)
        .ok_or(StartError::Undefined("executionStartToCloseTimeout"))?;
    let task_start_to_close_timeout = request
        .task_start_to_close_timeout
        .or(defaults.default_task_start_to_close_timeout)
        .ok_or(StartError::Undefined("taskStartToCloseTimeout"))?;
    let child_policy = request
        .child_policy
        .or(defaults.default_child_policy)
        .ok_or(StartError::Undefined("childPolicy"))?;
    Ok(ExecutionConfig {
        task_start_to_close_timeout,
        execution_start_to_close_timeout,
        task_list,
        task_priority: request.task_priority.or(defaults.default_task_priority),
        child_policy,
        lambda_role: request.lambda_role.or(defaults.default_lambda_role),
    })
}

/// A run about to start, fully resolved.
#[derive(Clone, Debug)]
pub(crate) struct NewRun {
    /// The account of the run's domain.
    pub(crate) account: String,
    pub(crate) domain_name: String,
    pub(crate) workflow_id: WorkflowId,
    pub(crate) workflow_type: TypeName,
    pub(crate) config: ExecutionConfig,
    pub(crate) input: Option<String>,
    pub(crate) tags: Vec<String>,
    /// Days the run is kept once closed: its domain's retention.
    pub(crate) retention_days: u32,
    pub(crate) parent: Option<Parent>,
    /// The run this one continues, for `continuedExecutionRunId`.
    pub(crate) continued_from: Option<RunId>,
    /// The earliest it may start: the close of the run it continues, when that closed in the
    /// same transaction.
    pub(crate) not_before: Option<Timestamp>,
    /// The decider module it starts pinned to, inherited from the run that started it; `None`
    /// pins it to the module that decides its first decision task.
    pub(crate) pin: Option<Pin>,
    /// The schedule that started it, or the run it continues.
    pub(crate) schedule: Option<u64>,
}

impl Engine<'_, '_> {
    /// Whether the domain can hold another open run.
    pub(crate) fn open_runs_full(&self) -> Result<bool, StoreError> {
        self.setup.open_runs_full(&*self.tx, self.domain)
    }
}

/// Starts a run (with `run_id`, or a fresh one): records `WorkflowExecutionStarted`, schedules its
/// first decision task, and makes it visible as open. The caller has checked that no run of the
/// workflow id is open.
pub(crate) fn start_run(
    eng: &mut Engine<'_, '_>,
    new: NewRun,
    run_id: Option<RunId>,
) -> Result<Run, StoreError> {
    let seq = eng.tx.next_id()?;
    let pin = new.pin;
    // Never before its workflow's previous run closed, whoever closed it.
    let floor = eng
        .tx
        .start_floor(eng.domain, &new.workflow_id)?
        .max(new.not_before);
    let started_at = eng.tx.now().max(floor.unwrap_or_default());
    let mut run = Run {
        seq,
        domain: eng.domain,
        account: new.account,
        domain_name: new.domain_name,
        execution: WorkflowExecution {
            workflow_id: new.workflow_id,
            run_id: match run_id {
                Some(id) => id,
                None => new_run_id()?,
            },
        },
        workflow_type: new.workflow_type,
        decision_task_list: new.config.task_list.name.clone(),
        config: new.config,
        tags: new.tags,
        started_at,
        timeout_at: None,
        retention_days: new.retention_days,
        closed: None,
        parent: new.parent,
        cancel_requested: false,
        next_event_id: 1,
        decision: DecisionTask::Idle,
        legacy_decision_owed: false,
        previous_started_event_id: 0,
        decision_schedule_to_start: None,
        latest_execution_context: None,
        latest_activity_task_at: None,
        last_event_at: floor,
        open: OpenItems::default(),
        imported: false,
        pin: None,
        schedule: new.schedule,
        paused: None,
    };
    let config = &run.config;
    let started = attrs::WorkflowExecutionStarted {
        input: new.input,
        execution_start_to_close_timeout: Some(config.execution_start_to_close_timeout),
        task_start_to_close_timeout: Some(config.task_start_to_close_timeout),
        child_policy: config.child_policy,
        task_list: config.task_list.clone(),
        task_priority: config.task_priority,
        workflow_type: run.workflow_type.clone(),
        tag_list: (!run.tags.is_empty()).then(|| run.tags.clone()),
        continued_execution_run_id: new.continued_from,
        parent_workflow_execution: run.parent.as_ref().map(|p| p.execution.clone()),
        // AWS records 0 for a run without a parent.
        parent_initiated_event_id: Some(run.parent.as_ref().map_or(0, |p| p.initiated_event_id)),
        lambda_role: config.lambda_role.clone(),
    };
    eng.record(&mut run, started)?;
    eng.arm_run_timeout(&mut run)?;
    eng.trigger(&mut run)?;
    eng.tx.name_run(&run)?;
    eng.tx.list_run(&run, Listing::Open, started_at)?;
    eng.tx.add_count(eng.domain, Counter::OpenRuns, 1)?;
    if let Some(pin) = pin {
        pin_run(eng.tx, &mut run, pin)?;
    }
    eng.save(&mut run)?;
    Ok(run)
}

/// A fresh run id: 32 random bytes, base64url (43 characters), as spec §8.1 recommends,
/// beginning with a letter: one beginning with `-` reads as an option to command lines.
pub(crate) fn new_run_id() -> Result<RunId, StoreError> {
    use base64::Engine as _;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(StoreError::broken)?;
    // The first character is the first byte's top six bits: below 32, a letter (A-Z, a-f).
    bytes[0] &= 0x7f;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(bytes)
        .into())
}
