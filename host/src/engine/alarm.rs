//! What wakes the timer loop when the engine commits a deadline: the engine rings it after each
//! commit that set one; the loop, which sits above the engine, waits on it.

use std::sync::atomic::{AtomicI64, Ordering};

use tokio::sync::Notify;

use crate::clock::Timestamp;

/// What wakes the timer loop: a deadline committed here or by another node that told its time,
/// so that the loop need not read the store to learn it (reading costs a database round trip on
/// PostgreSQL), or a change it must look at the store for (a lost notice).
#[derive(Default)]
pub(crate) struct Alarm {
    notify: Notify,
    /// The earliest deadline committed here since the loop last woke, in milliseconds;
    /// `i64::MIN` if the loop must look at the store, 0 if nothing was told.
    told: AtomicI64,
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
