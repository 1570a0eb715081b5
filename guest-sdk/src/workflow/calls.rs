//! The awaits of a workflow: activities, timers, Lambda functions, children, signals to and
//! cancel requests of other runs, each a builder that is issued as a decision when first polled.

use std::cell::RefCell;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::Decision;
use crate::decision::builders::{
    RequestCancelExternal, ScheduleActivity, ScheduleLambda, SignalExternal, StartChild,
};
use crate::types::{ChildPolicy, WorkflowExecution};

use super::state::{Outcome, State};
use super::{Error, RetryPolicy, Workflow, view};

/// A future of the workflow, boxed: what awaiting a builder gives.
pub type LocalFuture<T> = Pin<Box<dyn Future<Output = T>>>;

/// An operation being awaited: it issues its decision when first polled (with a default id if
/// it names none), then is ready with the outcome the history records for it.
#[must_use = "a command is issued only when polled"]
pub struct Command {
    state: Rc<RefCell<State>>,
    /// The decision, as issued once it is.
    decision: Decision,
    slot: Option<usize>,
}

impl Command {
    pub(crate) fn new(state: &Rc<RefCell<State>>, decision: Decision) -> Self {
        Command {
            state: Rc::clone(state),
            decision,
            slot: None,
        }
    }

    /// The slot of its outcome, issuing it first if it was not yet.
    fn slot(&mut self) -> usize {
        if let Some(slot) = self.slot {
            return slot;
        }
        let mut state = self.state.borrow_mut();
        with_default_id(&mut state, &mut self.decision);
        let shape = view::shape(&self.decision);
        let slot = state.issue(self.decision.clone(), shape, true);
        *self.slot.insert(slot.expect("awaited"))
    }

    /// Asks SWF to cancel it if it was issued and has not ended: an activity
    /// (`RequestCancelActivityTask`), a child (`RequestCancelExternalWorkflowExecution`) or a
    /// timer (`CancelTimer`). Its await then ends as the history says: `Err` (canceled), or
    /// as it ended anyway. A Lambda function cannot be canceled (SWF has no decision for it):
    /// for one, this does nothing.
    pub fn cancel(&mut self) {
        if let Some(slot) = self.slot {
            let _ = self.state.borrow_mut().cancel(slot, cancel_decision);
        }
    }

    /// How it ended, once it has.
    fn outcome(state: &State, slot: usize) -> Option<Outcome> {
        let outcome = state.outcome(slot)?;
        Some(outcome.clone().map_err(Error::from))
    }
}

impl Future for Command {
    type Output = Outcome;

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Outcome> {
        let slot = self.slot();
        match Command::outcome(&self.state.borrow(), slot) {
            Some(outcome) => Poll::Ready(outcome),
            None => Poll::Pending,
        }
    }
}

/// Gives `decision` an id if it names none, as the workflow core numbers them: the
/// activity's or function's type name, a timer's `timer`, a child's parent id and type name,
/// each with how many of its kind the code issued.
fn with_default_id(state: &mut State, decision: &mut Decision) {
    match decision {
        Decision::ScheduleActivityTask(a) if a.activity_id.is_empty() => {
            a.activity_id = state.default_id("ScheduleActivityTask", &a.activity_type.name);
        }
        Decision::StartTimer(a) if a.timer_id.is_empty() => {
            a.timer_id = state.default_id("StartTimer", "");
        }
        Decision::ScheduleLambdaFunction(a) if a.id.is_empty() => {
            a.id = state.default_id("ScheduleLambdaFunction", &a.name);
        }
        Decision::StartChildWorkflowExecution(a) if a.workflow_id.is_empty() => {
            let name = &a.workflow_type.name;
            a.workflow_id = state.default_id("StartChildWorkflowExecution", name);
        }
        _ => {}
    }
}

/// The decision that cancels `target`.
pub(crate) fn cancel_decision(target: weft_workflow_core::replay::Cancel<'_>) -> Decision {
    use weft_workflow_core::replay::Cancel;
    match target {
        Cancel::Timer(id) => Decision::cancel_timer(id),
        Cancel::Activity(id) => Decision::request_cancel_activity(id),
        Cancel::Child(workflow_id, run_id) => {
            let request = Decision::request_cancel_external(workflow_id);
            match run_id {
                Some(run_id) => request.run_id(run_id).into(),
                None => request.into(),
            }
        }
    }
}

/// Declares builder methods that pass their argument on to the decision builder's own.
macro_rules! forward {
    ($field:ident: $($(#[$doc:meta])* $method:ident($arg:ident: $ty:ty);)*) => {
        $(
            $(#[$doc])*
            pub fn $method(mut self, $arg: $ty) -> Self {
                self.$field = self.$field.$method($arg);
                self
            }
        )*
    };
}

/// An activity to run: set its options, then `.await` its result (`Ok(result)`, or an
/// [`Error`] if it failed, timed out, was canceled or could not be scheduled).
#[must_use = "an activity runs only when awaited"]
pub struct Activity {
    pub(crate) workflow: Workflow,
    pub(crate) decision: ScheduleActivity,
    pub(crate) id: Option<String>,
    pub(crate) retry: Option<RetryPolicy>,
}

impl Activity {
    /// Its activity id, instead of the default (its type's name and a number).
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Retries it as `policy` says, with a timer between attempts.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = Some(policy);
        self
    }

    forward! { decision:
        /// The input the worker gets.
        input(input: impl Into<String>);
        /// The task list to schedule it on, instead of the type's default.
        task_list(name: impl Into<String>);
        /// Its priority on that task list (higher first).
        task_priority(priority: i32);
        /// Seconds from scheduling to closing.
        schedule_to_close(seconds: u64);
        /// Seconds it may wait for a worker.
        schedule_to_start(seconds: u64);
        /// Seconds a worker may take.
        start_to_close(seconds: u64);
        /// Seconds allowed between two heartbeats.
        heartbeat(seconds: u64);
    }

    /// One attempt's decision: the given id, numbered after the first attempt.
    fn attempt(&self, attempt: u32) -> Decision {
        let mut decision: Decision = self.decision.clone().into();
        if let (Decision::ScheduleActivityTask(a), Some(id)) = (&mut decision, &self.id) {
            a.activity_id = match attempt {
                1 => id.clone(),
                n => format!("{id}-{n}"),
            };
        }
        decision
    }
}

impl IntoFuture for Activity {
    type Output = Outcome;
    type IntoFuture = ActivityRun;

    fn into_future(self) -> ActivityRun {
        let now = Rc::new(RefCell::new(Attempt::default()));
        let (workflow, tracked) = (self.workflow.clone(), Rc::clone(&now));
        let run = Box::pin(async move {
            let mut attempt = 1;
            loop {
                let command = Command::new(&self.workflow.state, self.attempt(attempt));
                let outcome = track(command, &tracked, false).await;
                match (&outcome, &self.retry) {
                    (Err(error), Some(policy))
                        if policy.retries(attempt, error) && !tracked.borrow().canceled =>
                    {
                        let wait = self.workflow.sleep(policy.interval(attempt)).command;
                        let _ = track(wait, &tracked, true).await;
                        attempt += 1;
                    }
                    _ => return outcome,
                }
            }
        });
        ActivityRun { run, now, workflow }
    }
}

/// What an activity's run is doing now, for a cancel to reach it.
#[derive(Default)]
struct Attempt {
    /// The slot of the attempt running, or of the wait before the next one.
    slot: Option<usize>,
    /// Whether it waits to retry.
    waiting: bool,
    canceled: bool,
}

/// `command`, awaited, its slot kept in `now` once issued.
async fn track(mut command: Command, now: &RefCell<Attempt>, waiting: bool) -> Outcome {
    std::future::poll_fn(|cx| {
        let polled = Pin::new(&mut command).poll(cx);
        let mut now = now.borrow_mut();
        (now.slot, now.waiting) = (command.slot, waiting);
        polled
    })
    .await
}

/// An activity being run (what `.await` on an [`Activity`] polls): hold it to
/// [`cancel`](ActivityRun::cancel) it while it runs, and await it again for how it ended.
#[must_use = "an activity runs only when awaited"]
pub struct ActivityRun {
    run: LocalFuture<Outcome>,
    now: Rc<RefCell<Attempt>>,
    workflow: Workflow,
}

impl ActivityRun {
    /// Asks SWF to cancel the attempt running (`RequestCancelActivityTask`); it is not
    /// retried. Its await then ends as the history says: `Err` (canceled) once the worker
    /// reports it canceled, or as it ended anyway. Canceled while it waits to retry, or before
    /// it was first awaited, it ends `Err` (canceled) at once.
    pub fn cancel(&mut self) {
        let mut now = self.now.borrow_mut();
        if std::mem::replace(&mut now.canceled, true) {
            return;
        }
        if let Some(slot) = now.slot {
            let mut state = self.workflow.state.borrow_mut();
            let _ = state.cancel(slot, cancel_decision);
        }
    }
}

impl Future for ActivityRun {
    type Output = Outcome;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let now = self.now.borrow();
        if now.canceled && (now.waiting || now.slot.is_none()) {
            return Poll::Ready(Err(Error::canceled()));
        }
        drop(now);
        self.run.as_mut().poll(cx)
    }
}

/// A timer: `.await` it (`Ok(())` once it fires), or [`cancel`](Timer::cancel) it.
#[must_use = "a timer starts only when awaited or polled"]
pub struct Timer {
    command: Command,
}

impl Timer {
    pub(crate) fn new(workflow: &Workflow, duration: Duration) -> Self {
        let seconds = duration.as_secs() + u64::from(duration.subsec_nanos() > 0);
        let decision = Decision::start_timer("", seconds).into();
        Timer {
            command: Command::new(&workflow.state, decision),
        }
    }

    /// Its timer id, instead of the default (`timer` and a number).
    pub fn id(mut self, id: impl Into<String>) -> Self {
        if let Decision::StartTimer(timer) = &mut self.command.decision {
            timer.timer_id = id.into();
        }
        self
    }

    /// Cancels it if it was started and has not fired: it then ends `Err` (canceled).
    pub fn cancel(&mut self) {
        self.command.cancel();
    }
}

impl Future for Timer {
    type Output = Result<(), Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.command)
            .poll(cx)
            .map(|outcome| outcome.map(drop))
    }
}

/// A Lambda function to run: set its options, then `.await` its result.
#[must_use = "a function runs only when awaited"]
pub struct Lambda {
    pub(crate) workflow: Workflow,
    pub(crate) decision: ScheduleLambda,
    pub(crate) id: Option<String>,
}

impl Lambda {
    /// Its id, instead of the default (the function's name and a number).
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    forward! { decision:
        /// The input the function gets.
        input(input: impl Into<String>);
        /// Seconds it may run.
        start_to_close(seconds: u64);
    }
}

impl IntoFuture for Lambda {
    type Output = Outcome;
    type IntoFuture = Command;

    fn into_future(self) -> Command {
        let mut decision: Decision = self.decision.into();
        if let (Decision::ScheduleLambdaFunction(lambda), Some(id)) = (&mut decision, self.id) {
            lambda.id = id;
        }
        Command::new(&self.workflow.state, decision)
    }
}

/// A child workflow to start: set its options, then `.await` its result, or
/// [`start`](Child::start) it and await its result later.
#[must_use = "a child starts only when awaited"]
pub struct Child {
    pub(crate) workflow: Workflow,
    pub(crate) decision: StartChild,
    pub(crate) id: Option<String>,
}

impl Child {
    /// Its workflow id, instead of the default (this run's workflow id, the child's type name
    /// and a number).
    pub fn id(mut self, workflow_id: impl Into<String>) -> Self {
        self.id = Some(workflow_id.into());
        self
    }

    /// Its decision, with the id given.
    fn decision(self) -> (Workflow, Decision) {
        let mut decision: Decision = self.decision.into();
        if let (Decision::StartChildWorkflowExecution(child), Some(id)) = (&mut decision, self.id) {
            child.workflow_id = id;
        }
        (self.workflow, decision)
    }

    forward! { decision:
        /// The input the child gets.
        input(input: impl Into<String>);
        /// The task list of its decision tasks, instead of its type's default.
        task_list(name: impl Into<String>);
        /// Its priority.
        task_priority(priority: i32);
        /// Seconds it may run.
        execution_start_to_close(seconds: u64);
        /// Seconds each of its decision tasks may take.
        task_start_to_close(seconds: u64);
        /// What happens to it when this run closes.
        child_policy(policy: ChildPolicy);
    }

    /// Starts it: ready with the started run (or why it could not start), whose
    /// [`result`](ChildRun::result) is awaited apart.
    pub fn start(self) -> LocalFuture<Result<ChildRun, Error>> {
        let (workflow, decision) = self.decision();
        let mut command = Command::new(&workflow.state, decision);
        Box::pin(std::future::poll_fn(move |_| {
            let slot = command.slot();
            let state = command.state.borrow();
            if let Some((workflow_id, run_id)) = state.child(slot) {
                let execution = WorkflowExecution {
                    workflow_id: workflow_id.to_owned(),
                    run_id: run_id.to_owned(),
                };
                let state = Rc::clone(&command.state);
                return Poll::Ready(Ok(ChildRun {
                    execution,
                    state,
                    slot,
                }));
            }
            match Command::outcome(&state, slot) {
                Some(Err(error)) => Poll::Ready(Err(error)),
                _ => Poll::Pending,
            }
        }))
    }
}

impl IntoFuture for Child {
    type Output = Outcome;
    type IntoFuture = Command;

    fn into_future(self) -> Command {
        let (workflow, decision) = self.decision();
        Command::new(&workflow.state, decision)
    }
}

/// A started child run.
pub struct ChildRun {
    execution: WorkflowExecution,
    state: Rc<RefCell<State>>,
    slot: usize,
}

impl ChildRun {
    /// The child run's workflow and run id.
    pub fn execution(&self) -> &WorkflowExecution {
        &self.execution
    }

    /// Its result, once it closes.
    pub fn result(&self) -> LocalFuture<Outcome> {
        let (state, slot) = (Rc::clone(&self.state), self.slot);
        Box::pin(std::future::poll_fn(move |_| {
            match Command::outcome(&state.borrow(), slot) {
                Some(outcome) => Poll::Ready(outcome),
                None => Poll::Pending,
            }
        }))
    }
}

/// A signal to send to another run: `.await` it (`Ok(())` once delivered).
#[must_use = "a signal is sent only when awaited"]
pub struct Signal {
    pub(crate) workflow: Workflow,
    pub(crate) decision: SignalExternal,
}

impl Signal {
    forward! { decision:
        /// Sends it to this run of the workflow only.
        run_id(run_id: impl Into<String>);
        /// The signal's input.
        input(input: impl Into<String>);
    }
}

impl IntoFuture for Signal {
    type Output = Result<(), Error>;
    type IntoFuture = LocalFuture<Result<(), Error>>;

    fn into_future(self) -> Self::IntoFuture {
        delivered(&self.workflow, self.decision.into())
    }
}

/// A request that another run cancel: `.await` it (`Ok(())` once delivered).
#[must_use = "a cancel request is sent only when awaited"]
pub struct CancelRequest {
    pub(crate) workflow: Workflow,
    pub(crate) decision: RequestCancelExternal,
}

impl CancelRequest {
    forward! { decision:
        /// Asks this run of the workflow only.
        run_id(run_id: impl Into<String>);
    }
}

impl IntoFuture for CancelRequest {
    type Output = Result<(), Error>;
    type IntoFuture = LocalFuture<Result<(), Error>>;

    fn into_future(self) -> Self::IntoFuture {
        delivered(&self.workflow, self.decision.into())
    }
}

/// `decision` (a signal or a cancel request to another run) issued, ready once delivered.
fn delivered(workflow: &Workflow, decision: Decision) -> LocalFuture<Result<(), Error>> {
    let command = Command::new(&workflow.state, decision);
    Box::pin(async move { command.await.map(drop) })
}
