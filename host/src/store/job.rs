//! A change waiting for a write transaction: its check and apply, and the caller waiting for the
//! outcome. Backend-neutral: any [`Backend`](super::seam::Backend) runs these.

use tokio::sync::oneshot;

use super::StoreError;
use super::seam::{Job, Reads, Writes};

enum State<C, A, T, E> {
    Waiting(C, A),
    Applied(Result<T, E>),
    Gone,
}

struct Request<C, A, T, E> {
    state: State<C, A, T, E>,
    reply: oneshot::Sender<Result<T, E>>,
    skip_if_gone: bool,
}

impl<P, T, E, C, A> Job for Request<C, A, T, E>
where
    C: FnOnce(&dyn Reads) -> Result<P, E> + Send,
    A: FnOnce(&mut dyn Writes, P) -> Result<T, StoreError> + Send,
    T: Send,
    E: From<StoreError> + Send,
{
    fn apply(&mut self, tx: &mut dyn Writes) -> bool {
        if self.skip_if_gone && self.reply.is_closed() {
            return true;
        }
        let State::Waiting(check, apply) = std::mem::replace(&mut self.state, State::Gone) else {
            return true;
        };
        let (result, clean) = match check(&*tx) {
            Err(refused) => (Err(refused), true),
            Ok(plan) => match apply(tx, plan) {
                Ok(output) => (Ok(output), true),
                Err(error) => (Err(E::from(error)), false),
            },
        };
        self.state = State::Applied(result);
        clean
    }

    fn finish(self: Box<Self>, error: Option<&StoreError>) {
        let result = match (error, self.state) {
            (None, State::Applied(result)) => result,
            (Some(error), _) => Err(E::from(StoreError::Uncommitted(error.to_string()))),
            (None, _) => Err(E::from(StoreError::Uncommitted("not applied".into()))),
        };
        // The client may have gone away; its change stands either way.
        let _ = self.reply.send(result);
    }
}

/// Wraps a check and an apply as a job that answers on `reply`.
pub(super) fn job<P, T, E, C, A>(
    check: C,
    apply: A,
    reply: oneshot::Sender<Result<T, E>>,
    skip_if_gone: bool,
) -> Box<dyn Job>
where
    C: FnOnce(&dyn Reads) -> Result<P, E> + Send + 'static,
    A: FnOnce(&mut dyn Writes, P) -> Result<T, StoreError> + Send + 'static,
    T: Send + 'static,
    E: From<StoreError> + Send + 'static,
    P: 'static,
{
    Box::new(Request {
        state: State::Waiting(check, apply),
        reply,
        skip_if_gone,
    })
}
