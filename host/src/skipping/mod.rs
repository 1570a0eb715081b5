//! `--time-skipping`: a clock that runs as the wall clock does, from the real time, and jumps
//! ahead to the deadline the timer loop waits for whenever the server is idle ([`Idle`]): a
//! workflow waiting a week on a timer completes in moments, with the week in its history.
//!
//! Only the timer loop's wait jumps. Long polls wait their real timeout, as usual: a jump does
//! not end them. A jump by hand ([`SkippingClock::advance`]) ends the timer loop's wait, which
//! then fires what has come.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use tokio::sync::watch;

use crate::clock::{Clock, Sleep, SystemClock, Timestamp, Wait};

pub(crate) use self::idle::{Busy, Idle};

mod idle;

/// The wall clock, plus the time skipped so far.
pub(crate) struct SkippingClock {
    /// Milliseconds skipped.
    skipped: AtomicI64,
    /// Told of every jump by hand.
    moved: watch::Sender<()>,
    idle: Arc<Idle>,
}

impl SkippingClock {
    /// A clock at the real time, jumping when `idle` says the server is.
    pub(crate) fn new(idle: Arc<Idle>) -> Self {
        SkippingClock {
            skipped: AtomicI64::new(0),
            moved: watch::Sender::new(()),
            idle,
        }
    }

    /// Moves the clock `by` ahead now; the timer loop then fires what has come.
    pub(crate) fn advance(&self, by: Duration) {
        let by = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.skipped.fetch_add(by, Ordering::AcqRel);
        self.moved.send_replace(());
    }

    /// How far ahead of the wall clock this clock is.
    pub(crate) fn skipped(&self) -> Duration {
        Duration::from_millis(u64::try_from(self.skipped.load(Ordering::Acquire)).unwrap_or(0))
    }

    /// Moves the clock to `at`, if that is ahead.
    fn jump_to(&self, at: Timestamp) {
        let ahead = at.as_millis().saturating_sub(self.now().as_millis());
        self.idle.touch();
        if ahead > 0 {
            self.skipped.fetch_add(ahead, Ordering::AcqRel);
            tracing::debug!(ahead_ms = ahead, "time skipped to the next deadline");
        }
    }
}

impl Clock for SkippingClock {
    fn now(&self) -> Timestamp {
        let real = SystemClock.now().as_millis();
        Timestamp::from_millis(real.saturating_add(self.skipped.load(Ordering::Acquire)))
    }

    fn sleep_until(&self, at: Timestamp, why: Wait) -> Sleep<'_> {
        let mut moved = self.moved.subscribe();
        let wait = u64::try_from(at.as_millis().saturating_sub(self.now().as_millis()));
        let real = Duration::from_millis(wait.unwrap_or(0));
        Box::pin(async move {
            if real.is_zero() {
                return;
            }
            match why {
                Wait::LongPoll => tokio::time::sleep(real).await,
                Wait::Deadline => tokio::select! {
                    () = tokio::time::sleep(real) => {}
                    _ = moved.changed() => {}
                    () = self.idle.settled() => self.jump_to(at),
                },
            }
        })
    }

    fn jumps(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_deadline_s_wait_jumps_once_the_server_is_idle_and_a_poll_s_does_not() {
        let idle = Arc::new(Idle::new(true));
        let clock = SkippingClock::new(idle.clone());
        let week = Duration::from_secs(7 * 24 * 3600);
        let start = clock.now();
        let at = start.plus_millis(week.as_millis() as u64);

        let busy = idle.busy();
        let mut deadline = clock.sleep_until(at, Wait::Deadline);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        assert!(deadline.as_mut().poll(&mut cx).is_pending());
        tokio::time::sleep(Duration::from_secs(10)).await;
        assert!(
            deadline.as_mut().poll(&mut cx).is_pending(),
            "busy: no jump"
        );
        drop(busy);
        deadline.await;
        assert!(clock.now() >= at, "jumped a week");
        assert!(clock.skipped() >= week - Duration::from_secs(60));

        // A long poll waits its real time, whatever the clock does.
        let poll_end = clock.now().plus_millis(20_000);
        let began = tokio::time::Instant::now();
        clock.sleep_until(poll_end, Wait::LongPoll).await;
        assert!(began.elapsed() >= Duration::from_secs(19));

        // A jump by hand ends the timer loop's wait.
        let later = clock.now().plus_millis(week.as_millis() as u64);
        let _busy = idle.busy();
        let wait = clock.sleep_until(later, Wait::Deadline);
        clock.advance(Duration::from_secs(3600));
        wait.await;
    }
}
