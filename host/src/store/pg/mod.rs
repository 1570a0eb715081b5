//! PostgreSQL: the store several Weft nodes share (`weft serve --store postgres://…`).
//!
//! The same interface as redb's (`store/seam.rs`), on one database that every node connects
//! to. Snapshot reads come from a pool of connections, each a repeatable-read transaction.
//! Each node's writer commits that node's requests in batches, as redb's does; the rules that
//! one writer made true by being alone hold across nodes through the database:
//!
//! - a run is changed by one transaction at a time: the writer's reads of a run lock its row
//!   (`FOR UPDATE`) until the commit;
//! - a task is claimed once: `pop_task` takes the first unlocked task and deletes it
//!   (`FOR UPDATE SKIP LOCKED`), or, on a list the node knows holds no other, the task its
//!   transaction queued there, never sent (`lists.rs`); a deadline fires once, by the same
//!   means in `take_due`;
//! - limits are exact: a check reads the domain's counter locked, and the domain count of an
//!   account is read under an advisory lock of that account;
//! - one open run per workflow id, one domain, type or module per name: primary keys, whose
//!   violation sends the batch round again, where the check then sees the other node's record;
//! - ids are a sequence.
//!
//! Batches that lose a race (deadlock, lock timeout, a key) run again (`writer.rs`). After a
//! commit, `NOTIFY` tells the other nodes what it queued or armed (`notices.rs`); a node that
//! misses a notice finds the work at its next periodic look, and forgets the lists it knew
//! empty.
//!
//! A database that stops answering, or a node cut off mid-transaction, costs seconds: every
//! call has a deadline, and the server ends transactions left idle (`conn.rs`).
//!
//! TLS to the database is the URL's to ask for (`tls.rs`).

mod ahead;
mod batches;
mod catalog;
mod conn;
mod counters;
mod events;
mod grouped;
mod lists;
mod notices;
mod pages;
mod params;
mod reads;
mod run_items;
mod run_reads;
mod schedules;
mod schema;
mod session;
mod tls;
mod wasm_reads;
mod wasm_writes;
mod writer;
mod writes;

/// The first schema, as its build made it: for the tests of what upgrades it.
#[cfg(test)]
pub(super) const SCHEMA_1: &str = schema::MIGRATIONS[0];

use std::sync::Arc;
use std::sync::atomic::AtomicI32;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::clock::Clock;

use self::conn::{Manager, Pool};
use self::session::{Session, Snapshot};
use super::WriterStats;
use super::seam::{Backend, Job, Reads};
use super::writer::Queue;
use super::{OpenError, Opened, Place, StoreError, Writer};

/// Snapshot connections one node keeps open at most.
const POOL_SIZE: u32 = 16;

/// How long a read waits for a connection before it fails as unavailable.
const POOL_WAIT: Duration = conn::DEADLINE;

/// The shared backend: a pool for snapshots, this node's writer, and its catalog.
struct Postgres {
    pool: Pool,
    jobs: Queue,
    catalog: Arc<catalog::Catalog>,
}

impl Backend for Postgres {
    fn snapshot(&self) -> Result<Box<dyn Reads>, StoreError> {
        let conn = self
            .pool
            .get()
            .map_err(|e| StoreError::Unavailable(e.to_string()))?;
        Ok(Box::new(Session::new(conn, Snapshot, self.catalog.clone())))
    }

    fn submit(&self, job: Box<dyn Job>) -> Result<(), StoreError> {
        self.jobs.send(job).map_err(|_| StoreError::Stopped)
    }
}

/// Where a connection string points, without its password: for logs and errors.
fn describe(config: &tokio_postgres::Config) -> String {
    let user = config.get_user().unwrap_or("?");
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
        #[cfg(unix)]
        Some(tokio_postgres::config::Host::Unix(path)) => path.display().to_string(),
        None => "localhost".into(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config.get_dbname().unwrap_or(user);
    format!("{user}@{host}:{port}/{db}")
}

/// Opens the store at `place` if it is PostgreSQL's: any location given, as a connection URL
/// (`postgres://…`) or libpq's `key=value` pairs. On a thread of its own: the blocking client
/// must not run on an async runtime's thread, where callers may be.
pub(super) fn open_place(
    place: &Place<'_>,
    clock: Arc<dyn Clock>,
) -> Option<Result<Opened, StoreError>> {
    let url = place.location?;
    Some(std::thread::scope(|scope| {
        (scope.spawn(|| open(url, clock)).join()).unwrap_or(Err(StoreError::Panicked))
    }))
}

/// Connects to the database `url` names, brings its schema up to date, and starts this node's
/// writer and its listener for other nodes' notices.
fn open(url: &str, clock: Arc<dyn Clock>) -> Result<Opened, StoreError> {
    let (config, tls) = tls::parse(url)?;
    let place = describe(&config);
    let stats = WriterStats::default();
    let encrypted = tls.is_some();
    let manager = Arc::new(Manager::new(config, tls, stats.clone(), place.clone()));
    let mut conn = manager.connect()?;
    let schema: String = conn
        .query_opt("SELECT current_schema()", &[])?
        .and_then(|row| row.get(0))
        .ok_or_else(|| OpenError::Config(format!("{place}: no schema to keep the tables in")))?;
    if schema.contains('"') {
        return Err(OpenError::Config(format!("{place}: the schema's name holds a quote")).into());
    }
    let channel = notices::channel(&schema);
    conn.set_deadline(conn::MIGRATION_DEADLINE)?;
    schema::migrate(&mut conn)?;
    let secret = secret(&mut conn)?;
    drop(conn);
    let pool = r2d2::Pool::builder()
        .max_size(POOL_SIZE)
        .min_idle(Some(1))
        .connection_timeout(POOL_WAIT)
        .build(Manager::clone(&manager))
        .map_err(|e| StoreError::Unavailable(format!("{place}: {e}")))?;
    let catalog = Arc::new(catalog::Catalog::default());
    // The writer's server process: the listener skips the notices it sends.
    let own = Arc::new(AtomicI32::new(0));
    let lists = Arc::new(lists::EmptyLists::default());
    let mut committer = writer::Committer::new(
        manager.clone(),
        clock,
        channel.clone(),
        catalog.clone(),
        own.clone(),
        lists.clone(),
    );
    let (jobs, thread) = super::writer::serve(writer::MAX_BATCH, stats.clone(), move |batch| {
        committer.commit(batch)
    })
    .map_err(OpenError::Thread)?;
    let (signals, receiver) = mpsc::unbounded_channel();
    notices::listen(manager, channel, signals, catalog.clone(), own, lists)
        .map_err(OpenError::Thread)?;
    tracing::info!(database = %place, %schema, tls = encrypted, "store opened on PostgreSQL");
    Ok(Opened {
        store: super::Store {
            backend: Arc::new(Postgres {
                pool,
                jobs,
                catalog,
            }),
        },
        writer: Writer(Some(thread)),
        secret,
        stats,
        signals: Some(receiver),
    })
}

/// The key of every token the service issues: made by the first node, shared by all.
fn secret(conn: &mut conn::Conn) -> Result<[u8; 32], StoreError> {
    let mut fresh = [0; 32];
    getrandom::fill(&mut fresh).map_err(|e| StoreError::Corrupt {
        table: "weft_meta",
        detail: format!("no randomness for the token key: {e}"),
    })?;
    conn.execute(
        "INSERT INTO weft_meta (key, value) VALUES ('secret', $1) ON CONFLICT DO NOTHING",
        &[&&fresh[..]],
    )?;
    let row = conn.query_opt("SELECT value FROM weft_meta WHERE key = 'secret'", &[])?;
    row.and_then(|row| <[u8; 32]>::try_from(row.get::<_, &[u8]>(0)).ok())
        .ok_or_else(|| StoreError::Corrupt {
            table: "weft_meta",
            detail: "the token key is not 32 bytes".into(),
        })
}
