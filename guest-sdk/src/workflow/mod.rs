//! Workflows as ordinary async code, replayed over the history on every decision task.
//!
//! ```no_run
//! use std::time::Duration;
//! use weft_guest::workflow::{Error, Workflow};
//!
//! weft_guest::workflow!(greet);
//!
//! async fn greet(workflow: Workflow) -> Result<Option<String>, Error> {
//!     let name = workflow.input().unwrap_or_else(|| "world".into());
//!     let greeting = workflow.activity("Greet", "1.0").input(name).start_to_close(30).await?;
//!     workflow.sleep(Duration::from_secs(1)).await?;
//!     Ok(greeting)
//! }
//! ```
//!
//! Each `.await` on an activity, timer, function or child issues its decision the first time it
//! is reached, and is ready once the history records how it ended. On every decision task the
//! workflow runs from the start against the whole history, as each decision task saw it: the
//! events up to the task's start are applied, then the code runs as far as it can (as
//! Temporal's SDKs do). What it issues for each earlier decision task must be what the
//! history recorded (same decision types, ids and types run, in order; inputs and durations
//! may differ). Anything else is a *nondeterminism*: the task fails with an error naming both,
//! and decides nothing. What it issues for the task being decided now is the answer.
//!
//! So workflow code must do the same on every replay: use [`Workflow::now`] and
//! [`Workflow::random`] rather than reading clocks or random sources of its own, and change a
//! running workflow with [`Workflow::patched`]. Commands get default ids from their kind and the
//! order they are issued in (`Greet-1`, `timer-1`); give your own with `.id(..)` where
//! histories are read by people.
//!
//! Awaiting several at once: [`join`], [`join_all`], [`select`] and [`select_all`]; awaiting
//! the workflow's own state: [`wait_until`]. Of outcomes seen by different decision tasks the
//! earlier wins; of outcomes seen by one task, the future given first.
//!
//! A failed, timed-out or canceled activity is an [`Error`] at its await, which `?` passes on:
//! returned from the workflow, it fails the run with its reason and details. A workflow that
//! the run's owner asks to cancel learns of it by [`Workflow::cancellation`] (or
//! [`Workflow::cancel_requested`]), may run compensating activities, and closes the run as
//! canceled by returning [`Error::canceled`].

mod calls;
mod combinators;
mod error;
mod replay;
mod retry;
mod state;
#[cfg(test)]
mod tests;
mod view;

use std::cell::RefCell;
use std::rc::Rc;
use std::task::Poll;
use std::time::{Duration, SystemTime};

pub use calls::{
    Activity, ActivityRun, CancelRequest, Child, ChildRun, Command, Lambda, LocalFuture, Signal,
    Timer,
};
pub use combinators::{Either, join, join_all, select, select_all, wait_until};
pub use error::{Error, ErrorKind};
pub use replay::run;
pub use retry::RetryPolicy;

use crate::Decision;
use crate::decision::builders::ContinueAsNew;
use crate::types::WorkflowExecution;
use state::State;
use weft_workflow_core::replay::PATCH_MARKER;

/// The running workflow: its input, its clock and randomness, and every operation it awaits.
/// Cheap to clone; every clone is the same workflow.
#[derive(Clone)]
pub struct Workflow {
    state: Rc<RefCell<State>>,
}

impl Workflow {
    /// The run's input.
    pub fn input(&self) -> Option<String> {
        self.state.borrow().input().map(str::to_owned)
    }

    /// The run's input read as JSON into `T`.
    #[cfg(feature = "serde")]
    pub fn input_json<T: serde::de::DeserializeOwned>(&self) -> Result<T, Error> {
        let input = self.input().unwrap_or_default();
        serde_json::from_str(&input).map_err(|e| {
            Error::failed(format!(
                "the workflow's input is not the JSON expected: {e}"
            ))
        })
    }

    /// The run's workflow and run id.
    pub fn execution(&self) -> WorkflowExecution {
        let state = self.state.borrow();
        WorkflowExecution {
            workflow_id: state.workflow_id().to_owned(),
            run_id: state.run_id().to_owned(),
        }
    }

    /// The time of the decision task being replayed: the same on every replay.
    pub fn now(&self) -> SystemTime {
        let seconds = self.state.borrow().now();
        SystemTime::UNIX_EPOCH + Duration::try_from_secs_f64(seconds).unwrap_or_default()
    }

    /// The next number of a sequence seeded by the run: the same on every replay.
    pub fn random(&self) -> u64 {
        self.state.borrow_mut().random()
    }

    /// Whether the code is running through a decision task the history already recorded (its
    /// decisions are checked, not made): for logging once rather than on every replay.
    pub fn is_replaying(&self) -> bool {
        self.state.borrow().replaying()
    }

    /// An activity of type `name`/`version`, to configure and `.await`.
    pub fn activity(&self, name: impl Into<String>, version: impl Into<String>) -> Activity {
        Activity {
            workflow: self.clone(),
            decision: Decision::schedule_activity("", name, version),
            id: None,
            retry: None,
        }
    }

    /// The Lambda function `name`, to configure and `.await`.
    pub fn lambda(&self, name: impl Into<String>) -> Lambda {
        Lambda {
            workflow: self.clone(),
            decision: Decision::schedule_lambda("", name),
            id: None,
        }
    }

    /// A timer of `duration` (whole seconds, rounded up, as SWF counts), started when first
    /// awaited.
    pub fn sleep(&self, duration: Duration) -> Timer {
        Timer::new(self, duration)
    }

    /// Cancels the timer `id` if it was started and has neither fired nor been cancelled; its
    /// await then ends `Err` (canceled). For a timer awaited elsewhere ([`Timer::cancel`] is the
    /// same for one at hand).
    pub fn cancel_timer(&self, id: &str) {
        self.cancel("StartTimer", id);
    }

    /// Asks SWF to cancel the activity `id` (`RequestCancelActivityTask`) if it was scheduled
    /// and has not ended. Its await then ends as the history says: `Err` (canceled) once the
    /// worker reports it canceled, or with the activity's result if it completed anyway (a
    /// worker learns of the request from its heartbeat's answer). An activity retried by a
    /// [`RetryPolicy`] is canceled by its current attempt's id (`ID`, `ID-2`, ...); a canceled
    /// attempt is not retried.
    pub fn cancel_activity(&self, id: &str) {
        self.cancel("ScheduleActivityTask", id);
    }

    /// Asks the child workflow `workflow_id` to cancel (`RequestCancelExternalWorkflowExecution`)
    /// if this run started it and it has not closed. Its await then ends as the child closes:
    /// `Err` (canceled) if the child's code closes it as canceled.
    pub fn cancel_child(&self, workflow_id: &str) {
        self.cancel("StartChildWorkflowExecution", workflow_id);
    }

    fn cancel(&self, decision: &str, id: &str) {
        let mut state = self.state.borrow_mut();
        if let Some(slot) = state.slot_of(decision, id) {
            // Only activities, timers and children are looked up, which SWF can all cancel.
            let _ = state.cancel(slot, calls::cancel_decision);
        }
    }

    /// A child workflow of type `name`/`version`, to configure and `.await` (or start).
    pub fn child(&self, name: impl Into<String>, version: impl Into<String>) -> Child {
        Child {
            workflow: self.clone(),
            decision: Decision::start_child("", name, version),
            id: None,
        }
    }

    /// A signal `name` to send to the workflow `workflow_id`, to `.await`.
    pub fn signal_external(
        &self,
        workflow_id: impl Into<String>,
        name: impl Into<String>,
    ) -> Signal {
        Signal {
            workflow: self.clone(),
            decision: Decision::signal_external(workflow_id, name),
        }
    }

    /// A request that the workflow `workflow_id` cancel, to `.await`.
    pub fn request_cancel_external(&self, workflow_id: impl Into<String>) -> CancelRequest {
        CancelRequest {
            workflow: self.clone(),
            decision: Decision::request_cancel_external(workflow_id),
        }
    }

    /// The input of the next signal `name` this run receives (each signal is taken once).
    /// With a timeout: `select(workflow.signal("approve"), workflow.sleep(..))`.
    pub fn signal(&self, name: impl Into<String>) -> LocalFuture<Option<String>> {
        let (state, name) = (Rc::clone(&self.state), name.into());
        Box::pin(std::future::poll_fn(move |_| {
            match state.borrow_mut().take_signal(&name) {
                Some(input) => Poll::Ready(input),
                None => Poll::Pending,
            }
        }))
    }

    /// Ready once the run is asked to cancel (`RequestCancelWorkflowExecution`).
    pub fn cancellation(&self) -> LocalFuture<()> {
        let state = Rc::clone(&self.state);
        Box::pin(std::future::poll_fn(move |_| {
            match state.borrow().cancel_requested() {
                true => Poll::Ready(()),
                false => Poll::Pending,
            }
        }))
    }

    /// Whether the run has been asked to cancel, as of the decision task being replayed.
    pub fn cancel_requested(&self) -> bool {
        self.state.borrow().cancel_requested()
    }

    /// Records a marker in the history (`RecordMarker`).
    pub fn record_marker(&self, name: impl Into<String>, details: Option<String>) {
        let decision = Decision::record_marker(name, details);
        let shape = view::shape(&decision);
        self.state.borrow_mut().issue(decision, shape, false);
    }

    /// Whether the run takes the code of change `change`: `true` where a run reaches this
    /// point for the first time with the change deployed (it records a marker saying so), and
    /// on replays of those runs; `false` on replays of runs that passed this point before the
    /// change. The answer, once given, holds for the rest of the run.
    ///
    /// ```no_run
    /// # async fn order(workflow: weft_guest::workflow::Workflow) -> Result<(), weft_guest::workflow::Error> {
    /// if workflow.patched("fraud-check") {
    ///     workflow.activity("CheckFraud", "1.0").await?;
    /// }
    /// # Ok(()) }
    /// ```
    pub fn patched(&self, change: &str) -> bool {
        let marker = || Decision::record_marker(PATCH_MARKER, Some(change.to_owned()));
        self.state.borrow_mut().patched(change, marker)
    }

    /// Says that every run still open took change `change` (the code before it is gone): the
    /// code always takes the changed path, and the patch markers of older runs are accepted
    /// without being asked for. Remove the call itself once no history has the marker.
    pub fn deprecate_patch(&self, change: &str) {
        self.state.borrow_mut().deprecate_patch(change);
    }

    /// The error that, returned by the workflow, closes this run and starts a new one as
    /// `decision` says (`Decision::continue_as_new().input(..)`).
    pub fn continue_as_new(&self, decision: ContinueAsNew) -> Error {
        Error::continue_as_new(decision)
    }
}

/// Makes this crate a decider component whose workflow is the given async function: `async fn
/// (Workflow) -> Result<R, Error>`, where `R` is a result as activity workers return one (an
/// `Option<String>`, a `String`, or with the feature `serde` a `Json` value).
///
/// ```no_run
/// use weft_guest::workflow::{Error, Workflow};
///
/// weft_guest::workflow!(echo);
///
/// async fn echo(workflow: Workflow) -> Result<Option<String>, Error> {
///     workflow.activity("Echo", "1.0").input(workflow.input().unwrap_or_default()).await
/// }
/// ```
#[macro_export]
macro_rules! workflow {
    ($workflow:expr) => {
        $crate::decider!(|history: &$crate::History| $crate::workflow::run(history, $workflow));
    };
}

/// Makes this crate a decider component that serves several workflow types, each by its own
/// async function, chosen by the name of the task's workflow type (a parent and its child
/// bound to one module, say). A type it does not name fails the decision task, saying which
/// it serves.
///
/// ```no_run
/// use weft_guest::workflow::{Error, Workflow};
///
/// weft_guest::workflows!("Order" => order, "Ship" => ship);
///
/// async fn order(wf: Workflow) -> Result<Option<String>, Error> {
///     wf.child("Ship", "1.0").input(wf.input().unwrap_or_default()).await
/// }
///
/// async fn ship(wf: Workflow) -> Result<Option<String>, Error> {
///     wf.activity("Pack", "1.0").input(wf.input().unwrap_or_default()).await
/// }
/// ```
#[macro_export]
macro_rules! workflows {
    ($($name:literal => $workflow:expr),+ $(,)?) => {
        $crate::decider!(|history: &$crate::History| {
            match history.workflow_type().name.as_str() {
                $($name => $crate::workflow::run(history, $workflow),)+
                other => ::core::result::Result::Err($crate::__private::format!(
                    "this module serves no workflow type {other}: it serves {}",
                    [$($name),+].join(", ")
                )),
            }
        });
    };
}
