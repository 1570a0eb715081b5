//! Backoff for deciders that keep failing on the same run: after `n` failures in a row, the
//! decider runs on the run's task again only after `2^(n-1)` seconds (at most [`MAX`]), the task
//! held meanwhile (`super::decider`). A broken decider then costs the host less and less.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest pause.
const MAX: Duration = Duration::from_secs(300);

/// Failures per run, of one binding.
#[derive(Default)]
pub(super) struct Backoff(Mutex<HashMap<String, Failing>>);

struct Failing {
    count: u32,
    until: Instant,
}

impl Backoff {
    /// Whether the run's tasks are paused at `now`.
    pub(super) fn paused(&self, run_id: &str, now: Instant) -> bool {
        self.lock().get(run_id).is_some_and(|f| now < f.until)
    }

    /// How much of the run's pause is left at `now`.
    pub(super) fn remaining(&self, run_id: &str, now: Instant) -> Duration {
        self.lock()
            .get(run_id)
            .map_or(Duration::ZERO, |f| f.until.saturating_duration_since(now))
    }

    /// The decider failed on the run at `now`: pause it longer. Answers its failures in a row.
    pub(super) fn failed(&self, run_id: &str, now: Instant) -> u32 {
        let mut runs = self.lock();
        // Forget runs that have not failed for a while, so the map stays small.
        runs.retain(|_, f| now < f.until + MAX);
        let failing = runs.entry(run_id.to_owned()).or_insert(Failing {
            count: 0,
            until: now,
        });
        failing.count = failing.count.saturating_add(1);
        let pause = Duration::from_secs(1u64 << (failing.count - 1).min(16)).min(MAX);
        failing.until = now + pause;
        failing.count
    }

    /// The decider succeeded on the run.
    pub(super) fn succeeded(&self, run_id: &str) {
        self.lock().remove(run_id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Failing>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_and_success_resets() {
        let backoff = Backoff::default();
        let t0 = Instant::now();
        assert!(!backoff.paused("r", t0));
        backoff.failed("r", t0);
        assert!(backoff.paused("r", t0 + Duration::from_millis(999)));
        assert!(!backoff.paused("r", t0 + Duration::from_secs(1)));
        let t1 = t0 + Duration::from_secs(1);
        backoff.failed("r", t1);
        assert!(backoff.paused("r", t1 + Duration::from_millis(1999)));
        assert!(!backoff.paused("r", t1 + Duration::from_secs(2)));
        assert!(!backoff.paused("other", t1));
        assert_eq!(backoff.remaining("r", t1), Duration::from_secs(2));
        assert_eq!(
            backoff.remaining("r", t1 + Duration::from_secs(3)),
            Duration::ZERO
        );
        backoff.succeeded("r");
        assert!(!backoff.paused("r", t1));
    }

    #[test]
    fn the_pause_is_capped() {
        let backoff = Backoff::default();
        let now = Instant::now();
        for _ in 0..40 {
            backoff.failed("r", now);
        }
        assert!(backoff.paused("r", now + MAX - Duration::from_millis(1)));
        assert!(!backoff.paused("r", now + MAX));
    }
}
