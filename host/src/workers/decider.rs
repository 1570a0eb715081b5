//! Serving a decision task with a Wasm decider.

use std::time::Instant;

use serde_json::Value;
use tokio::sync::watch;

use crate::api::Operation;
use crate::fault::Fault;

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
    let Some(mut task) = worker.poll(Operation::PollForDecisionTask, stop).await? else {
        return Ok(());
    };
    let execution = task["workflowExecution"].clone();
    let run_id = execution["runId"].as_str().unwrap_or_default().to_owned();
    if worker.backoff.paused(&run_id, Instant::now()) {
        tracing::debug!(
            guest = &*worker.call.label,
            run_id,
            "decider paused on this run"
        );
        return Ok(());
    }
    whole_history(worker, &mut task).await?;
    let started = task["startedEventId"].as_u64().unwrap_or_default();
    let name = format!("decision task {started}");
    let mut response = match worker
        .svc
        .runtime
        .decide(&worker.module, &worker.call, &task)
        .await
    {
        Ok(response) => response,
        Err(failure) => {
            worker.backoff.failed(&run_id, Instant::now());
            worker.failed(&execution, name, failure.reason()).await;
            return Ok(());
        }
    };
    response["taskToken"] = task["taskToken"].take();
    match worker
        .call(Operation::RespondDecisionTaskCompleted, response)
        .await
    {
        Ok(_) => {
            worker.backoff.succeeded(&run_id);
            Ok(())
        }
        Err(fault @ Fault::Internal(_)) => Err(fault),
        Err(fault) => {
            worker.backoff.failed(&run_id, Instant::now());
            worker
                .failed(&execution, name, refused(&fault).to_string())
                .await;
            Ok(())
        }
    }
}

/// Appends the rest of the task's history, page by page, to its `events`.
async fn whole_history(worker: &Worker, task: &mut Value) -> Result<(), Fault> {
    let mut next = task.get_mut("nextPageToken").map(Value::take);
    while let Some(token) = next.take().filter(|t| !t.is_null()) {
        let mut input = worker.poll_input();
        input["nextPageToken"] = token;
        let mut page = worker.call(Operation::PollForDecisionTask, input).await?;
        if let (Some(events), Some(more)) =
            (task["events"].as_array_mut(), page["events"].as_array_mut())
        {
            events.append(more);
        }
        next = page.get_mut("nextPageToken").map(Value::take);
    }
    Ok(())
}
