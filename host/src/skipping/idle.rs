//! Whether the server is idle, for time-skipping (`skipping/mod.rs`): nothing can happen
//! until the next deadline, so time may jump to it.
//!
//! Idle means: no request being handled that may change anything (reads do not count: a test
//! asking whether its run has closed must not hold time still; a long poll counts only while
//! it is not waiting), no
//! in-process worker at work (they count as busy from their poll's answer to their own), and no
//! task handed out whose holder has been heard from within [`HOLD_GRACE`]. The last is a
//! compromise SWF forces: a server cannot tell a worker computing without heartbeats from one
//! that crashed holding the task, so a holder silent for that long is taken for gone, and its
//! task's timeouts may come. All of it must hold for [`QUIET`] of real time, so that a client
//! between two calls (a decider that answered and is about to poll again) is not taken for
//! gone.

use std::collections::HashMap;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use crate::engine::TaskRef;

/// How long the server must stay idle before time jumps.
pub(crate) const QUIET: Duration = Duration::from_millis(200);

/// How long a task's holder may stay silent (no heartbeat, no answer) before time may jump past
/// its task's timeouts.
pub(crate) const HOLD_GRACE: Duration = Duration::from_secs(3);

/// What keeps the server busy. Counted only when time skips: otherwise nobody asks.
#[derive(Default)]
pub(crate) struct Idle {
    on: bool,
    /// Requests and in-process workers at work. Signed, so that a [`Waiting`] taken by work
    /// that holds no [`Busy`] (a test's direct call) can only make the server look idler.
    busy: AtomicIsize,
    state: Mutex<State>,
    changed: Notify,
}

#[derive(Default)]
struct State {
    /// When anything last became busy or idle.
    last_change: Option<Instant>,
    /// Tasks handed out and not answered, with when their holder was last heard from.
    held: HashMap<(u64, u64), Instant>,
}

/// Keeps the server busy until dropped.
pub(crate) struct Busy(Option<Arc<Idle>>);

impl Drop for Busy {
    fn drop(&mut self) {
        if let Some(idle) = &self.0 {
            idle.busy.fetch_sub(1, Ordering::AcqRel);
            idle.touch();
        }
    }
}

/// While held, the busy work that made it (a long poll) waits and keeps nobody busy.
pub(crate) struct Waiting(Option<Arc<Idle>>);

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(idle) = &self.0 {
            idle.busy.fetch_add(1, Ordering::AcqRel);
            idle.touch();
        }
    }
}

impl Idle {
    /// What keeps a server busy, counted if `on` (the server skips time).
    pub(crate) fn new(on: bool) -> Idle {
        Idle {
            on,
            ..Idle::default()
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes that something changed, and wakes whoever waits for the server to settle. Time's
    /// jump is such a change: what it set off (a poll handed the task a timer queued) has
    /// [`QUIET`] to show itself before the next one.
    pub(crate) fn touch(&self) {
        self.state().last_change = Some(Instant::now());
        self.changed.notify_waiters();
    }

    /// Whether anything is counted: the server skips time.
    pub(crate) fn counts(&self) -> bool {
        self.on
    }

    /// Busy until the guard is dropped.
    pub(crate) fn busy(self: &Arc<Self>) -> Busy {
        if !self.on {
            return Busy(None);
        }
        self.busy.fetch_add(1, Ordering::AcqRel);
        self.touch();
        Busy(Some(self.clone()))
    }

    /// For work that holds a [`Busy`]: not busy until the guard is dropped. A long poll is idle
    /// while it waits.
    pub(crate) fn waiting(self: &Arc<Self>) -> Waiting {
        if !self.on {
            return Waiting(None);
        }
        self.busy.fetch_sub(1, Ordering::AcqRel);
        self.touch();
        Waiting(Some(self.clone()))
    }

    /// `task` was handed out, or its holder was heard from.
    pub(crate) fn heard(&self, task: TaskRef) {
        if !self.on {
            return;
        }
        self.state()
            .held
            .insert((task.run, task.scheduled), Instant::now());
        self.touch();
    }

    /// `task` was answered, or will never be.
    pub(crate) fn released(&self, task: TaskRef) {
        if !self.on {
            return;
        }
        self.state().held.remove(&(task.run, task.scheduled));
        self.touch();
    }

    /// How long until the server has been idle for [`QUIET`] (zero if it has), or `None` while
    /// it is busy. Forgets the holders silent too long.
    fn settles_in(&self) -> Option<Duration> {
        if self.busy.load(Ordering::Acquire) > 0 {
            return None;
        }
        let now = Instant::now();
        let mut state = self.state();
        state.held.retain(|_, heard| now < *heard + HOLD_GRACE);
        let quiet_at = state.last_change.map_or(now, |at| at + QUIET);
        let held_until = state.held.values().map(|heard| *heard + HOLD_GRACE).max();
        let settled_at = held_until.map_or(quiet_at, |until| until.max(quiet_at));
        Some(settled_at.saturating_duration_since(now))
    }

    /// Completes once the server has been idle for [`QUIET`].
    pub(crate) async fn settled(&self) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            match self.settles_in() {
                Some(wait) if wait.is_zero() => return,
                Some(wait) => {
                    tokio::select! {
                        () = changed => {}
                        () = tokio::time::sleep(wait) => {}
                    }
                }
                None => changed.await,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TaskKind;

    fn task(run: u64) -> TaskRef {
        TaskRef {
            kind: TaskKind::Activity,
            run,
            scheduled: 5,
            started: 6,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn settles_after_quiet_and_after_silent_holders_are_given_up() {
        let idle = Arc::new(Idle::new(true));
        let settled = |idle: &Arc<Idle>| idle.settles_in();
        assert_eq!(
            settled(&idle),
            Some(Duration::ZERO),
            "nothing ever happened"
        );

        let busy = idle.busy();
        assert_eq!(settled(&idle), None);
        let waiting = idle.waiting();
        assert!(settled(&idle).is_some(), "a waiting poll is idle");
        drop(waiting);
        assert_eq!(settled(&idle), None);
        drop(busy);
        assert_eq!(settled(&idle), Some(QUIET), "quiet first");

        idle.heard(task(1));
        assert_eq!(settled(&idle), Some(HOLD_GRACE));
        idle.released(task(1));
        assert_eq!(settled(&idle), Some(QUIET));

        idle.heard(task(2));
        let waited = Instant::now();
        idle.settled().await;
        // A holder never heard from again is given up after the grace.
        assert!(Instant::now() - waited >= HOLD_GRACE);
        assert_eq!(settled(&idle), Some(Duration::ZERO));
    }
}
