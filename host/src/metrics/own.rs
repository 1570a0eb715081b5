//! Weft's own metrics: what SWF's CloudWatch has no name for.

use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Registry;

use super::{Labels, register_seconds, seconds};
use crate::model::TaskKind;

type Histograms = Family<Labels, Histogram, fn() -> Histogram>;

/// How one call of a guest ended, for the metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GuestOutcome {
    /// It answered (whether the answer was then accepted or not).
    Answered,
    /// It trapped: a panic, `unreachable`, an out-of-bounds access.
    Trapped,
    /// It hit one of its binding's limits: `cpu`, `memory`, `stack` or `output`.
    Limit(&'static str),
}

/// Weft's own metrics.
pub(crate) struct Own {
    poll_handoff: Histograms,
    guest_calls: Histograms,
    guest_traps: Family<Labels, Counter>,
    guest_limits: Family<Labels, Counter>,
    guest_failures: Family<Labels, Counter>,
    decision_tasks: Family<Labels, Counter>,
    upgrades: Family<Labels, Counter>,
    run_pauses: Family<Labels, Counter>,
    run_resumes: Family<Labels, Counter>,
    batch_runs: Family<Labels, Counter>,
    lists_throttled: Family<Labels, Counter>,
    keys_handed_out: Family<Labels, Counter>,
    throttled: Family<Labels, Counter>,
    long_polls: Family<Labels, Gauge>,
    compiles_running: Gauge,
    compiles_waiting: Gauge,
    /// Closed runs whose purge waits for the archive to write them.
    pub(crate) archive_backlog: Gauge,
    /// Writes to the archive that failed.
    pub(crate) archive_failures: Counter,
}

impl Own {
    /// The metrics, registered in `registry`.
    pub(super) fn register(registry: &mut Registry) -> Own {
        let histograms = || Histograms::new_with_constructor(seconds as fn() -> Histogram);
        let own = Own {
            poll_handoff: histograms(),
            guest_calls: histograms(),
            guest_traps: Family::default(),
            guest_limits: Family::default(),
            guest_failures: Family::default(),
            decision_tasks: Family::default(),
            upgrades: Family::default(),
            run_pauses: Family::default(),
            run_resumes: Family::default(),
            batch_runs: Family::default(),
            lists_throttled: Family::default(),
            keys_handed_out: Family::default(),
            throttled: Family::default(),
            long_polls: Family::default(),
            compiles_running: Gauge::default(),
            compiles_waiting: Gauge::default(),
            archive_backlog: Gauge::default(),
            archive_failures: Counter::default(),
        };
        registry.register(
            "weft_build",
            "The running weft's version",
            Info::new(vec![("version", env!("CARGO_PKG_VERSION"))]),
        );
        register_seconds(
            registry,
            "weft_poll_handoff",
            "From a task's claim for a waiting poll to its delivery, once the claim committed",
            own.poll_handoff.clone(),
        );
        own.register_guests(registry);
        registry.register(
            "weft_throttled_requests",
            "Requests refused with ThrottlingException for their tenant's request rate",
            own.throttled.clone(),
        );
        registry.register(
            "weft_long_polls_open",
            "Long polls waiting over HTTP",
            own.long_polls.clone(),
        );
        registry.register(
            "weft_compiles_running",
            "Module uploads (and replays' loads) compiling now",
            own.compiles_running.clone(),
        );
        registry.register(
            "weft_compiles_waiting",
            "Module uploads (and replays' loads) waiting for a turn to compile",
            own.compiles_waiting.clone(),
        );
        own.register_archive(registry);
        registry.register_collector(Box::new(super::process::Process));
        own
    }

    /// Registers the metrics of in-process guests and of the runs their deciders decide.
    fn register_guests(&self, registry: &mut Registry) {
        register_seconds(
            registry,
            "weft_guest_call",
            "How long each call of an in-process guest ran, by binding",
            self.guest_calls.clone(),
        );
        registry.register(
            "weft_guest_traps",
            "Guest calls that trapped, by binding",
            self.guest_traps.clone(),
        );
        registry.register(
            "weft_guest_limit_hits",
            "Guest calls stopped by a limit (cpu, memory, stack, output), by binding",
            self.guest_limits.clone(),
        );
        registry.register(
            "weft_guest_failures",
            "Tasks an in-process guest failed, by binding and cause (error, nondeterminism, \
             panic, trap, cpu, memory, stack, output, invalid)",
            self.guest_failures.clone(),
        );
        registry.register(
            "weft_decision_tasks",
            "Decision tasks an in-process decider completed, by binding and the binding's \
             version of the module that decided (the one the run is pinned to)",
            self.decision_tasks.clone(),
        );
        registry.register(
            "weft_runs_paused",
            "Runs paused at this node, by domain and cause (request: an operator's; failures: \
             a decision binding's, after its decider failed as often in a row as it allows)",
            self.run_pauses.clone(),
        );
        registry.register(
            "weft_runs_resumed",
            "Paused runs resumed at this node, by domain",
            self.run_resumes.clone(),
        );
        registry.register(
            "weft_batch_job_runs",
            "Runs batch jobs acted on at this node, by domain, action and outcome (done, or \
             failed: the action did not apply)",
            self.batch_runs.clone(),
        );
        registry.register(
            "weft_task_list_throttled",
            "Claims a task list's controls held back at this node, by kind, list and cause \
             (rate: a poll waited for the next token; concurrency: the cap's tasks were all \
             started), summed over domains",
            self.lists_throttled.clone(),
        );
        registry.register(
            "weft_task_list_handed_out",
            "Tasks a list with fairness keys handed out at this node, by kind, list and key (\"\" \
             for the key-less tasks), summed over domains",
            self.keys_handed_out.clone(),
        );
        registry.register(
            "weft_run_upgrades",
            "Open runs an upgrade moved to a decision binding's current decider (moved), or \
             left on theirs (kept), by binding",
            self.upgrades.clone(),
        );
    }

    /// Registers the archive's metrics (`archive.rs`).
    fn register_archive(&self, registry: &mut Registry) {
        registry.register(
            "weft_archive_backlog",
            "Closed runs whose purge waits for the archive to write them",
            self.archive_backlog.clone(),
        );
        registry.register(
            "weft_archive_write_failures",
            "Writes of closed runs to the archive that failed",
            self.archive_failures.clone(),
        );
    }

    /// The list `name` of `kind` held a claim back, for `cause`: its `rate` or its
    /// `concurrency` cap.
    pub(crate) fn list_throttled(&self, kind: TaskKind, name: &str, cause: &'static str) {
        let labels = vec![
            ("kind", kind.served_by().name().to_owned()),
            ("task_list", name.to_owned()),
            ("cause", cause.to_owned()),
        ];
        self.lists_throttled.get_or_create(&labels).inc();
    }

    /// The list `name` of `kind`, which has fairness keys, handed out a task of `key`.
    pub(crate) fn key_handed_out(&self, kind: TaskKind, name: &str, key: &str) {
        let labels = vec![
            ("kind", kind.served_by().name().to_owned()),
            ("task_list", name.to_owned()),
            ("key", key.to_owned()),
        ];
        self.keys_handed_out.get_or_create(&labels).inc();
    }

    /// A waiting poll for tasks of `kind` was handed one `elapsed` after it was claimed for
    /// it: the claim's commit, and the rest of its batch.
    pub(crate) fn handed_off(&self, kind: TaskKind, elapsed: Duration) {
        let labels = vec![("kind", kind.served_by().name().to_owned())];
        let h = self.poll_handoff.get_or_create(&labels);
        h.observe(elapsed.as_secs_f64());
    }

    /// A call of the guest of the binding `labels` place ended with `outcome` after `elapsed`.
    pub(crate) fn guest_called(&self, labels: &Labels, elapsed: Duration, outcome: GuestOutcome) {
        self.guest_calls
            .get_or_create(labels)
            .observe(elapsed.as_secs_f64());
        match outcome {
            GuestOutcome::Answered => {}
            GuestOutcome::Trapped => {
                self.guest_traps.get_or_create(labels).inc();
            }
            GuestOutcome::Limit(limit) => {
                let mut labels = labels.clone();
                labels.push(("limit", limit.to_owned()));
                self.guest_limits.get_or_create(&labels).inc();
            }
        }
    }

    /// A run of the domain `labels` place was paused, for `cause` (`request` or `failures`).
    pub(crate) fn run_paused(&self, labels: &Labels, cause: &'static str) {
        let mut labels = labels.clone();
        labels.push(("cause", cause.to_owned()));
        self.run_pauses.get_or_create(&labels).inc();
    }

    /// A batch job's step acted on `done` runs and failed on `failed`, with `action`, in the
    /// domain `labels` place.
    pub(crate) fn batch_step(&self, labels: &Labels, action: &'static str, done: u64, failed: u64) {
        for (outcome, count) in [("done", done), ("failed", failed)] {
            let mut labels = labels.clone();
            labels.push(("action", action.to_owned()));
            labels.push(("outcome", outcome.to_owned()));
            self.batch_runs.get_or_create(&labels).inc_by(count);
        }
    }

    /// A paused run of the domain `labels` place was resumed.
    pub(crate) fn run_resumed(&self, labels: &Labels) {
        self.run_resumes.get_or_create(labels).inc();
    }

    /// The guest of the binding `labels` place failed its task, for `cause`.
    pub(crate) fn guest_failed(&self, labels: &Labels, cause: &'static str) {
        let mut labels = labels.clone();
        labels.push(("cause", cause.to_owned()));
        self.guest_failures.get_or_create(&labels).inc();
    }

    /// The decider of the binding `labels` place completed a decision task with its version
    /// `module_version`.
    pub(crate) fn decided(&self, labels: &Labels, module_version: String) {
        let mut labels = labels.clone();
        labels.push(("module_version", module_version));
        self.decision_tasks.get_or_create(&labels).inc();
    }

    /// An upgrade of the decision binding `labels` place moved a run (`moved`) or kept it.
    pub(crate) fn upgraded(&self, labels: &Labels, moved: bool) {
        let mut labels = labels.clone();
        labels.push(("outcome", if moved { "moved" } else { "kept" }.to_owned()));
        self.upgrades.get_or_create(&labels).inc();
    }

    /// A request of the tenant `labels` place was throttled.
    pub(crate) fn throttled(&self, labels: &Labels) {
        self.throttled.get_or_create(labels).inc();
    }

    /// A compile began (`delta` 1) or ended (-1).
    pub(crate) fn compiles_running(&self, delta: i64) {
        self.compiles_running.inc_by(delta);
    }

    /// An upload began waiting for its turn to compile (`delta` 1) or stopped (-1).
    pub(crate) fn compiles_waiting(&self, delta: i64) {
        self.compiles_waiting.inc_by(delta);
    }

    /// A long poll of the tenant `labels` place began waiting (`delta` 1) or ended (-1).
    pub(crate) fn long_poll(&self, labels: &Labels, delta: i64) {
        self.long_polls.get_or_create(labels).inc_by(delta);
    }
}
