//! What wakes the timer loop when the engine commits a deadline: the engine rings it after each
//! commit that set one; the loop, which sits above the engine, waits on it.

use std::sync::atomic::{AtomicI64, Ordering};

use tokio::sync::Notify;

use crate::clock::Timestamp;

/// What wakes the timer loop: a deadline committed here or by another node that told its time,
/// so that the loop need not read the store to learn it (reading costs a database round trip on
/// PostgreSQL), or a change it must look at the store for (a lost notice).
pub(crate) struct Alarm {
    notify: Notify,
    /// The earliest deadline committed here since the loop last woke, in milliseconds;
    /// `i64::MIN` if the loop must look at the store, 0 if nothing was told.
    told: AtomicI64,
    /// When the loop will wake by itself, in milliseconds: a deadline at or after it needs
    /// no wake-up, as the loop reads the store when it wakes. `i64::MAX` while the loop reads
    /// the store, or sleeps with no deadline in view: then every deadline wakes it.
    armed: AtomicI64,
}

impl Default for Alarm {
    fn default() -> Self {
        Alarm {
            notify: Notify::new(),
            told: AtomicI64::new(0),
            armed: AtomicI64::new(i64::MAX),
        }
    }
}

/// What woke the loop.
pub(crate) enum Heard {
    /// Deadlines were committed, the earliest at this time.
    Deadline(Timestamp),
    /// Something the loop must read the store to learn.
    Look,
    /// Nothing new: a wake-up left over from what an earlier one already heard.
    Nothing,
}

impl Alarm {
    /// Tells the loop of a deadline committed at `at` (the earliest of a commit's).
    pub(crate) fn deadline(&self, at: Timestamp) {
        let at = at.as_millis().max(1);
        // Most deadlines lie beyond the one the loop waits for: waking it would cost a thread
        // hand-off per request, to learn nothing.
        if at >= self.armed.load(Ordering::SeqCst) {
            return;
        }
        let _ = self
            .told
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |told| match told {
                0 => Some(at),
                told => Some(told.min(at)),
            });
        self.notify.notify_one();
    }

    /// Has the loop look at the store.
    pub(crate) fn look(&self) {
        self.told.store(i64::MIN, Ordering::Release);
        self.notify.notify_one();
    }

    /// The loop wakes by itself at `at` (`None`: not before it is told something): deadlines
    /// from then on need not wake it. Set to `None` before the loop reads the store, so that
    /// what is committed while it reads wakes it.
    pub(crate) fn arm(&self, at: Option<Timestamp>) {
        let at = at.map_or(i64::MAX, |at| at.as_millis());
        self.armed.store(at, Ordering::SeqCst);
    }

    /// A wake-up to wait for; enabled before the loop reads the store, it is woken by what
    /// is told meanwhile.
    pub(crate) fn notified(&self) -> tokio::sync::futures::Notified<'_> {
        self.notify.notified()
    }

    /// What was told since the last time, and forgets it.
    pub(crate) fn heard(&self) -> Heard {
        match self.told.swap(0, Ordering::AcqRel) {
            0 => Heard::Nothing,
            i64::MIN => Heard::Look,
            at => Heard::Deadline(Timestamp::from_millis(at)),
        }
    }
}

#[cfg(test)]
mod tests {
    use futures_util::FutureExt as _;

    use super::{Alarm, Heard};
    use crate::clock::Timestamp;

    /// Whether the loop, waiting now, would be woken.
    fn rung(alarm: &Alarm) -> bool {
        alarm.notified().now_or_never().is_some()
    }

    #[test]
    fn a_deadline_wakes_the_loop_only_if_it_comes_before_the_loop_wakes_by_itself() {
        let alarm = Alarm::default();
        let at = Timestamp::from_millis;
        alarm.arm(Some(at(5_000)));
        alarm.deadline(at(5_000));
        alarm.deadline(at(9_000));
        assert!(
            !rung(&alarm),
            "a deadline from the loop's own wake-up on is left to it"
        );
        assert!(matches!(alarm.heard(), Heard::Nothing));

        alarm.deadline(at(4_000));
        alarm.deadline(at(4_500));
        assert!(rung(&alarm));
        assert!(matches!(alarm.heard(), Heard::Deadline(t) if t == at(4_000)));

        // While the loop reads the store, or has no deadline in view, every deadline wakes it.
        alarm.arm(None);
        alarm.deadline(at(90_000));
        assert!(rung(&alarm));
        assert!(matches!(alarm.heard(), Heard::Deadline(t) if t == at(90_000)));
    }
}
