//! Serving an activity task with a Wasm activity worker.

use std::sync::Arc;

use tokio::sync::watch;
use tracing::Instrument as _;

use crate::api::{self, op};
use crate::fault::Fault;
use crate::model::WorkflowExecution;
use crate::ops::activity_tasks::{
    ActivityTaskOutput, CanceledInput, CompletedInput, FailedInput, HeartbeatInput, PollInput,
};
use crate::runtime::{Heartbeat, tasks, types};

use super::{Worker, refused};

/// Polls the binding's activity task list and serves the task that comes, if one does. A guest
/// that fails has its task failed with a reason naming the cause.
pub(super) async fn serve_one(
    worker: &Worker,
    stop: &mut watch::Receiver<bool>,
) -> Result<(), Fault> {
    let input = PollInput {
        domain: worker.domain(),
        task_list: worker.task_list(),
        identity: Some(worker.identity.clone()),
    };
    let Some(polled) = worker.poll::<op::PollForActivityTask>(input, stop).await? else {
        return Ok(());
    };
    // An empty answer (the poll timed out) has none of these.
    let ActivityTaskOutput {
        task_token: Some(token),
        activity_id: Some(activity_id),
        started_event_id,
        workflow_execution: Some(execution),
        activity_type: Some(activity_type),
        input,
    } = polled
    else {
        return Ok(());
    };
    let span = worker.task_span(&execution, Some(&activity_id));
    async move {
        let name = format!("activity {activity_id}");
        let task = tasks::ActivityTask {
            activity_id,
            activity_type: types::ActivityType {
                name: activity_type.name,
                version: activity_type.version,
            },
            workflow_execution: types::WorkflowExecution {
                workflow_id: execution.workflow_id.to_string(),
                run_id: execution.run_id.to_string(),
            },
            input,
            started_event_id,
        };
        let runtime = &worker.svc.runtime;
        let module = worker.module_now().await;
        let (call, tap) = worker.tapped();
        let outcome = worker
            .guest(runtime.run(&module, &call, &task, heartbeat(worker, &token)))
            .await;
        let lines = tap.take();
        worker.keep_lines(&execution, &name, &lines);
        let answer = match outcome {
            Ok(tasks::ActivityOutcome::Completed(result)) => Answer::Completed(result),
            Ok(tasks::ActivityOutcome::Failed(failure)) => Answer::Failed {
                reason: failure.reason,
                details: failure.details,
            },
            Ok(tasks::ActivityOutcome::Canceled(details)) => Answer::Canceled(details),
            Err(failure) => {
                let reason = failure.reason();
                worker
                    .failed(&execution, name.clone(), reason.clone(), &lines)
                    .await;
                Answer::Failed {
                    reason: Some(reason),
                    details: None,
                }
            }
        };
        match answer.send(worker, token.clone()).await {
            Ok(()) => Ok(()),
            Err(fault @ Fault::Internal(_)) => Err(fault),
            // The task timed out or its run closed meanwhile: nothing is left to answer.
            Err(Fault::UnknownResource(_)) => Ok(()),
            Err(fault) => refused_answer(worker, &execution, name, token, &fault).await,
        }
    }
    .instrument(span)
    .await
}

/// The service refused the guest's answer (a result too long, say): fails the task with why.
async fn refused_answer(
    worker: &Worker,
    execution: &WorkflowExecution,
    name: String,
    token: String,
    fault: &Fault,
) -> Result<(), Fault> {
    let reason = refused(fault).reason();
    worker.failed(execution, name, reason.clone(), &[]).await;
    let failed = Answer::Failed {
        reason: Some(reason),
        details: None,
    };
    match failed.send(worker, token).await {
        Ok(()) | Err(Fault::UnknownResource(_)) => Ok(()),
        Err(fault) => Err(fault),
    }
}

/// How a task ends, as the worker tells the service.
enum Answer {
    /// `RespondActivityTaskCompleted`, with the result.
    Completed(Option<String>),
    /// `RespondActivityTaskFailed`.
    Failed {
        reason: Option<String>,
        details: Option<String>,
    },
    /// `RespondActivityTaskCanceled`, with the details.
    Canceled(Option<String>),
}

impl Answer {
    /// Answers the task `task_token` with this.
    async fn send(self, worker: &Worker, task_token: String) -> Result<(), Fault> {
        match self {
            Answer::Completed(result) => {
                let input = CompletedInput { task_token, result };
                worker
                    .call::<op::RespondActivityTaskCompleted>(input)
                    .await?;
            }
            Answer::Failed { reason, details } => {
                let input = FailedInput {
                    task_token,
                    reason,
                    details,
                };
                worker.call::<op::RespondActivityTaskFailed>(input).await?;
            }
            Answer::Canceled(details) => {
                let input = CanceledInput {
                    task_token,
                    details,
                };
                worker
                    .call::<op::RespondActivityTaskCanceled>(input)
                    .await?;
            }
        }
        Ok(())
    }
}

/// The guest's heartbeat: `RecordActivityTaskHeartbeat` with the task's token. A task that is
/// gone (timed out, or its run closed) answers "cancel", so the guest stops.
fn heartbeat(worker: &Worker, token: &str) -> Heartbeat {
    let (svc, ctx, token) = (worker.svc.clone(), worker.ctx.clone(), token.to_owned());
    Arc::new(move |details| {
        let (svc, ctx) = (svc.clone(), ctx.clone());
        let input = HeartbeatInput {
            task_token: token.clone(),
            details,
        };
        Box::pin(async move {
            match api::call::<op::RecordActivityTaskHeartbeat>(&svc, &ctx, input).await {
                Ok(status) => status.cancel_requested,
                Err(Fault::UnknownResource(_)) => true,
                Err(fault) => {
                    tracing::warn!("a guest's heartbeat was refused: {fault}");
                    false
                }
            }
        })
    })
}
