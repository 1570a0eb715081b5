//! Closing runs: whatever ends a run (a close decision, termination, later timeouts) goes through
//! [`close`], which discards its open tasks and timers, moves it to the closed listings, applies
//! the child policy where SWF does (spec §8.9) and tells its parent.

use crate::fault::Fault;
use crate::model::events::{Cause, Event, attrs};
use crate::model::{ChildPolicy, CloseStatus, Closed, DecisionTask, Run};
use crate::store::{Counter, Deadline, Listing, TaskKind};

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
) -> Result<(), Fault> {
    eng.record(run, closing.event)?;
    let now = eng.tx.now();
    run.closed = Some(Closed {
        at: now,
        status: closing.status,
    });
    if let DecisionTask::Scheduled { slot, .. } = &run.decision {
        eng.tx.remove_task(run.domain, TaskKind::Decision, slot)?;
    }
    run.decision = DecisionTask::Idle;
    run.decision_needed = false;
    for activity in std::mem::take(&mut run.activities).into_values() {
        if let Some(slot) = &activity.slot {
            eng.tx.remove_task(run.domain, TaskKind::Activity, slot)?;
        }
    }
    for timer in std::mem::take(&mut run.timers).into_values() {
        eng.tx.clear_deadline(
            timer.fires_at,
            run.seq,
            timer.started_event_id,
            Deadline::Timer,
        )?;
    }
    for child in std::mem::take(&mut run.children).into_values() {
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
    eng.tx.add_count_by_id(run.domain, Counter::OpenRuns, -1)?;
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

/// Terminates `run` (TerminateWorkflowExecution, or a parent's TERMINATE child policy) and saves it.
pub(crate) fn terminate(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    reason: Option<String>,
    details: Option<String>,
    child_policy: Option<ChildPolicy>,
    cause: Option<Cause>,
) -> Result<(), Fault> {
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
