//! The one writer, whichever the backend: every change goes through it, and concurrent changes
//! share one durable commit.
//!
//! A durable commit costs an fsync (0.2 to 4 ms on these machines), so committing each request
//! alone caps the service at a few hundred to a few thousand changes a second. The writer instead
//! takes every request waiting, applies them in arrival order inside one write transaction,
//! commits once, and only then answers all of them: throughput grows with load while latency
//! stays one commit, and no request is acknowledged before its change is on disk.
//!
//! A request is a check, which only reads and may refuse, and an apply, which writes and can fail
//! only with the store's own error: a refusal leaves the transaction untouched, so the other
//! requests of the batch still commit. An apply that fails (or panics) rolls the transaction
//! back; its backend answers that request alone and runs the rest of the batch again.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Instant;

use super::seam::Job;
use super::{StoreError, WriterStats};

/// Where requests wait for the writer.
pub(crate) type Queue = Sender<Box<dyn Job>>;

/// Starts a writer thread, for any backend: it takes every job waiting (up to `max_batch`),
/// has `commit` apply them in one transaction and commit it, runs the after-commit actions,
/// and answers the jobs (those `commit` took out of the batch it answered itself). It runs until every sender of the queue is gone.
pub(crate) fn serve(
    max_batch: usize,
    stats: WriterStats,
    commit: impl FnMut(&mut Vec<Box<dyn Job>>) -> Committed + Send + 'static,
) -> std::io::Result<(Queue, JoinHandle<()>)> {
    let (jobs, queue) = std::sync::mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("weft-writer".into())
        .spawn(move || run(&queue, &stats, max_batch, commit))?;
    Ok((jobs, thread))
}

fn run(
    queue: &Receiver<Box<dyn Job>>,
    stats: &WriterStats,
    max_batch: usize,
    mut commit: impl FnMut(&mut Vec<Box<dyn Job>>) -> Committed,
) {
    let mut batch = Vec::with_capacity(max_batch);
    while let Ok(first) = queue.recv() {
        batch.push(first);
        batch.extend(queue.try_iter().take(max_batch - 1));
        let started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| commit(&mut batch)))
            .unwrap_or_else(|_| Err(StoreError::Panicked));
        let outcome = outcome.map(|(committed, after_commit)| {
            for action in after_commit {
                action();
            }
            committed
        });
        match &outcome {
            Ok(committed) => stats.batch_done(batch.len(), started.elapsed(), *committed),
            Err(error) => tracing::error!(%error, requests = batch.len(), "commit failed"),
        }
        for job in batch.drain(..) {
            job.finish(outcome.as_ref().err());
        }
    }
}

/// What to do once a batch is committed.
pub(crate) type AfterCommit = Vec<Box<dyn FnOnce() + Send>>;

/// What committing a batch came to: whether anything was committed, and what to do now, or
/// why nothing was.
pub(crate) type Committed = Result<(bool, AfterCommit), StoreError>;
