//! Serving a Lambda function task with a Wasm function.

use tokio::sync::watch;
use tracing::Instrument as _;

use crate::engine::LambdaOutcome;
use crate::fault::Fault;
use crate::ops::functions;

use super::{Worker, refused};

/// Waits for a task of the binding's function and runs it: its result or failure, or the
/// guest's own failure (a trap, a limit), is recorded as `LambdaFunctionCompleted` or
/// `LambdaFunctionFailed`.
pub(super) async fn serve_one(
    worker: &Worker,
    stop: &mut watch::Receiver<bool>,
) -> Result<(), Fault> {
    let ctx = &worker.ctx;
    let (domain, name) = (worker.binding.domain.clone(), worker.binding.name.clone());
    let claim = tokio::select! {
        claim = functions::poll(&worker.svc, ctx, domain, name) => claim?,
        _ = stop.wait_for(|s| *s) => return Ok(()),
    };
    let Some(claim) = claim else {
        return Ok(());
    };
    let span = worker.task_span(&claim.execution, Some(&claim.id));
    async move {
        let runtime = &worker.svc.runtime;
        let module = worker.module_now().await;
        let (call, tap) = worker.tapped();
        let answer = worker
            .guest(runtime.invoke(&module, &call, claim.input.as_deref()))
            .await;
        let task = format!("function {} ({})", claim.name, claim.id);
        let lines = tap.take();
        worker.keep_lines(&claim.execution, &task, &lines);
        let outcome = match answer {
            Ok(Ok(result)) => LambdaOutcome::Completed { result },
            Ok(Err(failure)) => LambdaOutcome::Failed {
                reason: failure.reason,
                details: failure.details,
            },
            Err(failure) => {
                let reason = failure.reason();
                let task = task.clone();
                worker
                    .failed(&claim.execution, task, reason.clone(), &lines)
                    .await;
                LambdaOutcome::Failed {
                    reason: Some(reason),
                    details: None,
                }
            }
        };
        match functions::close(&worker.svc, ctx, claim.task, outcome).await {
            Ok(()) | Err(Fault::UnknownResource(_)) => Ok(()),
            Err(fault @ Fault::Internal(_)) => Err(fault),
            Err(fault) => {
                // The service refused the answer (a result too long, say): fail the task with why.
                let reason = refused(&fault).reason();
                worker
                    .failed(&claim.execution, task, reason.clone(), &[])
                    .await;
                let failed = LambdaOutcome::Failed {
                    reason: Some(reason),
                    details: None,
                };
                match functions::close(&worker.svc, ctx, claim.task, failed).await {
                    Ok(()) | Err(Fault::UnknownResource(_)) => Ok(()),
                    Err(fault) => Err(fault),
                }
            }
        }
    }
    .instrument(span)
    .await
}
