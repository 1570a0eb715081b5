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
    ActivityTaskCancelRequestedEventAttributes, ActivityTaskCanceledEventAttributes,
    ActivityTaskCompletedEventAttributes, ActivityTaskFailedEventAttributes,
    ActivityTaskScheduledEventAttributes, ActivityTaskStartedEventAttributes,
    ActivityTaskTimedOutEventAttributes, CancelWorkflowExecutionFailedEventAttributes,
    ChildWorkflowExecutionCompletedEventAttributes, ChildWorkflowExecutionFailedEventAttributes,
    ChildWorkflowExecutionStartedEventAttributes, CompleteWorkflowExecutionFailedEventAttributes,
    ContinueAsNewWorkflowExecutionFailedEventAttributes, DecisionTaskCompletedEventAttributes,
    DecisionTaskScheduledEventAttributes, DecisionTaskStartedEventAttributes, EventAttributes as E,
    FailWorkflowExecutionFailedEventAttributes, HistoryEvent,
    LambdaFunctionCompletedEventAttributes, LambdaFunctionFailedEventAttributes,
    LambdaFunctionScheduledEventAttributes, LambdaFunctionStartedEventAttributes,
    MarkerRecordedEventAttributes, RequestCancelExternalWorkflowExecutionInitiatedEventAttributes,
    SignalExternalWorkflowExecutionInitiatedEventAttributes,
    StartChildWorkflowExecutionInitiatedEventAttributes, TimerCanceledEventAttributes,
    TimerFiredEventAttributes, TimerStartedEventAttributes,
    WorkflowExecutionCancelRequestedEventAttributes, WorkflowExecutionCanceledEventAttributes,
    WorkflowExecutionCompletedEventAttributes, WorkflowExecutionContinuedAsNewEventAttributes,
    WorkflowExecutionFailedEventAttributes, WorkflowExecutionSignaledEventAttributes,
    WorkflowExecutionStartedEventAttributes,
};
use crate::tasks::DecisionTask;
use crate::types::{
    ActivityTaskTimeoutType, CancelWorkflowExecutionFailedCause, ChildPolicy,
    CompleteWorkflowExecutionFailedCause, ContinueAsNewWorkflowExecutionFailedCause,
    FailWorkflowExecutionFailedCause, TaskList, WorkflowExecution, WorkflowType,
};
use crate::{History, Response};

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

    /// `ActivityTaskStarted` for the activity `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::schedule_activity("ship", "Ship", "1.0").into()]);
    /// h.activity_started("ship");
    /// assert_eq!(h.decision_task().activity("ship"), Some(Status::Started));
    /// ```
    pub fn activity_started(&mut self, id: &str) -> &mut Self {
        let scheduled = self.activity_scheduled(id);
        self.event(E::ActivityTaskStarted(ActivityTaskStartedEventAttributes {
            identity: Some("test".into()),
            scheduled_event_id: scheduled,
        }));
        self
    }

    /// `ActivityTaskCompleted` for the activity `id`, with this result.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::schedule_activity("ship", "Ship", "1.0").into()]);
    /// h.activity_completed("ship", Some("T1"));
    /// assert_eq!(h.decision_task().activity("ship"), Some(Status::Completed(Some("T1"))));
    /// ```
    pub fn activity_completed(&mut self, id: &str, result: Option<&str>) -> &mut Self {
        let (scheduled, started) = self.activity_running(id);
        self.event(E::ActivityTaskCompleted(
            ActivityTaskCompletedEventAttributes {
                result: result.map(Into::into),
                scheduled_event_id: scheduled,
                started_event_id: started,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `ActivityTaskFailed` for the activity `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::schedule_activity("charge", "Charge", "1.0").into()]);
    /// h.activity_failed("charge", Some("card declined"), None);
    /// assert!(matches!(h.decision_task().activity("charge"), Some(Status::Failed { .. })));
    /// ```
    pub fn activity_failed(
        &mut self,
        id: &str,
        reason: Option<&str>,
        details: Option<&str>,
    ) -> &mut Self {
        let (scheduled, started) = self.activity_running(id);
        self.event(E::ActivityTaskFailed(ActivityTaskFailedEventAttributes {
            reason: reason.map(Into::into),
            details: details.map(Into::into),
            scheduled_event_id: scheduled,
            started_event_id: started,
        }));
        self.schedule_decision_task();
        self
    }

    /// `ActivityTaskTimedOut` for the activity `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// use weft_guest::types::ActivityTaskTimeoutType;
    ///
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::schedule_activity("ship", "Ship", "1.0").into()]);
    /// h.activity_timed_out("ship", ActivityTaskTimeoutType::Heartbeat);
    /// assert_eq!(h.decision_task().activity("ship"), Some(Status::TimedOut("HEARTBEAT")));
    /// ```
    pub fn activity_timed_out(&mut self, id: &str, timeout: ActivityTaskTimeoutType) -> &mut Self {
        let (scheduled, started) = self.activity_running(id);
        self.event(E::ActivityTaskTimedOut(
            ActivityTaskTimedOutEventAttributes {
                timeout_type: timeout,
                scheduled_event_id: scheduled,
                started_event_id: started,
                details: None,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `ActivityTaskCanceled` for the activity `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::schedule_activity("ship", "Ship", "1.0").into()]);
    /// h.respond(&[Decision::request_cancel_activity("ship")]);
    /// h.activity_canceled("ship", Some("stopped"));
    /// assert_eq!(h.decision_task().activity("ship"), Some(Status::Canceled(Some("stopped"))));
    /// ```
    pub fn activity_canceled(&mut self, id: &str, details: Option<&str>) -> &mut Self {
        let (scheduled, started) = self.activity_running(id);
        let requested = self.events.iter().rev().find_map(|e| match &e.attributes {
            E::ActivityTaskCancelRequested(a) if a.activity_id == id => Some(e.event_id),
            _ => None,
        });
        self.event(E::ActivityTaskCanceled(
            ActivityTaskCanceledEventAttributes {
                details: details.map(Into::into),
                scheduled_event_id: scheduled,
                started_event_id: started,
                latest_cancel_requested_event_id: requested,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `WorkflowExecutionSignaled`: the signal `name` with this input.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.signal("cancel", Some("changed my mind"));
    /// assert_eq!(h.decision_task().signals().next().unwrap().input, Some("changed my mind"));
    /// ```
    pub fn signal(&mut self, name: &str, input: Option<&str>) -> &mut Self {
        self.event(E::WorkflowExecutionSignaled(
            WorkflowExecutionSignaledEventAttributes {
                signal_name: name.into(),
                input: input.map(Into::into),
                external_workflow_execution: None,
                external_initiated_event_id: None,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `WorkflowExecutionCancelRequested`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.cancel_requested();
    /// assert!(h.decision_task().cancel_requested());
    /// ```
    pub fn cancel_requested(&mut self) -> &mut Self {
        self.event(E::WorkflowExecutionCancelRequested(
            WorkflowExecutionCancelRequestedEventAttributes {
                external_workflow_execution: None,
                external_initiated_event_id: None,
                cause: None,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `TimerFired` for the latest timer `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Timer};
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::start_timer("window", 30).into()]);
    /// h.timer_fired("window");
    /// assert!(matches!(h.decision_task().timer("window"), Some(Timer::Fired { .. })));
    /// ```
    pub fn timer_fired(&mut self, id: &str) -> &mut Self {
        let started = self.timer_started(id);
        self.event(E::TimerFired(TimerFiredEventAttributes {
            timer_id: id.into(),
            started_event_id: started,
        }));
        self.schedule_decision_task();
        self
    }

    /// `ChildWorkflowExecutionStarted` for the child `workflow_id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Quote", "1.0", None);
    /// h.respond(&[Decision::start_child("item-0", "PriceItem", "1.0").into()]);
    /// h.child_started("item-0");
    /// assert_eq!(h.decision_task().child("item-0"), Some(Status::Started));
    /// ```
    pub fn child_started(&mut self, workflow_id: &str) -> &mut Self {
        let initiated = self.child_initiated(workflow_id);
        let workflow_type = self.child_type(initiated);
        self.event(E::ChildWorkflowExecutionStarted(
            ChildWorkflowExecutionStartedEventAttributes {
                workflow_execution: child_execution(workflow_id, initiated),
                workflow_type,
                initiated_event_id: initiated,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `ChildWorkflowExecutionCompleted` for the child `workflow_id`, with this result.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Quote", "1.0", None);
    /// h.respond(&[Decision::start_child("item-0", "PriceItem", "1.0").into()]);
    /// h.child_completed("item-0", Some("150"));
    /// assert_eq!(h.decision_task().child("item-0"), Some(Status::Completed(Some("150"))));
    /// ```
    pub fn child_completed(&mut self, workflow_id: &str, result: Option<&str>) -> &mut Self {
        let (initiated, started) = self.child_running(workflow_id);
        let workflow_type = self.child_type(initiated);
        self.event(E::ChildWorkflowExecutionCompleted(
            ChildWorkflowExecutionCompletedEventAttributes {
                workflow_execution: child_execution(workflow_id, initiated),
                workflow_type,
                result: result.map(Into::into),
                initiated_event_id: initiated,
                started_event_id: started,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `ChildWorkflowExecutionFailed` for the child `workflow_id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Quote", "1.0", None);
    /// h.respond(&[Decision::start_child("item-0", "PriceItem", "1.0").into()]);
    /// h.child_failed("item-0", Some("unknown sku"), None);
    /// assert!(matches!(h.decision_task().child("item-0"), Some(Status::Failed { .. })));
    /// ```
    pub fn child_failed(
        &mut self,
        workflow_id: &str,
        reason: Option<&str>,
        details: Option<&str>,
    ) -> &mut Self {
        let (initiated, started) = self.child_running(workflow_id);
        let workflow_type = self.child_type(initiated);
        self.event(E::ChildWorkflowExecutionFailed(
            ChildWorkflowExecutionFailedEventAttributes {
                workflow_execution: child_execution(workflow_id, initiated),
                workflow_type,
                reason: reason.map(Into::into),
                details: details.map(Into::into),
                initiated_event_id: initiated,
                started_event_id: started,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `LambdaFunctionStarted` for the function `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("PriceItem", "1.0", None);
    /// h.respond(&[Decision::schedule_lambda("price", "price").into()]);
    /// h.lambda_started("price");
    /// assert_eq!(h.decision_task().lambda("price"), Some(Status::Started));
    /// ```
    pub fn lambda_started(&mut self, id: &str) -> &mut Self {
        let scheduled = self.lambda_scheduled(id);
        self.event(E::LambdaFunctionStarted(
            LambdaFunctionStartedEventAttributes {
                scheduled_event_id: scheduled,
            },
        ));
        self
    }

    /// `LambdaFunctionCompleted` for the function `id`, with this result.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("PriceItem", "1.0", None);
    /// h.respond(&[Decision::schedule_lambda("price", "price").into()]);
    /// h.lambda_completed("price", Some("150"));
    /// assert_eq!(h.decision_task().lambda("price"), Some(Status::Completed(Some("150"))));
    /// ```
    pub fn lambda_completed(&mut self, id: &str, result: Option<&str>) -> &mut Self {
        let (scheduled, started) = self.lambda_running(id);
        self.event(E::LambdaFunctionCompleted(
            LambdaFunctionCompletedEventAttributes {
                scheduled_event_id: scheduled,
                started_event_id: started,
                result: result.map(Into::into),
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `LambdaFunctionFailed` for the function `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("PriceItem", "1.0", None);
    /// h.respond(&[Decision::schedule_lambda("price", "price").into()]);
    /// h.lambda_failed("price", Some("unknown sku"), None);
    /// assert!(matches!(h.decision_task().lambda("price"), Some(Status::Failed { .. })));
    /// ```
    pub fn lambda_failed(
        &mut self,
        id: &str,
        reason: Option<&str>,
        details: Option<&str>,
    ) -> &mut Self {
        let (scheduled, started) = self.lambda_running(id);
        self.event(E::LambdaFunctionFailed(
            LambdaFunctionFailedEventAttributes {
                scheduled_event_id: scheduled,
                started_event_id: started,
                reason: reason.map(Into::into),
                details: details.map(Into::into),
            },
        ));
        self.schedule_decision_task();
        self
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

    /// Records the failure SWF records for a close decision made while a decision task was
    /// scheduled after the decider's own: `UNHANDLED_DECISION`.
    fn close_failed(&mut self, decision: &Decision, completed: u64) {
        let attributes = match decision {
            Decision::CompleteWorkflowExecution(_) => {
                E::CompleteWorkflowExecutionFailed(CompleteWorkflowExecutionFailedEventAttributes {
                    cause: CompleteWorkflowExecutionFailedCause::UnhandledDecision,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::FailWorkflowExecution(_) => {
                E::FailWorkflowExecutionFailed(FailWorkflowExecutionFailedEventAttributes {
                    cause: FailWorkflowExecutionFailedCause::UnhandledDecision,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::CancelWorkflowExecution(_) => {
                E::CancelWorkflowExecutionFailed(CancelWorkflowExecutionFailedEventAttributes {
                    cause: CancelWorkflowExecutionFailedCause::UnhandledDecision,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::ContinueAsNewWorkflowExecution(_) => E::ContinueAsNewWorkflowExecutionFailed(
                ContinueAsNewWorkflowExecutionFailedEventAttributes {
                    cause: ContinueAsNewWorkflowExecutionFailedCause::UnhandledDecision,
                    decision_task_completed_event_id: completed,
                },
            ),
            _ => unreachable!("only close decisions fail as unhandled"),
        };
        self.event(attributes);
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

    /// Records the event(s) SWF records for an accepted decision.
    fn record(&mut self, decision: &Decision, completed: u64) {
        let attributes = match decision.clone() {
            Decision::ScheduleActivityTask(d) => {
                E::ActivityTaskScheduled(ActivityTaskScheduledEventAttributes {
                    activity_type: d.activity_type,
                    activity_id: d.activity_id,
                    input: d.input,
                    control: d.control,
                    schedule_to_start_timeout: d.schedule_to_start_timeout,
                    schedule_to_close_timeout: d.schedule_to_close_timeout,
                    start_to_close_timeout: d.start_to_close_timeout,
                    task_list: task_list_or_default(d.task_list),
                    task_priority: d.task_priority,
                    decision_task_completed_event_id: completed,
                    heartbeat_timeout: d.heartbeat_timeout,
                })
            }
            Decision::RequestCancelActivityTask(d) => {
                E::ActivityTaskCancelRequested(ActivityTaskCancelRequestedEventAttributes {
                    decision_task_completed_event_id: completed,
                    activity_id: d.activity_id,
                })
            }
            Decision::CompleteWorkflowExecution(d) => {
                E::WorkflowExecutionCompleted(WorkflowExecutionCompletedEventAttributes {
                    result: d.result,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::FailWorkflowExecution(d) => {
                E::WorkflowExecutionFailed(WorkflowExecutionFailedEventAttributes {
                    reason: d.reason,
                    details: d.details,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::CancelWorkflowExecution(d) => {
                E::WorkflowExecutionCanceled(WorkflowExecutionCanceledEventAttributes {
                    details: d.details,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::ContinueAsNewWorkflowExecution(d) => {
                let workflow_type = WorkflowType {
                    name: self.workflow_type.name.clone(),
                    version: d
                        .workflow_type_version
                        .unwrap_or_else(|| self.workflow_type.version.clone()),
                };
                E::WorkflowExecutionContinuedAsNew(WorkflowExecutionContinuedAsNewEventAttributes {
                    input: d.input,
                    decision_task_completed_event_id: completed,
                    new_execution_run_id: format!("{}-next", self.execution.run_id),
                    execution_start_to_close_timeout: d.execution_start_to_close_timeout,
                    task_list: task_list_or_default(d.task_list),
                    task_priority: d.task_priority,
                    task_start_to_close_timeout: d.task_start_to_close_timeout,
                    child_policy: d.child_policy.unwrap_or(ChildPolicy::Terminate),
                    tag_list: d.tag_list,
                    workflow_type,
                    lambda_role: d.lambda_role,
                })
            }
            Decision::RecordMarker(d) => E::MarkerRecorded(MarkerRecordedEventAttributes {
                marker_name: d.marker_name,
                details: d.details,
                decision_task_completed_event_id: completed,
            }),
            Decision::StartTimer(d) => E::TimerStarted(TimerStartedEventAttributes {
                timer_id: d.timer_id,
                control: d.control,
                start_to_fire_timeout: d.start_to_fire_timeout,
                decision_task_completed_event_id: completed,
            }),
            Decision::CancelTimer(d) => {
                let started = self.timer_started(&d.timer_id);
                E::TimerCanceled(TimerCanceledEventAttributes {
                    timer_id: d.timer_id,
                    started_event_id: started,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::SignalExternalWorkflowExecution(d) => {
                E::SignalExternalWorkflowExecutionInitiated(
                    SignalExternalWorkflowExecutionInitiatedEventAttributes {
                        workflow_id: d.workflow_id,
                        run_id: d.run_id,
                        signal_name: d.signal_name,
                        input: d.input,
                        decision_task_completed_event_id: completed,
                        control: d.control,
                    },
                )
            }
            Decision::RequestCancelExternalWorkflowExecution(d) => {
                E::RequestCancelExternalWorkflowExecutionInitiated(
                    RequestCancelExternalWorkflowExecutionInitiatedEventAttributes {
                        workflow_id: d.workflow_id,
                        run_id: d.run_id,
                        decision_task_completed_event_id: completed,
                        control: d.control,
                    },
                )
            }
            Decision::StartChildWorkflowExecution(d) => E::StartChildWorkflowExecutionInitiated(
                StartChildWorkflowExecutionInitiatedEventAttributes {
                    workflow_id: d.workflow_id,
                    workflow_type: d.workflow_type,
                    control: d.control,
                    input: d.input,
                    execution_start_to_close_timeout: d.execution_start_to_close_timeout,
                    task_list: task_list_or_default(d.task_list),
                    task_priority: d.task_priority,
                    decision_task_completed_event_id: completed,
                    child_policy: d.child_policy.unwrap_or(ChildPolicy::Terminate),
                    task_start_to_close_timeout: d.task_start_to_close_timeout,
                    tag_list: d.tag_list,
                    lambda_role: d.lambda_role,
                },
            ),
            Decision::ScheduleLambdaFunction(d) => {
                E::LambdaFunctionScheduled(LambdaFunctionScheduledEventAttributes {
                    id: d.id,
                    name: d.name,
                    control: d.control,
                    input: d.input,
                    start_to_close_timeout: d.start_to_close_timeout,
                    decision_task_completed_event_id: completed,
                })
            }
        };
        self.event(attributes);
    }

    /// The latest event matching `pick`, or a panic naming `what`.
    fn latest(&self, what: &str, pick: impl Fn(&E) -> bool) -> u64 {
        self.events
            .iter()
            .rev()
            .find(|e| pick(&e.attributes))
            .map(|e| e.event_id)
            .unwrap_or_else(|| panic!("the history has no {what}"))
    }

    /// The first event after `after` matching `pick`, if any.
    fn following(&self, after: u64, pick: impl Fn(&E) -> bool) -> Option<u64> {
        self.events
            .iter()
            .filter(|e| e.event_id > after)
            .find(|e| pick(&e.attributes))
            .map(|e| e.event_id)
    }

    fn activity_scheduled(&self, id: &str) -> u64 {
        self.latest(
            &format!("activity {id:?}"),
            |a| matches!(a, E::ActivityTaskScheduled(a) if a.activity_id == id),
        )
    }

    /// The activity's scheduled and started events, recording its start if needed.
    fn activity_running(&mut self, id: &str) -> (u64, u64) {
        let scheduled = self.activity_scheduled(id);
        let started = self.following(
            scheduled,
            |a| matches!(a, E::ActivityTaskStarted(a) if a.scheduled_event_id == scheduled),
        );
        let started = started.unwrap_or_else(|| {
            self.event(E::ActivityTaskStarted(ActivityTaskStartedEventAttributes {
                identity: Some("test".into()),
                scheduled_event_id: scheduled,
            }))
        });
        (scheduled, started)
    }

    fn timer_started(&self, id: &str) -> u64 {
        self.latest(
            &format!("timer {id:?}"),
            |a| matches!(a, E::TimerStarted(a) if a.timer_id == id),
        )
    }

    fn child_initiated(&self, workflow_id: &str) -> u64 {
        self.latest(&format!("child {workflow_id:?}"), |a| {
            matches!(a, E::StartChildWorkflowExecutionInitiated(a) if a.workflow_id == workflow_id)
        })
    }

    fn child_type(&self, initiated: u64) -> WorkflowType {
        match &self.events[initiated as usize - 1].attributes {
            E::StartChildWorkflowExecutionInitiated(a) => a.workflow_type.clone(),
            _ => unreachable!("child_initiated answers an initiated event"),
        }
    }

    /// The child's initiated and started events, recording its start if needed.
    fn child_running(&mut self, workflow_id: &str) -> (u64, u64) {
        let initiated = self.child_initiated(workflow_id);
        let started = self.following(initiated, |a| {
            matches!(a, E::ChildWorkflowExecutionStarted(a) if a.initiated_event_id == initiated)
        });
        let started = started.unwrap_or_else(|| {
            let workflow_type = self.child_type(initiated);
            self.event(E::ChildWorkflowExecutionStarted(
                ChildWorkflowExecutionStartedEventAttributes {
                    workflow_execution: child_execution(workflow_id, initiated),
                    workflow_type,
                    initiated_event_id: initiated,
                },
            ))
        });
        (initiated, started)
    }

    fn lambda_scheduled(&self, id: &str) -> u64 {
        self.latest(
            &format!("Lambda function {id:?}"),
            |a| matches!(a, E::LambdaFunctionScheduled(a) if a.id == id),
        )
    }

    /// The function's scheduled and started events, recording its start if needed.
    fn lambda_running(&mut self, id: &str) -> (u64, u64) {
        let scheduled = self.lambda_scheduled(id);
        let started = self.following(
            scheduled,
            |a| matches!(a, E::LambdaFunctionStarted(a) if a.scheduled_event_id == scheduled),
        );
        let started = started.unwrap_or_else(|| {
            self.event(E::LambdaFunctionStarted(
                LambdaFunctionStartedEventAttributes {
                    scheduled_event_id: scheduled,
                },
            ))
        });
        (scheduled, started)
    }
}

/// Whether `decision` closes the execution.
fn is_close(decision: &Decision) -> bool {
    matches!(
        decision,
        Decision::CompleteWorkflowExecution(_)
            | Decision::FailWorkflowExecution(_)
            | Decision::CancelWorkflowExecution(_)
            | Decision::ContinueAsNewWorkflowExecution(_)
    )
}

fn task_list_or_default(task_list: Option<TaskList>) -> TaskList {
    task_list.unwrap_or_else(|| TaskList {
        name: DEFAULT_TASK_LIST.into(),
    })
}

fn child_execution(workflow_id: &str, initiated: u64) -> WorkflowExecution {
    WorkflowExecution {
        workflow_id: workflow_id.into(),
        run_id: format!("child-run-{initiated}"),
    }
}
