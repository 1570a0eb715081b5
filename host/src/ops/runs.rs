//! Weft's run listing (`GET /v1/domains/{domain}/runs`, `.../runs/count` and one run's
//! `.../workflows/{workflowId}/runs/{runId}`): a domain's runs,
//! open and closed together, newest start first, each open one marked when it is failing; and
//! the open runs a batch action picks.
//!
//! SWF lists open and closed runs apart. Both listings are ordered by (start time, seq), so one
//! page of each read from the same position, merged and cut to the page size, is a page of
//! both, and its last run is where the next page starts in each.

use std::collections::HashMap;

use crate::clock::Timestamp;
use crate::fault::{Fault, echo};
use crate::model::events::{Cause, Event, HistoryEvent};
use crate::model::{
    BindingKind, CloseStatus, Failing, ModuleRecord, PinnedDecider, Run, RunFilter, RunId, RunList,
    RunQuery, RunState, RunSummary, TypeRef, WorkflowId,
};
use crate::store::{Cursor, Filter, Listing, Reads, StoreError};

use super::executions::existing_run;
use super::modules::find_module;
use super::{Ctx, Service, known_domain};

/// Runs per page unless the query says.
const DEFAULT_LIMIT: u32 = 100;
/// The most runs a page holds.
const MAX_LIMIT: u32 = 1000;
/// How many of an open run's latest events are read for whether it is failing: enough to
/// reach its last decision and activity outcomes in all but the busiest histories.
const TAIL_EVENTS: usize = 64;

/// A [`RunFilter`] checked, as the store reads it.
#[derive(Clone)]
pub(super) struct Plan {
    listings: &'static [Listing],
    close_status: Option<CloseStatus>,
    pub(super) range: (Timestamp, Timestamp),
}

impl Plan {
    pub(super) fn new(filter: &RunFilter) -> Result<Plan, Fault> {
        let given = [
            filter.workflow_id.is_some(),
            filter.tag.is_some(),
            filter.type_name.is_some(),
            filter.close_status.is_some(),
            filter.module.is_some(),
        ];
        if given.iter().filter(|g| **g).count() > 1 {
            return Err(Fault::Validation(
                "Give at most one of workflowId, tag, type, closeStatus and module".into(),
            ));
        }
        if filter.version.is_some() && filter.type_name.is_none() {
            return Err(Fault::Validation(
                "version needs type: name the workflow type".into(),
            ));
        }
        let close_status = filter
            .close_status
            .as_deref()
            .map(|s| {
                serde_json::from_value(s.into()).map_err(|_| {
                    Fault::Validation(format!(
                        "Unknown closeStatus '{}'; it must be COMPLETED, FAILED, CANCELED, \
                         TERMINATED, CONTINUED_AS_NEW or TIMED_OUT",
                        echo(s)
                    ))
                })
            })
            .transpose()?;
        let started = (filter.started_after, filter.started_before);
        let closed = (filter.closed_after, filter.closed_before);
        let by_close = closed != (None, None);
        if by_close && started != (None, None) {
            return Err(Fault::Validation(
                "Give a start time range or a close time range, not both".into(),
            ));
        }
        let closed_only = close_status.is_some() || by_close;
        if filter.module.is_some() && (closed_only || filter.status == Some(RunState::Closed)) {
            return Err(Fault::Validation(
                "module picks the open runs pinned to a decider; it cannot go with status=closed, \
                 closeStatus, closedAfter or closedBefore"
                    .into(),
            ));
        }
        let status = match filter.module {
            Some(_) => Some(RunState::Open),
            None => filter.status,
        };
        let listings: &'static [Listing] = match (status, closed_only) {
            (Some(RunState::Open), true) => {
                return Err(Fault::Validation(
                    "closeStatus, closedAfter and closedBefore pick closed runs; they cannot go \
                     with status=open"
                        .into(),
                ));
            }
            _ if by_close => &[Listing::ClosedByClose],
            (Some(RunState::Open), false) => &[Listing::Open],
            (Some(RunState::Closed), _) | (None, true) => &[Listing::ClosedByStart],
            (None, false) => &[Listing::Open, Listing::ClosedByStart],
        };
        let (after, before) = if by_close { closed } else { started };
        let range = (
            after.unwrap_or(Timestamp::from_millis(0)),
            before.unwrap_or(Timestamp::from_millis(i64::MAX - 1)),
        );
        if range.1 < range.0 {
            return Err(Fault::Validation(
                "The time range ends before it starts".into(),
            ));
        }
        Ok(Plan {
            listings,
            close_status,
            range,
        })
    }

    /// Where `run` stands in the listings read: its (time, seq), the time being its close
    /// time in the listing by close time and its start time in the others.
    fn position(&self, run: &Run) -> (Timestamp, u64) {
        match (self.listings, run.closed) {
            ([Listing::ClosedByClose], Some(closed)) => (closed.at, run.seq),
            _ => (run.started_at, run.seq),
        }
    }

    /// The index filter besides time.
    pub(super) fn filter<'a>(&self, filter: &'a RunFilter) -> Filter<'a> {
        Filter::of(filter, self.close_status)
    }
}

/// A page of the runs `query` picks in `domain`.
pub(crate) async fn list_runs(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    query: RunQuery,
) -> Result<RunList, Fault> {
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(Fault::Validation(format!(
            "limit is {limit}; it must be from 1 to {MAX_LIMIT}"
        )));
    }
    let mut query = query;
    resolve_module(svc, ctx, &mut query.filter).await?;
    let plan = Plan::new(&query.filter)?;
    let fingerprint = ("runs", &domain, &query.filter, query.oldest_first);
    let after: Option<(i64, u64)> = svc.resume(query.next_page_token.as_deref(), &fingerprint)?;
    let cursor = Cursor {
        after,
        reverse: !query.oldest_first,
        limit: limit as usize,
    };
    let (scope, filter) = (ctx.scope.clone(), query.filter.clone());
    let name = domain.clone();
    let (runs, more) = svc
        .store
        .read(move |tx| {
            let domain = known_domain(tx, &scope, &name)?;
            let filter = plan.filter(&filter);
            let mut runs = Vec::new();
            let mut more = false;
            for &listing in plan.listings {
                let page = tx.listed_runs(domain.id, listing, &filter, plan.range, cursor)?;
                more |= page.more;
                runs.extend(page.items);
            }
            runs.sort_by_key(|r| plan.position(r));
            if cursor.reverse {
                runs.reverse();
            }
            more |= runs.len() > cursor.limit;
            runs.truncate(cursor.limit);
            let guest = decision_failures(tx, domain.id)?;
            let mut modules = Modules::default();
            let summaries = runs
                .iter()
                .map(|run| summary(tx, run, &guest, &mut modules))
                .collect::<Result<Vec<_>, StoreError>>()?;
            let last = runs.last().map(|r| {
                let (time, seq) = plan.position(r);
                (time.as_millis(), seq)
            });
            Ok::<_, Fault>((summaries, last.filter(|_| more)))
        })
        .await?;
    Ok(RunList {
        runs,
        next_page_token: more.map(|position| svc.next_token(&fingerprint, &position)),
    })
}

/// The run `run_id` of `workflow_id` in `domain`, as the listing shows it.
pub(crate) async fn run_summary(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    workflow_id: WorkflowId,
    run_id: RunId,
) -> Result<RunSummary, Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .read(move |tx| {
            let (domain, run) = existing_run(tx, &scope, &domain, &workflow_id, &run_id)?;
            let guest = decision_failures(tx, domain)?;
            Ok(summary(tx, &run, &guest, &mut Modules::default())?)
        })
        .await
}

/// `filter` with its `module`, if given as a prefix of a digest, as the digest of the one
/// module of the account it names: the index holds whole digests.
pub(super) async fn resolve_module(
    svc: &Service,
    ctx: &Ctx,
    filter: &mut RunFilter,
) -> Result<(), Fault> {
    let Some(given) = filter.module.clone() else {
        return Ok(());
    };
    let hex = given.chars().all(|c| c.is_ascii_hexdigit());
    if !hex || !(8..=64).contains(&given.len()) {
        return Err(Fault::Validation(format!(
            "Invalid module '{}': give a module's digest, or its first 8 or more hex digits",
            echo(&given)
        )));
    }
    let given = given.to_ascii_lowercase();
    // A whole digest needs no module: the runs of a deleted one are still listed.
    if given.len() < 64 {
        let account = ctx.scope.account.clone();
        let found = svc
            .store
            .read(move |tx| find_module(tx, &account, &given))
            .await?;
        filter.module = Some(found.digest);
    } else {
        filter.module = Some(given);
    }
    Ok(())
}

/// How many runs `filter` picks in `domain`, counted in the index.
pub(crate) async fn count_runs(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    filter: RunFilter,
) -> Result<u64, Fault> {
    let mut filter = filter;
    resolve_module(svc, ctx, &mut filter).await?;
    let plan = Plan::new(&filter)?;
    let scope = ctx.scope.clone();
    svc.store
        .read_long(move |tx| {
            let domain = known_domain(tx, &scope, &domain)?;
            let index = plan.filter(&filter);
            let mut count = 0;
            for &listing in plan.listings {
                count += tx.count_listed(domain.id, listing, &index, plan.range)?;
            }
            Ok(count)
        })
        .await
}

/// The (workflow id, run id) of every open run `filter` picks in `domain`, newest first: what
/// a batch action acts on. `status` may be absent or `open`; `closeStatus` is refused.
pub(crate) async fn open_runs(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    mut filter: RunFilter,
) -> Result<Vec<(String, String)>, Fault> {
    if filter.status == Some(RunState::Closed) || filter.close_status.is_some() {
        return Err(Fault::Validation(
            "A batch acts on open runs: its filter cannot pick closed ones".into(),
        ));
    }
    filter.status = Some(RunState::Open);
    resolve_module(svc, ctx, &mut filter).await?;
    let plan = Plan::new(&filter)?;
    let scope = ctx.scope.clone();
    svc.store
        .read_long(move |tx| {
            let domain = known_domain(tx, &scope, &domain)?;
            let index = plan.filter(&filter);
            let mut cursor = Cursor {
                after: None,
                reverse: true,
                limit: MAX_LIMIT as usize,
            };
            let mut runs = Vec::new();
            loop {
                let page = tx.listed_runs(domain.id, Listing::Open, &index, plan.range, cursor)?;
                cursor.after = page.items.last().map(|r| (r.started_at.as_millis(), r.seq));
                runs.extend(page.items.into_iter().map(|r| {
                    let e = r.execution;
                    (e.workflow_id.to_string(), e.run_id.to_string())
                }));
                if !page.more {
                    return Ok(runs);
                }
            }
        })
        .await
}

/// The latest failure of an in-process decider on each run of the domain, by (workflow id,
/// run id): its time, reason and the `DecisionTaskStarted` id of the task it failed.
type DecisionFailures = HashMap<(String, String), (Timestamp, String, u64)>;

fn decision_failures(tx: &dyn Reads, domain: u64) -> Result<DecisionFailures, StoreError> {
    let mut latest = DecisionFailures::new();
    for (_, binding) in tx.bindings(Some(domain))? {
        if binding.kind != BindingKind::Decision {
            continue;
        }
        for f in tx.guest_failures(domain, binding.kind, &binding.name)? {
            let Some(started) = f.task.strip_prefix("decision task ") else {
                continue;
            };
            let started = started.parse().unwrap_or(0);
            let entry = (f.at, f.reason, started);
            latest
                .entry((f.workflow_id, f.run_id))
                .and_modify(|e| {
                    if entry.0 >= e.0 {
                        *e = entry.clone();
                    }
                })
                .or_insert(entry);
        }
    }
    Ok(latest)
}

/// The modules a listing has read, by digest: many runs are pinned to few modules.
type Modules = HashMap<String, Option<ModuleRecord>>;

/// The pin of `run` with its module's name and version label (read once per listing).
fn decider(
    tx: &dyn Reads,
    run: &Run,
    modules: &mut Modules,
) -> Result<Option<PinnedDecider>, StoreError> {
    let Some(pin) = &run.pin else {
        return Ok(None);
    };
    let record = match modules.get(&pin.module) {
        Some(record) => record.clone(),
        None => {
            let record = tx.module(&run.account, &pin.module)?;
            modules.insert(pin.module.clone(), record.clone());
            record
        }
    };
    let (name, version) = record.map_or((None, None), |m| (m.name, m.version));
    Ok(Some(PinnedDecider {
        pin: pin.clone(),
        name,
        version,
    }))
}

fn summary(
    tx: &dyn Reads,
    run: &Run,
    guest: &DecisionFailures,
    modules: &mut Modules,
) -> Result<RunSummary, StoreError> {
    let failing = match run.closed {
        Some(_) => None,
        None => failing(tx, run, guest)?,
    };
    Ok(RunSummary {
        workflow_id: run.execution.workflow_id.to_string(),
        run_id: run.execution.run_id.to_string(),
        workflow_type: TypeRef {
            name: run.workflow_type.name.clone(),
            version: run.workflow_type.version.clone(),
        },
        status: run
            .closed
            .map_or_else(|| "OPEN".to_owned(), |c| c.status.name().to_owned()),
        started_at: run.started_at,
        closed_at: run.closed.map(|c| c.at),
        tags: run.tags.clone(),
        cancel_requested: run.cancel_requested,
        failing,
        imported: run.imported,
        decider: decider(tx, run, modules)?,
        paused: run.paused.clone(),
    })
}

/// Why the open `run` is failing, if it is: its in-process decider failed on a decision task
/// no later one completed, or the latest outcome of its decision tasks or of its activity
/// tasks (or Lambda functions) in the history is a failure. An activity task that timed out
/// waiting to start is not the run failing but its list lacking a worker, so it does not count.
fn failing(
    tx: &dyn Reads,
    run: &Run,
    guest: &DecisionFailures,
) -> Result<Option<Failing>, StoreError> {
    let key = (
        run.execution.workflow_id.to_string(),
        run.execution.run_id.to_string(),
    );
    if let Some((at, reason, started)) = guest.get(&key)
        && *started > run.previous_started_event_id
    {
        return Ok(Some(Failing {
            at: *at,
            reason: reason.clone(),
        }));
    }
    let tail = tx.history(
        run.seq,
        1,
        run.next_event_id.saturating_sub(1),
        Cursor {
            after: None,
            reverse: true,
            limit: TAIL_EVENTS,
        },
    )?;
    let (mut decision, mut activity) = (None, None);
    for (_, json) in &tail.items {
        let Ok(event) = serde_json::from_slice::<HistoryEvent>(json) else {
            continue;
        };
        let at = event.timestamp;
        match &event.event {
            Event::DecisionTaskCompleted(_) => decision = decision.or(Some(None)),
            Event::DecisionTaskTimedOut(a) => {
                let why = format!("a decision task timed out ({})", cause_name(a.timeout_type));
                decision = decision.or(Some(Some((at, why))));
            }
            Event::ActivityTaskCompleted(_) | Event::LambdaFunctionCompleted(_) => {
                activity = activity.or(Some(None));
            }
            Event::ActivityTaskFailed(a) => {
                let name = activity_named(tx, run.seq, a.scheduled_event_id)?;
                let reason = a.reason.as_deref().unwrap_or("no reason given");
                activity = activity.or(Some(Some((at, format!("{name} failed: {reason}")))));
            }
            Event::ActivityTaskTimedOut(a) if a.timeout_type != Cause::ScheduleToStart => {
                let name = activity_named(tx, run.seq, a.scheduled_event_id)?;
                let why = format!("{name} timed out ({})", cause_name(a.timeout_type));
                activity = activity.or(Some(Some((at, why))));
            }
            Event::LambdaFunctionFailed(a) => {
                let reason = a.reason.as_deref().unwrap_or("no reason given");
                activity = activity.or(Some(Some((at, format!("a function failed: {reason}")))));
            }
            Event::LambdaFunctionTimedOut(_) => {
                activity = activity.or(Some(Some((at, "a function timed out".to_owned()))));
            }
            _ => {}
        }
        if decision.is_some() && activity.is_some() {
            break;
        }
    }
    let newest = [decision.flatten(), activity.flatten()]
        .into_iter()
        .flatten()
        .max_by_key(|(at, _)| *at);
    Ok(newest.map(|(at, reason)| Failing { at, reason }))
}

/// `Cause`'s wire name, such as `START_TO_CLOSE`.
fn cause_name(cause: Cause) -> String {
    serde_json::to_value(cause)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// "activity `<id>` (`<type>:<version>`)" for the activity task scheduled by event
/// `scheduled`, or "an activity task" if that event cannot be read.
fn activity_named(tx: &dyn Reads, seq: u64, scheduled: u64) -> Result<String, StoreError> {
    let event = tx
        .event(seq, scheduled)?
        .and_then(|json| serde_json::from_slice::<HistoryEvent>(&json).ok());
    Ok(match event.map(|e| e.event) {
        Some(Event::ActivityTaskScheduled(a)) => format!(
            "activity {} ({}:{})",
            a.activity_id, a.activity_type.name, a.activity_type.version
        ),
        _ => "an activity task".to_owned(),
    })
}
