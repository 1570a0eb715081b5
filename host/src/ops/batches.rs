//! Batch jobs (`/v1/domains/{domain}/batches`; see `model::batches` for what a job does and
//! `engine::batches` for its steps): made, listed, described and canceled.

use crate::engine::{KEPT_JOBS, begin_batch};
use crate::fault::{Fault, echo};
use crate::model::{BatchAction, BatchJob, BatchJobRequest, BatchJobState, BatchRecord, RunState};
use crate::store::{Listing, Reads};

use super::pauses::{caller, check_reason};
use super::runs::{Plan, resolve_module};
use super::{Ctx, Service, known_domain};

/// Makes a batch job acting on the open runs `request` picks in `domain`; its first step comes
/// at once. The action's members were checked by the caller as the SWF call's would be.
pub(crate) async fn create(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    request: BatchJobRequest,
) -> Result<BatchJob, Fault> {
    let rate = job_rate(svc, ctx, request.rate)?;
    if let BatchAction::Pause { reason } | BatchAction::Reset { reason, .. } = &request.batch.action
    {
        check_reason(reason.as_deref())?;
    }
    let mut filter = request.batch.filter;
    if filter.status == Some(RunState::Closed) || filter.close_status.is_some() {
        return Err(Fault::Validation(
            "A batch acts on open runs: its filter cannot pick closed ones".into(),
        ));
    }
    filter.status = Some(RunState::Open);
    resolve_module(svc, ctx, &mut filter).await?;
    let plan = Plan::new(&filter)?;
    let by = caller(ctx, request.identity);
    let (scope, action) = (ctx.scope.clone(), request.batch.action);
    let setup = svc.engine.clone();
    svc.store
        .write(
            move |tx| known_domain(tx, &scope, &domain).map(|d| (d, scope)),
            move |tx, (domain, scope)| {
                let (seq, now) = (tx.next_id()?, tx.now());
                let index = plan.filter(&filter);
                let range = (plan.range.0, plan.range.1.min(now));
                let matched = tx.count_listed(domain.id, Listing::Open, &index, range)?;
                let job = BatchJob {
                    id: seq.to_string(),
                    action,
                    filter,
                    rate,
                    state: BatchJobState::Running,
                    by,
                    created_at: now,
                    finished_at: None,
                    matched,
                    done: 0,
                    failed: 0,
                    failures: Vec::new(),
                };
                let record = BatchRecord {
                    seq,
                    domain: domain.id,
                    account: scope.account,
                    region: scope.region,
                    domain_name: domain.name,
                    job,
                    cursor: None,
                };
                begin_batch(tx, &setup, &record)?;
                Ok(record.job)
            },
        )
        .await
}

/// The rate a job asking for `asked` runs per second gets: at most the server's setting and,
/// with tenants, the tenant's request rate (each run counts as the request it stands for).
fn job_rate(svc: &Service, ctx: &Ctx, asked: Option<u32>) -> Result<u32, Fault> {
    let most = svc.limits.max_batch_rate.max(1);
    let rate = asked.unwrap_or(most);
    if !(1..=most).contains(&rate) {
        return Err(Fault::Validation(format!(
            "rate is the runs a batch job acts on per second: 1 to {most} on this server"
        )));
    }
    // A tenant's rate below one request a second still lets its job take one run a step.
    let tenant = ctx.tenant.quotas.requests_per_second;
    Ok(tenant.map_or(rate, |t| rate.min((t.floor() as u32).max(1))))
}

/// The domain's newest batch jobs, newest first (at most [`KEPT_JOBS`]: as many as it keeps
/// finished ones).
pub(crate) async fn list(svc: &Service, ctx: &Ctx, domain: String) -> Result<Vec<BatchJob>, Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .read(move |tx| {
            let domain = known_domain(tx, &scope, &domain)?;
            let jobs = tx.batches(domain.id, KEPT_JOBS)?;
            Ok(jobs.into_iter().map(|r| r.job).collect())
        })
        .await
}

/// The domain's batch job `id`.
pub(crate) async fn describe(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    id: String,
) -> Result<BatchJob, Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .read(move |tx| {
            let domain = known_domain(tx, &scope, &domain)?;
            Ok(job_of(tx, domain.id, &domain.name, &id)?.job)
        })
        .await
}

/// Cancels the domain's batch job `id`: the runs it has not acted on yet are left as they
/// are. A job done or canceled already is answered as it is.
pub(crate) async fn cancel(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    id: String,
) -> Result<BatchJob, Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .write(
            move |tx| {
                let domain = known_domain(tx, &scope, &domain)?;
                job_of(tx, domain.id, &domain.name, &id)
            },
            |tx, mut record| {
                if record.job.state == BatchJobState::Running {
                    record.job.state = BatchJobState::Canceled;
                    record.job.finished_at = Some(tx.now());
                    tx.put_batch(&record)?;
                }
                Ok(record.job)
            },
        )
        .await
}

/// The job `id` of domain `domain` (named `name`), or `UnknownResourceFault`.
fn job_of(tx: &dyn Reads, domain: u64, name: &str, id: &str) -> Result<BatchRecord, Fault> {
    let unknown =
        || Fault::UnknownResource(format!("Unknown batch job: {} in domain {name}", echo(id)));
    let seq: u64 = id.parse().map_err(|_| unknown())?;
    let record = tx.batch(seq)?.filter(|r| r.domain == domain);
    record.ok_or_else(unknown)
}
