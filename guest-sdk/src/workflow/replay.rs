//! Drives the workflow core's replay (`weft_workflow_core::replay`) with the workflow's future:
//! at each decision task the core begins, the future is polled as far as it goes.

use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use weft_workflow_core::replay::Replay;

use crate::{Decision, History, IntoResult, Response};

use super::state::State;
use super::{Error, Workflow, view};

/// Runs `workflow` over the decision task's history and answers it with what it decides now:
/// what a decider built with [`workflow!`](crate::workflow!) does on every task. `Err` names a
/// nondeterminism: the code issued other commands than the history recorded.
pub fn run<Fut, R>(
    history: &History,
    workflow: impl FnOnce(Workflow) -> Fut,
) -> Result<Response, String>
where
    Fut: Future<Output = Result<R, Error>>,
    R: IntoResult,
{
    let execution = history.workflow_execution();
    let state = Rc::new(RefCell::new(State::new(
        &execution.workflow_id,
        &execution.run_id,
        history.input(),
    )));
    let mut code = pin!(workflow(Workflow {
        state: Rc::clone(&state),
    }));
    let events = history.events();
    let mut replay = Replay::new(events, history.task().started_event_id);
    while replay.next(events, &mut state.borrow_mut())? {
        let mut context = Context::from_waker(Waker::noop());
        if let Poll::Ready(result) = code.as_mut().poll(&mut context) {
            let close = match result.and_then(close_result) {
                Ok(result) => Decision::complete(result),
                Err(error) => error.into_close(),
            };
            let shape = view::shape(&close);
            state.borrow_mut().close(close, shape);
        }
    }
    let decisions = state.borrow_mut().answer();
    Ok(Response::from(decisions))
}

/// The code's result as the run's result: the payload rule of [`IntoResult`].
fn close_result<R: IntoResult>(result: R) -> Result<Option<String>, Error> {
    result.into_result().map_err(Error::from)
}
