//! Weft: an Amazon Simple Workflow Service (SWF) over HTTP with the AWS JSON 1.0 protocol, with
//! its state in redb (one process), or in PostgreSQL (several processes sharing it). Unmodified
//! AWS clients point their endpoint at it.
//!
//! Comments citing "spec §X" refer to section X of `docs/swf-rules.md`, which states each SWF
//! rule Weft implements and where in the code it lives.
//!
//! # Layout
//!
//! A request flows one way: `api` (HTTP, the model-driven validation, the fault mapping) →
//! `ops` (one file per family of SWF operations) → `engine` (SWF's rules for runs, inside the
//! writer's transaction) → `store` (redb or PostgreSQL: read snapshots, and one writer per
//! process that commits concurrent changes together). The loops (`timers`, `relay`, `archive`)
//! and the in-process `workers` sit above the operations they drive; `layers.rs` holds every
//! module's layer and the test that no import runs up one. `model` holds the wire
//! shapes, the prose rules of the SWF model and the stored records; `fault` the errors clients
//! see; `seal` the authenticated tokens; `clock` the injected time; `check` the rules every
//! history keeps.
//! Beside SWF, `api` serves Weft's `/v1` API for Wasm modules and bindings (`ops::wasm`), and
//! `client` is its client, as the `weft` command uses it. The hidden `bench` lets benchmarks call
//! a guest as the in-process workers do, without the service around it.
//!
//! ```no_run
//! # async fn example() -> Result<(), weft_host::Error> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
//! let config = weft_host::Config::new("./weft-data");
//! weft_host::Weft::open(config)?
//!     .serve(listener, async { tokio::signal::ctrl_c().await.unwrap() })
//!     .await
//! # }
//! ```

mod api;
mod archive;
#[doc(hidden)]
pub mod bench;
pub mod check;
pub mod client;
pub mod clock;
mod config;
mod config_file;
pub mod demo;
mod engine;
pub mod examples;
mod fault;
#[cfg(test)]
mod layers;
mod metrics;
mod model;
mod ops;
mod relay;
mod runtime;
mod seal;
#[cfg(test)]
mod simulation;
mod skipping;
mod store;
mod tenancy;
mod throttles;
mod timers;
mod tls;
mod workers;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::watch;

pub use config::{
    AccessKey, Config, DEFAULT_ACCOUNT_ID, DEFAULT_DATA_DIR, DEFAULT_LISTEN, HttpLimits, Limits,
    Quotas, ServerTls, StoreUrl, TenantConfig,
};
pub use config_file::{
    ConfigFile, ConfigFileError, Listen, OperatorSettings, ServerSettings, StoreSettings,
};
pub use store::{OpenError, StoreError, WriterStats};

use api::Api;
use ops::Service;
use seal::Sealer;
use store::{Store, Writer};

/// Why the service could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The store could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The configuration is unusable.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// Serving HTTP failed. The edge retries failed accepts instead of stopping, so `serve`
    /// does not answer this today; it stays for callers that match on it.
    #[error("serving HTTP: {0}")]
    Serve(#[source] std::io::Error),
    /// A stored history breaks the rules of [`check`]. Only debug builds look, at start-up.
    #[error("the stored history of run {run} is inconsistent: {}", .problems.join("; "))]
    InconsistentHistory {
        /// The run: domain, workflow id and run id, and its seq in the store.
        run: String,
        /// What is wrong, event by event.
        problems: Vec<String>,
    },
}

/// How long stopping waits for in-process workers to finish their tasks.
const WORKERS_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// An opened Weft service, ready to serve.
pub struct Weft {
    api: Arc<Api>,
    writer: Writer,
    stats: WriterStats,
    stopping: watch::Sender<bool>,
    /// What other processes sharing the database commit (PostgreSQL only).
    signals: Option<tokio::sync::mpsc::UnboundedReceiver<store::Signal>>,
    /// How the main listener speaks HTTPS, if it does.
    https: Option<tls::server::Https>,
    /// Where closed runs are written before they are purged, if anywhere: the timer loop
    /// writes them.
    archive: Option<Arc<archive::Archive>>,
}

/// Opens the store `config` names; a debug build first checks every stored history.
fn open_store(config: &Config) -> Result<store::Opened, Error> {
    let place = store::Place {
        location: config.store.as_ref().map(StoreUrl::expose),
        dir: &config.data_dir,
        cache: config.store_cache,
        ephemeral: config.ephemeral,
    };
    let opened = Store::open(place, config.clock.clone())?;
    // On a thread of its own, as the store's blocking reads must not run on an async
    // runtime's thread, where the caller may be.
    #[cfg(debug_assertions)]
    if let Err(inconsistent) = std::thread::scope(|scope| {
        let store = &opened.store;
        scope
            .spawn(|| check::stored(store))
            .join()
            .unwrap_or_else(|_| Err(Error::Config("checking the store panicked".into())))
    }) {
        // Close the store before answering, so the caller may open the directory again.
        drop(opened.store);
        opened.writer.join();
        return Err(inconsistent);
    }
    Ok(opened)
}

/// What every engine of the service needs: `config`'s limits, the `metrics`, what holds purges
/// back (the `archive`) and the task lists' `controls`; what a shared store needs, with one.
fn engine_setup(
    config: &Config,
    metrics: Arc<metrics::Metrics>,
    archive: Option<Arc<archive::Archive>>,
    controls: Arc<engine::ListControls>,
) -> engine::Setup {
    let setup = engine::Setup {
        metrics,
        purge_gate: archive.map(|a| a as Arc<dyn engine::PurgeGate>),
        controls,
        ..engine::Setup::new(&config.limits, config.retention_override)
    };
    match config.store {
        Some(_) => setup.shared(),
        None => setup,
    }
}

/// The task lists' controls the store keeps, read on a thread of its own (the store's blocking
/// reads must not run on an async runtime's thread, where the caller may be).
fn read_controls(opened: &store::Opened) -> Result<Arc<engine::ListControls>, Error> {
    let read = std::thread::scope(|scope| {
        let store = &opened.store;
        let read = scope.spawn(|| store.snapshot()?.list_controls());
        read.join().unwrap_or(Err(StoreError::Panicked))
    })?;
    let controls = Arc::new(engine::ListControls::default());
    controls.replace(read);
    Ok(controls)
}

/// Where [`Weft::serve`] accepts connections: the main listener, speaking HTTPS when
/// [`Config::tls`] is set, and optionally a second one speaking plain HTTP beside it.
pub struct Listeners {
    /// The main listener.
    pub main: TcpListener,
    /// A listener for plain HTTP beside HTTPS.
    pub plain: Option<TcpListener>,
}

impl From<TcpListener> for Listeners {
    fn from(main: TcpListener) -> Self {
        Listeners { main, plain: None }
    }
}

impl Weft {
    /// Opens the store: the PostgreSQL database `config.store` names, else redb in
    /// `config.data_dir` (which fails at once if another process has it open).
    pub fn open(mut config: Config) -> Result<Weft, Error> {
        if !config::is_account_id(&config.account_id) {
            return Err(Error::Config(format!(
                "account id {:?} is not 12 digits",
                config.account_id
            )));
        }
        let tenants = tenancy::Tenants::new(&config).map_err(Error::Config)?;
        let idle = Arc::new(skipping::Idle::new(config.time_skipping));
        let skipping = time_skipping(&mut config, &idle)?;
        check_ephemeral(&config)?;
        config.http.check().map_err(Error::Config)?;
        // Weft's own TLS names its provider; this is for any other rustls user in the process.
        runtime::install_crypto_provider();
        // Read before the store opens, so a bad file leaves nothing to close.
        let outgoing = runtime::Outgoing::new(&config.http_ca).map_err(Error::Config)?;
        let https = config
            .tls
            .as_ref()
            .map(|tls| tls::server::Https::new(tls, &config.data_dir, &config.allowed_hosts))
            .transpose()
            .map_err(Error::Config)?;
        let mut opened = open_store(&config)?;
        let signals = opened.signals.take();
        let controls = read_controls(&opened)?;
        let cache = (!config.ephemeral).then(|| config.data_dir.join("compiled"));
        let runtime = runtime::Runtime::new(cache)
            .map_err(Error::Config)?
            .with_outgoing(outgoing);
        let (stopping, shutdown) = watch::channel(false);
        let metrics = Arc::new(metrics::Metrics::new(
            tenants.names(),
            Some(Box::new(opened.stats.clone())),
        ));
        let compiles = ops::compiles::Compiles::new(config.limits.max_compiles, metrics.clone());
        let archive = (config.archive.clone()).map(|dir| {
            let (backlog, failures) = (&metrics.own.archive_backlog, &metrics.own.archive_failures);
            Arc::new(archive::Archive::new(
                dir,
                backlog.clone(),
                failures.clone(),
            ))
        });
        let setup = engine_setup(&config, metrics, archive.clone(), controls);
        let service = Service {
            store: opened.store,
            sealer: Sealer::new(opened.secret),
            limits: config.limits.clone(),
            clock: config.clock,
            engine: setup,
            poll_timeout: config.poll_timeout,
            shutdown,
            runtime: Arc::new(runtime),
            bindings_changed: watch::Sender::new(()),
            runs_resumed: watch::Sender::new(()),
            tenants,
            compiles,
            run_logs: Default::default(),
            idle,
            skipping,
            controls_turn: Default::default(),
        };
        Ok(Weft {
            api: Arc::new(Api::new(
                Arc::new(service),
                config.http,
                config.metrics_token,
                config.allowed_hosts,
            )),
            writer: opened.writer,
            stats: opened.stats,
            stopping,
            signals,
            https,
            archive,
        })
    }

    /// Whether the main listener speaks HTTPS.
    pub fn is_https(&self) -> bool {
        self.https.is_some()
    }

    /// The certificate of the CA that signed a self-signed certificate ([`ServerTls::SelfSigned`]),
    /// which clients trust to reach this server (`AWS_CA_BUNDLE`).
    pub fn self_signed_ca(&self) -> Option<&std::path::Path> {
        self.https.as_ref()?.made_ca.as_deref()
    }

    /// Whether requests go unauthenticated: no tenants are configured.
    pub fn is_open(&self) -> bool {
        self.api.service.tenants.is_open()
    }

    /// The service behind the API, for in-process drivers such as the demo.
    pub(crate) fn service(&self) -> Arc<Service> {
        self.api.service.clone()
    }

    /// A live view of the writer's counters, usable while the service runs.
    pub fn writer_stats(&self) -> WriterStats {
        self.stats.clone()
    }

    /// Serves SWF on `listeners`, within `Config::http`'s connection cap and deadlines, until
    /// `shutdown` completes; then stops accepting, answers the long polls in flight (empty),
    /// finishes the other requests, commits what they changed and closes the store.
    pub async fn serve(
        self,
        listeners: impl Into<Listeners>,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), Error> {
        let Weft {
            api,
            writer,
            stopping,
            signals,
            https,
            archive,
            ..
        } = self;
        let listeners = listeners.into();
        let mut edges = vec![api::Listener {
            tcp: listeners.main,
            tls: https.map(|https| https.acceptor),
        }];
        edges.extend(listeners.plain.map(|tcp| api::Listener { tcp, tls: None }));
        let edge_stopping = stopping.subscribe();
        let relay = signals.map(|signals| {
            tokio::spawn(relay::run(
                api.service.clone(),
                signals,
                stopping.subscribe(),
            ))
        });
        let timers = tokio::spawn(timers::run(
            api.service.clone(),
            archive,
            stopping.subscribe(),
        ));
        let throttles = tokio::spawn(throttles::run(api.service.clone(), stopping.subscribe()));
        let workers = tokio::spawn(workers::supervise(
            api.service.clone(),
            stopping.subscribe(),
        ));
        let shutdown = async move {
            shutdown.await;
            stopping.send_replace(true);
        };
        let serving = api::serve(edges, api, edge_stopping);
        tokio::join!(shutdown, serving);
        if timers.await.is_err() {
            tracing::error!("the timer loop panicked");
        }
        if throttles.await.is_err() {
            tracing::error!("the throttle loop panicked");
        }
        if let Some(relay) = relay
            && relay.await.is_err()
        {
            tracing::error!("the relay of other nodes' signals panicked");
        }
        // In-process workers finish the tasks they hold, within reason: a guest that is still
        // running then is cut off, and its task times out as a crashed worker's would.
        let workers_abort = workers.abort_handle();
        if tokio::time::timeout(WORKERS_GRACE, workers).await.is_err() {
            tracing::warn!("in-process workers still busy after {WORKERS_GRACE:?}; stopping them");
            workers_abort.abort();
        }
        // Every request is done and the router with its store handles dropped: the writer
        // drains its queue and stops, which closes the database.
        if tokio::task::spawn_blocking(move || writer.join())
            .await
            .is_err()
        {
            tracing::error!("could not wait for the writer to stop");
        }
        Ok(())
    }
}

/// The skipping clock `config` asks for, made its clock; refused where one clock cannot tell
/// when the whole service is idle, or would move every tenant's time at once.
fn time_skipping(
    config: &mut Config,
    idle: &Arc<skipping::Idle>,
) -> Result<Option<Arc<skipping::SkippingClock>>, Error> {
    if !config.time_skipping {
        return Ok(None);
    }
    if !config.tenants.is_empty() {
        return Err(Error::Config(
            "--time-skipping is for tests, and refused with tenants: one tenant's idle moment \
             would move every tenant's time"
                .into(),
        ));
    }
    if config.store.is_some() {
        return Err(Error::Config(
            "--time-skipping needs redb (no --store): nodes sharing a PostgreSQL database share \
             its time, and no one node can tell when all of them are idle"
                .into(),
        ));
    }
    let skipping = Arc::new(skipping::SkippingClock::new(idle.clone()));
    config.clock = skipping.clone();
    Ok(Some(skipping))
}

/// Refuses an ephemeral store where it cannot be: shared (PostgreSQL), or tenants' (whose
/// state must outlive a restart).
fn check_ephemeral(config: &Config) -> Result<(), Error> {
    if !config.ephemeral {
        return Ok(());
    }
    if config.store.is_some() {
        return Err(Error::Config(
            "--ephemeral keeps the state in this process's memory: it cannot be given with \
             --store, whose database several nodes share"
                .into(),
        ));
    }
    if !config.tenants.is_empty() {
        return Err(Error::Config(
            "--ephemeral is for tests and trying things out, and refused with tenants, whose \
             state must outlive a restart"
                .into(),
        ));
    }
    Ok(())
}

/// Opens the service described by `config` and serves it on `listeners` until `shutdown`.
pub async fn run(
    listeners: impl Into<Listeners>,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Error> {
    Weft::open(config)?.serve(listeners, shutdown).await
}

/// A listener on `addr` (`host:port`); if the port is taken, the error says how to pick a
/// free one.
pub async fn listen(addr: &str) -> Result<TcpListener, String> {
    TcpListener::bind(addr).await.map_err(|e| match e.kind() {
        std::io::ErrorKind::AddrInUse => format!(
            "cannot listen on {addr}: the port is in use (is another weft running? \
             --listen 127.0.0.1:0 picks a free port)"
        ),
        _ => format!("cannot listen on {addr}: {e}"),
    })
}
