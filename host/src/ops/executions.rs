//! StartWorkflowExecution, SignalWorkflowExecution, RequestCancelWorkflowExecution and
//! TerminateWorkflowExecution (spec §4.3).

use serde::{Deserialize, Serialize};

use crate::engine::{
    Engine, NewRun, StartRequest, request_cancel, resolve_start, signal, start_run, terminate,
};
use crate::fault::{Fault, Violations};
use crate::model::events::Cause;
use crate::model::{
    ChildPolicy, Empty, NoneAllowed, Run, RunId, Scope, TaskList, TypeName, WorkflowId,
};
use crate::store::{About, Reads, StoreError};

use super::{Ctx, Service, known_domain};

/// `StartWorkflowExecutionInput`.
#[derive(Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StartInput {
    pub(crate) domain: String,
    pub(crate) workflow_id: WorkflowId,
    pub(crate) workflow_type: TypeName,
    pub(crate) task_list: Option<TaskList>,
    pub(crate) task_priority: Option<String>,
    pub(crate) input: Option<String>,
    pub(crate) execution_start_to_close_timeout: Option<String>,
    pub(crate) tag_list: Option<Vec<String>>,
    pub(crate) task_start_to_close_timeout: Option<String>,
    pub(crate) child_policy: Option<ChildPolicy>,
    pub(crate) lambda_role: Option<String>,
}

/// `Run`: the id of the new run.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunOutput {
    pub(crate) run_id: RunId,
}

/// StartWorkflowExecution: a new run of a workflow id that has no open run.
pub(crate) async fn start(svc: &Service, ctx: &Ctx, input: StartInput) -> Result<RunOutput, Fault> {
    let mut v = Violations::default();
    if let Some(list) = &input.task_list {
        v.name("taskList.name", &list.name);
    }
    let request = StartRequest {
        task_list: input.task_list.clone(),
        task_priority: v.priority("taskPriority", input.task_priority.as_deref()),
        execution_start_to_close_timeout: v.duration(
            "executionStartToCloseTimeout",
            crate::model::decisions::given(&input.execution_start_to_close_timeout),
            NoneAllowed::No,
        ),
        task_start_to_close_timeout: v.duration(
            "taskStartToCloseTimeout",
            crate::model::decisions::given(&input.task_start_to_close_timeout),
            NoneAllowed::Yes,
        ),
        child_policy: input.child_policy,
        lambda_role: input.lambda_role.clone(),
    };
    v.finish()?;

    let scope = ctx.scope.clone();
    let account = scope.account.clone();
    let setup = svc.engine_for(ctx);
    let check_setup = setup.clone();
    let about = About::Start {
        scope: scope.clone(),
        domain: input.domain.clone(),
        workflow_id: input.workflow_id.as_str().to_owned(),
    };
    svc.store
        .write_about(
            about,
            move |tx| {
                let domain = known_domain(tx, &scope, &input.domain)?;
                let config = resolve_start(tx, &domain, &input.workflow_type, request)?
                    .map_err(|e| e.fault(&input.workflow_type))?;
                if tx.open_run(domain.id, &input.workflow_id)?.is_some() {
                    return Err(Fault::execution_already_started(&input.workflow_id));
                }
                if check_setup.open_runs_full(tx, domain.id)? {
                    let max = check_setup.max_open_runs;
                    return Err(Fault::open_runs_limit(&domain.name, max));
                }
                Ok((domain, config, input))
            },
            move |tx, (domain, config, input)| {
                let mut eng = Engine::new(tx, domain.id, &setup);
                let new = NewRun {
                    account,
                    retention_days: domain.retention_days(),
                    domain_name: domain.name,
                    workflow_id: input.workflow_id,
                    workflow_type: input.workflow_type,
                    config,
                    input: input.input,
                    tags: input.tag_list.unwrap_or_default(),
                    parent: None,
                    continued_from: None,
                    not_before: None,
                    pin: None,
                    schedule: None,
                };
                let run = start_run(&mut eng, new, None)?;
                eng.finish()?;
                Ok(RunOutput {
                    run_id: run.execution.run_id,
                })
            },
        )
        .await
}

/// `SignalWorkflowExecutionInput`.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SignalInput {
    pub(crate) domain: String,
    pub(crate) workflow_id: WorkflowId,
    pub(crate) run_id: Option<RunId>,
    pub(crate) signal_name: String,
    pub(crate) input: Option<String>,
}

/// SignalWorkflowExecution: records the signal and gives the decider a task.
pub(crate) async fn signal_execution(
    svc: &Service,
    ctx: &Ctx,
    input: SignalInput,
) -> Result<Empty, Fault> {
    let target = (input.domain, input.workflow_id, input.run_id);
    change_open_run(svc, ctx, target, move |eng, run| {
        signal(eng, run, input.signal_name, input.input, None)
    })
    .await
    .map(|()| Empty {})
}

/// `RequestCancelWorkflowExecutionInput`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestCancelInput {
    domain: String,
    workflow_id: WorkflowId,
    run_id: Option<RunId>,
}

/// RequestCancelWorkflowExecution: records the request; the decider decides what to do.
pub(crate) async fn request_cancel_execution(
    svc: &Service,
    ctx: &Ctx,
    input: RequestCancelInput,
) -> Result<Empty, Fault> {
    let target = (input.domain, input.workflow_id, input.run_id);
    change_open_run(svc, ctx, target, |eng, run| {
        request_cancel(eng, run, None, None)
    })
    .await
    .map(|()| Empty {})
}

/// `TerminateWorkflowExecutionInput`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TerminateInput {
    domain: String,
    workflow_id: WorkflowId,
    run_id: Option<RunId>,
    reason: Option<String>,
    details: Option<String>,
    child_policy: Option<ChildPolicy>,
}

/// TerminateWorkflowExecution: closes the run at once and applies the child policy.
pub(crate) async fn terminate_execution(
    svc: &Service,
    ctx: &Ctx,
    input: TerminateInput,
) -> Result<Empty, Fault> {
    let target = (input.domain, input.workflow_id, input.run_id);
    change_open_run(svc, ctx, target, move |eng, run| {
        terminate(
            eng,
            run,
            input.reason,
            input.details,
            input.child_policy,
            Some(Cause::OperatorInitiated),
        )
    })
    .await
    .map(|()| Empty {})
}

/// Applies `change` to the open run named by (domain, workflow id, run id or the open run);
/// answers what it answers.
pub(super) async fn change_open_run<T: Send + 'static>(
    svc: &Service,
    ctx: &Ctx,
    (domain, workflow_id, run_id): (String, WorkflowId, Option<RunId>),
    change: impl FnOnce(&mut Engine<'_, '_>, &mut Run) -> Result<T, StoreError> + Clone + Send + 'static,
) -> Result<T, Fault> {
    let scope = ctx.scope.clone();
    let setup = svc.engine.clone();
    svc.store
        .write(
            move |tx| {
                let (domain, run) = named_run(tx, &scope, &domain, &workflow_id, run_id.as_ref())?;
                let run = run
                    .filter(Run::is_open)
                    .ok_or_else(|| Fault::unknown_execution(&workflow_id, run_id.as_deref()))?;
                Ok((domain, run))
            },
            move |tx, (domain, mut run)| {
                let mut eng = Engine::new(tx, domain, &setup);
                let answer = change(&mut eng, &mut run)?;
                eng.finish()?;
                Ok(answer)
            },
        )
        .await
}

/// The domain id and the run `workflow_id`/`run_id`, open or closed: `UnknownResourceFault` if
/// there is no such run.
pub(super) fn existing_run(
    tx: &dyn Reads,
    scope: &Scope,
    domain: &str,
    workflow_id: &WorkflowId,
    run_id: &RunId,
) -> Result<(u64, Run), Fault> {
    let (domain, run) = named_run(tx, scope, domain, workflow_id, Some(run_id))?;
    let run = run.ok_or_else(|| Fault::unknown_execution(workflow_id, Some(run_id)))?;
    Ok((domain, run))
}

/// The domain id and the run named by a workflow id and an optional run id: without one (or with
/// an empty one) the workflow id's open run.
pub(super) fn named_run(
    tx: &dyn Reads,
    scope: &Scope,
    domain: &str,
    workflow_id: &WorkflowId,
    run_id: Option<&RunId>,
) -> Result<(u64, Option<Run>), Fault> {
    let domain = known_domain(tx, scope, domain)?;
    let run = match run_id.filter(|id| !id.is_empty()) {
        Some(run_id) => tx.run_named(domain.id, workflow_id, run_id)?,
        None => tx.open_run(domain.id, workflow_id)?,
    };
    Ok((domain.id, run))
}
