//! The node's writer on PostgreSQL: the same loop as redb's (`store/writer.rs`), committing
//! each batch of this node's requests in one transaction, and running a batch again when it
//! lost a race with another node's transaction.
//!
//! Other nodes write at the same time, so a batch can deadlock with one of theirs, wait too
//! long for a lock, or find a name another node took a moment before. Each of these aborts the
//! transaction before it changed anything; the batch then runs again from its checks, which
//! see the other node's committed work. Jobs keep their check and apply for this
//! (`store/job.rs`); after [`MAX_ATTEMPTS`] the batch is answered with the error.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::conn::{Conn, Manager, explain};
use super::session::{Failure, Session, Writing};
use crate::clock::Clock;
use crate::store::StoreError;
use crate::store::seam::Job;
use crate::store::writer::AfterCommit;

/// The most requests one transaction carries. Smaller than redb's: the transaction holds its
/// rows' locks until it commits, and other nodes may be waiting for them.
pub(super) const MAX_BATCH: usize = 128;

/// How often a batch is tried before its error is answered.
const MAX_ATTEMPTS: u32 = 12;

/// How long the writer waits for a row another transaction holds before giving up on the
/// attempt and retrying: far sooner than PostgreSQL's deadlock detection (1 s by default).
const LOCK_TIMEOUT: &str = "SET lock_timeout = '250ms'";

/// How an attempt failed, and whether another may succeed.
struct Failed {
    error: StoreError,
    retry: bool,
}

impl From<StoreError> for Failed {
    fn from(error: StoreError) -> Self {
        let retry = Failure::of(&error) != Failure::Other;
        Failed { error, retry }
    }
}

/// The writer's connection, opened when first needed and again after it is lost.
pub(super) struct Committer {
    manager: Arc<Manager>,
    clock: Arc<dyn Clock>,
    conn: Option<Conn>,
    /// Where the other nodes hear of this node's commits.
    channel: String,
}

impl Committer {
    pub(super) fn new(manager: Arc<Manager>, clock: Arc<dyn Clock>, channel: String) -> Self {
        Committer {
            manager,
            clock,
            conn: None,
            channel,
        }
    }

    /// Applies and commits `batch`, trying again after conflicts; answers whether anything
    /// was committed, and what to run now that it is.
    pub(super) fn commit(
        &mut self,
        batch: &mut [Box<dyn Job>],
    ) -> Result<(bool, AfterCommit), StoreError> {
        let mut attempt = 1;
        loop {
            let again = attempt < MAX_ATTEMPTS;
            match self.attempt(batch, again) {
                Ok(done) => return Ok(done),
                Err(failed) if failed.retry && again => {
                    tracing::debug!(error = %failed.error, attempt, "retrying a batch");
                    self.manager.stats().retry();
                    std::thread::sleep(backoff(attempt));
                    attempt += 1;
                }
                Err(failed) => return Err(failed.error),
            }
        }
    }

    fn connection(&mut self) -> Result<&mut Conn, StoreError> {
        if self.conn.as_ref().is_none_or(Conn::is_broken) {
            self.conn = None;
            let mut conn = self
                .manager
                .connect()
                .map_err(|e| StoreError::Unavailable(explain(&e)))?;
            conn.batch(LOCK_TIMEOUT)?;
            self.conn = Some(conn);
        }
        Ok(self.conn.as_mut().expect("connected above"))
    }

    fn attempt(
        &mut self,
        batch: &mut [Box<dyn Job>],
        again: bool,
    ) -> Result<(bool, AfterCommit), Failed> {
        let now = self.clock.now();
        let channel = self.channel.clone();
        let conn = self.connection().map_err(|error| Failed {
            error,
            retry: false,
        })?;
        conn.batch("BEGIN")?;
        let mut tx = Session::new(&mut *conn, Writing::new(now));
        for job in batch.iter_mut() {
            let clean = job.apply(&mut tx, again);
            if let Some((failure, detail)) = tx.mode.failure.take() {
                tx.rollback();
                let error = match failure {
                    Failure::Lost => StoreError::Unavailable(detail),
                    Failure::Conflict | Failure::Other => StoreError::Broken(detail),
                };
                let retry = failure != Failure::Other;
                return Err(Failed { error, retry });
            }
            if !clean {
                tx.rollback();
                return Err(Failed {
                    error: StoreError::Aborted,
                    retry: false,
                });
            }
        }
        let Writing {
            changed,
            notices,
            after_commit,
            ..
        } = std::mem::replace(&mut tx.mode, Writing::new(now));
        if !changed {
            // Nothing to make durable (polls that only wait): a rollback costs no flush, and
            // loses nothing if it fails (the connection is then replaced).
            tx.rollback();
            return Ok((false, after_commit));
        }
        if !notices.is_empty() {
            let notices: Vec<String> = notices.into_iter().collect();
            let sent = tx.exec(
                "SELECT pg_notify($1, n) FROM unnest($2::text[]) AS n",
                &[&channel, &notices],
            );
            if let Err(error) = sent {
                tx.rollback();
                return Err(error.into());
            }
        }
        drop(tx);
        // A commit whose answer is lost may or may not have happened: never retried.
        conn.batch("COMMIT").map_err(|error| Failed {
            error: match error {
                StoreError::Pg(e) if e.is_closed() => StoreError::Unavailable(explain(&e)),
                other => other,
            },
            retry: false,
        })?;
        Ok((true, after_commit))
    }
}

/// A short, jittered pause before attempt `attempt + 1`, so that two nodes that collided do
/// not collide again in step.
fn backoff(attempt: u32) -> Duration {
    let jitter = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() % 1000);
    let base = 1u64 << attempt.min(6);
    Duration::from_micros(base * 500 + u64::from(jitter) * base)
}
