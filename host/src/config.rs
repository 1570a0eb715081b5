//! How a Weft service is set up.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;

use crate::clock::Clock;

/// A PostgreSQL connection string, as a URL (`postgres://USER:PASSWORD@HOST/DB`) or as
/// `key=value` pairs. It may hold a password, so it never prints.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct StoreUrl(String);

impl StoreUrl {
    /// The connection string `url`.
    pub fn new(url: impl Into<String>) -> Self {
        StoreUrl(url.into())
    }

    /// The string itself, password and all: only for connecting.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreUrl(..)")
    }
}

impl std::str::FromStr for StoreUrl {
    type Err = std::convert::Infallible;

    fn from_str(url: &str) -> Result<Self, Self::Err> {
        Ok(StoreUrl::new(url))
    }
}

/// The MiB of redb's page cache unless configured.
pub(crate) const DEFAULT_STORE_CACHE_MIB: usize = 64;

/// Everything `Weft::open` needs.
#[derive(Clone)]
pub struct Config {
    /// The directory holding the database (with redb), and compiled Wasm code; created if
    /// missing.
    pub data_dir: PathBuf,
    /// A PostgreSQL database to keep the state in instead of redb: several processes naming
    /// the same one serve the same tenants, domains and task lists. `None`: redb in
    /// `data_dir`.
    pub store: Option<StoreUrl>,
    /// Bytes of redb's page cache: what it keeps of the database file in memory (redb's own
    /// default, 1 GiB, would let a node grow towards that as its file grows).
    pub store_cache: usize,
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
    /// Where closed runs are written, as `weft export` writes them, before retention purges
    /// them; `None`: they are purged unwritten, as SWF does.
    pub archive: Option<PathBuf>,
    /// Who may call. Empty: one open tenant on `account_id`, and requests are not authenticated.
    pub tenants: Vec<TenantConfig>,
    /// How far a signed request's time may be from the server's (AWS: 15 minutes).
    pub max_clock_skew: Duration,
    /// What the HTTP edge allows one client: connections, and time to send a request.
    pub http: HttpLimits,
    /// PEM files of CAs that activity workers' outgoing HTTPS trusts, besides the Mozilla roots
    /// compiled in: for services signed by a private CA. Empty: the Mozilla roots only.
    pub http_ca: Vec<PathBuf>,
    /// The bearer token `/metrics` asks for. `None`: open servers answer anyone, servers with
    /// tenants nobody.
    pub metrics_token: Option<String>,
    /// Host names an open server answers to besides loopback names and IP addresses: a web
    /// page that rebinds a name of its own to this server is refused by its `Host` header.
    pub allowed_hosts: Vec<String>,
    /// Whether the server speaks HTTPS, and with which certificate. `None`: plain HTTP.
    pub tls: Option<ServerTls>,
    /// Time-skipping, for tests: the clock starts at the real time and, whenever the server is
    /// idle, jumps to the next deadline (replacing `clock`). Refused with tenants or PostgreSQL.
    pub time_skipping: bool,
    /// For tests and trying things out: the state is kept in memory only (redb on no file, no
    /// compiled-code cache), and lost when the process ends. Refused with tenants or
    /// PostgreSQL.
    pub ephemeral: bool,
}

/// How the server speaks HTTPS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerTls {
    /// A certificate chain (the server's certificate first) and its private key, PEM files,
    /// read again when either changes: a renewed certificate is served to new connections.
    Files {
        /// The certificate chain's file.
        cert: PathBuf,
        /// The private key's file.
        key: PathBuf,
    },
    /// A certificate made for local use, for localhost and the allowed hosts, in the data
    /// directory's `tls/`, signed by a CA made with it whose certificate (`tls/ca.pem`) clients
    /// trust: `AWS_CA_BUNDLE=DATA/tls/ca.pem`.
    SelfSigned,
}

impl Config {
    /// The defaults, with the data in `data_dir`.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Config {
            data_dir: data_dir.into(),
            store: None,
            store_cache: DEFAULT_STORE_CACHE_MIB << 20,
            poll_timeout: Duration::from_secs(60),
            account_id: DEFAULT_ACCOUNT_ID.to_owned(),
            limits: Limits::default(),
            clock: crate::clock::system_clock(),
            retention_override: None,
            archive: None,
            tenants: Vec::new(),
            max_clock_skew: Duration::from_secs(15 * 60),
            http: HttpLimits::default(),
            http_ca: Vec::new(),
            metrics_token: None,
            allowed_hosts: Vec::new(),
            tls: None,
            time_skipping: false,
            ephemeral: false,
        }
    }
}

/// The HTTP edge's defences against clients that hold resources without using them: caps on
/// connections, in all and per client address, and deadlines on sending a request. They bound
/// what a slow, idle or greedy client costs; they do not throttle a fast one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpLimits {
    /// Connections served at once. While this many are open the server stops accepting, and new
    /// connections wait in the operating system's backlog until one closes. Every long poll
    /// holds a connection for up to the poll timeout, so leave room above the pollers expected.
    pub max_connections: usize,
    /// Connections one client address may hold at once; its next one is answered
    /// `ThrottlingException` and closed, while other addresses are served. IPv6 clients count
    /// by their /64, which one host usually holds whole. `None`: a quarter of
    /// `max_connections`. Behind a proxy every client has the proxy's address: raise it to
    /// `max_connections` there.
    pub max_connections_per_address: Option<usize>,
    /// The last connection slots, kept for addresses that hold few connections: once only
    /// these are left, an address holding `reserved_per_address` or more is refused, so a
    /// flood from some addresses cannot keep a new client out. `None`: a sixteenth of
    /// `max_connections`.
    pub reserved_connections: Option<usize>,
    /// How many connections an address may hold and still be given a reserved slot: what a
    /// client that has just arrived needs.
    pub reserved_per_address: usize,
    /// The most bytes a request's line and headers may take; more is answered 431. It also
    /// bounds what each connection buffers (at least 8 KiB, hyper's floor).
    pub max_header_bytes: usize,
    /// How long a client may take to send a request's headers, counted from when the
    /// connection is ready for a request: a client that trickles its headers is disconnected.
    /// On a kept-alive connection the count starts when the previous answer is sent, so this
    /// is also how long a connection may sit idle between requests. A request being served,
    /// such as a long poll, is not idle.
    pub header_timeout: Duration,
    /// How long a client may take to send a request's body once its headers are in: the whole
    /// body, not each piece of it, so a client that sends a byte now and then is cut off too.
    /// It is answered `RequestTimeoutException` (408), which SDKs retry, and disconnected. It
    /// bounds module uploads as well: 32 MiB in 30 s needs about 1.1 MB/s.
    pub body_timeout: Duration,
    /// How long a signed request whose signature cannot be checked before its body (it sends
    /// no `x-amz-content-sha256`) may take to send that body. Anyone can name a tenant's access
    /// key id, which travels in the clear; until the signature over the body holds, the
    /// request is nobody's, so it gets this much shorter deadline instead of `body_timeout`.
    pub unverified_body_timeout: Duration,
    /// The largest body such a request may send; more is refused (413) before it is read. The
    /// default admits every SWF request (1 MiB); a larger upload must carry
    /// `x-amz-content-sha256`, which lets its signature be checked first (`weft` sends it).
    pub unverified_body_bytes: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_connections: 4096,
            max_connections_per_address: None,
            reserved_connections: None,
            reserved_per_address: 8,
            max_header_bytes: 64 << 10,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            unverified_body_timeout: Duration::from_secs(5),
            unverified_body_bytes: 1 << 20,
        }
    }
}

impl HttpLimits {
    /// Connections one address may hold: `max_connections_per_address` or its default.
    pub(crate) fn per_address(&self) -> usize {
        self.max_connections_per_address
            .unwrap_or(self.max_connections / 4)
            .max(1)
    }

    /// Connection slots kept for addresses with few connections.
    pub(crate) fn reserved(&self) -> usize {
        self.reserved_connections
            .unwrap_or(self.max_connections / 16)
    }

    /// Why these limits cannot be served with, if they cannot.
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.max_connections == 0 || self.max_connections > MAX_CONNECTIONS {
            return Err(format!(
                "max_connections is {}; it must be 1 to {MAX_CONNECTIONS}",
                self.max_connections
            ));
        }
        if self.max_connections_per_address == Some(0) {
            return Err("max_connections_per_address must be at least 1".into());
        }
        if self.reserved() >= self.max_connections {
            return Err(format!(
                "reserved_connections is {}; it must be below max_connections ({})",
                self.reserved(),
                self.max_connections
            ));
        }
        if self.reserved_per_address == 0 {
            return Err("reserved_per_address must be at least 1".into());
        }
        if !(MIN_HEADER_BYTES..=MAX_HEADER_BYTES).contains(&self.max_header_bytes) {
            return Err(format!(
                "max_header_bytes is {}; it must be {MIN_HEADER_BYTES} to {MAX_HEADER_BYTES}",
                self.max_header_bytes
            ));
        }
        if self.header_timeout.is_zero()
            || self.body_timeout.is_zero()
            || self.unverified_body_timeout.is_zero()
        {
            return Err("the header and body timeouts must be longer than zero".into());
        }
        Ok(())
    }
}

/// The fewest bytes [`HttpLimits::max_header_bytes`] may allow: hyper refuses a smaller buffer.
const MIN_HEADER_BYTES: usize = 8192;

/// The most bytes [`HttpLimits::max_header_bytes`] may allow: SWF's whole request limit.
const MAX_HEADER_BYTES: usize = 1 << 20;

/// The most connections [`HttpLimits::max_connections`] may allow: far above what one process
/// has file descriptors for, and small enough to count in a `u32`.
const MAX_CONNECTIONS: usize = 1 << 20;

/// The address `weft serve` listens on when none is configured.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";

/// The data directory `weft serve` uses when none is configured.
pub const DEFAULT_DATA_DIR: &str = "./weft-data";

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
    /// Bytes in one import (`POST /v1/domains/{domain}/imports`): one run's whole history.
    /// Weft's own; its tenant's rate counts it as one request per `max_request_bytes`.
    pub max_import_bytes: usize,
    /// Open runs per domain, children included.
    pub max_open_runs: u64,
    /// Concurrent long polls on one task list.
    pub max_pollers_per_list: usize,
    /// Concurrent long polls of the open tenant in one region (each holds a connection), so
    /// pollers in one scope cannot take every connection. Configured tenants have the
    /// `long_polls` quota instead.
    pub max_long_polls: usize,
    /// Open activity tasks, and likewise timers, child runs and Lambda function tasks, of one run.
    pub max_open_per_run: usize,
    /// Events in one run's history: a run that reaches it is terminated.
    pub max_events_per_run: u64,
    /// Module uploads (and replays' loads) the server compiles at once, whoever sends them;
    /// more wait their turn. A compile takes seconds of CPU and hundreds of MB for a large
    /// component. Also the open tenant's `compiles` quota.
    pub max_compiles: usize,
    /// Runs a batch job acts on per second, at most (and when its request names no rate).
    pub max_batch_rate: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_domains: 100,
            max_types_per_kind: 10_000,
            max_domain_tags: 50,
            max_request_bytes: 1024 * 1024,
            max_import_bytes: 64 << 20,
            max_open_runs: 100_000,
            max_pollers_per_list: 1000,
            max_long_polls: 1000,
            max_open_per_run: 1000,
            max_events_per_run: 25_000,
            max_compiles: 2,
            max_batch_rate: 100,
        }
    }
}

/// One tenant as configured: its name, account, keys, domains and quotas. Plain settings:
/// `tenancy` builds the tenants requests are checked against from them.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TenantConfig {
    /// A name for logs and error messages.
    pub name: String,
    /// The 12-digit AWS account id its resources live under. Unique per tenant.
    pub account_id: String,
    /// Its access key pairs; any of them signs for it.
    pub keys: Vec<AccessKey>,
    /// The domains it may create and use: a name, a prefix ending in `*` (`acme-*`), or `*`.
    pub domains: Vec<String>,
    /// What it may use.
    #[serde(default)]
    pub quotas: Quotas,
    /// Hosts (`name` or `name:port`) its activity bindings may be granted outgoing HTTP to;
    /// `"*"` allows any. None by default.
    #[serde(default)]
    pub http_hosts: Vec<String>,
}

/// An access key pair.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessKey {
    /// The access key id clients send in the clear.
    pub id: String,
    /// The secret they sign with.
    pub secret: String,
}

impl std::fmt::Debug for AccessKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessKey")
            .field("id", &self.id)
            .field("secret", &"<redacted>")
            .finish()
    }
}

/// What a tenant may use. Counts beyond them fail with `LimitExceededFault`, rates with
/// `ThrottlingException`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Quotas {
    /// Domains, registered or deprecated, across all regions.
    pub domains: usize,
    /// Uploaded Wasm modules.
    pub modules: usize,
    /// Bytes of all its uploaded modules together.
    pub module_bytes: u64,
    /// Linear memory of one Wasm instance; bindings may ask for less, never more.
    pub wasm_memory_bytes: u64,
    /// CPU time of one Wasm call, in milliseconds; bindings may ask for less, never more.
    pub wasm_cpu_ms: u64,
    /// Wasm instances running at once, across all its bindings.
    pub wasm_instances: u32,
    /// Open executions in one domain, children included.
    pub open_executions: u64,
    /// Requests per second over HTTP, refilling a bucket of `request_burst`; none: unlimited.
    pub requests_per_second: Option<f64>,
    /// The bucket's size: requests that may come at once (default: one second's worth).
    pub request_burst: Option<u32>,
    /// Long polls (PollForDecisionTask, PollForActivityTask) waiting at once, across its
    /// regions and task lists. Each holds a connection for up to the poll timeout, so this
    /// keeps one tenant's pollers from taking the connections every tenant shares.
    pub long_polls: usize,
    /// Its module uploads (and replays' loads) compiled at once; more wait their turn, after
    /// taking their place in `modules`.
    pub compiles: usize,
    /// CPU time one replay (`POST /v1/domains/{d}/replay`, `weft deploy --verify`) may spend
    /// in its decider, over all the decision tasks it replays, in milliseconds; a replay that
    /// needs more is refused with `LimitExceededFault`.
    pub replay_cpu_ms: u64,
}

impl Default for Quotas {
    fn default() -> Self {
        Quotas {
            domains: 100,
            modules: 100,
            module_bytes: 256 << 20,
            wasm_memory_bytes: 256 << 20,
            wasm_cpu_ms: 60_000,
            wasm_instances: 32,
            open_executions: 100_000,
            requests_per_second: None,
            request_burst: None,
            long_polls: 1000,
            compiles: 1,
            replay_cpu_ms: 60_000,
        }
    }
}

/// Whether `id` is usable as an account id: AWS account ids are 12 digits.
pub(crate) fn is_account_id(id: &str) -> bool {
    id.len() == 12 && id.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_limits_need_a_connection_and_some_time() {
        assert_eq!(HttpLimits::default().check(), Ok(()));
        let none = HttpLimits {
            max_connections: 0,
            ..HttpLimits::default()
        };
        assert!(none.check().unwrap_err().contains("max_connections is 0"));
        let instant = HttpLimits {
            body_timeout: Duration::ZERO,
            ..HttpLimits::default()
        };
        assert!(instant.check().is_err());
    }

    #[test]
    fn address_caps_and_the_reserve_follow_the_connection_cap() {
        let limits = HttpLimits {
            max_connections: 100,
            ..HttpLimits::default()
        };
        assert_eq!((limits.per_address(), limits.reserved()), (25, 6));
        // Tiny caps still let an address in, and keep no reserve.
        let tiny = HttpLimits {
            max_connections: 2,
            ..HttpLimits::default()
        };
        assert_eq!((tiny.per_address(), tiny.reserved()), (1, 0));
        assert_eq!(tiny.check(), Ok(()));
        let all_reserved = HttpLimits {
            max_connections: 10,
            reserved_connections: Some(10),
            ..HttpLimits::default()
        };
        assert!(all_reserved.check().unwrap_err().contains("reserved"));
        let small_buffer = HttpLimits {
            max_header_bytes: 1024,
            ..HttpLimits::default()
        };
        assert!(
            small_buffer
                .check()
                .unwrap_err()
                .contains("max_header_bytes")
        );
    }
}
