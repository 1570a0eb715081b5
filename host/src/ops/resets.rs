//! Resetting a run (`POST /v1/domains/{domain}/workflows/{workflowId}/reset`; see
//! `model::resets` for what the new run carries, `engine::reset` for how it is made).
//!
//! The new run is pinned to the Wasm decider bound to its decision task list, if one is; that
//! module first replays the carried decision tasks as the new run will hand them out (with the
//! new run's id), and a reset whose carried events it decides otherwise than recorded is
//! refused unless forced: the new run would fail its first decision task.

use serde::Deserialize;
use serde_json::Value;

use crate::engine::{Cut, Engine, ResetRun, cut, new_run_id, reset_run};
use crate::fault::{Fault, echo};
use crate::model::events::HistoryEvent;
use crate::model::{
    BindingKind, Divergence, ResetReport, ResetRequest, Run, RunId, RunReplay, WorkflowId,
};
use crate::runtime::World;
use crate::store::{Cursor, Filter, Listing, Reads, StoreError};

use super::history::whole_history;
use super::replay::{Budget, load_decider, replay_call, replay_run};
use super::{Ctx, Service, known_domain};

/// The longest termination reason SWF takes.
const MAX_REASON: usize = 256;

/// Resets the run of `workflow_id` in `domain` that `input` names, at the decision task it
/// names.
pub(crate) async fn reset(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    workflow_id: WorkflowId,
    input: ResetRequest,
) -> Result<ResetReport, Fault> {
    if input
        .reason
        .as_ref()
        .is_some_and(|r| r.chars().count() > MAX_REASON)
    {
        return Err(Fault::Validation(format!(
            "reason is longer than {MAX_REASON} characters"
        )));
    }
    let scope = ctx.scope.clone();
    let run_id = input.run_id.clone().map(RunId::from);
    let (domain_id, old, events) = svc
        .store
        .read_long(move |tx| {
            let domain = known_domain(tx, &scope, &domain)?;
            let old = resettable(tx, domain.id, &workflow_id, run_id.as_ref())?;
            let events = whole_history(tx, old.seq)?;
            Ok::<_, Fault>((domain.id, old, events))
        })
        .await?;
    let parsed = (events.iter())
        .map(HistoryEvent::deserialize)
        .collect::<Result<Vec<_>, _>>()
        .map_err(Fault::internal)?;
    let cut = cut(&parsed, input.to).map_err(Fault::Validation)?;
    let new_id = new_run_id()?;
    let mut next = old.clone();
    next.execution.run_id = new_id.clone();
    let carried = &events[..cut.started as usize - 1];
    let checked = check_decider(svc, ctx, domain_id, &next, &cut, carried, input.force).await?;
    let how = ResetRun {
        run_id: new_id,
        module: checked.module.clone(),
        reason: input.reason,
        reapply_signals: input.reapply_signals,
    };
    write(svc, ctx, domain_id, old, cut, how, checked).await
}

/// The run of `workflow_id` a reset names: `run_id`, or the open run, or the newest closed one;
/// refused if it is not one a reset can start again.
fn resettable(
    tx: &dyn Reads,
    domain: u64,
    workflow_id: &WorkflowId,
    run_id: Option<&RunId>,
) -> Result<Run, Fault> {
    let run = match run_id.filter(|id| !id.is_empty()) {
        Some(run_id) => tx.run_named(domain, workflow_id, run_id)?,
        None => match tx.open_run(domain, workflow_id)? {
            Some(run) => Some(run),
            None => newest_closed(tx, domain, workflow_id)?,
        },
    };
    let run =
        run.ok_or_else(|| Fault::unknown_execution(workflow_id, run_id.map(RunId::as_str)))?;
    if run.imported {
        return Err(Fault::Validation(
            "An imported run is a record of another service's run: it cannot be reset".into(),
        ));
    }
    if run.parent.is_some() {
        return Err(Fault::Validation(
            "A child run cannot be reset: its parent knows it by its run id; reset the parent"
                .into(),
        ));
    }
    Ok(run)
}

/// The newest closed run of `workflow_id`.
fn newest_closed(
    tx: &dyn Reads,
    domain: u64,
    workflow_id: &WorkflowId,
) -> Result<Option<Run>, StoreError> {
    let ever = (
        crate::clock::Timestamp::from_millis(i64::MIN),
        crate::clock::Timestamp::from_millis(i64::MAX),
    );
    let newest = Cursor {
        after: None,
        reverse: true,
        limit: 1,
    };
    let filter = Filter::WorkflowId(workflow_id.as_str());
    let page = tx.listed_runs(domain, Listing::ClosedByStart, &filter, ever, newest)?;
    Ok(page.items.into_iter().next())
}

/// What the decider check found: the module the new run is pinned to, and its replay.
#[derive(Clone)]
struct Checked {
    module: Option<String>,
    replay: Option<RunReplay>,
}

/// Replays the `carried` events of the new run `next` with the Wasm decider bound to the list
/// its decision task goes to, if one is: refused if it decides them otherwise than recorded,
/// unless `force`.
async fn check_decider(
    svc: &Service,
    ctx: &Ctx,
    domain: u64,
    next: &Run,
    cut: &Cut,
    carried: &[Value],
    force: bool,
) -> Result<Checked, Fault> {
    let (account, list) = (ctx.scope.account.clone(), cut.task.list.clone());
    let bound = svc
        .store
        .read_long(move |tx| {
            let Some(binding) = tx.binding(domain, BindingKind::Decision, &list)? else {
                return Ok::<_, Fault>(None);
            };
            let code = tx.module_code(&account, &binding.module)?;
            Ok(code.map(|code| (binding.module, code)))
        })
        .await?;
    let Some((digest, code)) = bound else {
        return Ok(Checked {
            module: None,
            replay: None,
        });
    };
    let module = load_decider(svc, ctx, code)
        .await?
        .map_err(|e| Fault::internal(format!("a bound module does not load: {e}")))?;
    if module.world != World::Decider {
        return Err(Fault::internal("a decision binding's module is no decider"));
    }
    let call = replay_call(ctx, &module);
    let mut budget = Budget::of(ctx);
    let replay = match replay_run(svc, &module, &call, &mut budget, next, carried, false).await {
        Err(Fault::LimitExceeded(_)) if force => None,
        Err(Fault::LimitExceeded(why)) => {
            return Err(Fault::LimitExceeded(format!(
                "{why}; or reset with force, unchecked"
            )));
        }
        replayed => Some(replayed?),
    };
    if let (Some(divergence), false) = (replay.as_ref().and_then(|r| r.divergence.as_ref()), force)
    {
        return Err(diverges(&cut.task.list, &digest, divergence));
    }
    Ok(Checked {
        module: Some(digest),
        replay,
    })
}

/// The refusal of a reset whose carried events the decider `digest` bound to `list` decides
/// otherwise than recorded.
fn diverges(list: &str, digest: &str, divergence: &Divergence) -> Fault {
    Fault::Validation(format!(
        "The decider bound to {} (module {}) decides the carried events otherwise than \
         recorded, at the decision task started by event {}: {}. Fix the decider, reset to an \
         earlier decision task, or reset with force",
        echo(list),
        &digest[..digest.len().min(12)],
        divergence.started_event_id,
        divergence.message
    ))
}

/// Commits the reset of `old` at `cut`: checks again what may have changed since it was read.
async fn write(
    svc: &Service,
    ctx: &Ctx,
    domain: u64,
    old: Run,
    cut: Cut,
    how: ResetRun,
    checked: Checked,
) -> Result<ResetReport, Fault> {
    let (account, setup) = (ctx.scope.account.clone(), svc.engine_for(ctx));
    let check_setup = setup.clone();
    let (seq, workflow_id) = (old.seq, old.execution.workflow_id.clone());
    let module = checked.module.clone();
    let report = svc
        .store
        .write(
            move |tx| {
                let old = (tx.run(seq)?)
                    .filter(|run| run.domain == domain)
                    .ok_or_else(|| Fault::unknown_execution(&workflow_id, None))?;
                match tx.open_run(domain, &workflow_id)? {
                    Some(open) if open.seq != seq => {
                        return Err(Fault::Validation(format!(
                            "Run {} of the workflow is open: reset it, or close it first",
                            open.execution.run_id
                        )));
                    }
                    Some(_) => {}
                    None if check_setup.open_runs_full(tx, domain)? => {
                        let max = check_setup.max_open_runs;
                        return Err(Fault::open_runs_limit(&old.domain_name, max));
                    }
                    None => {}
                }
                if let Some(digest) = &module
                    && !tx.module_kept(&account, digest)?
                {
                    return Err(Fault::Validation(
                        "The decider module was deleted while the reset replayed it; reset again"
                            .into(),
                    ));
                }
                Ok(old)
            },
            move |tx, mut old| {
                let terminated = old.is_open();
                let mut eng = Engine::new(tx, domain, &setup);
                let (run, reapplied) = reset_run(&mut eng, &mut old, &cut, how)?;
                eng.finish()?;
                let replay = checked.replay.as_ref();
                Ok(ResetReport {
                    workflow_id: run.execution.workflow_id.to_string(),
                    run_id: run.execution.run_id.to_string(),
                    reset_run_id: old.execution.run_id.to_string(),
                    terminated,
                    carried_events: cut.started - 1,
                    decision_task: cut.task.scheduled,
                    reapplied_signals: reapplied,
                    module: checked.module.clone(),
                    replayed_decision_tasks: replay.map_or(0, |r| r.decision_tasks),
                    divergence: replay.and_then(|r| r.divergence.clone()),
                })
            },
        )
        .await?;
    tracing::info!(
        workflow_id = %report.workflow_id,
        run_id = %report.run_id,
        reset_run_id = %report.reset_run_id,
        carried_events = report.carried_events,
        "run reset"
    );
    Ok(report)
}
