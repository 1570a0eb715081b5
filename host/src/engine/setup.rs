//! What every engine needs from the service ([`Setup`]): whom a commit wakes, the limits runs
//! keep, and what holds a purge back.

use std::sync::Arc;
use std::time::Duration;

use crate::clock::Timestamp;
use crate::metrics::Metrics;
use crate::store::{Counter, Reads, StoreError};

use super::alarm::Alarm;
use super::claims::Claimed;
use super::controls::{ListControls, Throttled};
use super::dispatch::Dispatch;
use super::heartbeats::Heartbeats;

/// What the engine wakes once a change is committed.
#[derive(Clone, Default)]
pub(crate) struct Wakers {
    /// Polls waiting for a task.
    pub(crate) dispatch: Arc<Dispatch<Claimed>>,
    /// The timer loop, when a new deadline may be earlier than the one it sleeps towards.
    pub(crate) timers: Arc<Alarm>,
    /// The throttle loop, when a list's rate held a poll back.
    pub(crate) throttled: Arc<Throttled>,
}

/// What holds a closed run's purge back until the run is written elsewhere (the archive, which
/// implements it): the engine asks before it purges a run whose retention is over.
pub(crate) trait PurgeGate: Send + Sync {
    /// `Ok` if run `seq` may be purged at `now`; else the time its purge is to come back.
    fn may_purge(&self, seq: u64, now: Timestamp) -> Result<(), Timestamp>;
}

/// What every engine needs from the service.
#[derive(Clone)]
pub(crate) struct Setup {
    /// Whom committed changes wake.
    pub(crate) wakers: Wakers,
    /// Open runs a domain may hold.
    pub(crate) max_open_runs: u64,
    /// Open activities, timers, children and Lambda function tasks one run may have, each.
    pub(crate) max_open_per_run: usize,
    /// Events one run may record before it is terminated.
    pub(crate) max_events_per_run: u64,
    /// How long closed runs are kept, overriding their domains' retention (for testing).
    pub(crate) retention_override: Option<Duration>,
    /// Heartbeats without details, which are not committed.
    pub(crate) heartbeats: Heartbeats,
    /// Where committed events are counted.
    pub(crate) metrics: Arc<Metrics>,
    /// What holds closed runs' purges back until they are written elsewhere, if anything.
    pub(crate) purge_gate: Option<Arc<dyn PurgeGate>>,
    /// Task lists' controls, as this process knows them.
    pub(crate) controls: Arc<ListControls>,
    /// A rule a test turned off, if any.
    #[cfg(test)]
    pub(crate) broken: Broken,
}

/// A rule of the engine's that a test turns off, to show that the simulation notices when it
/// is broken (`crate::simulation`).
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Broken {
    /// Every rule holds.
    #[default]
    Nothing,
    /// A deadline that fired stays due, so the next firing takes it again.
    DeadlineTakenTwice,
}

impl Setup {
    /// Whether domain `domain` holds as many open runs as it may.
    pub(crate) fn open_runs_full(&self, tx: &dyn Reads, domain: u64) -> Result<bool, StoreError> {
        tx.reaches(domain, Counter::OpenRuns, self.max_open_runs)
    }

    /// This setup, for a store other processes share: what this process alone would keep in
    /// memory is committed.
    pub(crate) fn shared(self) -> Self {
        Setup {
            heartbeats: Heartbeats::committed(),
            ..self
        }
    }

    /// The setup for `limits`, with nobody to wake yet.
    pub(crate) fn new(limits: &crate::Limits, retention_override: Option<Duration>) -> Self {
        Setup {
            wakers: Wakers::default(),
            max_open_runs: limits.max_open_runs,
            max_open_per_run: limits.max_open_per_run,
            max_events_per_run: limits.max_events_per_run,
            retention_override,
            heartbeats: Heartbeats::default(),
            metrics: Arc::default(),
            purge_gate: None,
            controls: Arc::default(),
            #[cfg(test)]
            broken: Broken::Nothing,
        }
    }
}
