//! Upgrades (`POST /v1/domains/{domain}/bindings/decision/{name}/upgrade`, and a bind whose
//! policy is `replay` or `all`): the open runs of a decision task list pinned to modules other
//! than its binding's current one are replayed with the current module, and those whose
//! histories it decides as recorded move to it (`all` moves them unreplayed).
//!
//! A move is committed only if the run's history is still the one replayed, so a run never
//! moves past events the new module has not been checked against; a decision task its old
//! module is deciding meanwhile is refused at completion (`Decided::Moved`) and decided again
//! by the new one. Nothing of a move is in the history: SWF clients see nothing new.

use crate::engine::pin_run;
use crate::fault::Fault;
use crate::model::{
    Binding, BindingKind, Pin, Run, RunReplay, RunUpgrade, UpgradeReport, WorkflowExecution,
};
use crate::runtime::{Module, World};
use crate::store::{About, Reads, StoreError};

use super::history::whole_history;
use super::pins::pinned_runs;
use super::replay::{Budget, load_decider, replay_call, replay_run};
use super::{Ctx, Service, known_domain};

/// How many times a run whose history grows while it is replayed is replayed again.
const TRIES: usize = 3;

/// What an upgrade does.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Upgrade {
    /// Say what it would do, and move nothing.
    pub(crate) dry_run: bool,
    /// Move runs unreplayed.
    pub(crate) all: bool,
    /// Only runs an upgrade moved away from the current module (after a rollback to it).
    pub(crate) back: bool,
}

/// Moves (or, dry, says which it would move) the open runs of decision task list `list` in
/// `domain` pinned to modules other than its binding's current one: those whose histories the
/// current module replays as recorded, or, with `all`, every one.
pub(crate) async fn upgrade(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    list: String,
    how: Upgrade,
) -> Result<UpgradeReport, Fault> {
    let Upgrade { dry_run, back, .. } = how;
    let (domain_name, list_name) = (domain.clone(), list.clone());
    let scope = ctx.scope.clone();
    let (code, runs) = svc
        .store
        .read_long(move |tx| {
            let domain = known_domain(tx, &scope, &domain)?;
            let binding = tx
                .binding(domain.id, BindingKind::Decision, &list)?
                .ok_or_else(|| {
                    Fault::UnknownResource(format!(
                        "No decision binding: {}",
                        crate::fault::echo(&list)
                    ))
                })?;
            let code = tx
                .module_code(&scope.account, &binding.module)?
                .ok_or_else(|| Fault::internal("a bound module has no code"))?;
            let runs = pinned_elsewhere(tx, domain.id, &binding, back)?;
            Ok::<_, Fault>((code, runs))
        })
        .await?;
    let module = load_decider(svc, ctx, code)
        .await?
        .map_err(|e| Fault::internal(format!("a bound module does not load: {e}")))?;
    if module.world != World::Decider {
        return Err(Fault::internal("a decision binding's module is no decider"));
    }
    let mut report = UpgradeReport {
        module: module.digest.clone(),
        dry_run,
        runs: Vec::with_capacity(runs.len()),
    };
    let metrics = &svc.engine.metrics;
    let mut labels = metrics.domain_labels(&ctx.scope.account, &domain_name);
    labels.push(("binding", list_name));
    // One budget of decider time for the whole upgrade: the runs it does not reach stay.
    let mut budget = Budget::of(ctx);
    let mut spent: Option<String> = None;
    let mut moved = 0;
    for run in runs {
        let upgraded = match &spent {
            Some(why) => kept(&run, Some(why)),
            None => match upgrade_run(svc, ctx, &module, run.clone(), &mut budget, how).await {
                Err(Fault::LimitExceeded(why)) => kept(&run, Some(spent.insert(why).as_str())),
                upgraded => upgraded?,
            },
        };
        if !dry_run {
            metrics.own.upgraded(&labels, upgraded.moved);
            moved += u64::from(upgraded.moved);
        }
        report.runs.push(upgraded);
    }
    if moved > 0 {
        // Tasks held for a failing decider are decided again by the module their run moved to.
        svc.bindings_changed.send_replace(());
    }
    Ok(report)
}

/// The open runs whose decision tasks go to `binding`'s list and which are pinned to another of
/// `binding`'s versions than its current one (with `back`, only those an upgrade moved away
/// from it), oldest start first.
fn pinned_elsewhere(
    tx: &dyn Reads,
    domain: u64,
    binding: &Binding,
    back: bool,
) -> Result<Vec<Run>, StoreError> {
    let current = binding.module.as_str();
    let mut runs = Vec::new();
    for version in binding.versions.iter().filter(|v| v.module != current) {
        let pinned = pinned_runs(tx, domain, &version.module)?.into_iter();
        runs.extend(pinned.filter(|run| {
            let moved_from = run.pin.as_ref().and_then(|pin| pin.moved_from.as_deref());
            run.decision_task_list == binding.name && (!back || moved_from == Some(current))
        }));
    }
    runs.sort_by_key(|run| (run.started_at, run.seq));
    Ok(runs)
}

/// Replays `run` with `module` and moves it there if the module decides its history as
/// recorded (or unreplayed, with `all`); replays again if its history grew meanwhile.
async fn upgrade_run(
    svc: &Service,
    ctx: &Ctx,
    module: &Module,
    mut run: Run,
    budget: &mut Budget,
    Upgrade { dry_run, all, .. }: Upgrade,
) -> Result<RunUpgrade, Fault> {
    let from = run
        .pin
        .as_ref()
        .map_or_else(String::new, |p| p.module.clone());
    let call = replay_call(ctx, module);
    for _ in 0..TRIES {
        let seq = run.seq;
        let events = svc
            .store
            .read_long(move |tx| whole_history(tx, seq))
            .await?;
        let replay = match all {
            true => unreplayed(&run),
            false => replay_run(svc, module, &call, budget, &run, &events, false).await?,
        };
        let agrees = replay.divergence.is_none();
        let outcome = |moved, reason: Option<&str>| RunUpgrade {
            workflow_id: replay.workflow_id.clone(),
            run_id: replay.run_id.clone(),
            from: from.clone(),
            moved,
            decision_tasks: replay.decision_tasks,
            divergence: replay.divergence.clone(),
            reason: reason.map(str::to_owned),
        };
        if !agrees || dry_run {
            return Ok(outcome(agrees, None));
        }
        let seen = events.len() as u64 + 1;
        let account = ctx.scope.account.clone();
        match move_run(svc, account, &run, (&from, &module.digest), seen, all).await? {
            Moved::Yes => {
                log_move(&run.execution, &from, &module.digest);
                return Ok(outcome(true, None));
            }
            Moved::Closed => return Ok(outcome(false, Some("it closed meanwhile"))),
            Moved::Repinned => {
                return Ok(outcome(false, Some("it was moved meanwhile")));
            }
            Moved::Gone => {
                return Ok(outcome(false, Some("the module was deleted meanwhile")));
            }
            Moved::Grew(now) => run = *now,
        }
    }
    let why = format!("its history grew while it was replayed, {TRIES} times; upgrade again");
    Ok(kept(&run, Some(&why)))
}

/// `run` left on its module, unreplayed, for `why`.
fn kept(run: &Run, why: Option<&str>) -> RunUpgrade {
    RunUpgrade {
        workflow_id: run.execution.workflow_id.to_string(),
        run_id: run.execution.run_id.to_string(),
        from: run
            .pin
            .as_ref()
            .map_or_else(String::new, |p| p.module.clone()),
        moved: false,
        decision_tasks: 0,
        divergence: None,
        reason: why.map(str::to_owned),
    }
}

/// What a move found.
enum Moved {
    /// The run moved.
    Yes,
    /// It closed since it was read.
    Closed,
    /// It was pinned to another module since it was read.
    Repinned,
    /// The module it was to move to was deleted since.
    Gone,
    /// Its history grew since it was replayed: here it is now.
    Grew(Box<Run>),
}

/// Pins `run` (of `account`) from module `from` to `to` if it is still open, still pinned to
/// `from`, `to` is still there, and (unless `all`) its next event is still `next_event_id`:
/// its history is still the one replayed.
async fn move_run(
    svc: &Service,
    account: String,
    run: &Run,
    (from, to): (&str, &str),
    next_event_id: u64,
    all: bool,
) -> Result<Moved, Fault> {
    let (seq, from, to) = (run.seq, from.to_owned(), to.to_owned());
    let pinned = (from.clone(), to.clone());
    svc.store
        .write_about(
            About::Run(seq),
            move |tx| {
                let (from, to) = pinned;
                let Some(run) = tx.run(seq)?.filter(Run::is_open) else {
                    return Ok(Err(Moved::Closed));
                };
                if run.pin.as_ref().is_none_or(|pin| pin.module != from) {
                    return Ok(Err(Moved::Repinned));
                }
                if !all && run.next_event_id != next_event_id {
                    return Ok(Err(Moved::Grew(Box::new(run))));
                }
                if !tx.module_kept(&account, &to)? {
                    return Ok(Err(Moved::Gone));
                }
                Ok::<_, Fault>(Ok(run))
            },
            move |tx, checked| {
                let mut run = match checked {
                    Ok(run) => run,
                    Err(found) => return Ok(found),
                };
                let pin = Pin {
                    module: to,
                    at: tx.now(),
                    moved_from: Some(from),
                };
                pin_run(tx, &mut run, pin)?;
                tx.put_run(&run)?;
                // Tasks held for a failing decider on every node are decided again by the
                // module their run moved to.
                tx.notify_deciders()?;
                Ok(Moved::Yes)
            },
        )
        .await
}

/// What an upgrade with `all` reports of `run`, which it does not replay.
fn unreplayed(run: &Run) -> RunReplay {
    RunReplay {
        workflow_id: run.execution.workflow_id.to_string(),
        run_id: run.execution.run_id.to_string(),
        workflow_type: crate::model::TypeRef {
            name: run.workflow_type.name.clone(),
            version: run.workflow_type.version.clone(),
        },
        open: true,
        decision_tasks: 0,
        divergence: None,
    }
}

/// Says in the log that `execution` moved from module `from` to `to`.
fn log_move(execution: &WorkflowExecution, from: &str, to: &str) {
    tracing::info!(
        workflow_id = %execution.workflow_id,
        run_id = %execution.run_id,
        from = &from[..from.len().min(12)],
        to = &to[..to.len().min(12)],
        "run upgraded to a new decider module"
    );
}
