//! What happens when a durable deadline comes: a timer fires (spec §6.8), a timeout expires
//! (§8.5, in `timeouts.rs`), a closed run's retention ends (§8.15), a schedule's time comes
//! (`schedules.rs`) or a batch job's next step (`batches.rs`).

use crate::model::events::attrs;
use crate::model::{Run, Timer};
use crate::store::{Deadline, Due, ItemWrites, StoreError, Writes};

use super::batches::fire_batch;
use super::schedules::fire_schedule;
use super::timeouts::{activity_timed_out, decision_timed_out, lambda_timed_out, run_timed_out};
use super::{Engine, Setup};

/// Acts on up to `limit` deadlines that have come, earliest first; answers how many.
pub(crate) fn fire_due(
    tx: &mut dyn Writes,
    setup: &Setup,
    limit: usize,
) -> Result<usize, StoreError> {
    let due = tx.take_due(limit)?;
    #[cfg(test)]
    if setup.broken == super::Broken::DeadlineTakenTwice {
        for due in &due {
            tx.set_deadline(due.at, due.run, due.event_id, due.kind)?;
        }
    }
    for &due in &due {
        match due.kind {
            Deadline::Schedule => {
                fire_schedule(tx, setup, due.run, due.at)?;
                continue;
            }
            Deadline::Batch => {
                fire_batch(tx, setup, due.run)?;
                continue;
            }
            _ => {}
        }
        let Some(domain) = tx.run(due.run)?.map(|run| run.domain) else {
            continue;
        };
        let mut eng = Engine::new(tx, domain, setup);
        fire(&mut eng, due)?;
        eng.finish()?;
    }
    Ok(due.len())
}

/// Acts on a deadline that has come. A deadline whose subject is gone (its run closed, its task
/// answered, its timer canceled) does nothing.
fn fire(eng: &mut Engine<'_, '_>, due: Due) -> Result<(), StoreError> {
    if due.kind == Deadline::Purge {
        return purge(eng, due);
    }
    let Some(mut run) = eng.open_run(due.run)? else {
        return Ok(());
    };
    let (event_id, at) = (due.event_id, due.at);
    let changed = match due.kind {
        Deadline::Timer => timer_fired(eng, &mut run, event_id)?,
        Deadline::ActivityScheduleToClose
        | Deadline::ActivityStartToClose
        | Deadline::ActivityHeartbeat
        | Deadline::ActivityScheduleToStart => {
            activity_timed_out(eng, &mut run, event_id, due.kind, at)?
        }
        Deadline::DecisionStartToClose | Deadline::DecisionScheduleToStart => {
            decision_timed_out(eng, &mut run, event_id, due.kind, at)?
        }
        Deadline::LambdaStartToClose => lambda_timed_out(eng, &mut run, event_id, at)?,
        Deadline::RunStartToClose => run_timed_out(eng, &mut run, at)?,
        Deadline::Purge | Deadline::Schedule | Deadline::Batch => false,
    };
    if changed {
        eng.save(&mut run)?;
    }
    Ok(())
}

/// The timer started by event `started` fires, if it is still open.
fn timer_fired(eng: &mut Engine<'_, '_>, run: &mut Run, started: u64) -> Result<bool, StoreError> {
    let Some(timer) = eng.tx.take_item::<Timer>(run, started)? else {
        return Ok(false);
    };
    let event = attrs::TimerFired {
        timer_id: timer.timer_id,
        started_event_id: started,
    };
    eng.record(run, event)?;
    eng.trigger(run)?;
    Ok(true)
}

/// A closed run's retention is over: it goes, with its history and its index entries.
fn purge(eng: &mut Engine<'_, '_>, due: Due) -> Result<(), StoreError> {
    let Some(run) = eng.tx.run(due.run)? else {
        return Ok(());
    };
    if run.is_open() {
        // Runs never reopen; failing here would stall every deadline behind this one.
        tracing::error!(run = run.seq, "a retention deadline for an open run");
        return Ok(());
    }
    if let Some(gate) = &eng.setup.purge_gate
        && let Err(at) = gate.may_purge(run.seq, eng.tx.now())
    {
        // The timer loop writes it out, outside this job; the purge comes back then.
        return eng.set_deadline(at, run.seq, due.event_id, Deadline::Purge);
    }
    eng.tx.purge_run(&run)
}
