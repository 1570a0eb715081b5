//! What a history says of one activity, child workflow, Lambda function or timer, and of the
//! signals and markers it holds: the answers of [`History`](crate::History)'s queries.

/// Where an activity, a child workflow or a Lambda function stands.
///
/// ```
/// use weft_guest::{Decision, History, Status};
///
/// fn next(history: &History) -> Vec<Decision> {
///     match history.activity("charge") {
///         None => vec![Decision::schedule_activity("charge", "Charge", "1.0").into()],
///         Some(Status::Completed(receipt)) => vec![Decision::complete(receipt.map(str::to_owned))],
///         Some(Status::Failed { reason, .. }) => {
///             vec![Decision::fail(reason.unwrap_or("charge failed"), None)]
///         }
///         Some(status) if status.is_open() => vec![],
///         Some(other) => vec![Decision::fail(format!("charge: {other:?}"), None)],
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status<'a> {
    /// Scheduled (or, for a child, initiated), not started yet.
    Scheduled,
    /// Running.
    Started,
    /// Running, and the decider asked it to cancel (activities only).
    CancelRequested,
    /// Completed, with its result.
    Completed(Option<&'a str>),
    /// Failed.
    Failed {
        /// Why, in short.
        reason: Option<&'a str>,
        /// More detail.
        details: Option<&'a str>,
    },
    /// Timed out; the SWF timeout type, e.g. `START_TO_CLOSE` or `HEARTBEAT`.
    TimedOut(&'static str),
    /// Canceled, with optional details.
    Canceled(Option<&'a str>),
    /// Terminated (children only).
    Terminated,
    /// The decision to schedule or start it failed; the SWF cause, e.g.
    /// `ACTIVITY_TYPE_DOES_NOT_EXIST`.
    NotStarted(&'static str),
}

impl<'a> Status<'a> {
    /// Whether it may still make progress: scheduled, started or asked to cancel.
    ///
    /// ```
    /// use weft_guest::Status;
    ///
    /// assert!(Status::Started.is_open());
    /// assert!(!Status::Completed(None).is_open());
    /// ```
    pub fn is_open(&self) -> bool {
        matches!(
            self,
            Status::Scheduled | Status::Started | Status::CancelRequested
        )
    }

    /// The result, if it completed with one.
    ///
    /// ```
    /// use weft_guest::Status;
    ///
    /// assert_eq!(Status::Completed(Some("42")).result(), Some("42"));
    /// assert_eq!(Status::Started.result(), None);
    /// ```
    pub fn result(&self) -> Option<&'a str> {
        match self {
            Status::Completed(result) => *result,
            _ => None,
        }
    }

    /// Whether it completed (with or without a result).
    ///
    /// ```
    /// use weft_guest::Status;
    ///
    /// assert!(Status::Completed(None).is_completed());
    /// assert!(!Status::TimedOut("HEARTBEAT").is_completed());
    /// ```
    pub fn is_completed(&self) -> bool {
        matches!(self, Status::Completed(_))
    }
}

/// Where a timer stands, with the event that put it there.
///
/// ```
/// use weft_guest::{History, Timer};
///
/// /// Whether a signal arrived before the timer `window` fired.
/// fn in_time(history: &History, signal_event: u64) -> bool {
///     match history.timer("window") {
///         Some(Timer::Fired { event_id }) => signal_event < event_id,
///         _ => true,
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Started, not fired yet (`TimerStarted`).
    Started {
        /// The `TimerStarted` event.
        event_id: u64,
    },
    /// Fired (`TimerFired`).
    Fired {
        /// The `TimerFired` event.
        event_id: u64,
    },
    /// Canceled by the decider (`TimerCanceled`).
    Canceled {
        /// The `TimerCanceled` event.
        event_id: u64,
    },
    /// The decision to start it failed (`StartTimerFailed`), with the SWF cause.
    StartFailed {
        /// The `StartTimerFailed` event.
        event_id: u64,
        /// E.g. `TIMER_ID_ALREADY_IN_USE`.
        cause: &'static str,
    },
}

impl Timer {
    /// Whether it is still running.
    ///
    /// ```
    /// use weft_guest::Timer;
    ///
    /// assert!(Timer::Started { event_id: 5 }.is_open());
    /// assert!(!Timer::Fired { event_id: 9 }.is_open());
    /// ```
    pub fn is_open(&self) -> bool {
        matches!(self, Timer::Started { .. })
    }

    /// The event that put it in this state.
    ///
    /// ```
    /// use weft_guest::Timer;
    ///
    /// assert_eq!(Timer::Fired { event_id: 9 }.event_id(), 9);
    /// ```
    pub fn event_id(&self) -> u64 {
        match self {
            Timer::Started { event_id }
            | Timer::Fired { event_id }
            | Timer::Canceled { event_id }
            | Timer::StartFailed { event_id, .. } => *event_id,
        }
    }
}

/// A signal the execution received (`WorkflowExecutionSignaled`).
///
/// ```
/// use weft_guest::{History, Signal};
///
/// fn cancel_signal(history: &History) -> Option<Signal<'_>> {
///     history.signals().find(|s| s.name == "cancel")
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signal<'a> {
    /// The signal's name.
    pub name: &'a str,
    /// Its input.
    pub input: Option<&'a str>,
    /// The event that recorded it.
    pub event_id: u64,
}

/// A marker the decider recorded (`MarkerRecorded`).
///
/// ```
/// use weft_guest::{History, Marker};
///
/// fn attempts(history: &History) -> usize {
///     history.markers().filter(|m: &Marker<'_>| m.name == "attempt").count()
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marker<'a> {
    /// The marker's name.
    pub name: &'a str,
    /// Its details.
    pub details: Option<&'a str>,
    /// The event that recorded it.
    pub event_id: u64,
}
