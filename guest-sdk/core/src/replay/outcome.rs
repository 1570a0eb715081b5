//! How a command ended, read from the event that says so, and a failure in the words every
//! SDK uses.

use alloc::string::{String, ToString};
use core::fmt;

use super::Event;

/// How an awaited command ended: its result, or why it did not complete.
pub type Outcome = Result<Option<String>, Failure>;

/// Why an activity, Lambda function, child, timer, signal or cancel request did not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// How it ended.
    pub ending: Ending,
    /// The failure's reason, the timeout type, or the cause SWF gave.
    pub reason: Option<String>,
    /// Its details, if any.
    pub details: Option<String>,
}

/// The ways a command ends other than by completing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It failed (with a reason and details).
    Failed,
    /// It timed out; the reason is SWF's timeout type, such as `START_TO_CLOSE`.
    TimedOut,
    /// It was canceled.
    Canceled,
    /// The child run was terminated.
    Terminated,
    /// SWF refused the decision that would have started it; the reason is SWF's cause.
    NotStarted,
}

impl Failure {
    /// A failure ending so, with this reason and details.
    pub fn new(ending: Ending, reason: Option<&str>, details: Option<&str>) -> Self {
        Failure {
            ending,
            reason: reason.map(ToString::to_string),
            details: details.map(ToString::to_string),
        }
    }
}

impl fmt::Display for Failure {
    /// How it ended, in the words every SDK uses: `REASON: DETAILS` (or `REASON`, or `failed`),
    /// `timed out (TYPE)`, `could not be scheduled (CAUSE)`, `canceled`, `terminated`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reason = self.reason.as_deref();
        match self.ending {
            Ending::Failed => {
                f.write_str(reason.unwrap_or("failed"))?;
                match &self.details {
                    Some(details) => write!(f, ": {details}"),
                    None => Ok(()),
                }
            }
            Ending::TimedOut => write!(f, "timed out ({})", reason.unwrap_or_default()),
            Ending::NotStarted => {
                write!(f, "could not be scheduled ({})", reason.unwrap_or_default())
            }
            Ending::Canceled => f.write_str("canceled"),
            Ending::Terminated => f.write_str("terminated"),
        }
    }
}

/// If `event` ends a command, the event that started the command (its scheduling, timer start
/// or initiation; the event itself where SWF refused the decision at once) and how it ended.
pub(crate) fn ended(event: &Event<'_>) -> Option<(u64, Outcome)> {
    use Ending::*;
    let m = &event.members;
    let failed = |ending, reason| Err(Failure::new(ending, reason, m.details));
    let not_started = || Err(Failure::new(NotStarted, m.cause, None));
    // The event that started the command: the one named, or (0 when SWF refused the decision
    // at once) the event itself.
    let initiated = match m.initiated_event_id {
        0 => event.id,
        id => id,
    };
    let (by, outcome) = match event.event_type {
        "ActivityTaskCompleted" | "LambdaFunctionCompleted" => {
            (m.scheduled_event_id, Ok(m.result.map(ToString::to_string)))
        }
        "ActivityTaskFailed" | "LambdaFunctionFailed" => {
            (m.scheduled_event_id, failed(Failed, m.reason))
        }
        "ActivityTaskTimedOut" => (m.scheduled_event_id, failed(TimedOut, m.timeout_type)),
        "LambdaFunctionTimedOut" => (
            m.scheduled_event_id,
            Err(Failure::new(TimedOut, m.timeout_type, None)),
        ),
        "ActivityTaskCanceled" => (m.scheduled_event_id, failed(Canceled, None)),
        "StartLambdaFunctionFailed" => (m.scheduled_event_id, not_started()),
        "ScheduleActivityTaskFailed" | "StartTimerFailed" | "ScheduleLambdaFunctionFailed" => {
            (event.id, not_started())
        }
        "TimerFired" => (m.started_event_id, Ok(None)),
        "TimerCanceled" => (m.started_event_id, Err(Failure::new(Canceled, None, None))),
        "ChildWorkflowExecutionCompleted" => {
            (m.initiated_event_id, Ok(m.result.map(ToString::to_string)))
        }
        "ChildWorkflowExecutionFailed" => (m.initiated_event_id, failed(Failed, m.reason)),
        "ChildWorkflowExecutionTimedOut" => (
            m.initiated_event_id,
            Err(Failure::new(TimedOut, m.timeout_type, None)),
        ),
        "ChildWorkflowExecutionCanceled" => (m.initiated_event_id, failed(Canceled, None)),
        "ChildWorkflowExecutionTerminated" => (
            m.initiated_event_id,
            Err(Failure::new(Terminated, None, None)),
        ),
        "ExternalWorkflowExecutionSignaled" | "ExternalWorkflowExecutionCancelRequested" => {
            (m.initiated_event_id, Ok(None))
        }
        "StartChildWorkflowExecutionFailed"
        | "SignalExternalWorkflowExecutionFailed"
        | "RequestCancelExternalWorkflowExecutionFailed" => (initiated, not_started()),
        _ => return None,
    };
    Some((by, outcome))
}
