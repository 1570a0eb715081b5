//! PollForActivityTask, RecordActivityTaskHeartbeat and RespondActivityTask{Completed,Failed,
//! Canceled} (spec §4.5).

use serde::{Deserialize, Serialize};

use crate::engine::{
    ActivityOutcome, Claimed, Engine, TaskRef, close_activity, record_heartbeat, started_task,
};
use crate::fault::Fault;
use crate::model::{Activity, Empty, Run, Scope, TaskKind, TaskList, TypeName, WorkflowExecution};
use crate::store::{About, Reads};

use super::polling::{long_poll, open_token, task_domain};
use super::{Ctx, Service};

/// `PollForActivityTaskInput`.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PollInput {
    pub(crate) domain: String,
    pub(crate) task_list: TaskList,
    pub(crate) identity: Option<String>,
}

/// `ActivityTask`. With no task, only `startedEventId: 0` is sent, as AWS does (spec §4.5).
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ActivityTaskOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) task_token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) activity_id: Option<String>,
    pub(crate) started_event_id: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) workflow_execution: Option<WorkflowExecution>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) activity_type: Option<TypeName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) input: Option<String>,
}

/// PollForActivityTask: the next activity task of the list, or an empty answer after the poll
/// timeout.
pub(crate) async fn poll(
    svc: &Service,
    ctx: &Ctx,
    input: PollInput,
) -> Result<ActivityTaskOutput, Fault> {
    let claimed = long_poll(
        svc,
        ctx,
        input.domain,
        TaskKind::Activity,
        input.task_list.name,
        input.identity,
        None,
    )
    .await?;
    match claimed {
        Some(Claimed::Activity(c)) => Ok(ActivityTaskOutput {
            task_token: Some(c.task.seal(&svc.sealer)),
            activity_id: Some(c.activity_id),
            started_event_id: c.task.started,
            workflow_execution: Some(c.execution),
            activity_type: Some(c.activity_type),
            input: c.input,
        }),
        Some(Claimed::Decision(_) | Claimed::Function(_)) => {
            Err(Fault::internal("another kind of task on an activity list"))
        }
        None => Ok(ActivityTaskOutput::default()),
    }
}

/// `RecordActivityTaskHeartbeatInput`.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HeartbeatInput {
    pub(crate) task_token: String,
    pub(crate) details: Option<String>,
}

/// `ActivityTaskStatus`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ActivityTaskStatus {
    pub(crate) cancel_requested: bool,
}

/// RecordActivityTaskHeartbeat: the worker is alive; tells it whether cancellation was asked.
pub(crate) async fn heartbeat(
    svc: &Service,
    ctx: &Ctx,
    input: HeartbeatInput,
) -> Result<ActivityTaskStatus, Fault> {
    let task = open_token(svc, &input.task_token, TaskKind::Activity)?;
    svc.idle.heard(task);
    let scope = ctx.scope.clone();
    let setup = svc.engine.clone();
    svc.store
        .write_about(
            About::Run(task.run),
            move |tx| started_activity(tx, &scope, task),
            move |tx, (domain, run)| {
                let mut eng = Engine::new(tx, domain, &setup);
                let cancel_requested = record_heartbeat(&mut eng, &run, task, input.details)?;
                eng.finish()?;
                Ok(ActivityTaskStatus { cancel_requested })
            },
        )
        .await
}

/// `RespondActivityTaskCompletedInput`.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CompletedInput {
    pub(crate) task_token: String,
    pub(crate) result: Option<String>,
}

/// RespondActivityTaskCompleted.
pub(crate) async fn completed(
    svc: &Service,
    ctx: &Ctx,
    input: CompletedInput,
) -> Result<Empty, Fault> {
    let outcome = ActivityOutcome::Completed {
        result: input.result,
    };
    respond(svc, ctx, &input.task_token, outcome).await
}

/// `RespondActivityTaskFailedInput`.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FailedInput {
    pub(crate) task_token: String,
    pub(crate) reason: Option<String>,
    pub(crate) details: Option<String>,
}

/// RespondActivityTaskFailed.
pub(crate) async fn failed(svc: &Service, ctx: &Ctx, input: FailedInput) -> Result<Empty, Fault> {
    let outcome = ActivityOutcome::Failed {
        reason: input.reason,
        details: input.details,
    };
    respond(svc, ctx, &input.task_token, outcome).await
}

/// `RespondActivityTaskCanceledInput`.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CanceledInput {
    pub(crate) task_token: String,
    pub(crate) details: Option<String>,
}

/// RespondActivityTaskCanceled.
pub(crate) async fn canceled(
    svc: &Service,
    ctx: &Ctx,
    input: CanceledInput,
) -> Result<Empty, Fault> {
    let outcome = ActivityOutcome::Canceled {
        details: input.details,
    };
    respond(svc, ctx, &input.task_token, outcome).await
}

async fn respond(
    svc: &Service,
    ctx: &Ctx,
    token: &str,
    outcome: ActivityOutcome,
) -> Result<Empty, Fault> {
    let task = open_token(svc, token, TaskKind::Activity)?;
    let scope = ctx.scope.clone();
    let setup = svc.engine.clone();
    let answered = svc
        .store
        .write_about(
            About::Run(task.run),
            move |tx| started_activity(tx, &scope, task),
            move |tx, (domain, mut run)| {
                let mut eng = Engine::new(tx, domain, &setup);
                close_activity(&mut eng, &mut run, task, outcome)?;
                eng.finish()?;
                Ok(Empty {})
            },
        )
        .await;
    // Answered, or refused as no longer open: the task is held no more either way.
    svc.idle.released(task);
    answered
}

/// The domain id and run of the started activity task `task`, in the caller's scope.
fn started_activity(tx: &dyn Reads, scope: &Scope, task: TaskRef) -> Result<(u64, Run), Fault> {
    let domain = task_domain(tx, scope, task)?;
    Ok((domain.id, started_task::<Activity>(tx, domain.id, task)?))
}
