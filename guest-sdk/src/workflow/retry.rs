//! Retrying an activity, which SWF leaves to the decider: each attempt is a new activity in the
//! history, with a timer between attempts.

use std::time::Duration;

use super::{Error, ErrorKind};

/// How often and how soon to retry an activity that failed or timed out.
///
/// ```
/// use std::time::Duration;
/// use weft_guest::workflow::RetryPolicy;
///
/// let policy = RetryPolicy::attempts(4)
///     .initial_interval(Duration::from_secs(2))
///     .backoff(3.0)
///     .maximum_interval(Duration::from_secs(10))
///     .non_retryable(["card declined"]);
/// assert_eq!(policy.interval(1), Duration::from_secs(2));
/// assert_eq!(policy.interval(2), Duration::from_secs(6));
/// assert_eq!(policy.interval(3), Duration::from_secs(10));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    maximum_attempts: u32,
    initial_interval: Duration,
    backoff: f64,
    maximum_interval: Option<Duration>,
    non_retryable: Vec<String>,
}

impl RetryPolicy {
    /// At most `maximum_attempts` attempts in all (0: no limit), the first retry after 1 s,
    /// each wait twice the one before.
    pub fn attempts(maximum_attempts: u32) -> Self {
        RetryPolicy {
            maximum_attempts,
            initial_interval: Duration::from_secs(1),
            backoff: 2.0,
            maximum_interval: None,
            non_retryable: Vec::new(),
        }
    }

    /// The wait before the first retry.
    #[must_use]
    pub fn initial_interval(mut self, interval: Duration) -> Self {
        self.initial_interval = interval;
        self
    }

    /// What each wait is multiplied by for the next (at least 1).
    #[must_use]
    pub fn backoff(mut self, coefficient: f64) -> Self {
        self.backoff = coefficient.max(1.0);
        self
    }

    /// The longest wait.
    #[must_use]
    pub fn maximum_interval(mut self, interval: Duration) -> Self {
        self.maximum_interval = Some(interval);
        self
    }

    /// Failure reasons not to retry.
    #[must_use]
    pub fn non_retryable(mut self, reasons: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.non_retryable = reasons.into_iter().map(Into::into).collect();
        self
    }

    /// The wait after attempt `attempt` (from 1) failed.
    pub fn interval(&self, attempt: u32) -> Duration {
        let exponent = i32::try_from(attempt.saturating_sub(1)).unwrap_or(i32::MAX);
        let seconds = self.initial_interval.as_secs_f64() * self.backoff.powi(exponent);
        let wait = Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX);
        self.maximum_interval.map_or(wait, |most| wait.min(most))
    }

    /// Whether to try again after attempt `attempt` ended with `error`: it failed or timed
    /// out, not for a non-retryable reason, and attempts remain.
    pub fn retries(&self, attempt: u32, error: &Error) -> bool {
        let retryable = match error.kind() {
            ErrorKind::Failed => !self
                .non_retryable
                .iter()
                .any(|reason| error.reason() == Some(reason.as_str())),
            ErrorKind::TimedOut => true,
            _ => false,
        };
        retryable && (self.maximum_attempts == 0 || attempt < self.maximum_attempts)
    }
}
