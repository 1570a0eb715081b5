//! Serving a decision task with a Wasm decider.

use std::time::Instant;

use serde_json::Value;
use tokio::sync::watch;

use crate::api::op::{PollForDecisionTask, RespondDecisionTaskCompleted};
use crate::fault::Fault;
use crate::fault::decode;
use crate::ops::decision_tasks::{DecisionTaskOutput, PollInput, RespondInput};

use super::{Worker, refused};

/// Polls the binding's decision task list and serves the task that comes, if one does.
///
/// A decider that fails (traps, breaks a limit, answers an error or decisions the service
/// rejects) leaves its task unanswered: it times out and is scheduled again, as for a crashed
/// decider, so a broken decider neither spins nor holds anything but its own runs. Failing again
/// and again on one run pauses the guest for that run, longer each time (`backoff`).
pub(super) async fn serve_one(
    worker: &Worker,
    stop: &mut watch::Receiver<bool>,
) -> Result<(), Fault> {
    let polled = worker
        .poll::<PollForDecisionTask>(poll_input(worker, None), stop)
        .await?;
    let Some(mut task) = polled else {
        return Ok(());
    };
    // An empty answer (the poll timed out) has neither.
    let (Some(token), Some(execution)) = (task.task_token.clone(), task.workflow_execution.clone())
    else {
        return Ok(());
    };
    let run_id = execution.run_id.as_str();
    if worker.backoff.paused(run_id, Instant::now()) {
        tracing::debug!(
            guest = &*worker.call.label,
            run_id,
            "decider paused on this run"
        );
        return Ok(());
    }
    whole_history(worker, &mut task).await?;
    let name = format!("decision task {}", task.started_event_id);
    // The runtime reads the task as the wire JSON a decider would get over HTTP.
    let wire = serde_json::to_value(&task).map_err(Fault::internal)?;
    let runtime = &worker.svc.runtime;
    let decided = match worker
        .guest(runtime.decide(&worker.module, &worker.call, &wire))
        .await
    {
        Ok(response) => response_input(response, token),
        Err(failure) => Err(failure.reason()),
    };
    let response = match decided {
        Ok(response) => response,
        Err(reason) => {
            worker.backoff.failed(run_id, Instant::now());
            worker.failed(&execution, name, reason).await;
            return Ok(());
        }
    };
    match worker.call::<RespondDecisionTaskCompleted>(response).await {
        Ok(_) => {
            worker.backoff.succeeded(run_id);
            Ok(())
        }
        Err(fault @ Fault::Internal(_)) => Err(fault),
        Err(fault) => {
            worker.backoff.failed(run_id, Instant::now());
            worker
                .failed(&execution, name, refused(&fault).to_string())
                .await;
            Ok(())
        }
    }
}

/// The decider's answer (`RespondDecisionTaskCompleted`'s input in wire JSON, less the token)
/// as that operation's input for the task `token`; or why it is not one.
fn response_input(mut response: Value, token: String) -> Result<RespondInput, String> {
    if let Some(members) = response.as_object_mut() {
        members.insert("taskToken".into(), Value::String(token));
    }
    decode(response).map_err(|fault| refused(&fault).to_string())
}

/// The input of a poll on this binding's decision task list; with `page`, a poll for that page
/// of the history of a task already delivered.
fn poll_input(worker: &Worker, page: Option<String>) -> PollInput {
    PollInput {
        domain: worker.domain(),
        task_list: worker.task_list(),
        identity: Some(worker.identity.clone()),
        next_page_token: page,
        maximum_page_size: None,
        reverse_order: false,
        start_at_previous_started_event: false,
    }
}

/// Appends the rest of the task's history, page by page, to its `events`.
async fn whole_history(worker: &Worker, task: &mut DecisionTaskOutput) -> Result<(), Fault> {
    while let Some(token) = task.next_page_token.take() {
        let input = poll_input(worker, Some(token));
        let page = worker.call::<PollForDecisionTask>(input).await?;
        let events = task.events.get_or_insert_default();
        events.extend(page.events.into_iter().flatten());
        task.next_page_token = page.next_page_token;
    }
    Ok(())
}
