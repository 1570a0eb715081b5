//! The activity worker's answers: an activity task completed, failed or canceled, and its
//! heartbeats (spec §4.5, §8.8).

use crate::model::events::{Event, attrs};
use crate::model::{Activity, Run};
use crate::store::{Deadline, ItemReads, ItemWrites, StoreError};

use super::Engine;
use super::claims::TaskRef;

/// How a worker ended an activity task.
#[derive(Clone, Debug)]
pub(crate) enum ActivityOutcome {
    Completed {
        result: Option<String>,
    },
    Failed {
        reason: Option<String>,
        details: Option<String>,
    },
    Canceled {
        details: Option<String>,
    },
}

/// Closes the started activity task `task` of `run` with the worker's outcome and saves the run.
pub(crate) fn close_activity(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    task: TaskRef,
    outcome: ActivityOutcome,
) -> Result<(), StoreError> {
    let Some(activity) = eng.drop_activity(run, task.scheduled)? else {
        return Err(StoreError::broken("closing an activity that is not open"));
    };
    let (scheduled_event_id, started_event_id) = (task.scheduled, task.started);
    let event: Event = match outcome {
        ActivityOutcome::Completed { result } => attrs::ActivityTaskCompleted {
            result,
            scheduled_event_id,
            started_event_id,
        }
        .into(),
        ActivityOutcome::Failed { reason, details } => attrs::ActivityTaskFailed {
            reason,
            details,
            scheduled_event_id,
            started_event_id,
        }
        .into(),
        ActivityOutcome::Canceled { details } => attrs::ActivityTaskCanceled {
            details,
            scheduled_event_id,
            started_event_id,
            latest_cancel_requested_event_id: activity.cancel_requested_event_id,
        }
        .into(),
    };
    eng.record(run, event)?;
    eng.trigger(run)?;
    eng.save(run)
}

/// Records a heartbeat of the started activity task `task` of `run`: keeps its details and
/// restarts its heartbeat timeout. Only the task changes, not the run's record. Answers whether
/// its cancellation was requested.
pub(crate) fn record_heartbeat(
    eng: &mut Engine<'_, '_>,
    run: &Run,
    task: TaskRef,
    details: Option<String>,
) -> Result<bool, StoreError> {
    let seq = run.seq;
    let Some(mut activity) = eng.tx.open_item::<Activity>(seq, task.scheduled)? else {
        return Err(StoreError::broken(
            "a heartbeat for an activity that is not open",
        ));
    };
    let cancel_requested = activity.cancel_requested_event_id.is_some();
    let armed = activity.due.heartbeat;
    if details.is_none() {
        // Only the time matters, and only to an armed timeout: noted in memory, not committed
        // (see `heartbeats`), where the store is this process's alone.
        let now = eng.tx.now();
        if armed.is_none() || eng.setup.heartbeats.note(seq, task.scheduled, now) {
            return Ok(cancel_requested);
        }
    }
    if details.is_some() {
        activity.heartbeat_details = details;
    }
    let kind = Deadline::ActivityHeartbeat;
    eng.disarm(seq, task.scheduled, kind, armed)?;
    activity.due.heartbeat = eng.arm(seq, task.scheduled, kind, activity.heartbeat)?;
    eng.setup.heartbeats.forget(seq, task.scheduled);
    eng.tx.update_item(run, task.scheduled, &activity)?;
    Ok(cancel_requested)
}
