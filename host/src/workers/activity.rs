//! Serving an activity task with a Wasm activity worker.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::watch;

use crate::api::{self, Operation};
use crate::fault::Fault;
use crate::runtime::{Heartbeat, tasks, types};

use super::{Worker, refused, text};

/// Polls the binding's activity task list and serves the task that comes, if one does. A guest
/// that fails has its task failed with a reason naming the cause.
pub(super) async fn serve_one(
    worker: &Worker,
    stop: &mut watch::Receiver<bool>,
) -> Result<(), Fault> {
    let Some(task) = worker.poll(Operation::PollForActivityTask, stop).await? else {
        return Ok(());
    };
    let token = text(&task["taskToken"]);
    let activity_id = text(&task["activityId"]);
    let execution = task["workflowExecution"].clone();
    let typed = tasks::ActivityTask {
        activity_id: activity_id.clone(),
        activity_type: types::ActivityType {
            name: text(&task["activityType"]["name"]),
            version: text(&task["activityType"]["version"]),
        },
        workflow_execution: types::WorkflowExecution {
            workflow_id: text(&execution["workflowId"]),
            run_id: text(&execution["runId"]),
        },
        input: task["input"].as_str().map(str::to_owned),
        started_event_id: task["startedEventId"].as_u64().unwrap_or_default(),
    };
    let name = format!("activity {activity_id}");
    let outcome = worker
        .svc
        .runtime
        .run(
            &worker.module,
            &worker.call,
            &typed,
            heartbeat(worker, &token),
        )
        .await;
    let (operation, mut answer) = match outcome {
        Ok(tasks::ActivityOutcome::Completed(result)) => (
            Operation::RespondActivityTaskCompleted,
            json!({"result": result}),
        ),
        Ok(tasks::ActivityOutcome::Failed(failure)) => (
            Operation::RespondActivityTaskFailed,
            json!({"reason": failure.reason, "details": failure.details}),
        ),
        Ok(tasks::ActivityOutcome::Canceled(details)) => (
            Operation::RespondActivityTaskCanceled,
            json!({"details": details}),
        ),
        Err(failure) => {
            let reason = failure.reason();
            worker
                .failed(&execution, name.clone(), reason.clone())
                .await;
            (
                Operation::RespondActivityTaskFailed,
                json!({"reason": reason}),
            )
        }
    };
    answer["taskToken"] = Value::String(token.clone());
    strip_nulls(&mut answer);
    match worker.call(operation, answer).await {
        Ok(_) => Ok(()),
        Err(fault @ Fault::Internal(_)) => Err(fault),
        // The task timed out or its run closed meanwhile: nothing is left to answer.
        Err(Fault::UnknownResource(_)) => Ok(()),
        Err(fault) => {
            // The service refused the answer (a result too long, say): fail the task with why.
            let reason = refused(&fault).reason();
            worker.failed(&execution, name, reason.clone()).await;
            let failed = json!({"taskToken": token, "reason": reason});
            match worker
                .call(Operation::RespondActivityTaskFailed, failed)
                .await
            {
                Ok(_) | Err(Fault::UnknownResource(_)) => Ok(()),
                Err(fault) => Err(fault),
            }
        }
    }
}

/// The guest's heartbeat: `RecordActivityTaskHeartbeat` with the task's token. A task that is
/// gone (timed out, or its run closed) answers "cancel", so the guest stops.
fn heartbeat(worker: &Worker, token: &str) -> Heartbeat {
    let (svc, ctx, token) = (worker.svc.clone(), worker.ctx.clone(), token.to_owned());
    Arc::new(move |details| {
        let (svc, ctx) = (svc.clone(), ctx.clone());
        let mut input = json!({"taskToken": token, "details": details});
        strip_nulls(&mut input);
        Box::pin(async move {
            match api::call(&svc, &ctx, Operation::RecordActivityTaskHeartbeat, input).await {
                Ok(status) => status["cancelRequested"].as_bool().unwrap_or(false),
                Err(Fault::UnknownResource(_)) => true,
                Err(fault) => {
                    tracing::warn!("a guest's heartbeat was refused: {fault}");
                    false
                }
            }
        })
    })
}

/// Leaves out absent members, as a client would.
fn strip_nulls(object: &mut Value) {
    if let Some(map) = object.as_object_mut() {
        map.retain(|_, v| !v.is_null());
    }
}
