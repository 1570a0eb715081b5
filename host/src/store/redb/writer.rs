//! redb's side of the one writer: each batch in one write transaction, committed durably.

use std::sync::Arc;
use std::thread::JoinHandle;

use redb::Database;

use crate::clock::Clock;
use crate::store::seam::Job;
use crate::store::writer::{AfterCommit, Queue, serve};
use crate::store::{StoreError, WriterStats};

use super::access::WriteTx;

/// The most requests one commit carries, so one batch cannot delay its first reply for long.
const MAX_BATCH: usize = 1024;

/// Starts the writer thread. It runs until every sender of `jobs` is gone.
pub(super) fn spawn(
    db: Arc<Database>,
    clock: Arc<dyn Clock>,
    stats: WriterStats,
) -> std::io::Result<(Queue, JoinHandle<()>)> {
    serve(MAX_BATCH, stats, move |batch| {
        commit(&db, clock.as_ref(), batch)
    })
}

/// Applies `batch` in one transaction and commits it durably; answers whether there was
/// anything to commit. A request whose change fails (or panics) is answered alone and taken
/// out, and the rest of the batch runs again without it; should another fail, each runs alone.
fn commit(
    db: &Database,
    clock: &dyn Clock,
    batch: &mut Vec<Box<dyn Job>>,
) -> Result<(bool, AfterCommit), StoreError> {
    for _ in 0..2 {
        match attempt(db, clock, batch)? {
            Ok(done) => return Ok(done),
            Err(failed) => batch.remove(failed).finish(None),
        }
    }
    Ok(one_by_one(db, clock, batch))
}

/// Commits each request of `batch` alone: a request that fails is answered and taken out,
/// the rest stay in `batch`, committed, for the writer to answer. A store that fails to
/// commit answers the rest with its error.
fn one_by_one(
    db: &Database,
    clock: &dyn Clock,
    batch: &mut Vec<Box<dyn Job>>,
) -> (bool, AfterCommit) {
    let (mut committed, mut after_commit) = (false, Vec::new());
    let mut kept = Vec::with_capacity(batch.len());
    let mut jobs = std::mem::take(batch).into_iter();
    while let Some(job) = jobs.next() {
        let mut one = [job];
        let outcome = attempt(db, clock, &mut one);
        let [job] = one;
        match outcome {
            Ok(Ok((changed, after))) => {
                committed |= changed;
                after_commit.extend(after);
                kept.push(job);
            }
            Ok(Err(_)) => job.finish(None),
            Err(error) => {
                tracing::error!(%error, "commit failed");
                job.finish(Some(&error));
                jobs.by_ref().for_each(|job| job.finish(Some(&error)));
            }
        }
    }
    *batch = kept;
    (committed, after_commit)
}

/// One transaction of `batch`: committed, or the index of the request whose change failed.
/// A batch that wrote nothing (polls that only wait) is aborted instead: a durable commit of
/// nothing would still cost an fsync. A failed change drops the transaction, which aborts
/// it: the batch changes nothing. While other requests share the batch, each is applied from
/// a copy of its change, which the next attempt needs if one fails.
fn attempt(
    db: &Database,
    clock: &dyn Clock,
    batch: &mut [Box<dyn Job>],
) -> Result<Result<(bool, AfterCommit), usize>, StoreError> {
    let txn = db.begin_write()?;
    let again = batch.len() > 1;
    let (changed, after_commit) = {
        let mut tx = WriteTx::new(&txn, clock.now());
        for (i, job) in batch.iter_mut().enumerate() {
            if !job.apply(&mut tx, again) {
                return Ok(Err(i));
            }
        }
        (tx.changed(), tx.take_after_commit())
    };
    if changed {
        txn.commit()?;
    } else {
        txn.abort()?;
    }
    Ok(Ok((changed, after_commit)))
}
