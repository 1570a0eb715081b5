//! The times of heartbeats that carried no details, kept in memory instead of committed.
//!
//! Such a heartbeat changes nothing a client can see, only when the task's heartbeat timeout
//! may fire, so it should cost no fsync. The deadline armed by the task's last durable change
//! stays; when it fires, the timer loop finds the later heartbeat here and re-arms from it
//! instead of timing the task out. A restart forgets them: a task may then time out as of its
//! last durable heartbeat (its start, or its last heartbeat with details), as if the worker's
//! later heartbeats had been lost on the way.
//!
//! They are this process's memory: several processes sharing one store would each need to see
//! the others' (see `store::seam`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::clock::Timestamp;

/// The last detail-less heartbeat of each open activity task, by (run seq, scheduled event);
/// clones share them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Heartbeats(Arc<Mutex<HashMap<(u64, u64), Timestamp>>>);

impl Heartbeats {
    /// Notes a heartbeat of the task at `at`.
    pub(crate) fn note(&self, run: u64, scheduled: u64, at: Timestamp) {
        self.lock().insert((run, scheduled), at);
    }

    /// The task's last noted heartbeat.
    pub(crate) fn last(&self, run: u64, scheduled: u64) -> Option<Timestamp> {
        self.lock().get(&(run, scheduled)).copied()
    }

    /// Forgets the task: it closed, or a durable change re-armed its timeout.
    pub(crate) fn forget(&self, run: u64, scheduled: u64) {
        self.lock().remove(&(run, scheduled));
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<(u64, u64), Timestamp>> {
        // Each change is one map call, so a panic elsewhere cannot leave the map half done.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
