//! Pausing and resuming a run (`POST /v1/domains/{domain}/workflows/{workflowId}/pause` and
//! `.../resume`; see `model::pauses`).

use crate::engine::{pause_run, resume_run};
use crate::fault::Fault;
use crate::model::{MAX_PAUSE_REASON, Pause, PauseReport, PauseRequest, Run, RunId, WorkflowId};

use super::executions::change_open_run;
use super::{Ctx, Service};

/// Pauses the open run of `workflow_id` in `domain` that `input` names, at an operator's
/// request.
pub(crate) async fn pause(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    workflow_id: WorkflowId,
    input: PauseRequest,
) -> Result<PauseReport, Fault> {
    pause_for(svc, ctx, (domain, workflow_id), input, "request").await
}

/// Pauses the open run of `workflow_id` in `domain` that `input` names, for `cause` (as the
/// metrics count it: `request`, or `failures` of its decider).
pub(crate) async fn pause_for(
    svc: &Service,
    ctx: &Ctx,
    (domain, workflow_id): (String, WorkflowId),
    input: PauseRequest,
    cause: &'static str,
) -> Result<PauseReport, Fault> {
    check_reason(input.reason.as_deref())?;
    let by = caller(ctx, input.identity);
    let reason = input.reason;
    let labels = svc
        .engine
        .metrics
        .domain_labels(&ctx.scope.account, &domain);
    let target = (domain, workflow_id, input.run_id.map(RunId::from));
    let report = change_open_run(svc, ctx, target, move |eng, run| {
        let at = eng.tx.now();
        let pause = Pause { at, by, reason };
        let taken = pause_run(eng, run, pause)?;
        Ok(report(run, taken))
    })
    .await?;
    if report.changed {
        svc.engine.metrics.own.run_paused(&labels, cause);
    }
    Ok(report)
}

/// Resumes the open run of `workflow_id` in `domain` that `input` names.
pub(crate) async fn resume(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    workflow_id: WorkflowId,
    input: PauseRequest,
) -> Result<PauseReport, Fault> {
    no_reason(input.reason.as_deref())?;
    let labels = svc
        .engine
        .metrics
        .domain_labels(&ctx.scope.account, &domain);
    let target = (domain, workflow_id, input.run_id.map(RunId::from));
    let report = change_open_run(svc, ctx, target, move |eng, run| {
        let put_back = resume_run(eng, run)?;
        Ok(report(run, put_back))
    })
    .await?;
    if report.changed {
        svc.engine.metrics.own.run_resumed(&labels);
        svc.runs_resumed.send_replace(());
    }
    Ok(report)
}

/// Refuses a pause's reason longer than SWF takes for a termination's.
pub(crate) fn check_reason(reason: Option<&str>) -> Result<(), Fault> {
    match reason {
        Some(reason) if reason.chars().count() > MAX_PAUSE_REASON => Err(Fault::Validation(
            format!("reason is longer than {MAX_PAUSE_REASON} characters"),
        )),
        _ => Ok(()),
    }
}

/// Refuses a reason given to a resume, which keeps none.
pub(super) fn no_reason(reason: Option<&str>) -> Result<(), Fault> {
    match reason {
        Some(_) => Err(Fault::Validation(
            "reason is kept for a pause only: a resume clears it".into(),
        )),
        None => Ok(()),
    }
}

/// Who asks: the `identity` the caller gave, else its account.
pub(super) fn caller(ctx: &Ctx, identity: Option<String>) -> String {
    identity
        .filter(|i| !i.is_empty())
        .unwrap_or_else(|| ctx.scope.account.clone())
}

fn report(run: &Run, moved: Option<usize>) -> PauseReport {
    PauseReport {
        run_id: run.execution.run_id.to_string(),
        paused: run.paused.clone(),
        changed: moved.is_some(),
        tasks: moved.unwrap_or(0),
    }
}
