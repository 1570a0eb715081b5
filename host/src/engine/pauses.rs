//! Pausing and resuming a run (`model::pauses`): its queued tasks taken off their lists and put
//! back in their places. Tasks queued while it is paused are held at once ([`Engine::queue`]),
//! and a task a claim finds of a paused run is left held (`claims`).

use crate::model::{Activity, DecisionTask, Lambda, Pause, Run, Slot, TaskKind};
use crate::store::{ItemReads, StoreError};

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
        eng.tx
            .push_task(run.domain, *kind, slot, (run.seq, *scheduled))?;
        eng.queued.push((*kind, slot.list.clone()));
    }
    eng.save(run)?;
    Ok(Some(held.len()))
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
