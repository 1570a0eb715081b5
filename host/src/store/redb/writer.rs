//! redb's side of the one writer: each batch in one write transaction, committed durably.

use std::sync::Arc;
use std::thread::JoinHandle;

use redb::{Database, Durability};

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
/// anything to commit. A batch that wrote nothing (polls that only wait) is aborted instead:
/// a durable commit of nothing would still cost an fsync. If anything fails (or panics), the
/// transaction is dropped, which aborts it: the batch changes nothing.
fn commit(
    db: &Database,
    clock: &dyn Clock,
    batch: &mut [Box<dyn Job>],
) -> Result<(bool, AfterCommit), StoreError> {
    let mut txn = db.begin_write()?;
    txn.set_durability(Durability::Immediate)?;
    let (changed, after_commit) = {
        let mut tx = WriteTx::open(&txn, clock.now())?;
        for job in batch.iter_mut() {
            if !job.apply(&mut tx, false) {
                return Err(StoreError::Aborted);
            }
        }
        (tx.changed(), tx.take_after_commit())
    };
    if changed {
        txn.commit()?;
    } else {
        txn.abort()?;
    }
    Ok((changed, after_commit))
}
