//! Hand-built histories, to unit-test deciders natively (`cargo test`), without a host.
//!
//! [`HistoryBuilder`] plays SWF's part: it records the decider's decisions as the events SWF
//! would record for them (as if every decision were accepted, but for a close decision made
//! while events the decider has not seen are waiting), and the events from the outside world
//! that a test chooses: activities completing or failing, signals, timers firing, children and
//! Lambda functions closing. It schedules decision tasks as SWF does: an event from the outside
//! world schedules one unless one is scheduled already, even while another is started; the
//! next one is then handed out when the started one completes.
//!
//! ```
//! use weft_guest::testing::HistoryBuilder;
//! use weft_guest::{Decision, History};
//!
//! fn decide(history: &History) -> Result<Vec<Decision>, String> {
//!     Ok(match history.activity("greet") {
//!         None => vec![Decision::schedule_activity("greet", "Greet", "1.0").into()],
//!         Some(status) if status.is_open() => vec![],
//!         Some(status) => vec![Decision::complete(status.result().map(str::to_owned))],
//!     })
//! }
//!
//! let mut h = HistoryBuilder::new("Hello", "1.0", None);
//! let first = h.decide(decide).unwrap();
//! assert!(matches!(first[..], [Decision::ScheduleActivityTask(_)]));
//! h.activity_completed("greet", Some("hello"));
//! assert_eq!(h.decide(decide).unwrap(), vec![Decision::complete(Some("hello".into()))]);
//! ```

use crate::decisions::Decision;
use crate::events::{
    DecisionTaskCompletedEventAttributes, DecisionTaskScheduledEventAttributes,
    DecisionTaskStartedEventAttributes, EventAttributes as E, HistoryEvent,
    WorkflowExecutionStartedEventAttributes,
};
use crate::tasks::DecisionTask;
use crate::types::{ChildPolicy, TaskList, WorkflowExecution, WorkflowType};
use crate::{History, Response};

mod endings;
mod environment;
#[cfg(feature = "serde")]
mod exported;
mod outcomes;
mod record;

pub use environment::{Environment, Finished};

#[cfg(feature = "serde")]
pub use exported::Recorded;

use record::is_close;

/// The task list recorded where a decision names none (SWF would take the type's default).
const DEFAULT_TASK_LIST: &str = "default";

/// Builds a workflow execution's history event by event, and the decision tasks over it.
///
/// Methods that record an outcome (`activity_completed`, `child_failed`, ...) find the latest
/// activity, child or function with that id, record its start first if it has none, and panic if
/// there is none: that is a mistake in the test.
///
/// An outcome recorded between [`decision_task`](Self::decision_task) and
/// [`respond`](Self::respond) arrives while the decider works, as in SWF: the next
/// `DecisionTaskScheduled` follows it at once, and a close decision in that response fails
/// with `UNHANDLED_DECISION`.
///
/// ```
/// use weft_guest::testing::HistoryBuilder;
/// use weft_guest::Decision;
/// use weft_guest::events::EventAttributes;
///
/// let mut h = HistoryBuilder::new("Order", "1.0", None);
/// let _seen = h.decision_task();
/// h.signal("cancel", None);
/// h.respond(&[Decision::complete(None)]);
/// assert!(matches!(
///     h.events().last().map(|e| &e.attributes),
///     Some(EventAttributes::CompleteWorkflowExecutionFailed(_))
/// ));
/// // The next decision task, scheduled right after the signal, has it.
/// assert_eq!(h.decision_task().new_signals().count(), 1);
/// ```
///
/// ```
/// use weft_guest::testing::HistoryBuilder;
/// use weft_guest::{Decision, Status};
///
/// let mut h = HistoryBuilder::new("Order", "1.0", Some(r#"{"card":"4111"}"#));
/// h.respond(&[Decision::schedule_activity("verify", "VerifyOrder", "1.0").into()]);
/// h.activity_completed("verify", Some("ok")).signal("cancel", None);
///
/// let history = h.decision_task();
/// assert_eq!(history.activity("verify"), Some(Status::Completed(Some("ok"))));
/// assert_eq!(history.new_signals().count(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct HistoryBuilder {
    execution: WorkflowExecution,
    workflow_type: WorkflowType,
    events: Vec<HistoryEvent>,
    /// The decision task scheduled and not yet started: its `DecisionTaskScheduled` event.
    scheduled_task: Option<u64>,
    /// The decision task started: its `DecisionTaskScheduled` and `DecisionTaskStarted` events.
    started_task: Option<(u64, u64)>,
    /// The `DecisionTaskStarted` event of the latest completed decision task, 0 if none.
    previous_started: u64,
    clock: f64,
}

impl HistoryBuilder {
    /// A history that starts the execution `workflow-1`/`run-1` of the workflow type
    /// `name`/`version` with this input: `WorkflowExecutionStarted`, then
    /// `DecisionTaskScheduled`.
    ///
    /// ```
    /// let h = weft_guest::testing::HistoryBuilder::new("Order", "1.0", Some("{}"));
    /// assert_eq!(h.events().len(), 2);
    /// ```
    pub fn new(name: &str, version: &str, input: Option<&str>) -> Self {
        let workflow_type = WorkflowType {
            name: name.into(),
            version: version.into(),
        };
        let mut builder = HistoryBuilder {
            execution: WorkflowExecution {
                workflow_id: "workflow-1".into(),
                run_id: "run-1".into(),
            },
            workflow_type: workflow_type.clone(),
            events: Vec::new(),
            scheduled_task: None,
            started_task: None,
            previous_started: 0,
            clock: 1_700_000_000.0,
        };
        builder.event(E::WorkflowExecutionStarted(
            WorkflowExecutionStartedEventAttributes {
                input: input.map(Into::into),
                execution_start_to_close_timeout: Some("3600".into()),
                task_start_to_close_timeout: Some("30".into()),
                child_policy: ChildPolicy::Terminate,
                task_list: TaskList {
                    name: DEFAULT_TASK_LIST.into(),
                },
                task_priority: None,
                workflow_type,
                tag_list: None,
                continued_execution_run_id: None,
                parent_workflow_execution: None,
                parent_initiated_event_id: None,
                lambda_role: None,
            },
        ));
        builder.schedule_decision_task();
        builder
    }

    /// Names the execution `workflow_id`/`run_id` instead of `workflow-1`/`run-1`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.execution("order-17", "r1");
    /// assert_eq!(h.decision_task().workflow_execution().workflow_id, "order-17");
    /// ```
    pub fn execution(&mut self, workflow_id: &str, run_id: &str) -> &mut Self {
        self.execution = WorkflowExecution {
            workflow_id: workflow_id.into(),
            run_id: run_id.into(),
        };
        self
    }

    /// Changes the `WorkflowExecutionStarted` event, e.g. to give a Lambda role or a parent.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// let mut h = HistoryBuilder::new("Quote", "1.0", None);
    /// h.started_with(|started| started.lambda_role = Some("weft".into()));
    /// assert_eq!(h.decision_task().started().unwrap().lambda_role.as_deref(), Some("weft"));
    /// ```
    pub fn started_with(
        &mut self,
        change: impl FnOnce(&mut WorkflowExecutionStartedEventAttributes),
    ) -> &mut Self {
        if let Some(E::WorkflowExecutionStarted(started)) =
            self.events.first_mut().map(|e| &mut e.attributes)
        {
            change(started);
        }
        self
    }

    /// Lets `seconds` pass before the next event (events are otherwise one second apart).
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.advance(60.0).signal("cancel", None);
    /// ```
    pub fn advance(&mut self, seconds: f64) -> &mut Self {
        self.clock += seconds;
        self
    }

    /// The events so far.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// let h = HistoryBuilder::new("Order", "1.0", None);
    /// assert_eq!(h.events()[0].event_id, 1);
    /// ```
    pub fn events(&self) -> &[HistoryEvent] {
        &self.events
    }

    /// Appends an event and answers its id.
    ///
    /// ```
    /// use weft_guest::events::{EventAttributes, WorkflowExecutionCancelRequestedEventAttributes};
    /// # use weft_guest::testing::HistoryBuilder;
    ///
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// let id = h.event(EventAttributes::WorkflowExecutionCancelRequested(
    ///     WorkflowExecutionCancelRequestedEventAttributes {
    ///         external_workflow_execution: None,
    ///         external_initiated_event_id: None,
    ///         cause: None,
    ///     },
    /// ));
    /// assert_eq!(id, 3);
    /// ```
    pub fn event(&mut self, attributes: E) -> u64 {
        let event_id = self.events.len() as u64 + 1;
        self.clock += 1.0;
        self.events.push(HistoryEvent {
            event_id,
            event_timestamp: self.clock,
            attributes,
        });
        event_id
    }

    /// The decision task a decider would get now: the started one, or else the scheduled one
    /// (scheduling one if none is), started. Once the execution is closed, its history as it
    /// ends.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// let history = h.decision_task();
    /// assert_eq!(history.task().started_event_id, 3);
    /// ```
    pub fn decision_task(&mut self) -> History {
        // A closed execution gets no more tasks: its history as it ends, to query.
        let started = if self.closed() && self.started_task.is_none() {
            self.previous_started
        } else {
            self.start_decision_task()
        };
        History::new(DecisionTask {
            workflow_execution: self.execution.clone(),
            workflow_type: self.workflow_type.clone(),
            events: self.events.clone(),
            previous_started_event_id: self.previous_started,
            started_event_id: started,
        })
    }

    /// Completes the open decision task (starting one first if needed) with these decisions:
    /// `DecisionTaskCompleted`, then the events SWF records for each decision.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// use weft_guest::{Decision, Timer};
    ///
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::start_timer("window", 30).into()]);
    /// assert!(matches!(h.decision_task().timer("window"), Some(Timer::Started { .. })));
    /// ```
    pub fn respond(&mut self, decisions: &[Decision]) -> &mut Self {
        let started = self.start_decision_task();
        let Some((scheduled, _)) = self.started_task.take() else {
            unreachable!("start_decision_task leaves a task started")
        };
        // A task scheduled while this one was started: its events are unhandled.
        let unhandled = self.scheduled_task.is_some();
        let completed = self.event(E::DecisionTaskCompleted(
            DecisionTaskCompletedEventAttributes {
                execution_context: None,
                scheduled_event_id: scheduled,
                started_event_id: started,
                task_list: None,
                task_list_schedule_to_start_timeout: None,
            },
        ));
        self.previous_started = started;
        for decision in decisions {
            if unhandled && is_close(decision) {
                self.close_failed(decision, completed);
            } else {
                self.record(decision, completed);
            }
        }
        self
    }

    /// Runs a decider on the decision task it would get now, records its decisions with
    /// [`respond`](Self::respond), and answers them.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// use weft_guest::{Decision, History};
    ///
    /// let mut h = HistoryBuilder::new("Order", "1.0", Some("x"));
    /// let decisions = h.decide(|history: &History| -> Result<_, String> {
    ///     Ok(vec![Decision::complete(history.input().map(str::to_owned))])
    /// });
    /// assert_eq!(decisions, Ok(vec![Decision::complete(Some("x".into()))]));
    /// ```
    pub fn decide<R, Err>(
        &mut self,
        decider: impl FnOnce(&History) -> Result<R, Err>,
    ) -> Result<Vec<Decision>, Err>
    where
        R: Into<Response>,
    {
        let history = self.decision_task();
        let decisions = decider(&history)?.into().decisions;
        self.respond(&decisions);
        Ok(decisions)
    }

    /// Schedules a decision task unless one is scheduled and not yet started: after an event
    /// the decider must hear about.
    fn schedule_decision_task(&mut self) {
        if self.scheduled_task.is_none() && !self.closed() {
            let scheduled = self.event(E::DecisionTaskScheduled(
                DecisionTaskScheduledEventAttributes {
                    task_list: TaskList {
                        name: DEFAULT_TASK_LIST.into(),
                    },
                    task_priority: None,
                    start_to_close_timeout: Some("30".into()),
                    schedule_to_start_timeout: None,
                },
            ));
            self.scheduled_task = Some(scheduled);
        }
    }

    /// Starts the scheduled decision task (scheduling one first if none is) unless one is
    /// started already; answers the started task's `DecisionTaskStarted` event.
    fn start_decision_task(&mut self) -> u64 {
        if let Some((_, started)) = self.started_task {
            return started;
        }
        if self.scheduled_task.is_none() {
            self.schedule_decision_task();
        }
        let Some(scheduled) = self.scheduled_task.take() else {
            panic!("the execution is closed: it gets no more decision tasks")
        };
        let started = self.event(E::DecisionTaskStarted(DecisionTaskStartedEventAttributes {
            identity: Some("test".into()),
            scheduled_event_id: scheduled,
        }));
        self.started_task = Some((scheduled, started));
        started
    }

    /// Whether a decision closed the execution.
    fn closed(&self) -> bool {
        self.events.iter().any(|e| {
            matches!(
                e.attributes,
                E::WorkflowExecutionCompleted(_)
                    | E::WorkflowExecutionFailed(_)
                    | E::WorkflowExecutionCanceled(_)
                    | E::WorkflowExecutionContinuedAsNew(_)
            )
        })
    }
}
