//! How a workflow's awaits fail, and how a workflow ends other than by completing.

use std::fmt;

use weft_workflow_core::replay::{Ending, Failure};

use crate::Decision;
use crate::decision::builders::ContinueAsNew;

/// Why an await failed, or how the workflow is to end: the error of every workflow operation,
/// and what a workflow function returns to fail, cancel or continue as new.
///
/// An activity's, function's or child's failure keeps its reason and details, so that `?`
/// fails the workflow with them:
///
/// ```
/// use weft_guest::workflow::{Error, ErrorKind};
///
/// let declined = Error::failed("card declined").with_details("card ending 0000");
/// assert_eq!(declined.kind(), ErrorKind::Failed);
/// assert_eq!(declined.reason(), Some("card declined"));
/// assert_eq!(declined.to_string(), "card declined: card ending 0000");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    kind: ErrorKind,
    reason: Option<String>,
    details: Option<String>,
    /// The decision a `ContinueAsNew` error ends the run with.
    continue_as_new: Option<Box<Decision>>,
}

/// What kind of failure an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The activity, function or child workflow failed (its reason and details are kept), or
    /// the workflow code fails the run.
    Failed,
    /// It timed out; the reason is SWF's timeout type, such as `START_TO_CLOSE`.
    TimedOut,
    /// It was canceled; returned by the workflow (`?` on a canceled activity, or
    /// [`Error::canceled`]), the run closes as canceled.
    Canceled,
    /// The child workflow was terminated.
    Terminated,
    /// SWF refused the decision that would have started it; the reason is SWF's cause, such as
    /// `ACTIVITY_TYPE_DOES_NOT_EXIST`.
    NotStarted,
    /// Returned by the workflow: the run continues as a new run
    /// ([`Workflow::continue_as_new`](super::Workflow::continue_as_new)).
    ContinueAsNew,
}

impl Error {
    fn new(kind: ErrorKind, reason: Option<String>) -> Self {
        Error {
            kind,
            reason,
            details: None,
            continue_as_new: None,
        }
    }

    /// A failure with this reason: returned by a workflow, the run fails with it.
    pub fn failed(reason: impl Into<String>) -> Self {
        Error::new(ErrorKind::Failed, Some(reason.into()))
    }

    /// A cancellation: returned by a workflow, the run closes as canceled.
    pub fn canceled() -> Self {
        Error::new(ErrorKind::Canceled, None)
    }

    pub(crate) fn continue_as_new(decision: ContinueAsNew) -> Self {
        Error {
            continue_as_new: Some(Box::new(decision.into())),
            ..Error::new(ErrorKind::ContinueAsNew, None)
        }
    }

    /// The same error with these details.
    #[must_use]
    pub fn with_details(mut self, details: impl Into<String>) -> Self {
        self.details = Some(details.into());
        self
    }

    /// What kind of failure it is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Its reason: the failure's reason, the timeout type, or the cause SWF gave.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// Its details, if any.
    pub fn details(&self) -> Option<&str> {
        self.details.as_deref()
    }

    /// The decision that closes a run whose workflow function returned this error: cancel,
    /// continue as new, or fail.
    pub(crate) fn into_close(self) -> Decision {
        match self.kind {
            ErrorKind::ContinueAsNew => *self.continue_as_new.expect("built with its decision"),
            ErrorKind::Canceled => Decision::cancel(self.details),
            _ => {
                // Without a reason (a failure that gave none, a terminated child): its kind.
                let terminated = self.kind == ErrorKind::Terminated;
                let kind = if terminated { "terminated" } else { "failed" };
                let reason = self.reason.unwrap_or_else(|| kind.into());
                Decision::fail(reason, self.details)
            }
        }
    }
}

impl fmt::Display for Error {
    /// How it ended, in the words every SDK uses (the workflow core's): `REASON: DETAILS` (or
    /// `REASON`, or `failed`), `timed out (TYPE)`, `could not be scheduled (CAUSE)`,
    /// `canceled`, `terminated`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ending = match self.kind {
            ErrorKind::Failed => Ending::Failed,
            ErrorKind::TimedOut => Ending::TimedOut,
            ErrorKind::Canceled => Ending::Canceled,
            ErrorKind::Terminated => Ending::Terminated,
            ErrorKind::NotStarted => Ending::NotStarted,
            ErrorKind::ContinueAsNew => return f.write_str("continued as new"),
        };
        let (reason, details) = (self.reason.as_deref(), self.details.as_deref());
        Failure::new(ending, reason, details).fmt(f)
    }
}

impl From<Failure> for Error {
    /// How a command ended, as the workflow core read it from the history.
    fn from(failure: Failure) -> Self {
        let kind = match failure.ending {
            Ending::Failed => ErrorKind::Failed,
            Ending::TimedOut => ErrorKind::TimedOut,
            Ending::Canceled => ErrorKind::Canceled,
            Ending::Terminated => ErrorKind::Terminated,
            Ending::NotStarted => ErrorKind::NotStarted,
        };
        Error {
            details: failure.details,
            ..Error::new(kind, failure.reason)
        }
    }
}

impl std::error::Error for Error {}

impl From<crate::Failure> for Error {
    /// A failure the workflow code makes itself, as activity workers do.
    fn from(failure: crate::Failure) -> Self {
        Error {
            details: failure.details,
            ..Error::new(ErrorKind::Failed, failure.reason)
        }
    }
}
