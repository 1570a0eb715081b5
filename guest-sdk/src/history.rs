//! A typed view over a decision task's history, with the queries a decider needs.

use crate::events::{EventAttributes as E, HistoryEvent, WorkflowExecutionStartedEventAttributes};
use crate::status::{Marker, Signal, Status, Timer};
use crate::tasks::DecisionTask;
use crate::types::{
    ActivityTaskTimeoutType, LambdaFunctionTimeoutType,
    RequestCancelExternalWorkflowExecutionFailedCause, ScheduleActivityTaskFailedCause,
    ScheduleLambdaFunctionFailedCause, SignalExternalWorkflowExecutionFailedCause,
    StartChildWorkflowExecutionFailedCause, StartLambdaFunctionFailedCause, StartTimerFailedCause,
    WorkflowExecution, WorkflowExecutionTimeoutType, WorkflowType,
};

/// A decision task, with queries over its execution's history.
///
/// The history is the whole history so far, oldest first, ending with this task's
/// `DecisionTaskStarted` event. Queries about one activity, child, function or timer follow the
/// latest one with that id (an id may be reused once its previous holder has closed).
///
/// ```
/// use weft_guest::testing::HistoryBuilder;
/// use weft_guest::Status;
///
/// let mut builder = HistoryBuilder::new("Order", "1.0", Some("{}"));
/// builder.respond(&[weft_guest::Decision::schedule_activity("verify", "Verify", "1.0").into()]);
/// builder.activity_completed("verify", Some("ok"));
/// let history = builder.decision_task();
///
/// assert_eq!(history.input(), Some("{}"));
/// assert_eq!(history.activity("verify"), Some(Status::Completed(Some("ok"))));
/// assert_eq!(history.activity("ship"), None);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct History {
    task: DecisionTask,
}

impl History {
    /// The view over this decision task.
    ///
    /// ```
    /// # let task = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task().into_task();
    /// let history = weft_guest::History::new(task);
    /// # assert!(history.is_first_decision());
    /// ```
    pub fn new(task: DecisionTask) -> Self {
        History { task }
    }

    /// The decision task itself.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// let started = history.task().started_event_id;
    /// # assert_eq!(started, 3);
    /// ```
    pub fn task(&self) -> &DecisionTask {
        &self.task
    }

    /// The decision task, given back.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// let task = history.into_task();
    /// # assert_eq!(task.events.len(), 3);
    /// ```
    pub fn into_task(self) -> DecisionTask {
        self.task
    }

    /// The execution's workflow type.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// assert_eq!(history.workflow_type().name, "Order");
    /// ```
    pub fn workflow_type(&self) -> &WorkflowType {
        &self.task.workflow_type
    }

    /// The execution: its workflow id and run id.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// let child_id = format!("{}-child", history.workflow_execution().workflow_id);
    /// ```
    pub fn workflow_execution(&self) -> &WorkflowExecution {
        &self.task.workflow_execution
    }

    /// Every event so far, oldest first.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// assert_eq!(history.events().first().map(|e| e.event_id), Some(1));
    /// ```
    pub fn events(&self) -> &[HistoryEvent] {
        &self.task.events
    }

    /// The events since the previous decision task this decider completed (all of them on the
    /// first decision task).
    ///
    /// ```
    /// use weft_guest::events::EventAttributes;
    ///
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// let woken_by_a_signal = history
    ///     .new_events()
    ///     .iter()
    ///     .any(|e| matches!(e.attributes, EventAttributes::WorkflowExecutionSignaled(_)));
    /// # assert!(!woken_by_a_signal);
    /// ```
    pub fn new_events(&self) -> &[HistoryEvent] {
        let previous = self.task.previous_started_event_id;
        let first_new = self.task.events.partition_point(|e| e.event_id <= previous);
        &self.task.events[first_new..]
    }

    /// Whether `event_id` is one of the [new events](Self::new_events).
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// assert!(history.is_new(1));
    /// ```
    pub fn is_new(&self, event_id: u64) -> bool {
        event_id > self.task.previous_started_event_id
    }

    /// Whether this is the execution's first decision task.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// assert!(history.is_first_decision());
    /// ```
    pub fn is_first_decision(&self) -> bool {
        self.task.previous_started_event_id == 0
    }

    /// The `WorkflowExecutionStarted` event's attributes: input, timeouts, task list, parent,
    /// Lambda role.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// let role = history.started().and_then(|s| s.lambda_role.clone());
    /// # assert_eq!(role, None);
    /// ```
    pub fn started(&self) -> Option<&WorkflowExecutionStartedEventAttributes> {
        self.task.events.iter().find_map(|e| match &e.attributes {
            E::WorkflowExecutionStarted(a) => Some(a),
            _ => None,
        })
    }

    /// The execution's input.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", Some("{}")).decision_task();
    /// assert_eq!(history.input(), Some("{}"));
    /// ```
    pub fn input(&self) -> Option<&str> {
        self.started().and_then(|s| s.input.as_deref())
    }

    /// The latest event other than the decision tasks' own (`DecisionTaskScheduled`, `Started`,
    /// `Completed`, `TimedOut`): usually what this decision task was scheduled for.
    ///
    /// ```
    /// use weft_guest::events::EventAttributes;
    ///
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// let just_started = matches!(
    ///     history.last_event().map(|e| &e.attributes),
    ///     Some(EventAttributes::WorkflowExecutionStarted(_))
    /// );
    /// # assert!(just_started);
    /// ```
    pub fn last_event(&self) -> Option<&HistoryEvent> {
        self.task.events.iter().rev().find(|e| {
            !matches!(
                e.attributes,
                E::DecisionTaskScheduled(_)
                    | E::DecisionTaskStarted(_)
                    | E::DecisionTaskCompleted(_)
                    | E::DecisionTaskTimedOut(_)
            )
        })
    }

    /// Whether cancellation of the execution was requested (`WorkflowExecutionCancelRequested`).
    /// The decider decides what to do about it, typically `Decision::cancel`.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// assert!(!history.cancel_requested());
    /// ```
    pub fn cancel_requested(&self) -> bool {
        self.task
            .events
            .iter()
            .any(|e| matches!(e.attributes, E::WorkflowExecutionCancelRequested(_)))
    }

    /// Every signal received, oldest first.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// let cancels = history.signals().filter(|s| s.name == "cancel").count();
    /// # assert_eq!(cancels, 0);
    /// ```
    pub fn signals(&self) -> impl DoubleEndedIterator<Item = Signal<'_>> {
        signals(&self.task.events)
    }

    /// The signals received since the previous decision task.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// for signal in history.new_signals() {
    ///     weft_guest::log::info!("signal {} with {:?}", signal.name, signal.input);
    /// }
    /// ```
    pub fn new_signals(&self) -> impl DoubleEndedIterator<Item = Signal<'_>> {
        signals(self.new_events())
    }

    /// Every marker recorded, oldest first.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// assert_eq!(history.markers().count(), 0);
    /// ```
    pub fn markers(&self) -> impl DoubleEndedIterator<Item = Marker<'_>> {
        self.task.events.iter().filter_map(|e| match &e.attributes {
            E::MarkerRecorded(a) => Some(Marker {
                name: &a.marker_name,
                details: a.details.as_deref(),
                event_id: e.event_id,
            }),
            _ => None,
        })
    }

    /// The latest marker named `name`.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// let step = history.marker("step").and_then(|m| m.details).unwrap_or("0");
    /// # assert_eq!(step, "0");
    /// ```
    pub fn marker(&self, name: &str) -> Option<Marker<'_>> {
        self.markers().rfind(|m| m.name == name)
    }

    /// Where the latest activity with this id stands; `None` if none was ever scheduled.
    ///
    /// ```
    /// use weft_guest::Status;
    ///
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// match history.activity("charge") {
    ///     None => { /* not scheduled yet */ }
    ///     Some(status) if status.is_open() => { /* wait */ }
    ///     Some(Status::Completed(receipt)) => { /* go on with the receipt */ }
    ///     Some(other) => { /* failed, timed out, canceled or never started */ }
    /// }
    /// ```
    pub fn activity(&self, id: &str) -> Option<Status<'_>> {
        let events = &self.task.events;
        let start = events.iter().rposition(|e| match &e.attributes {
            E::ActivityTaskScheduled(a) => a.activity_id == id,
            E::ScheduleActivityTaskFailed(a) => a.activity_id == id,
            _ => false,
        })?;
        let scheduled = match &events[start].attributes {
            E::ScheduleActivityTaskFailed(a) => {
                return Some(Status::NotStarted(a.cause.swf_name()));
            }
            _ => events[start].event_id,
        };
        let mut status = Status::Scheduled;
        for e in &events[start + 1..] {
            match &e.attributes {
                E::ActivityTaskStarted(a)
                    if a.scheduled_event_id == scheduled && status == Status::Scheduled =>
                {
                    status = Status::Started;
                }
                E::ActivityTaskCancelRequested(a) if a.activity_id == id => {
                    status = Status::CancelRequested;
                }
                E::ActivityTaskCompleted(a) if a.scheduled_event_id == scheduled => {
                    return Some(Status::Completed(a.result.as_deref()));
                }
                E::ActivityTaskFailed(a) if a.scheduled_event_id == scheduled => {
                    return Some(Status::Failed {
                        reason: a.reason.as_deref(),
                        details: a.details.as_deref(),
                    });
                }
                E::ActivityTaskTimedOut(a) if a.scheduled_event_id == scheduled => {
                    return Some(Status::TimedOut(a.timeout_type.swf_name()));
                }
                E::ActivityTaskCanceled(a) if a.scheduled_event_id == scheduled => {
                    return Some(Status::Canceled(a.details.as_deref()));
                }
                _ => {}
            }
        }
        Some(status)
    }

    /// Where the latest child execution with this workflow id stands; `None` if none was ever
    /// initiated.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Quote", "1.0", None).decision_task();
    /// let priced = history.child("quote-1-item-0").and_then(|s| s.result());
    /// # assert_eq!(priced, None);
    /// ```
    pub fn child(&self, workflow_id: &str) -> Option<Status<'_>> {
        let events = &self.task.events;
        let start = events.iter().rposition(|e| match &e.attributes {
            E::StartChildWorkflowExecutionInitiated(a) => a.workflow_id == workflow_id,
            E::StartChildWorkflowExecutionFailed(a) => a.workflow_id == workflow_id,
            _ => false,
        })?;
        let initiated = match &events[start].attributes {
            E::StartChildWorkflowExecutionFailed(a) => {
                return Some(Status::NotStarted(a.cause.swf_name()));
            }
            _ => events[start].event_id,
        };
        let mut status = Status::Scheduled;
        for e in &events[start + 1..] {
            match &e.attributes {
                E::StartChildWorkflowExecutionFailed(a) if a.initiated_event_id == initiated => {
                    return Some(Status::NotStarted(a.cause.swf_name()));
                }
                E::ChildWorkflowExecutionStarted(a) if a.initiated_event_id == initiated => {
                    status = Status::Started;
                }
                E::ChildWorkflowExecutionCompleted(a) if a.initiated_event_id == initiated => {
                    return Some(Status::Completed(a.result.as_deref()));
                }
                E::ChildWorkflowExecutionFailed(a) if a.initiated_event_id == initiated => {
                    return Some(Status::Failed {
                        reason: a.reason.as_deref(),
                        details: a.details.as_deref(),
                    });
                }
                E::ChildWorkflowExecutionTimedOut(a) if a.initiated_event_id == initiated => {
                    return Some(Status::TimedOut("START_TO_CLOSE"));
                }
                E::ChildWorkflowExecutionCanceled(a) if a.initiated_event_id == initiated => {
                    return Some(Status::Canceled(a.details.as_deref()));
                }
                E::ChildWorkflowExecutionTerminated(a) if a.initiated_event_id == initiated => {
                    return Some(Status::Terminated);
                }
                _ => {}
            }
        }
        Some(status)
    }

    /// Where the latest Lambda function with this id stands; `None` if none was ever
    /// scheduled.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("PriceItem", "1.0", None).decision_task();
    /// let price = history.lambda("price").and_then(|s| s.result());
    /// # assert_eq!(price, None);
    /// ```
    pub fn lambda(&self, id: &str) -> Option<Status<'_>> {
        let events = &self.task.events;
        let start = events.iter().rposition(|e| match &e.attributes {
            E::LambdaFunctionScheduled(a) => a.id == id,
            E::ScheduleLambdaFunctionFailed(a) => a.id == id,
            _ => false,
        })?;
        let scheduled = match &events[start].attributes {
            E::ScheduleLambdaFunctionFailed(a) => {
                return Some(Status::NotStarted(a.cause.swf_name()));
            }
            _ => events[start].event_id,
        };
        let mut status = Status::Scheduled;
        for e in &events[start + 1..] {
            match &e.attributes {
                E::LambdaFunctionStarted(a) if a.scheduled_event_id == scheduled => {
                    status = Status::Started;
                }
                E::StartLambdaFunctionFailed(a) if a.scheduled_event_id == Some(scheduled) => {
                    let cause = a.cause.map_or("UNKNOWN", |c| c.swf_name());
                    return Some(Status::NotStarted(cause));
                }
                E::LambdaFunctionCompleted(a) if a.scheduled_event_id == scheduled => {
                    return Some(Status::Completed(a.result.as_deref()));
                }
                E::LambdaFunctionFailed(a) if a.scheduled_event_id == scheduled => {
                    return Some(Status::Failed {
                        reason: a.reason.as_deref(),
                        details: a.details.as_deref(),
                    });
                }
                E::LambdaFunctionTimedOut(a) if a.scheduled_event_id == scheduled => {
                    return Some(Status::TimedOut("START_TO_CLOSE"));
                }
                _ => {}
            }
        }
        Some(status)
    }

    /// Where the latest timer with this id stands; `None` if none was ever started.
    ///
    /// ```
    /// # let history = weft_guest::testing::HistoryBuilder::new("Order", "1.0", None).decision_task();
    /// let window_open = history.timer("cancel-window").is_some_and(|t| t.is_open());
    /// # assert!(!window_open);
    /// ```
    pub fn timer(&self, id: &str) -> Option<Timer> {
        let events = &self.task.events;
        let start = events.iter().rposition(|e| match &e.attributes {
            E::TimerStarted(a) => a.timer_id == id,
            E::StartTimerFailed(a) => a.timer_id == id,
            _ => false,
        })?;
        let started = events[start].event_id;
        if let E::StartTimerFailed(a) = &events[start].attributes {
            return Some(Timer::StartFailed {
                event_id: started,
                cause: a.cause.swf_name(),
            });
        }
        for e in &events[start + 1..] {
            match &e.attributes {
                E::TimerFired(a) if a.started_event_id == started => {
                    return Some(Timer::Fired {
                        event_id: e.event_id,
                    });
                }
                E::TimerCanceled(a) if a.started_event_id == started => {
                    return Some(Timer::Canceled {
                        event_id: e.event_id,
                    });
                }
                _ => {}
            }
        }
        Some(Timer::Started { event_id: started })
    }
}

fn signals(events: &[HistoryEvent]) -> impl DoubleEndedIterator<Item = Signal<'_>> {
    events.iter().filter_map(|e| match &e.attributes {
        E::WorkflowExecutionSignaled(a) => Some(Signal {
            name: &a.signal_name,
            input: a.input.as_deref(),
            event_id: e.event_id,
        }),
        _ => None,
    })
}

/// SWF's name for a value of one of its enumerations, as on the wire.
pub(crate) trait SwfName {
    fn swf_name(&self) -> &'static str;
}

macro_rules! swf_names {
    ($($ty:ident { $($case:ident => $name:literal,)* })*) => {
        $(impl SwfName for $ty {
            fn swf_name(&self) -> &'static str {
                match self {
                    $($ty::$case => $name,)*
                }
            }
        })*
    };
}

swf_names! {
    ActivityTaskTimeoutType {
        StartToClose => "START_TO_CLOSE",
        ScheduleToStart => "SCHEDULE_TO_START",
        ScheduleToClose => "SCHEDULE_TO_CLOSE",
        Heartbeat => "HEARTBEAT",
    }
    ScheduleActivityTaskFailedCause {
        ActivityTypeDeprecated => "ACTIVITY_TYPE_DEPRECATED",
        ActivityTypeDoesNotExist => "ACTIVITY_TYPE_DOES_NOT_EXIST",
        ActivityIdAlreadyInUse => "ACTIVITY_ID_ALREADY_IN_USE",
        OpenActivitiesLimitExceeded => "OPEN_ACTIVITIES_LIMIT_EXCEEDED",
        ActivityCreationRateExceeded => "ACTIVITY_CREATION_RATE_EXCEEDED",
        DefaultScheduleToCloseTimeoutUndefined => "DEFAULT_SCHEDULE_TO_CLOSE_TIMEOUT_UNDEFINED",
        DefaultTaskListUndefined => "DEFAULT_TASK_LIST_UNDEFINED",
        DefaultScheduleToStartTimeoutUndefined => "DEFAULT_SCHEDULE_TO_START_TIMEOUT_UNDEFINED",
        DefaultStartToCloseTimeoutUndefined => "DEFAULT_START_TO_CLOSE_TIMEOUT_UNDEFINED",
        DefaultHeartbeatTimeoutUndefined => "DEFAULT_HEARTBEAT_TIMEOUT_UNDEFINED",
        OperationNotPermitted => "OPERATION_NOT_PERMITTED",
    }
    StartChildWorkflowExecutionFailedCause {
        WorkflowTypeDoesNotExist => "WORKFLOW_TYPE_DOES_NOT_EXIST",
        WorkflowTypeDeprecated => "WORKFLOW_TYPE_DEPRECATED",
        OpenChildrenLimitExceeded => "OPEN_CHILDREN_LIMIT_EXCEEDED",
        OpenWorkflowsLimitExceeded => "OPEN_WORKFLOWS_LIMIT_EXCEEDED",
        ChildCreationRateExceeded => "CHILD_CREATION_RATE_EXCEEDED",
        WorkflowAlreadyRunning => "WORKFLOW_ALREADY_RUNNING",
        DefaultExecutionStartToCloseTimeoutUndefined => "DEFAULT_EXECUTION_START_TO_CLOSE_TIMEOUT_UNDEFINED",
        DefaultTaskListUndefined => "DEFAULT_TASK_LIST_UNDEFINED",
        DefaultTaskStartToCloseTimeoutUndefined => "DEFAULT_TASK_START_TO_CLOSE_TIMEOUT_UNDEFINED",
        DefaultChildPolicyUndefined => "DEFAULT_CHILD_POLICY_UNDEFINED",
        OperationNotPermitted => "OPERATION_NOT_PERMITTED",
    }
    ScheduleLambdaFunctionFailedCause {
        IdAlreadyInUse => "ID_ALREADY_IN_USE",
        OpenLambdaFunctionsLimitExceeded => "OPEN_LAMBDA_FUNCTIONS_LIMIT_EXCEEDED",
        LambdaFunctionCreationRateExceeded => "LAMBDA_FUNCTION_CREATION_RATE_EXCEEDED",
        LambdaServiceNotAvailableInRegion => "LAMBDA_SERVICE_NOT_AVAILABLE_IN_REGION",
    }
    StartLambdaFunctionFailedCause {
        AssumeRoleFailed => "ASSUME_ROLE_FAILED",
    }
    WorkflowExecutionTimeoutType {
        StartToClose => "START_TO_CLOSE",
    }
    LambdaFunctionTimeoutType {
        StartToClose => "START_TO_CLOSE",
    }
    SignalExternalWorkflowExecutionFailedCause {
        UnknownExternalWorkflowExecution => "UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION",
        SignalExternalWorkflowExecutionRateExceeded => "SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_RATE_EXCEEDED",
        OperationNotPermitted => "OPERATION_NOT_PERMITTED",
    }
    RequestCancelExternalWorkflowExecutionFailedCause {
        UnknownExternalWorkflowExecution => "UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION",
        RequestCancelExternalWorkflowExecutionRateExceeded => "REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_RATE_EXCEEDED",
        OperationNotPermitted => "OPERATION_NOT_PERMITTED",
    }
    StartTimerFailedCause {
        TimerIdAlreadyInUse => "TIMER_ID_ALREADY_IN_USE",
        OpenTimersLimitExceeded => "OPEN_TIMERS_LIMIT_EXCEEDED",
        TimerCreationRateExceeded => "TIMER_CREATION_RATE_EXCEEDED",
        OperationNotPermitted => "OPERATION_NOT_PERMITTED",
    }
}
