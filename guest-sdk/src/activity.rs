//! Activity workers and functions: heartbeats, outcomes and failures.

use crate::bindings::activity_worker::weft::swf::heartbeat::record_heartbeat;
use crate::{Failure, Outcome};

/// Tells the service the activity task is alive, with optional progress details (at most 2,048
/// characters), which restarts its heartbeat timeout. Answers whether cancellation of the task
/// was requested: the worker should then stop and return `Outcome::Canceled`.
///
/// Only activity workers may call it: a decider or a function that does imports
/// `weft:swf/heartbeat`, and the host refuses to load it. Outside a component (in native unit
/// tests) it does nothing and answers `false`.
///
/// ```no_run
/// use weft_guest::{ActivityTask, Outcome};
///
/// fn run(task: &ActivityTask) -> Outcome {
///     for step in 0..100 {
///         if weft_guest::heartbeat(Some(&format!("step {step}"))) {
///             return Outcome::Canceled(Some(format!("stopped at step {step}")));
///         }
///         // ... one step of the work ...
///     }
///     Outcome::Completed(None)
/// }
/// ```
pub fn heartbeat(details: Option<&str>) -> bool {
    if cfg!(target_arch = "wasm32") {
        record_heartbeat(details)
    } else {
        false
    }
}

impl Failure {
    /// A failure with this reason and no details.
    ///
    /// ```
    /// let failure = weft_guest::Failure::new("out of stock");
    /// assert_eq!(failure.reason.as_deref(), Some("out of stock"));
    /// ```
    pub fn new(reason: impl Into<String>) -> Self {
        Failure {
            reason: Some(reason.into()),
            details: None,
        }
    }

    /// The same failure with these details.
    ///
    /// ```
    /// let failure = weft_guest::Failure::new("out of stock").details("sku 42");
    /// assert_eq!(failure.details.as_deref(), Some("sku 42"));
    /// ```
    #[must_use]
    pub fn details(mut self, details: impl Into<String>) -> Self {
        self.details = Some(details.into());
        self
    }
}

impl From<String> for Failure {
    /// A failure with this reason.
    fn from(reason: String) -> Self {
        Failure::new(reason)
    }
}

impl From<&str> for Failure {
    /// A failure with this reason.
    fn from(reason: &str) -> Self {
        Failure::new(reason)
    }
}

impl From<Failure> for Outcome {
    fn from(failure: Failure) -> Self {
        Outcome::Failed(failure)
    }
}

impl<E: Into<Failure>> From<Result<Option<String>, E>> for Outcome {
    /// `Ok` completes the task with its result, `Err` fails it.
    fn from(result: Result<Option<String>, E>) -> Self {
        match result {
            Ok(result) => Outcome::Completed(result),
            Err(failure) => Outcome::Failed(failure.into()),
        }
    }
}
