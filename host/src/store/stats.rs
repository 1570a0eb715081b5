//! What the writer has done, whichever backend it writes to: the store's own metrics.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Unit;

use crate::metrics::{counts, encode_one, seconds};

/// What the writer has done since the store was opened: how well group commit is working.
#[derive(Clone, Debug, Default)]
pub struct WriterStats(Arc<Counters>);

#[derive(Debug)]
struct Counters {
    commits: AtomicU64,
    requests: AtomicU64,
    round_trips: AtomicU64,
    retries: AtomicU64,
    /// Requests per batch, and how long each batch took to apply and commit.
    batch_sizes: Histogram,
    commit_times: Histogram,
}

impl Default for Counters {
    fn default() -> Self {
        Counters {
            commits: AtomicU64::default(),
            requests: AtomicU64::default(),
            round_trips: AtomicU64::default(),
            retries: AtomicU64::default(),
            batch_sizes: counts(),
            commit_times: seconds(),
        }
    }
}

impl WriterStats {
    /// Durable commits made; batches that changed nothing make none.
    pub fn commits(&self) -> u64 {
        self.0.commits.load(Ordering::Relaxed)
    }

    /// Requests applied by those commits.
    pub fn requests(&self) -> u64 {
        self.0.requests.load(Ordering::Relaxed)
    }

    /// Round trips to the database server, by the writer and by reads: every statement sent
    /// and every statement prepared. Zero on redb, which is in-process.
    pub fn round_trips(&self) -> u64 {
        self.0.round_trips.load(Ordering::Relaxed)
    }

    /// Batches run again because they collided with another node's transaction (PostgreSQL).
    pub fn retries(&self) -> u64 {
        self.0.retries.load(Ordering::Relaxed)
    }

    /// Requests per batch, as a histogram (shared: it fills as the writer works).
    pub(crate) fn batch_sizes(&self) -> Histogram {
        self.0.batch_sizes.clone()
    }

    /// Seconds each batch took to apply and commit, as a histogram (shared).
    pub(crate) fn commit_times(&self) -> Histogram {
        self.0.commit_times.clone()
    }

    /// Counts a batch of `requests` applied in `took`, which made a commit if `committed`.
    pub(super) fn batch_done(&self, requests: usize, took: Duration, committed: bool) {
        let counters = &self.0;
        counters.batch_sizes.observe(requests as f64);
        counters.commit_times.observe(took.as_secs_f64());
        counters
            .commits
            .fetch_add(u64::from(committed), Ordering::Relaxed);
        counters
            .requests
            .fetch_add(requests as u64, Ordering::Relaxed);
    }

    /// Counts one round trip.
    pub(super) fn round_trip(&self) {
        self.0.round_trips.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one batch run again.
    pub(super) fn retry(&self) {
        self.0.retries.fetch_add(1, Ordering::Relaxed);
    }
}

/// Read at each scrape: the counters as they are, the histograms as they filled.
impl Collector for WriterStats {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        for (name, help, value) in [
            ("weft_commits", "Durable commits made", self.commits()),
            (
                "weft_committed_requests",
                "Requests applied by those commits",
                self.requests(),
            ),
            (
                "weft_store_round_trips",
                "Statements sent to the database server (PostgreSQL)",
                self.round_trips(),
            ),
            (
                "weft_commit_retries",
                "Batches run again after a conflict with another node (PostgreSQL)",
                self.retries(),
            ),
        ] {
            encode_one(&mut encoder, name, help, ConstCounter::new(value))?;
        }
        encode_one(
            &mut encoder,
            "weft_commit_batch_size",
            "Requests applied by each commit of the writer",
            self.batch_sizes(),
        )?;
        let histogram = self.commit_times();
        let descriptor = encoder.encode_descriptor(
            "weft_commit",
            "How long each batch took to apply and commit durably",
            Some(&Unit::Seconds),
            histogram.metric_type(),
        )?;
        histogram.encode(descriptor)
    }
}
