//! What `/metrics` shows, in the Prometheus (OpenMetrics) text format.
//!
//! - `swf_*`: SWF's own CloudWatch metrics, under their names (`WorkflowsCompleted` is
//!   `swf_workflows_completed_total`, `ActivityTaskScheduleToStartTime` is
//!   `swf_activity_task_schedule_to_start_time_seconds`), counted from the history events this
//!   node commits (`swf.rs`), and the tasks pending per list, read at each scrape.
//! - `weft_*`: what Weft knows beyond SWF: how long polls wait to be handed a task, how the
//!   writer batches commits, how guests fare per binding, who is throttled, long polls open.
//!
//! Labels are bounded: the domain (and the tenant, when there are tenants), which quotas bound;
//! workflow and activity types, at most `swf::MAX_TYPE_SERIES` of them (every registered one
//! shown from the first scrape, at zero); a binding's kind and name, which bindings bound; task
//! list names only in `swf_pending_tasks`, at most [`MAX_LIST_SERIES`] of them. Counters are
//! this node's: with several nodes, sum them.

mod own;
mod process;
mod swf;

use std::collections::{HashMap, HashSet};
use std::fmt;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, text};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

use crate::model::{Kind, ListKey, Queued, TaskKind, TypeName, queue_key};

pub(crate) use self::own::{GuestOutcome, Own};
pub(crate) use self::swf::{EventTimes, Measure};

/// Label pairs, in order: `tenant` (with tenants), `domain`, then the metric's own.
pub(crate) type Labels = Vec<(&'static str, String)>;

/// The most `swf_pending_tasks` series one scrape shows; lists past it are summed, per domain
/// and kind, under the task list `(other)`.
const MAX_LIST_SERIES: usize = 1000;

/// The metrics of each schedule, read from it at each scrape (so the same on every node and
/// across restarts): name and help.
pub(crate) const SCHEDULE_METRICS: [(&str, &str); 4] = [
    (
        "weft_schedule_runs_started",
        "Runs each schedule started (times, triggers and backfills), read at each scrape",
    ),
    (
        "weft_schedule_times_skipped",
        "Each schedule's times its overlap policy skipped, read at each scrape",
    ),
    (
        "weft_schedule_times_missed",
        "Each schedule's times missed by more than its catch-up window (the server was down), \
         read at each scrape",
    ),
    (
        "weft_schedule_paused",
        "Whether each schedule is paused (1) or not (0), read at each scrape",
    ),
];

/// The most schedules whose metrics a scrape shows.
pub(crate) const MAX_SCHEDULE_SERIES: usize = 1000;

/// Every metric of this node, and the registry that writes them out.
pub(crate) struct Metrics {
    registry: Registry,
    /// Each tenant's name by its account; empty when the server runs open.
    tenants: HashMap<String, String>,
    swf: swf::Swf,
    /// Weft's own metrics, for the parts of the service that observe them.
    pub(crate) own: Own,
    pending: Family<Labels, Gauge>,
    /// Tasks waiting under each fairness key of the lists with keyed tasks, read at each
    /// scrape.
    keys_waiting: Family<Labels, Gauge>,
    /// Open runs pinned to each version of each decision binding, read at each scrape.
    pinned: Family<Labels, Gauge>,
    /// Each schedule's counts, read at each scrape: runs started, times skipped by overlap,
    /// times missed, and whether it is paused.
    schedules: [Family<Labels, Gauge>; 4],
    /// 1 for each paused task list, read at each scrape.
    lists_paused: Family<Labels, Gauge>,
    /// 1 if the latest scrape read the store, 0 if it could not in time.
    store_up: Gauge,
    /// When the scheduled and started events of open tasks happened, to time them.
    pub(crate) times: EventTimes,
    /// One scrape at a time: each refreshes `pending` before it is written out.
    scrape: tokio::sync::Mutex<()>,
}

impl fmt::Debug for Metrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new(Vec::new(), None)
    }
}

impl Metrics {
    /// The metrics of a node whose tenants are `tenants` (account, name; none when open), with
    /// `store`'s own (its writer's) read at each scrape.
    pub(crate) fn new(
        tenants: Vec<(String, String)>,
        store: Option<Box<dyn Collector>>,
    ) -> Metrics {
        let mut registry = Registry::default();
        let swf = swf::Swf::register(&mut registry);
        let own = Own::register(&mut registry);
        if let Some(store) = store {
            registry.register_collector(store);
        }
        let pending = Family::<Labels, Gauge>::default();
        registry.register(
            "swf_pending_tasks",
            "Tasks waiting in each task list (CloudWatch PendingTasks), read at each scrape",
            pending.clone(),
        );
        let keys_waiting = Family::<Labels, Gauge>::default();
        registry.register(
            "weft_task_list_waiting",
            "Tasks waiting in each task list with tasks under fairness keys, by key (\"\" for \
             the key-less ones), read at each scrape",
            keys_waiting.clone(),
        );
        let pinned = Family::<Labels, Gauge>::default();
        registry.register(
            "weft_runs_pinned",
            "Open runs pinned to each version of each decision binding's decider, read at each \
             scrape",
            pinned.clone(),
        );
        let schedules: [Family<Labels, Gauge>; 4] = Default::default();
        for (family, (name, help)) in schedules.iter().zip(SCHEDULE_METRICS) {
            registry.register(name, help, family.clone());
        }
        let lists_paused = Family::<Labels, Gauge>::default();
        registry.register(
            "weft_task_list_paused",
            "1 for each paused task list, by domain, kind and list, read at each scrape",
            lists_paused.clone(),
        );
        let store_up = Gauge::default();
        registry.register(
            "weft_store_up",
            "Whether this scrape could read the store (1) or not in time (0: the database does \
             not answer)",
            store_up.clone(),
        );
        Metrics {
            registry,
            tenants: tenants.into_iter().collect(),
            swf,
            own,
            pending,
            keys_waiting,
            pinned,
            schedules,
            lists_paused,
            store_up,
            times: EventTimes::default(),
            scrape: tokio::sync::Mutex::new(()),
        }
    }

    /// The labels that place a metric of domain `domain` of `account`: its tenant's name (with
    /// tenants), then the domain.
    pub(crate) fn domain_labels(&self, account: &str, domain: &str) -> Labels {
        let mut labels = Vec::with_capacity(4);
        if !self.tenants.is_empty() {
            let tenant = self.tenants.get(account).map_or("", String::as_str);
            labels.push(("tenant", tenant.to_owned()));
        }
        labels.push(("domain", domain.to_owned()));
        labels
    }

    /// The labels of a metric of tenant `tenant`'s, with tenants; none when open.
    pub(crate) fn tenant_labels(&self, tenant: &str) -> Labels {
        match self.tenants.is_empty() {
            true => Vec::new(),
            false => vec![("tenant", tenant.to_owned())],
        }
    }

    /// Counts what a committed history event of a run of `workflow` in a domain tells (see
    /// `swf.rs`).
    pub(crate) fn record(&self, labels: &Labels, workflow: &TypeName, measure: Measure) {
        self.swf.record(labels, workflow, measure);
    }

    /// Every metric, as the text a scrape answers, with the tasks `pending` as read for it
    /// (`None`: the store could not be read, and the pending tasks are not shown).
    pub(crate) async fn render(&self, pending: Option<Pending>) -> String {
        let _one = self.scrape.lock().await;
        self.pending.clear();
        self.keys_waiting.clear();
        self.pinned.clear();
        self.schedules.iter().for_each(Family::clear);
        self.lists_paused.clear();
        self.store_up.set(i64::from(pending.is_some()));
        if let Some(stored) = &pending {
            for (domain, schedule, counts) in &stored.schedules {
                if let Some((account, name)) = stored.domains.get(domain) {
                    let mut labels = self.domain_labels(account, name);
                    labels.push(("schedule", schedule.clone()));
                    for (family, count) in self.schedules.iter().zip(counts) {
                        let count = i64::try_from(*count).unwrap_or(i64::MAX);
                        family.get_or_create(&labels).set(count);
                    }
                }
            }
            for (domain, kind, list) in &stored.lists_paused {
                if let Some((account, name)) = stored.domains.get(domain) {
                    let mut labels = self.domain_labels(account, name);
                    labels.push(("kind", kind.served_by().name().to_owned()));
                    labels.push(("task_list", list.clone()));
                    self.lists_paused.get_or_create(&labels).set(1);
                }
            }
            for (domain, binding, version, count) in &stored.pinned {
                if let Some((account, name)) = stored.domains.get(domain) {
                    let mut labels = self.domain_labels(account, name);
                    labels.push(("binding", binding.clone()));
                    labels.push(("module_version", version.to_string()));
                    let count = i64::try_from(*count).unwrap_or(i64::MAX);
                    self.pinned.get_or_create(&labels).set(count);
                }
            }
            for (domain, kind, ty) in &stored.types {
                if let Some((account, name)) = stored.domains.get(domain) {
                    self.swf
                        .show_type(&self.domain_labels(account, name), *kind, ty);
                }
            }
        }
        let (lists, keys) = pending.map(|p| p.series(self)).unwrap_or_default();
        for (family, series) in [(&self.pending, lists), (&self.keys_waiting, keys)] {
            for (labels, count) in series {
                let count = i64::try_from(count).unwrap_or(i64::MAX);
                family.get_or_create(&labels).set(count);
            }
        }
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = text::encode(&mut out, &self.registry);
        out
    }
}

/// What one scrape reads from the store: the tasks waiting per list, the types registered in
/// each domain, whose counters show from the start, and the runs pinned to deciders.
pub(crate) struct Pending {
    /// `(account, domain name)` by domain id.
    domains: HashMap<u64, (String, String)>,
    queued: Vec<Queued>,
    /// Every type of every domain, registered or deprecated, by domain id.
    types: Vec<(u64, Kind, TypeName)>,
    /// Open runs pinned to each version of each decision binding: domain id, binding,
    /// version number, count.
    pinned: Vec<(u64, String, u32, u64)>,
    /// Each schedule's counts, as [`SCHEDULE_METRICS`] names them: domain id, schedule id,
    /// counts.
    schedules: Vec<(u64, String, [u64; 4])>,
    /// The paused task lists.
    lists_paused: Vec<ListKey>,
}

impl Pending {
    /// What a scrape read: `(account, domain name)` by domain id, the lists with tasks waiting,
    /// and every type of every domain.
    pub(crate) fn new(
        domains: HashMap<u64, (String, String)>,
        queued: Vec<Queued>,
        types: Vec<(u64, Kind, TypeName)>,
    ) -> Pending {
        Pending {
            domains,
            queued,
            types,
            pinned: Vec::new(),
            schedules: Vec::new(),
            lists_paused: Vec::new(),
        }
    }

    /// With the paused task lists.
    pub(crate) fn with_lists_paused(self, lists_paused: Vec<ListKey>) -> Pending {
        Pending {
            lists_paused,
            ..self
        }
    }

    /// With the open runs pinned to each version of each decision binding: domain id,
    /// binding, version number, count.
    pub(crate) fn with_pinned(self, pinned: Vec<(u64, String, u32, u64)>) -> Pending {
        Pending { pinned, ..self }
    }

    /// With each schedule's counts, as [`SCHEDULE_METRICS`] names them: domain id, schedule
    /// id, counts.
    pub(crate) fn with_schedules(self, schedules: Vec<(u64, String, [u64; 4])>) -> Pending {
        Pending { schedules, ..self }
    }

    /// The series to show: one per list (its keys' queues summed in), up to
    /// [`MAX_LIST_SERIES`], the rest summed per domain and kind; and, for the lists with
    /// tasks under fairness keys, one per key, up to as many.
    fn series(&self, metrics: &Metrics) -> (Vec<Series>, Vec<Series>) {
        let mut series: Vec<Series> = Vec::new();
        let mut other: HashMap<Labels, u64> = HashMap::new();
        let mut keyed: Vec<Series> = Vec::new();
        let keyed_lists: HashSet<(u64, TaskKind, &str)> = (self.queued.iter())
            .filter_map(|q| match queue_key(&q.list) {
                (_, "") => None,
                (list, _) => Some((q.domain, q.kind, list)),
            })
            .collect();
        for q in &self.queued {
            let Some((account, name)) = self.domains.get(&q.domain) else {
                continue;
            };
            let (list, key) = queue_key(&q.list);
            let mut labels = metrics.domain_labels(account, name);
            labels.push(("kind", q.kind.served_by().name().to_owned()));
            if keyed.len() < MAX_LIST_SERIES && keyed_lists.contains(&(q.domain, q.kind, list)) {
                let mut labels = labels.clone();
                labels.push(("task_list", list.to_owned()));
                labels.push(("key", key.to_owned()));
                keyed.push((labels, q.count));
            }
            labels.push(("task_list", list.to_owned()));
            // A list's keys' queues come right after its own.
            let room = series.len() < MAX_LIST_SERIES;
            match series.last_mut() {
                Some((last, count)) if *last == labels => *count += q.count,
                _ if room => series.push((labels, q.count)),
                _ => {
                    labels.pop();
                    labels.push(("task_list", "(other)".to_owned()));
                    *other.entry(labels).or_default() += q.count;
                }
            }
        }
        series.extend(other);
        (series, keyed)
    }
}

/// One series of a gauge read at a scrape: its labels and value.
type Series = (Labels, u64);

/// A histogram of durations from a millisecond to an hour and more.
pub(crate) fn seconds() -> Histogram {
    Histogram::new([
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
        300.0, 900.0, 3600.0,
    ])
}

/// A histogram of counts from 1 to 1024, doubling.
pub(crate) fn counts() -> Histogram {
    Histogram::new(exponential_buckets(1.0, 2.0, 11))
}

/// Registers `metric` as `name` in seconds.
fn register_seconds(
    registry: &mut Registry,
    name: &str,
    help: &str,
    metric: impl prometheus_client::registry::Metric,
) {
    registry.register_with_unit(name, help, Unit::Seconds, metric);
}

/// Writes one metric without labels, as a collector reads it at a scrape.
pub(crate) fn encode_one(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    metric: impl EncodeMetric,
) -> Result<(), std::fmt::Error> {
    let descriptor = encoder.encode_descriptor(name, help, None, metric.metric_type())?;
    metric.encode(descriptor)
}

#[cfg(test)]
mod tests;
