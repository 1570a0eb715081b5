//! Runs workflow code over a history as its decision tasks saw it: the events up to each
//! `DecisionTaskStarted` are applied, then the code runs as far as it goes, and what it issues
//! is matched with the decisions the history recorded for that task; what it issues at the
//! task being decided now is the answer.
//!
//! Events that came while a decision task was running were not seen by that task: they are
//! applied after its recorded decisions, as the next task saw them.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use crate::events::{EventAttributes as E, HistoryEvent};
use crate::history::SwfName;
use crate::{Decision, History, IntoResult, Response};

use super::shape::{Shape, recorded};
use super::state::{Outcome, PATCH_MARKER, State};
use super::{Error, ErrorKind, Workflow};

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
    let input = history.input().map(str::to_owned);
    let state = Rc::new(RefCell::new(State::new(
        input,
        history.workflow_execution().clone(),
    )));
    let code = Box::pin(workflow(Workflow {
        state: Rc::clone(&state),
    }));
    let mut replay = Replay {
        state,
        code: Some(code),
        close: None,
        close_refused: false,
        by_event: BTreeMap::new(),
        patches: patches_by_task(history.events()),
    };
    let current = history.task().started_event_id;
    let events = history.events();
    let mut matching = None;
    // Events a running decision task did not see, applied once its decisions are matched.
    let mut unseen: Vec<&HistoryEvent> = Vec::new();
    let mut task_running = false;
    for event in events {
        if let Some(completed) = matching {
            match recorded(event) {
                Some((by, shape)) if by == completed => {
                    replay.matched(event.event_id, &shape)?;
                    unseen.push(event);
                    continue;
                }
                _ => {
                    replay.task_done(completed, event.event_id)?;
                    matching = None;
                    task_running = false;
                    unseen.drain(..).for_each(|event| replay.outside(event));
                }
            }
        }
        match &event.attributes {
            // The task being decided: it saw what came before its start, and nothing after
            // (which SWF would not hand it; a test's history might).
            E::DecisionTaskStarted(_) if event.event_id == current => {
                replay.poll(event, true);
                break;
            }
            E::DecisionTaskStarted(_) => {
                task_running = true;
                replay.poll(event, false);
            }
            E::DecisionTaskCompleted(_) => matching = Some(event.event_id),
            E::DecisionTaskTimedOut(_) => {
                task_running = false;
                unseen.drain(..).for_each(|event| replay.outside(event));
            }
            _ if task_running => unseen.push(event),
            _ => replay.outside(event),
        }
    }
    if let Some(completed) = matching {
        let last = events.last().map_or(0, |e| e.event_id);
        replay.task_done(completed, last)?;
    }
    let mut state = replay.state.borrow_mut();
    let decisions: Vec<Decision> = state.issued.drain(..).map(|i| i.decision).collect();
    Ok(Response::from(decisions))
}

/// A replay in progress.
struct Replay<Fut> {
    state: Rc<RefCell<State>>,
    /// The workflow code, until it returns.
    code: Option<Pin<Box<Fut>>>,
    /// The decision that closes the run, once the code returned.
    close: Option<Decision>,
    /// Whether SWF refused the close decision (new events had come): it is made again.
    close_refused: bool,
    /// The awaited command that each recording event (`ActivityTaskScheduled`, ...) is of.
    by_event: BTreeMap<u64, usize>,
    /// The changes whose patch markers each decision task recorded, by its started event.
    patches: BTreeMap<u64, Vec<String>>,
}

impl<Fut, R> Replay<Fut>
where
    Fut: Future<Output = Result<R, Error>>,
    R: IntoResult,
{
    /// Runs the code as far as it goes at the decision task started by `started` (`current`:
    /// the one being decided now); once it returned, issues the close decision (again, if SWF
    /// refused it).
    fn poll(&mut self, started: &HistoryEvent, current: bool) {
        {
            let mut state = self.state.borrow_mut();
            state.now = started.event_timestamp;
            state.replaying = !current;
            state.task_patches = self.patches.remove(&started.event_id).unwrap_or_default();
        }
        if let Some(code) = &mut self.code {
            let mut context = Context::from_waker(Waker::noop());
            if let Poll::Ready(result) = code.as_mut().poll(&mut context) {
                self.code = None;
                let close = match result.and_then(close_result) {
                    Ok(result) => Decision::complete(result),
                    Err(error) => error.into_close(),
                };
                self.close = Some(close.clone());
                self.state.borrow_mut().issue(close, false);
            }
        } else if std::mem::take(&mut self.close_refused)
            && let Some(close) = &self.close
        {
            self.state.borrow_mut().issue(close.clone(), false);
        }
    }

    /// Matches the decision the history recorded at `event_id` with the code's next command.
    fn matched(&mut self, event_id: u64, shape: &Shape) -> Result<(), String> {
        let mut state = self.state.borrow_mut();
        let next = state
            .issued
            .front()
            .map(|issued| Shape::from(&issued.decision));
        match next {
            Some(next) if next == *shape => {
                let issued = state.issued.pop_front().expect("looked at");
                if let Some(slot) = issued.slot {
                    self.by_event.insert(event_id, slot);
                }
                Ok(())
            }
            // A change the code no longer asks about (its `patched` call removed after
            // `deprecate_patch`): its marker stays in old histories.
            _ if shape.decision == "RecordMarker" && shape.id == PATCH_MARKER => Ok(()),
            Some(next) => Err(format!(
                "nondeterminism at event {event_id}: the history has {shape} where the \
                 workflow code now decides {next}"
            )),
            None => Err(format!(
                "nondeterminism at event {event_id}: the history has {shape}, which the \
                 workflow code no longer decides there"
            )),
        }
    }

    /// Checks, at `event_id`, that the code issued nothing more at the task completed by
    /// `task` than the history recorded.
    fn task_done(&mut self, task: u64, event_id: u64) -> Result<(), String> {
        match self.state.borrow().issued.front() {
            None => Ok(()),
            Some(extra) => Err(format!(
                "nondeterminism at event {event_id}: the workflow code decides {} at the \
                 decision task completed at event {task}, which the history does not have",
                Shape::from(&extra.decision)
            )),
        }
    }

    /// Applies an event the code did not decide: an outcome, a signal, a cancel request.
    fn outside(&mut self, event: &HistoryEvent) {
        let own = event.event_id;
        let mut state = self.state.borrow_mut();
        let (by, outcome): (u64, Outcome) = match &event.attributes {
            E::WorkflowExecutionSignaled(a) => {
                let queue = state.signals.entry(a.signal_name.clone()).or_default();
                queue.push_back(a.input.clone());
                return;
            }
            E::WorkflowExecutionCancelRequested(_) => {
                state.cancel_requested = true;
                return;
            }
            E::CompleteWorkflowExecutionFailed(_)
            | E::FailWorkflowExecutionFailed(_)
            | E::CancelWorkflowExecutionFailed(_)
            | E::ContinueAsNewWorkflowExecutionFailed(_) => {
                self.close_refused = true;
                return;
            }
            E::ChildWorkflowExecutionStarted(a) => {
                if let Some(&slot) = self.by_event.get(&a.initiated_event_id) {
                    state.child_started(slot, a.workflow_execution.clone());
                }
                return;
            }
            E::ActivityTaskCompleted(a) => (a.scheduled_event_id, Ok(a.result.clone())),
            E::ActivityTaskFailed(a) => (a.scheduled_event_id, failed(&a.reason, &a.details)),
            E::ActivityTaskTimedOut(a) => (
                a.scheduled_event_id,
                Err(Error::of(
                    ErrorKind::TimedOut,
                    Some(a.timeout_type.swf_name()),
                    a.details.as_deref(),
                )),
            ),
            E::ActivityTaskCanceled(a) => (a.scheduled_event_id, canceled(&a.details)),
            E::ScheduleActivityTaskFailed(a) => (own, not_started(a.cause.swf_name())),
            E::TimerFired(a) => (a.started_event_id, Ok(None)),
            E::TimerCanceled(a) => (a.started_event_id, canceled(&None)),
            E::StartTimerFailed(a) => (own, not_started(a.cause.swf_name())),
            E::ChildWorkflowExecutionCompleted(a) => (a.initiated_event_id, Ok(a.result.clone())),
            E::ChildWorkflowExecutionFailed(a) => {
                (a.initiated_event_id, failed(&a.reason, &a.details))
            }
            E::ChildWorkflowExecutionTimedOut(a) => (
                a.initiated_event_id,
                Err(Error::of(
                    ErrorKind::TimedOut,
                    Some(a.timeout_type.swf_name()),
                    None,
                )),
            ),
            E::ChildWorkflowExecutionCanceled(a) => (a.initiated_event_id, canceled(&a.details)),
            E::ChildWorkflowExecutionTerminated(a) => (
                a.initiated_event_id,
                Err(Error::of(ErrorKind::Terminated, None, None)),
            ),
            E::StartChildWorkflowExecutionFailed(a) => (
                initiated_or(a.initiated_event_id, own),
                not_started(a.cause.swf_name()),
            ),
            E::LambdaFunctionCompleted(a) => (a.scheduled_event_id, Ok(a.result.clone())),
            E::LambdaFunctionFailed(a) => (a.scheduled_event_id, failed(&a.reason, &a.details)),
            E::LambdaFunctionTimedOut(a) => (
                a.scheduled_event_id,
                Err(Error::of(
                    ErrorKind::TimedOut,
                    a.timeout_type.as_ref().map(SwfName::swf_name),
                    None,
                )),
            ),
            E::ScheduleLambdaFunctionFailed(a) => (own, not_started(a.cause.swf_name())),
            E::StartLambdaFunctionFailed(a) => (
                a.scheduled_event_id.unwrap_or_default(),
                not_started(a.cause.as_ref().map_or("", SwfName::swf_name)),
            ),
            E::ExternalWorkflowExecutionSignaled(a) => (a.initiated_event_id, Ok(None)),
            E::SignalExternalWorkflowExecutionFailed(a) => (
                initiated_or(a.initiated_event_id, own),
                not_started(a.cause.swf_name()),
            ),
            E::ExternalWorkflowExecutionCancelRequested(a) => (a.initiated_event_id, Ok(None)),
            E::RequestCancelExternalWorkflowExecutionFailed(a) => (
                initiated_or(a.initiated_event_id, own),
                not_started(a.cause.swf_name()),
            ),
            _ => return,
        };
        if let Some(&slot) = self.by_event.get(&by) {
            state.resolve(slot, outcome);
        }
    }
}

/// The event that started a command: the one named, or (0 when SWF refused the decision at
/// once) the event itself.
fn initiated_or(initiated: u64, own: u64) -> u64 {
    if initiated == 0 { own } else { initiated }
}

fn failed(reason: &Option<String>, details: &Option<String>) -> Outcome {
    Err(Error::of(
        ErrorKind::Failed,
        reason.as_deref(),
        details.as_deref(),
    ))
}

fn canceled(details: &Option<String>) -> Outcome {
    Err(Error::of(ErrorKind::Canceled, None, details.as_deref()))
}

fn not_started(cause: &str) -> Outcome {
    Err(Error::of(ErrorKind::NotStarted, Some(cause), None))
}

/// The code's result as the run's result: the payload rule of [`IntoResult`].
fn close_result<R: IntoResult>(result: R) -> Result<Option<String>, Error> {
    result.into_result().map_err(Error::from)
}

/// The changes whose patch markers each decision task recorded, by the task's started event.
fn patches_by_task(events: &[HistoryEvent]) -> BTreeMap<u64, Vec<String>> {
    let mut started_of = BTreeMap::new();
    let mut patches: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for event in events {
        match &event.attributes {
            E::DecisionTaskCompleted(a) => {
                started_of.insert(event.event_id, a.started_event_id);
            }
            E::MarkerRecorded(a) if a.marker_name == PATCH_MARKER => {
                if let Some(&started) = started_of.get(&a.decision_task_completed_event_id) {
                    let change = a.details.clone().unwrap_or_default();
                    patches.entry(started).or_default().push(change);
                }
            }
            _ => {}
        }
    }
    patches
}
