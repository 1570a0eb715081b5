//! Batch jobs act (`model::batches`): each step, when its deadline comes, acts on up to the
//! job's rate of the runs it picks, in the transaction that moves its cursor past them, so a
//! run is acted on once however many nodes share the store and however often they restart.

use crate::clock::Timestamp;
use crate::model::events::Cause;
use crate::model::{BatchAction, BatchJobState, BatchRecord, Pause, Run};
use crate::store::{Cursor, Deadline, Filter, Listing, StoreError, Writes};

use super::{
    Engine, Setup, pause_run, request_cancel, reset_unchecked, resume_run, signal, terminate,
};

/// How far apart a job's steps are, in seconds: its rate is runs per step.
pub(crate) const STEP_SECS: u64 = 1;

/// The finished jobs a domain keeps, newest first: as many as a listing shows.
pub(crate) const KEPT_JOBS: usize = 100;

/// Stores the new batch job `record` and arms its first step, now; the domain's finished jobs
/// past the newest [`KEPT_JOBS`] go.
pub(crate) fn begin_batch(
    tx: &mut dyn Writes,
    setup: &Setup,
    record: &BatchRecord,
) -> Result<(), StoreError> {
    // A few at a time: each new job adds one.
    let older = tx.batches(record.domain, KEPT_JOBS + 8)?;
    for old in older.iter().skip(KEPT_JOBS - 1) {
        if old.job.state != BatchJobState::Running {
            tx.delete_batch(old)?;
        }
    }
    tx.put_batch(record)?;
    let now = tx.now();
    let mut eng = Engine::new(tx, record.domain, setup);
    eng.set_deadline(now, record.seq, 0, Deadline::Batch)?;
    eng.finish()
}

/// Takes the next step of batch job `seq`, whose deadline came.
pub(crate) fn fire_batch(tx: &mut dyn Writes, setup: &Setup, seq: u64) -> Result<(), StoreError> {
    let Some(mut batch) = tx.batch(seq)? else {
        return Ok(());
    };
    if batch.job.state != BatchJobState::Running {
        return Ok(());
    }
    let mut eng = Engine::new(tx, batch.domain, setup);
    let now = eng.tx.now();
    let before = (batch.job.done, batch.job.failed);
    let more = step(&mut eng, &mut batch)?;
    let metrics = setup.metrics.clone();
    let labels = metrics.domain_labels(&batch.account, &batch.domain_name);
    let (action, done, failed) = (
        batch.job.action.name(),
        batch.job.done - before.0,
        batch.job.failed - before.1,
    );
    eng.tx.after_commit(Box::new(move || {
        metrics.own.batch_step(&labels, action, done, failed);
    }));
    match more {
        true => eng.set_deadline(now.plus_secs(STEP_SECS), seq, 0, Deadline::Batch)?,
        false => {
            batch.job.state = BatchJobState::Done;
            batch.job.finished_at = Some(now);
        }
    }
    eng.tx.put_batch(&batch)?;
    eng.finish()
}

/// Acts on up to the job's rate of the runs it picks, past its cursor, oldest first; answers
/// whether more may be left.
fn step(eng: &mut Engine<'_, '_>, batch: &mut BatchRecord) -> Result<bool, StoreError> {
    let job = &batch.job;
    let filter = Filter::of(&job.filter, None);
    // Runs started after the job was made are not its.
    let until = job
        .filter
        .started_before
        .map_or(job.created_at, |b| b.min(job.created_at));
    let range = (
        job.filter
            .started_after
            .unwrap_or(Timestamp::from_millis(0)),
        until,
    );
    let cursor = Cursor {
        after: batch.cursor,
        reverse: false,
        limit: job.rate as usize,
    };
    let page = eng
        .tx
        .listed_runs(batch.domain, Listing::Open, &filter, range, cursor)?;
    let action = job.action.clone();
    for listed in page.items {
        batch.cursor = Some((listed.started_at.as_millis(), listed.seq));
        let (workflow_id, run_id) = (
            listed.execution.workflow_id.to_string(),
            listed.execution.run_id.to_string(),
        );
        // Read again, locked (a listing locks nothing): another node may have changed it, or
        // closed it, since.
        let why = match eng.open_run(listed.seq)? {
            Some(mut run) => act(eng, &mut run, &action, &batch.job.by)?,
            None => Some("The run closed meanwhile".into()),
        };
        match why {
            None => batch.job.done += 1,
            Some(why) => batch.failed(workflow_id, run_id, why),
        }
    }
    Ok(page.more)
}

/// Applies `action` to the open `run`; answers why it could not, if it could not.
fn act(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    action: &BatchAction,
    by: &str,
) -> Result<Option<String>, StoreError> {
    match action.clone() {
        BatchAction::Terminate { reason, details } => {
            let cause = Some(Cause::OperatorInitiated);
            terminate(eng, run, reason, details, None, cause)?;
        }
        BatchAction::RequestCancel => request_cancel(eng, run, None, None)?,
        BatchAction::Signal { signal_name, input } => {
            signal(eng, run, signal_name, input, None)?;
        }
        BatchAction::Pause { reason } => {
            let at = eng.tx.now();
            let by = by.to_owned();
            if pause_run(eng, run, Pause { at, by, reason })?.is_none() {
                return Ok(Some("The run is paused already".into()));
            }
        }
        BatchAction::Resume => {
            if resume_run(eng, run)?.is_none() {
                return Ok(Some("The run is not paused".into()));
            }
        }
        BatchAction::Reset { to, reason } => return reset_unchecked(eng, run, to, reason),
    }
    Ok(None)
}
