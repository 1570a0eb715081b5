//! Pausing and resuming a run (`model::pauses`): its queued tasks taken off their lists and put
//! back in their places. Tasks queued while it is paused are held at once ([`Engine::queue`]),
//! and a task a claim finds of a paused run is left held (`claims`).

use crate::model::{
    Activity, DecisionTask, Lambda, Pause, Run, Slot, TaskKind, TaskState, queue_key,
};
use crate::store::{ItemReads, ItemWrites, StoreError};

use super::Engine;

/// Pauses the open `run` with `pause`; answers how many queued tasks it took off their lists,
/// or `None` if the run was paused already (it keeps its first pause).
pub(crate) fn pause_run(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    pause: Pause,
) -> Result<Option<usize>, StoreError> {
    if run.paused.is_some() {
        return Ok(None);
    }
    let held = queued_tasks(eng, run)?;
    for (kind, slot, _) in &held {
        eng.tx.remove_task(run.domain, *kind, slot)?;
    }
    run.paused = Some(pause);
    eng.save(run)?;
    Ok(Some(held.len()))
}

/// Resumes the open `run`; answers how many held tasks it put back on their lists, or `None`
/// if the run was not paused.
pub(crate) fn resume_run(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
) -> Result<Option<usize>, StoreError> {
    if run.paused.take().is_none() {
        return Ok(None);
    }
    let held = queued_tasks(eng, run)?;
    for (kind, slot, scheduled) in &held {
        let slot = match still_keyed(eng, *kind, slot)? {
            true => slot.clone(),
            false => unkeyed(eng, run, *kind, slot, *scheduled)?,
        };
        eng.push(*kind, &slot, (run.seq, *scheduled))?;
    }
    eng.save(run)?;
    Ok(Some(held.len()))
}

/// Whether a held task's place may go back where it was: a key's queue only while its list
/// still has fairness keys (read locked), so that no task lands in a keyed queue that claims
/// no longer look at.
fn still_keyed(eng: &Engine<'_, '_>, kind: TaskKind, slot: &Slot) -> Result<bool, StoreError> {
    let (list, key) = queue_key(&slot.list);
    if key.is_empty() {
        return Ok(true);
    }
    let control = eng.tx.list_control(&(eng.domain, kind, list.to_owned()))?;
    Ok(control.is_some_and(|c| c.fairness.is_some()))
}

/// Moves the held task `scheduled` of `kind` of `run` from its key's queue to its list's own,
/// in the same place; answers its new slot.
fn unkeyed(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    kind: TaskKind,
    slot: &Slot,
    scheduled: u64,
) -> Result<Slot, StoreError> {
    let moved = Slot {
        list: queue_key(&slot.list).0.to_owned(),
        ..slot.clone()
    };
    match kind {
        TaskKind::Decision => {
            if let DecisionTask::Scheduled { slot, .. } = &mut run.decision {
                *slot = moved.clone();
            }
        }
        TaskKind::Activity => {
            if let Some(mut activity) = eng.tx.open_item::<Activity>(run.seq, scheduled)? {
                activity.state = TaskState::Queued(moved.clone());
                eng.tx.update_item(run, scheduled, &activity)?;
            }
        }
        TaskKind::Function => {
            if let Some(mut lambda) = eng.tx.open_item::<Lambda>(run.seq, scheduled)? {
                lambda.state = TaskState::Queued(moved.clone());
                eng.tx.update_item(run, scheduled, &lambda)?;
            }
        }
    }
    Ok(moved)
}

/// The run's tasks waiting for a poller: each with its kind, its place and the event that
/// scheduled it.
fn queued_tasks(eng: &Engine<'_, '_>, run: &Run) -> Result<Vec<(TaskKind, Slot, u64)>, StoreError> {
    let mut queued = Vec::new();
    if let DecisionTask::Scheduled {
        scheduled, slot, ..
    } = &run.decision
    {
        queued.push((TaskKind::Decision, slot.clone(), *scheduled));
    }
    for key in eng.tx.open_keys::<Activity>(run.seq)? {
        let activity = eng.tx.open_item::<Activity>(run.seq, key)?;
        if let Some(slot) = activity.as_ref().and_then(|a| a.state.slot()) {
            queued.push((TaskKind::Activity, slot.clone(), key));
        }
    }
    for key in eng.tx.open_keys::<Lambda>(run.seq)? {
        let lambda = eng.tx.open_item::<Lambda>(run.seq, key)?;
        if let Some(slot) = lambda.as_ref().and_then(|l| l.state.slot()) {
            queued.push((TaskKind::Function, slot.clone(), key));
        }
    }
    Ok(queued)
}
