//! What the two polls and the task-token calls share: the long poll, and finding the task a token
//! names (spec §8.3, §8.4).

use std::sync::{Arc, Mutex};

use tokio::sync::{oneshot, watch};

use crate::clock::Wait;
use crate::engine::dispatch::{Departure, Ticket, Waiter};
use crate::engine::{Claimed, Engine, HistoryAsk, TaskRef, claim_for};
use crate::fault::{Fault, Violations};
use crate::model::{Domain, Scope, TaskKind};
use crate::store::{About, Reads};

use super::{Ctx, Service, known_domain};

/// Waits up to the poll timeout (on the service's clock) for a task on the list; `None` if none
/// came. A list name that no task could have (StartWorkflowExecution and the decisions refuse
/// it) is refused at once, not waited on.
pub(super) async fn long_poll(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    kind: TaskKind,
    list: String,
    identity: Option<String>,
    history: Option<HistoryAsk>,
) -> Result<Option<Claimed>, Fault> {
    let mut v = Violations::default();
    v.name("taskList.name", &list);
    v.finish()?;
    // The poll times out counted from its arrival, on the service's clock.
    let timeout_ms = u64::try_from(svc.poll_timeout.as_millis()).unwrap_or(u64::MAX);
    let deadline = svc.clock.now().plus_millis(timeout_ms);
    // Declared before the answer's receiver, so dropped after it: the poll has ended by then.
    let departure = Departure::new(svc.engine.wakers.dispatch.clone());
    let noted = departure.key();
    let (reply, mut answer) = oneshot::channel();
    let ticket = Ticket::default();
    // Registered at most once, though a shared database may run the job again: an attempt that
    // did not commit may have registered it already, and then it simply goes on waiting.
    let waiter = Waiter::new(identity.clone(), reply, ticket.clone()).with_history(history);
    let waiter = Arc::new(Mutex::new(Some(waiter)));
    let scope = ctx.scope.clone();
    let setup = svc.engine.clone();
    let max_pollers = svc.limits.max_pollers_per_list;
    // Claim a queued task, or wait for one in the same writer job: nothing can slip in between.
    // A backend may take a list's first tasks ahead of the claim: not of a list paused (in
    // some domain), where the claim would give them back each time.
    let about = (!svc.engine.controls.is_paused_anywhere(kind, &list)).then(|| About::Poll {
        scope: scope.clone(),
        domain: domain.clone(),
        kind,
        list: list.clone(),
    });
    let claimed = svc
        .store
        .write_if_waited(
            about,
            move |tx| known_domain(tx, &scope, &domain),
            move |tx, domain| {
                let waiter = waiter.lock().unwrap_or_else(|e| e.into_inner()).take();
                let Some(waiter) = waiter else {
                    return Ok(Ok(None));
                };
                let mut eng = Engine::new(tx, domain.id, &setup);
                let claimed = claim_for(&mut eng, kind, &list, identity, history)?;
                eng.finish()?;
                if claimed.is_some() {
                    return Ok(Ok(claimed));
                }
                let key = (domain.id, kind, list);
                let _ = noted.set(key.clone());
                let waiting = setup.wakers.dispatch.wait(key, waiter, max_pollers);
                Ok(if waiting { Ok(None) } else { Err(()) })
            },
        )
        .await?
        .map_err(|()| Fault::pollers_limit(max_pollers))?;
    if claimed.is_some() {
        return Ok(held(svc, claimed));
    }
    let mut shutdown = svc.shutdown.clone();
    let mut stop = ctx.stop.clone();
    let waiting = svc.idle.waiting();
    tokio::select! {
        claimed = &mut answer => return Ok(held(svc, claimed.ok())),
        () = svc.clock.sleep_until(deadline, Wait::LongPoll) => {}
        _ = shutdown.wait_for(|stopping| *stopping) => {}
        () = stopped(&mut stop) => {}
    }
    drop(waiting);
    // The wait is over, unless the writer is claiming a task for this poll right now: then the
    // task arrives with that commit (or the reservation is returned within the writer's job).
    loop {
        if ticket.abandon() {
            return Ok(None);
        }
        if let Ok(claimed) = tokio::time::timeout(RESERVATION_CHECK, &mut answer).await {
            return Ok(held(svc, claimed.ok()));
        }
    }
}

/// Resolves once the caller's `stop` turns true; never for a caller without one, or whose
/// stop can no longer be given.
async fn stopped(stop: &mut Option<watch::Receiver<bool>>) {
    if let Some(stop) = stop
        && stop.wait_for(|stopping| *stopping).await.is_ok()
    {
        return;
    }
    std::future::pending().await
}

/// `claimed`, noted as handed out (for time-skipping, which waits for its holder).
fn held(svc: &Service, claimed: Option<Claimed>) -> Option<Claimed> {
    if let Some(task) = claimed.as_ref().and_then(Claimed::held_outside) {
        svc.idle.heard(task);
    }
    claimed
}

/// How often a poll whose wait is over checks whether its reservation was returned.
const RESERVATION_CHECK: std::time::Duration = std::time::Duration::from_millis(5);

/// The task a token of `kind` names: `ValidationException` for a token this service did not
/// issue, and the task's `UnknownResourceFault` for one of another kind of task.
pub(super) fn open_token(svc: &Service, token: &str, kind: TaskKind) -> Result<TaskRef, Fault> {
    let task = TaskRef::open(&svc.sealer, token).ok_or_else(Fault::invalid_token)?;
    if task.kind != kind {
        return Err(Fault::unknown_task(kind, task.scheduled));
    }
    Ok(task)
}

/// The domain of the task's run, which must be in the caller's scope: a token of a run that is
/// gone, or of another scope's, names an unknown execution.
pub(super) fn task_domain(tx: &dyn Reads, scope: &Scope, task: TaskRef) -> Result<Domain, Fault> {
    let run = tx.run(task.run)?.ok_or_else(Fault::execution_gone)?;
    known_domain(tx, scope, &run.domain_name)
        .ok()
        .filter(|d| d.id == run.domain)
        .ok_or_else(Fault::execution_gone)
}
