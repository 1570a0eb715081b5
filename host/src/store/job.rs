//! A change waiting for a write transaction: its check and apply, and the caller waiting for the
//! outcome. Backend-neutral: any [`Backend`](super::seam::Backend) runs these.
//!
//! A shared database may abort a transaction for a conflict with another process's (a deadlock,
//! a serialization failure); its backend then runs the same jobs again in a new transaction.
//! So a job keeps its check and apply until told it will not be asked again: both are `Clone`,
//! and every attempt but the last runs a copy.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use tokio::sync::oneshot;

use super::StoreError;
use super::seam::{About, Job, Reads, Writes};

struct Request<C, A, T, E> {
    /// The check and the apply, until they are applied for the last time.
    change: Option<(C, A)>,
    /// What the latest attempt answered.
    result: Option<Result<T, E>>,
    reply: oneshot::Sender<Result<T, E>>,
    skip_if_gone: bool,
    about: Option<About>,
    queued: Instant,
}

impl<P, T, E, C, A> Job for Request<C, A, T, E>
where
    C: FnOnce(&dyn Reads) -> Result<P, E> + Clone + Send,
    A: FnOnce(&mut dyn Writes, P) -> Result<T, StoreError> + Clone + Send,
    T: Send,
    E: From<StoreError> + Send,
{
    fn apply(&mut self, tx: &mut dyn Writes, again: bool) -> bool {
        self.result = None;
        if self.skip_if_gone && self.reply.is_closed() {
            return true;
        }
        let change = match again {
            true => self.change.clone(),
            false => self.change.take(),
        };
        let Some((check, apply)) = change else {
            return true;
        };
        // A change that panics fails alone, like one that fails: its batch goes on without it.
        let run = AssertUnwindSafe(|| match check(&*tx) {
            Err(refused) => (Err(refused), true),
            Ok(plan) => match apply(tx, plan) {
                Ok(output) => (Ok(output), true),
                Err(error) => (Err(E::from(error)), false),
            },
        });
        let (result, clean) =
            catch_unwind(run).unwrap_or_else(|_| (Err(E::from(StoreError::Panicked)), false));
        self.result = Some(result);
        clean
    }

    fn finish(self: Box<Self>, error: Option<&StoreError>) {
        let result = match (error, self.result) {
            (None, Some(result)) => result,
            // Kept as they are: the client may try again once the database is back, or the
            // other process's transaction is over.
            (Some(StoreError::Unavailable(why)), _) => {
                Err(E::from(StoreError::Unavailable(why.clone())))
            }
            (Some(StoreError::Busy(why)), _) => Err(E::from(StoreError::Busy(why.clone()))),
            (Some(error), _) => Err(E::from(StoreError::Uncommitted(error.to_string()))),
            (None, None) => Err(E::from(StoreError::Uncommitted("not applied".into()))),
        };
        // The client may have gone away; its change stands either way.
        let _ = self.reply.send(result);
    }

    fn about(&self) -> Option<&About> {
        self.about.as_ref()
    }

    fn queued(&self) -> Instant {
        self.queued
    }
}

/// Wraps a check and an apply as a job that answers on `reply`, about `about` if that is
/// known.
pub(super) fn job<P, T, E, C, A>(
    check: C,
    apply: A,
    reply: oneshot::Sender<Result<T, E>>,
    skip_if_gone: bool,
    about: Option<About>,
) -> Box<dyn Job>
where
    C: FnOnce(&dyn Reads) -> Result<P, E> + Clone + Send + 'static,
    A: FnOnce(&mut dyn Writes, P) -> Result<T, StoreError> + Clone + Send + 'static,
    T: Send + 'static,
    E: From<StoreError> + Send + 'static,
    P: 'static,
{
    Box::new(Request {
        change: Some((check, apply)),
        result: None,
        reply,
        skip_if_gone,
        about,
        queued: Instant::now(),
    })
}
