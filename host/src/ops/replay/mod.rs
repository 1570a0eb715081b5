//! Replaying a decider over recorded histories (`POST /v1/domains/{domain}/replay`): each
//! completed decision task of each chosen run, in order, is handed to the decider as it was
//! handed out then, and its answer compared with the events its decisions were recorded as
//! (`recorded`). A decider is deterministic by construction (`runtime::determinism`), so a
//! difference means its code decides differently: `weft deploy --verify` refuses it.

mod recorded;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::clock::Timestamp;
use crate::fault::{Fault, echo};
use crate::model::{Divergence, Replay, ReplayReport, Run, RunReplay, TypeRef};
use crate::runtime::{Call, GuestFailure, GuestLimits, Module, Runtime, World};
use crate::store::{Cursor, Filter, Listing, Reads};

use self::recorded::{compare, recorded_tasks};
use super::history::whole_history;
use super::{Ctx, Service, known_domain};

/// Runs read from a listing at once while picking the runs to replay.
const RUN_PAGE: usize = 100;
/// The most runs of one listing looked at while picking runs of a task list: a domain whose
/// newest runs mostly use other task lists replays fewer than asked, rather than read them all.
const MAX_LOOKED_AT: usize = 100_000;
/// The time range of every run.
const EVER: (Timestamp, Timestamp) = (
    Timestamp::from_millis(i64::MIN),
    Timestamp::from_millis(i64::MAX),
);

/// Replays the decider `input.module` over the newest runs of `domain` that `input` picks.
pub(crate) async fn replay(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    input: Replay,
) -> Result<ReplayReport, Fault> {
    let last = input.last.unwrap_or(Replay::DEFAULT_LAST);
    if !(1..=Replay::MAX_LAST).contains(&last) {
        return Err(Fault::Validation(format!(
            "last must be 1 to {}",
            Replay::MAX_LAST
        )));
    }
    let (scope, strict) = (ctx.scope.clone(), input.strict);
    let (code, runs) = svc
        .store
        .read_long(move |tx| {
            let domain = known_domain(tx, &scope, &domain)?;
            let record = super::modules::find_module(tx, &scope.account, &input.module)?;
            let digest = &record.digest;
            let unknown = || Fault::UnknownResource(format!("Unknown module: {}", echo(digest)));
            if record.world != World::Decider {
                return Err(Fault::Validation(format!(
                    "Module {digest} is not a decider: only a decider can be replayed"
                )));
            }
            let code = tx
                .module_code(&scope.account, digest)?
                .ok_or_else(unknown)?;
            Ok::<_, Fault>((code, newest_runs(tx, domain.id, &input, last as usize)?))
        })
        .await?;
    let module = load_decider(svc, ctx, code)
        .await?
        .map_err(|e| Fault::Validation(format!("Invalid module: {e}")))?;
    let call = replay_call(ctx, &module);
    let mut budget = Budget::of(ctx);
    let mut replayed = Vec::with_capacity(runs.len());
    for run in runs {
        let seq = run.seq;
        let events = svc
            .store
            .read_long(move |tx| whole_history(tx, seq))
            .await?;
        let report = replay_run(svc, &module, &call, &mut budget, &run, &events, strict).await?;
        replayed.push(report);
    }
    Ok(ReplayReport { runs: replayed })
}

/// The module of `code`, loaded in the tenant's turn to compile (at once if it is loaded
/// already); or why it does not load.
pub(super) async fn load_decider(
    svc: &Service,
    ctx: &Ctx,
    code: Vec<u8>,
) -> Result<Result<Arc<Module>, String>, Fault> {
    let runtime = svc.runtime.clone();
    let loaded = svc
        .compiles
        .run(&ctx.tenant, move || runtime.load(&code))
        .await?;
    Ok(loaded.map_err(|e| e.to_string()))
}

/// The call a replay of `module` makes for `ctx`'s tenant: the default limits within its
/// quotas, and no outgoing HTTP.
pub(super) fn replay_call(ctx: &Ctx, module: &Module) -> Call {
    Call {
        label: format!("replay {}", &module.digest[..12]).into(),
        limits: ctx.tenant.clamp(GuestLimits::default()),
        share: ctx.tenant.instances.clone(),
        http_hosts: Arc::from([]),
        tap: None,
    }
}

/// The decider time one replay may still spend: each call may take no more than is left, and
/// takes away what it ran.
pub(super) struct Budget {
    total: Duration,
    left: Duration,
    /// Decision tasks replayed so far, for the message when it runs out.
    tasks: u32,
}

impl Budget {
    /// A budget of the tenant's `replay_cpu_ms`.
    pub(super) fn of(ctx: &Ctx) -> Budget {
        let total = Duration::from_millis(ctx.tenant.quotas.replay_cpu_ms);
        Budget {
            total,
            left: total,
            tasks: 0,
        }
    }

    /// `call`, allowed no more CPU than is left; and whether that is less than its own limit.
    fn limit(&self, call: &Call) -> (Call, bool) {
        let left = u64::try_from(self.left.as_millis()).unwrap_or(u64::MAX);
        let capped = left < call.limits.cpu_ms;
        let mut call = call.clone();
        call.limits.cpu_ms = call.limits.cpu_ms.min(left).max(1);
        (call, capped)
    }

    /// `LimitExceededFault`: the replay needs more than the budget.
    fn spent(&self) -> Fault {
        Fault::LimitExceeded(format!(
            "The replay used its decider CPU budget of {} ms (replay_cpu_ms) in {} decision \
             tasks; replay fewer runs (last)",
            self.total.as_millis(),
            self.tasks
        ))
    }
}

/// Replays `module` over the history `events` of `run`, up to the first divergence, within
/// `budget`; `strict` compares every attribute.
pub(super) async fn replay_run(
    svc: &Service,
    module: &Module,
    call: &Call,
    budget: &mut Budget,
    run: &Run,
    events: &[Value],
    strict: bool,
) -> Result<RunReplay, Fault> {
    let execution = serde_json::to_value(&run.execution).map_err(Fault::internal)?;
    let workflow_type = serde_json::to_value(&run.workflow_type).map_err(Fault::internal)?;
    let history = Recorded {
        execution: &execution,
        workflow_type: &workflow_type,
        events,
    };
    let (decision_tasks, divergence) =
        replay_history(&svc.runtime, module, call, budget, &history, strict).await?;
    Ok(RunReplay {
        workflow_id: run.execution.workflow_id.to_string(),
        run_id: run.execution.run_id.to_string(),
        workflow_type: TypeRef {
            name: run.workflow_type.name.clone(),
            version: run.workflow_type.version.clone(),
        },
        open: run.closed.is_none(),
        decision_tasks,
        divergence,
    })
}

/// A recorded history, in wire JSON: the run's execution, its workflow type and its events,
/// oldest first.
struct Recorded<'a> {
    execution: &'a Value,
    workflow_type: &'a Value,
    events: &'a [Value],
}

/// Replays `module` over `history` up to its first divergence, within `budget`: how many
/// decision tasks it replayed, and the divergence if there is one.
async fn replay_history(
    runtime: &Runtime,
    module: &Module,
    call: &Call,
    budget: &mut Budget,
    history: &Recorded<'_>,
    strict: bool,
) -> Result<(u32, Option<Divergence>), Fault> {
    let mut replayed = 0;
    for task in recorded_tasks(history.events) {
        replayed += 1;
        let handed_out = task.task(history.execution, history.workflow_type, history.events);
        if budget.left.is_zero() {
            return Err(budget.spent());
        }
        let (call, capped) = budget.limit(call);
        let began = Instant::now();
        let decided = runtime.decide(module, &call, &handed_out).await;
        budget.left = budget.left.saturating_sub(began.elapsed());
        budget.tasks += 1;
        if capped && matches!(decided, Err(GuestFailure::Cpu(_))) {
            return Err(budget.spent());
        }
        let divergence = match decided {
            Ok(answer) => {
                let decisions = answer["decisions"]
                    .as_array()
                    .map_or(&[][..], Vec::as_slice);
                compare(&task, decisions, strict)
            }
            Err(failure) => Some(Divergence {
                started_event_id: task.started_event_id,
                decision: 0,
                message: failure.reason(),
                replayed: None,
                recorded: task.recorded.first().cloned(),
            }),
        };
        if divergence.is_some() {
            return Ok((replayed, divergence));
        }
    }
    Ok((replayed, None))
}

/// The `last` newest runs of the domain that `input` picks, open or closed, newest first.
fn newest_runs(
    tx: &dyn Reads,
    domain: u64,
    input: &Replay,
    last: usize,
) -> Result<Vec<Run>, Fault> {
    let filter = match &input.workflow_type {
        Some(ty) => Filter::Type(&ty.name, &ty.version),
        None => Filter::All,
    };
    let picked = |run: &Run| {
        input.task_list.as_ref().is_none_or(|list| {
            run.config.task_list.name == *list || run.decision_task_list == *list
        })
    };
    // The newest `last` of all are among the newest `last` of each listing.
    let mut runs = Vec::new();
    for listing in [Listing::Open, Listing::ClosedByStart] {
        let mut cursor = Cursor {
            after: None,
            reverse: true,
            limit: RUN_PAGE,
        };
        let (mut taken, mut looked_at) = (0, 0);
        loop {
            let page = tx.listed_runs(domain, listing, &filter, EVER, cursor)?;
            let Some(end) = page.items.last() else {
                break;
            };
            cursor.after = Some((end.started_at.as_millis(), end.seq));
            looked_at += page.items.len();
            let more = page.more && looked_at < MAX_LOOKED_AT;
            for run in page.items.into_iter().filter(picked) {
                if taken < last {
                    taken += 1;
                    runs.push(run);
                }
            }
            if taken == last || !more {
                break;
            }
        }
    }
    runs.sort_by_key(|run| std::cmp::Reverse((run.started_at, run.seq)));
    runs.truncate(last);
    Ok(runs)
}
