//! The times of heartbeats that carried no details, kept in memory instead of committed.
//!
//! Such a heartbeat changes nothing a client can see, only when the task's heartbeat timeout
//! may fire, so it should cost no fsync. The deadline armed by the task's last durable change
//! stays; when it fires, the timer loop finds the later heartbeat here and re-arms from it
//! instead of timing the task out. A restart forgets them: a task may then time out as of its
//! last durable heartbeat (its start, or its last heartbeat with details), as if the worker's
//! later heartbeats had been lost on the way.
//!
//! They are this process's memory, which processes sharing one database cannot see: there,
//! every heartbeat is committed ([`Heartbeats::committed`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::clock::Timestamp;

type Noted = HashMap<(u64, u64), Timestamp>;

/// The last detail-less heartbeat of each open activity task, by (run seq, scheduled event);
/// clones share them.
#[derive(Clone, Debug)]
pub(crate) struct Heartbeats(Option<Arc<Mutex<Noted>>>);

impl Default for Heartbeats {
    fn default() -> Self {
        Heartbeats(Some(Arc::default()))
    }
}

impl Heartbeats {
    /// None kept in memory: every heartbeat is committed, for a database that other processes
    /// share (one of them may fire the timeout).
    pub(crate) fn committed() -> Self {
        Heartbeats(None)
    }

    /// Notes a heartbeat of the task at `at`; false if it must be committed instead.
    pub(crate) fn note(&self, run: u64, scheduled: u64, at: Timestamp) -> bool {
        self.with(|noted| {
            noted.insert((run, scheduled), at);
        })
        .is_some()
    }

    /// The task's last noted heartbeat.
    pub(crate) fn last(&self, run: u64, scheduled: u64) -> Option<Timestamp> {
        self.with(|noted| noted.get(&(run, scheduled)).copied())
            .flatten()
    }

    /// Forgets the task: it closed, or a durable change re-armed its timeout.
    pub(crate) fn forget(&self, run: u64, scheduled: u64) {
        self.with(|noted| noted.remove(&(run, scheduled)));
    }

    fn with<T>(&self, f: impl FnOnce(&mut Noted) -> T) -> Option<T> {
        let noted = self.0.as_ref()?;
        // Each change is one map call, so a panic elsewhere cannot leave the map half done.
        let mut noted: MutexGuard<'_, Noted> = noted.lock().unwrap_or_else(|e| e.into_inner());
        Some(f(&mut noted))
    }
}
