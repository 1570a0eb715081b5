//! The history as replay reads it: each event's type, time and the few members replay needs,
//! by their wire names. An SDK fills these from its own reading of events (typed in Rust,
//! JSON elsewhere); what each member means for replay is decided here, once.

/// One event of a history, as replay reads it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Event<'a> {
    /// `eventId`.
    pub id: u64,
    /// `eventType`, as on the wire (`ActivityTaskCompleted`).
    pub event_type: &'a str,
    /// `eventTimestamp`, in seconds since the Unix epoch.
    pub timestamp: f64,
    /// The members of its attributes that replay reads.
    pub members: Members<'a>,
}

/// The members of an event's (or a decision's) attributes that replay reads, by their wire
/// names; a member the event does not have is `0`, `""` or `None`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Members<'a> {
    /// `decisionTaskCompletedEventId`: the task whose decision recorded the event.
    pub decision_task_completed_event_id: u64,
    /// `startedEventId`: a `DecisionTaskCompleted`'s task, a timer's `TimerStarted`.
    pub started_event_id: u64,
    /// `scheduledEventId`: an activity's or Lambda function's scheduling event.
    pub scheduled_event_id: u64,
    /// `initiatedEventId`: a child's, signal's or cancel request's initiating event.
    pub initiated_event_id: u64,
    /// `activityId`.
    pub activity_id: &'a str,
    /// `timerId`.
    pub timer_id: &'a str,
    /// `markerName`.
    pub marker_name: &'a str,
    /// `workflowId`: a child's or another run's.
    pub workflow_id: &'a str,
    /// `id`: a Lambda function's.
    pub id: &'a str,
    /// `name`: a Lambda function's.
    pub name: &'a str,
    /// `activityType` or `workflowType`, as name and version.
    pub type_: Option<(&'a str, &'a str)>,
    /// `workflowExecution`: the run a child started, as workflow and run id.
    pub workflow_execution: Option<(&'a str, &'a str)>,
    /// `signalName`.
    pub signal_name: &'a str,
    /// `input`: a signal's.
    pub input: Option<&'a str>,
    /// `result`.
    pub result: Option<&'a str>,
    /// `reason`.
    pub reason: Option<&'a str>,
    /// `details`.
    pub details: Option<&'a str>,
    /// `cause`: why SWF refused a decision.
    pub cause: Option<&'a str>,
    /// `timeoutType`.
    pub timeout_type: Option<&'a str>,
}

/// An event in the SDK's own reading, which replay reads through [`Event`].
pub trait ReadEvent {
    /// The event as replay reads it.
    fn read(&self) -> Event<'_>;
}

impl ReadEvent for Event<'_> {
    fn read(&self) -> Event<'_> {
        self.clone()
    }
}
