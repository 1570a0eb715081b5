//! Test support: the real Weft server on `127.0.0.1:0` with a temporary data directory, an
//! `aws-sdk-swf` client for it, a raw HTTP client for requests no SDK would send, and real Wasm
//! guests to run on it ([`guests`]).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use aws_sdk_swf::config::retry::RetryConfig;
use aws_sdk_swf::config::timeout::TimeoutConfig;
use aws_sdk_swf::config::{BehaviorVersion, Credentials, Region};
use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use weft_host::clock::{Clock, ManualClock, SystemClock, Timestamp, Wait};
use weft_host::{Config, StoreUrl, Weft, WriterStats};

pub use aws_sdk_swf;

pub mod bench;
pub mod clients;
pub mod guests;
pub mod imports;
pub mod languages;
pub mod netns;
pub mod polls;
pub mod process;
pub mod proxy;
mod raw;
pub mod tenants;

pub use raw::{RawResponse, history_json, raw_http, raw_request};

/// Shows the servers' logs in the tests' output, filtered by `WEFT_TEST_LOG` (as `RUST_LOG`
/// would be), if it is set.
fn init_log() {
    if let Ok(filter) = std::env::var("WEFT_TEST_LOG") {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_test_writer()
            .try_init();
    }
}

/// The PostgreSQL database the suite runs on instead of redb, if the environment names one:
/// `WEFT_TEST_POSTGRES`, a URL such as `postgres://postgres@127.0.0.1:5432/weft_tests`.
pub fn test_postgres() -> Option<String> {
    std::env::var("WEFT_TEST_POSTGRES")
        .ok()
        .filter(|url| !url.is_empty())
}

/// Where a new test server keeps its state: a fresh schema of the suite's PostgreSQL database,
/// if it runs on one, so that tests running at once never see each other's state; else redb.
pub fn test_store() -> Option<StoreUrl> {
    test_postgres().map(|url| fresh_schema(&url))
}

/// A new, empty schema in the database `url` names, as a store URL whose connections use it.
pub fn fresh_schema(url: &str) -> StoreUrl {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let started = SystemClock.now().as_millis();
    let schema = format!("weft_t{started}_{}_{n}", std::process::id());
    let create = format!("CREATE SCHEMA {schema}");
    on_database(url, move |client| client.batch_execute(&create))
        .unwrap_or_else(|e| panic!("cannot create a schema in WEFT_TEST_POSTGRES: {e}"));
    let join = if url.contains('?') { '&' } else { '?' };
    StoreUrl::new(format!("{url}{join}options=-c%20search_path%3D{schema}"))
}

/// Connects to the database `url` names and runs `work` there, on a thread of its own: the
/// blocking client must not run on a test's async runtime.
pub fn on_database<T: Send + 'static>(
    url: &str,
    work: impl FnOnce(&mut postgres::Client) -> Result<T, postgres::Error> + Send + 'static,
) -> Result<T, postgres::Error> {
    let url = url.to_owned();
    std::thread::spawn(move || work(&mut postgres::Client::connect(&url, postgres::NoTls)?))
        .join()
        .expect("the database work does not panic")
}

/// How long the helpers that wait for the server (to settle after the clock moved, for polls
/// to wait) give it before they fail the test.
const PATIENCE: Duration = Duration::from_secs(30);

/// A running server. Dropping it stops the server without waiting; [`TestServer::stop`] waits
/// until the store is closed.
///
/// A server started with [`TestServer::start_manual`] runs on a [`ManualClock`]: SWF's time
/// (timeouts, timers, retention, poll timeouts, event timestamps) stands still until the test
/// moves it with [`TestServer::advance`]. Signatures are still checked against the real time.
pub struct TestServer {
    addr: SocketAddr,
    dir: Arc<TempDir>,
    configure: Arc<dyn Fn(&mut Config) + Send + Sync>,
    /// The manual clock, kept across restarts; `None` on the system clock.
    clock: Option<Arc<ManualClock>>,
    /// The PostgreSQL schema the state is kept in, kept across restarts; `None`: redb.
    store: Option<StoreUrl>,
    poll_timeout: Duration,
    stats: WriterStats,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), weft_host::Error>>>,
}

impl TestServer {
    /// Starts a server with the default configuration on a fresh data directory.
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// Starts a server on a fresh data directory, after `configure` adjusts its configuration.
    pub async fn start_with(configure: impl Fn(&mut Config) + Send + Sync + 'static) -> Self {
        Self::start_in(None, configure).await
    }

    /// Like [`TestServer::start_with`], with the data directory made inside `parent` (the
    /// system's temporary directory if `None`), to choose the disk it lives on.
    pub async fn start_in(
        parent: Option<&std::ffi::OsStr>,
        configure: impl Fn(&mut Config) + Send + Sync + 'static,
    ) -> Self {
        let dir = match parent {
            Some(parent) => tempfile::tempdir_in(parent),
            None => tempfile::tempdir(),
        };
        let dir = Arc::new(dir.expect("temporary directory"));
        Self::launch(dir, Arc::new(configure), None, test_store()).await
    }

    /// Starts a server that skips time (`Config::time_skipping`), on redb whatever the suite's
    /// backend (time-skipping refuses PostgreSQL), after `configure` adjusts the configuration.
    pub async fn start_skipping_time_with(
        configure: impl Fn(&mut Config) + Send + Sync + 'static,
    ) -> Self {
        let dir = Arc::new(tempfile::tempdir().expect("temporary directory"));
        let configure = move |config: &mut Config| {
            config.time_skipping = true;
            configure(config);
        };
        Self::launch(dir, Arc::new(configure), None, None).await
    }

    /// Starts a server on a [`ManualClock`] standing at the current time (to the second), with
    /// the default configuration on a fresh data directory.
    pub async fn start_manual() -> Self {
        Self::start_manual_with(|_| {}).await
    }

    /// Like [`TestServer::start_manual`], after `configure` adjusts the configuration (its
    /// clock is replaced by the manual one).
    ///
    /// The clock starts at the real time because clients sign requests with the real time and
    /// dates in requests (list filters) are real ones; the server checks signatures against the
    /// real time whatever its clock, so moving the clock far ahead breaks nothing.
    pub async fn start_manual_with(
        configure: impl Fn(&mut Config) + Send + Sync + 'static,
    ) -> Self {
        let dir = Arc::new(tempfile::tempdir().expect("temporary directory"));
        let now = SystemClock.now().as_millis();
        let clock = Arc::new(ManualClock::new(Timestamp::from_millis(now - now % 1000)));
        Self::launch(dir, Arc::new(configure), Some(clock), test_store()).await
    }

    /// Starts a server with the default configuration on a [`ManualClock`] standing at `at`
    /// (milliseconds since the epoch), on a fresh data directory holding a copy of the redb
    /// store file `store`, if given (a store an earlier release wrote, say): then on redb
    /// whatever the suite's backend.
    pub async fn start_manual_at(at: i64, store: Option<&std::path::Path>) -> Self {
        let dir = Arc::new(tempfile::tempdir().expect("temporary directory"));
        let backend = match store {
            Some(store) => {
                std::fs::copy(store, dir.path().join("weft.redb")).expect("copy the store file");
                None
            }
            None => test_store(),
        };
        let clock = Arc::new(ManualClock::new(Timestamp::from_millis(at)));
        Self::launch(dir, Arc::new(|_: &mut Config| {}), Some(clock), backend).await
    }

    /// Another node on this server's PostgreSQL database, with a manual clock of its own standing
    /// at this server's time (move both with [`TestServer::advance`]); `None` on redb, which one
    /// process holds.
    pub async fn manual_node_sharing(&self) -> Option<TestServer> {
        let store = self.store.clone()?;
        let dir = Arc::new(tempfile::tempdir().expect("temporary directory"));
        let clock = Arc::new(ManualClock::new(Timestamp::from_millis(self.now_millis())));
        let configure = self.configure.clone();
        Some(Self::launch(dir, configure, Some(clock), Some(store)).await)
    }

    async fn launch(
        dir: Arc<TempDir>,
        configure: Arc<dyn Fn(&mut Config) + Send + Sync>,
        clock: Option<Arc<ManualClock>>,
        store: Option<StoreUrl>,
    ) -> Self {
        init_log();
        let mut config = Config::new(dir.path());
        config.store = store.clone();
        configure(&mut config);
        if let Some(clock) = &clock {
            config.clock = clock.clone();
        }
        let poll_timeout = config.poll_timeout;
        let weft = Weft::open(config).expect("the store opens");
        let stats = weft.writer_stats();
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local address");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(weft.serve(listener, async {
            let _ = stopped.await;
        }));
        TestServer {
            addr,
            dir,
            configure,
            clock,
            store,
            poll_timeout,
            stats,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint URL, `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The writer's counters: commits made and requests they carried.
    pub fn writer_stats(&self) -> &WriterStats {
        &self.stats
    }

    /// Shuts the server down gracefully and waits until its store is closed.
    pub async fn stop(mut self) {
        self.shutdown().await;
    }

    /// Stops the server and starts a new one on the same data directory.
    pub async fn restart(self) -> Self {
        self.restart_after(Duration::ZERO).await
    }

    /// Stops the server, lets `downtime` pass with no server running (on a manual clock, by
    /// moving it), and starts a new one on the same data directory: for deadlines that pass
    /// while the service is down.
    pub async fn restart_after(mut self, downtime: Duration) -> Self {
        self.shutdown().await;
        match &self.clock {
            Some(clock) => clock.advance(millis(downtime)),
            None => tokio::time::sleep(downtime).await,
        }
        let (dir, configure) = (self.dir.clone(), self.configure.clone());
        Self::launch(dir, configure, self.clock.clone(), self.store.clone()).await
    }

    /// Whether the state is in PostgreSQL (the suite runs with `WEFT_TEST_POSTGRES`), not redb.
    pub fn on_postgres(&self) -> bool {
        self.store.is_some()
    }

    /// The PostgreSQL schema the state is in, as a store URL: another node started with it
    /// serves the same state. `None` on redb.
    pub fn store(&self) -> Option<&StoreUrl> {
        self.store.as_ref()
    }

    /// The manual clock; panics if the server runs on the system clock.
    fn manual(&self) -> &ManualClock {
        self.clock
            .as_deref()
            .expect("the server was started with TestServer::start_manual")
    }

    /// The server's time, in milliseconds since the epoch.
    pub fn now_millis(&self) -> i64 {
        match &self.clock {
            Some(clock) => clock.now().as_millis(),
            None => SystemClock.now().as_millis(),
        }
    }

    /// Moves the manual clock forward by `by`, then waits until the server has acted on every
    /// deadline that has come (the timer loop sleeps again, until a later time): whatever a
    /// test reads next already shows what the time passed did.
    pub async fn advance(&self, by: Duration) {
        self.manual().advance(millis(by));
        self.settle().await;
    }

    /// Moves the manual clock forward to `at` (milliseconds since the epoch), as
    /// [`TestServer::advance`] does; panics if the clock is past it already.
    pub async fn advance_to(&self, at: i64) {
        let now = self.now_millis();
        assert!(at >= now, "the clock reads {now}, past {at}");
        self.advance(Duration::from_millis((at - now) as u64)).await;
    }

    /// Waits until the timer loop waits for a time still to come: every deadline due has been
    /// fired and committed.
    async fn settle(&self) {
        let clock = self.manual();
        wait_until("the timer loop to act on the deadlines due", || {
            let now = clock.now();
            clock.waits(Wait::Deadline).iter().any(|at| *at > now)
        })
        .await;
    }

    /// How long an empty long poll waits.
    pub fn poll_timeout(&self) -> Duration {
        self.poll_timeout
    }

    /// How many long polls are waiting on the manual clock for their timeout to come.
    pub fn polls_waiting(&self) -> usize {
        let clock = self.manual();
        let now = clock.now();
        clock
            .waits(Wait::LongPoll)
            .iter()
            .filter(|at| **at > now)
            .count()
    }

    /// Waits until at least `n` long polls are waiting ([`TestServer::polls_waiting`]).
    pub async fn until_polls_wait(&self, n: usize) {
        wait_until(&format!("{n} long polls to wait"), || {
            self.polls_waiting() >= n
        })
        .await;
    }

    async fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await
                .expect("the server task does not panic")
                .expect("the server stops cleanly");
        }
    }

    /// Sends `method path` with `body` over a fresh connection: for Weft's `/v1` API. A POST
    /// or PUT declares the content type its route reads, as the `weft` command does: a module
    /// for uploads, JSON elsewhere.
    pub async fn http(&self, method: &str, path: &str, body: &[u8]) -> RawResponse {
        let content_type = match (method, path) {
            ("POST", "/v1/modules") => Some("application/wasm"),
            ("POST" | "PUT", _) => Some("application/json"),
            _ => None,
        };
        let headers: Vec<_> = content_type
            .map(|t| ("Content-Type", t))
            .into_iter()
            .collect();
        raw_http(&self.addr.to_string(), method, path, &headers, body).await
    }

    /// The data directory.
    pub fn data_dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// A client in `us-east-1` with one attempt per call, so errors are not hidden by retries.
    pub fn client(&self) -> aws_sdk_swf::Client {
        self.client_in("us-east-1")
    }

    /// A client that signs for `region`.
    pub fn client_in(&self, region: &str) -> aws_sdk_swf::Client {
        self.client_as("AKIDWEFT", "secret", region)
    }

    /// A client that signs with the access key `key` and `secret`, for `region`.
    pub fn client_as(&self, key: &str, secret: &str, region: &str) -> aws_sdk_swf::Client {
        let timeouts = TimeoutConfig::builder()
            .read_timeout(Duration::from_secs(90))
            .build();
        client(&self.endpoint(), region, (key, secret), timeouts)
    }

    /// Like [`TestServer::client_as`] in us-east-1, with a clock that says it is `at`: for
    /// signatures made too far from the server's time.
    pub fn client_signing_at(
        &self,
        key: &str,
        secret: &str,
        at: std::time::SystemTime,
    ) -> aws_sdk_swf::Client {
        let config = self
            .client_as(key, secret, "us-east-1")
            .config()
            .to_builder()
            .time_source(aws_smithy_async::time::StaticTimeSource::new(at))
            .build();
        aws_sdk_swf::Client::from_conf(config)
    }

    /// Sends `body` to `POST /` with `X-Amz-Target: target` (none if `None`) over a fresh
    /// connection, exactly as given.
    pub async fn raw(&self, target: Option<&str>, body: &[u8]) -> RawResponse {
        raw_request(&self.addr.to_string(), target, body).await
    }
}

/// Whole milliseconds of `duration`, as the clock counts them.
fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).expect("a duration of less than 292 million years")
}

/// Checks `done` every millisecond until it holds; panics, naming `what`, after [`PATIENCE`].
async fn wait_until(what: &str, done: impl Fn() -> bool) {
    let began = std::time::Instant::now();
    while !done() {
        assert!(began.elapsed() < PATIENCE, "waited {PATIENCE:?} for {what}");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// A client in `us-east-1` for the server at `endpoint` (`http://HOST:PORT`), with one attempt
/// per call and the given timeouts: for servers this crate did not start, such as a `weft`
/// process.
pub fn client_at(endpoint: &str, timeouts: TimeoutConfig) -> aws_sdk_swf::Client {
    client(endpoint, "us-east-1", ("AKIDWEFT", "secret"), timeouts)
}

fn client(
    endpoint: &str,
    region: &str,
    (key, secret): (&str, &str),
    timeouts: TimeoutConfig,
) -> aws_sdk_swf::Client {
    let config = aws_sdk_swf::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .http_client(plain_http_client())
        .region(Region::new(region.to_owned()))
        .endpoint_url(endpoint)
        .credentials_provider(Credentials::new(key, secret, None, None, "tests"))
        .retry_config(RetryConfig::disabled())
        .timeout_config(timeouts)
        .build();
    aws_sdk_swf::Client::from_conf(config)
}

/// The SDK's own hyper client without TLS: the tests only speak `http://` to 127.0.0.1, and the
/// SDK's default HTTPS client would link a second TLS stack (rustls with aws-lc-rs) into the
/// workspace beside Weft's. It keeps the connector's connect and read timeouts, which
/// `TimeoutConfig` sets.
fn plain_http_client() -> aws_sdk_swf::config::SharedHttpClient {
    // `build_http` is public but undocumented in aws-smithy-http-client; Cargo.lock pins it.
    aws_smithy_http_client::Builder::new().build_http()
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
