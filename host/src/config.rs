//! How a Weft service is set up.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::{Clock, SystemClock};
use crate::tenancy::TenantConfig;

/// Everything `Weft::open` needs.
#[derive(Clone)]
pub struct Config {
    /// The directory holding the database; created if missing.
    pub data_dir: PathBuf,
    /// How long a long poll waits for a task before answering empty (AWS: 60 s).
    pub poll_timeout: Duration,
    /// The account id of the open tenant, when no tenants are configured.
    pub account_id: String,
    /// The numeric limits SWF documents, adjustable for tests and benchmarks.
    pub limits: Limits,
    /// Where "now" comes from.
    pub clock: Arc<dyn Clock>,
    /// How long closed executions are kept, instead of their domains' retention periods. A
    /// deviation from SWF for testing: retention is otherwise counted in days.
    pub retention_override: Option<Duration>,
    /// Who may call. Empty: one open tenant on `account_id`, and requests are not authenticated.
    pub tenants: Vec<TenantConfig>,
    /// How far a signed request's time may be from the server's (AWS: 15 minutes).
    pub max_clock_skew: Duration,
}

impl Config {
    /// The defaults, with the data in `data_dir`.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Config {
            data_dir: data_dir.into(),
            poll_timeout: Duration::from_secs(60),
            account_id: DEFAULT_ACCOUNT_ID.to_owned(),
            limits: Limits::default(),
            clock: Arc::new(SystemClock),
            retention_override: None,
            tenants: Vec::new(),
            max_clock_skew: Duration::from_secs(15 * 60),
        }
    }
}

/// The account id used when none is configured.
pub const DEFAULT_ACCOUNT_ID: &str = "000000000000";

/// SWF's documented limits (spec §8.16). The defaults are AWS's values.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Registered plus deprecated domains per account and region.
    pub max_domains: usize,
    /// Registered plus deprecated workflow types, and likewise activity types, per domain.
    pub max_types_per_kind: usize,
    /// Tags on one domain.
    pub max_domain_tags: usize,
    /// Bytes in one request body.
    pub max_request_bytes: usize,
    /// Open runs per domain, children included.
    pub max_open_runs: u64,
    /// Concurrent long polls on one task list.
    pub max_pollers_per_list: usize,
    /// Open activity tasks, and likewise timers, child runs and Lambda function tasks, of one run.
    pub max_open_per_run: usize,
    /// Events in one run's history: a run that reaches it is terminated.
    pub max_events_per_run: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_domains: 100,
            max_types_per_kind: 10_000,
            max_domain_tags: 50,
            max_request_bytes: 1024 * 1024,
            max_open_runs: 100_000,
            max_pollers_per_list: 1000,
            max_open_per_run: 1000,
            max_events_per_run: 25_000,
        }
    }
}

/// Whether `id` is usable as an account id: AWS account ids are 12 digits.
pub(crate) fn is_account_id(id: &str) -> bool {
    id.len() == 12 && id.bytes().all(|b| b.is_ascii_digit())
}
