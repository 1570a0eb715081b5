//! Closing runs: whatever ends a run (a close decision, termination, its timeout, the event limit)
//! goes through [`close`], which discards its open tasks, timers and timeouts, moves it to the
//! closed listings, applies the child policy where SWF does (spec §8.9), tells its parent, and
//! arms the end of its retention (§8.15).

use crate::clock::Timestamp;
use crate::model::events::{Cause, Event, attrs};
use crate::model::{Child, ChildPolicy, CloseStatus, Closed, Run};
use crate::store::{Counter, Deadline, ItemReads, ItemWrites, Listing, StoreError};

use super::Engine;
use super::effects::{ChildOutcome, Effect};

/// How a run closes.
pub(crate) struct Closing {
    pub(crate) status: CloseStatus,
    /// The run's last event.
    pub(crate) event: Event,
    /// What the parent records, if the parent is told.
    pub(crate) outcome: Option<ChildOutcome>,
    /// The policy to apply to open children: on termination and timeout only.
    pub(crate) child_policy: Option<ChildPolicy>,
}

/// Closes `run` (which the caller then saves).
pub(crate) fn close(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    closing: Closing,
) -> Result<(), StoreError> {
    let closed_by = eng.record(run, closing.event)?;
    // The close event's time, which may be later than the clock's.
    let now = run.last_event_at.unwrap_or_else(|| eng.tx.now());
    run.closed = Some(Closed {
        at: now,
        status: closing.status,
        open_counts: Some(run.open_counts()),
    });
    // Its held tasks go with its open items; a closed run is not paused.
    run.paused = None;
    eng.disarm_all(run)?;
    eng.set_deadline(
        kept_until(eng, run, now),
        run.seq,
        closed_by,
        Deadline::Purge,
    )?;
    for initiated in eng.tx.open_keys::<Child>(run.seq)? {
        let Some(child) = eng.tx.take_item::<Child>(run, initiated)? else {
            continue;
        };
        let policy = closing.child_policy.filter(|p| *p != ChildPolicy::Abandon);
        if let (Some(policy), Some((execution, _))) = (policy, child.started) {
            eng.effect(Effect::ChildPolicy {
                parent: run.seq,
                child: execution.workflow_id,
                policy,
            });
        }
    }
    eng.tx.unname_open_run(run)?;
    eng.tx.unlist_run(run, Listing::Open, run.started_at)?;
    eng.tx
        .list_run(run, Listing::ClosedByStart, run.started_at)?;
    eng.tx.list_run(run, Listing::ClosedByClose, now)?;
    eng.tx.add_count(run.domain, Counter::OpenRuns, -1)?;
    if let Some(schedule) = run.schedule {
        // Its schedule may hold a nominal time waiting for this close.
        eng.set_deadline(now, schedule, 0, Deadline::Schedule)?;
    }
    if let (Some(parent), Some(outcome)) = (&run.parent, closing.outcome) {
        eng.effect(Effect::ChildClosed {
            parent: parent.seq,
            initiated: parent.initiated_event_id,
            child: run.execution.clone(),
            child_type: run.workflow_type.clone(),
            outcome,
        });
    }
    Ok(())
}

/// When `run`, closed at `closed_at`, is purged: its retention period later (spec §8.15).
pub(super) fn kept_until(eng: &Engine<'_, '_>, run: &Run, closed_at: Timestamp) -> Timestamp {
    match eng.setup.retention_override {
        Some(kept) => closed_at.plus_millis(u64::try_from(kept.as_millis()).unwrap_or(u64::MAX)),
        None => closed_at.plus_secs(u64::from(run.retention_days) * 24 * 60 * 60),
    }
}

/// Terminates `run` (TerminateWorkflowExecution, or a parent's TERMINATE child policy) and saves it.
pub(crate) fn terminate(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    reason: Option<String>,
    details: Option<String>,
    child_policy: Option<ChildPolicy>,
    cause: Option<Cause>,
) -> Result<(), StoreError> {
    let child_policy = child_policy.unwrap_or(run.config.child_policy);
    let event = attrs::WorkflowExecutionTerminated {
        reason,
        details,
        child_policy,
        cause,
    };
    close(
        eng,
        run,
        Closing {
            status: CloseStatus::Terminated,
            event: event.into(),
            outcome: Some(ChildOutcome::Terminated),
            child_policy: Some(child_policy),
        },
    )?;
    eng.save(run)
}
