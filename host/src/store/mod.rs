//! Durable state: the interface the engine and the operations use (`seam.rs`: [`Reads`],
//! [`Writes`]), and redb behind it.
//!
//! Every change goes through the one writer ([`Store::write`]), which commits concurrent requests
//! together and answers each only after its change is on disk. A change is a *check*, which reads
//! and may refuse, and an *apply*, which writes and cannot refuse: a refused request leaves the
//! batch untouched, and a partly applied change is impossible by construction. Reads
//! ([`Store::read`]) use redb snapshots and never wait for the writer. Only this module knows
//! redb.

mod access;
mod items;
mod job;
mod kinds;
mod pg;
mod runs;
mod seam;
mod stats;
mod tables;
mod upgrade;
mod wasm;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

use redb::{Database, DatabaseError, ReadableDatabase, ReadableTable};
use tokio::sync::oneshot;

use crate::clock::Clock;

use access::ReadTx;
use seam::{Backend, Job};
pub(crate) use seam::{
    Counter, Cursor, Deadline, Due, Filter, ItemReads, ItemWrites, Listing, Page, Reads, Signal,
    TypeReads, TypeWrites, Writes,
};
pub use stats::WriterStats;

/// What can go wrong below the SWF layer. Clients see any of these as an internal failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another process has the database open.
    #[error("the data directory {} is in use by another weft process", .0.display())]
    Locked(PathBuf),
    /// The data directory cannot be used.
    #[error("cannot use the data directory {}: {source}", .path.display())]
    Dir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The database was written in a format this build does not know.
    #[error("the database has format {0}; this build reads format {FORMAT}", FORMAT = tables::FORMAT_VERSION)]
    Format(u32),
    /// redb failed.
    #[error("storage: {0}")]
    Db(#[from] redb::Error),
    /// PostgreSQL failed a statement.
    #[error("database: {}", pg::explain(.0))]
    Pg(#[from] tokio_postgres::Error),
    /// The shared database cannot be reached, or a commit's outcome is unknown: the request
    /// may be tried again once it is back.
    #[error("the database is unavailable: {0}")]
    Unavailable(String),
    /// What a change needs stayed locked by other processes' transactions (a node cut off in
    /// the middle of one, say) longer than the writer waits: the request may be tried again.
    #[error("busy: {0}")]
    Busy(String),
    /// The database's schema is newer than this build.
    #[error("the database's schema is version {0}; this build knows versions up to {known}", known = pg::SCHEMA_VERSION)]
    Schema(u32),
    /// The store is configured wrongly.
    #[error("{0}")]
    Config(String),
    /// A thread of the store could not be started.
    #[error("cannot start the store's threads: {0}")]
    Thread(std::io::Error),
    /// A stored record cannot be read back.
    #[error("corrupt record in table {table}: {detail}")]
    Corrupt {
        /// The table holding it.
        table: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// An operation panicked inside the writer; its batch was rolled back.
    #[error("an operation panicked; its batch was rolled back")]
    Panicked,
    /// A request's change failed part-way inside the writer; its batch was rolled back.
    #[error("a change failed inside the writer; its batch was rolled back")]
    Aborted,
    /// The batch holding this request was not committed.
    #[error("not committed: {0}")]
    Uncommitted(String),
    /// The writer has stopped or dropped the request.
    #[error("the writer has stopped")]
    Stopped,
    /// A change cannot be applied: what it found breaks an invariant the checks established, or
    /// the system failed it (no randomness). Its batch is rolled back.
    #[error("cannot apply a change: {0}")]
    Broken(String),
}

impl StoreError {
    /// A change that cannot be applied, for `detail`.
    pub(crate) fn broken(detail: impl std::fmt::Display) -> Self {
        StoreError::Broken(detail.to_string())
    }
}

macro_rules! from_redb {
    ($($error:ty),*) => {$(
        impl From<$error> for StoreError {
            fn from(e: $error) -> Self {
                StoreError::Db(e.into())
            }
        }
    )*};
}
from_redb!(
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError,
    redb::SetDurabilityError
);

/// The database, whichever backend holds it: cheap to clone, shared by every request.
#[derive(Clone)]
pub(crate) struct Store {
    backend: Arc<dyn Backend>,
}

/// The embedded default: redb, with one writer thread that commits concurrent changes together.
struct Redb {
    db: Arc<Database>,
    jobs: writer::Queue,
}

impl Backend for Redb {
    fn snapshot(&self) -> Result<Box<dyn Reads>, StoreError> {
        Ok(Box::new(ReadTx(self.db.begin_read()?)))
    }

    fn submit(&self, job: Box<dyn Job>) -> Result<(), StoreError> {
        self.jobs.send(job).map_err(|_| StoreError::Stopped)
    }
}

/// The writer thread. Join it after the last [`Store`] clone is dropped, so that the database is
/// closed (and its lock released) before the process moves on.
pub(crate) struct Writer(JoinHandle<()>);

impl Writer {
    /// Waits for the writer to drain its queue and stop.
    pub(crate) fn join(self) {
        if self.0.join().is_err() {
            tracing::error!("the writer thread panicked");
        }
    }
}

/// A store ready for use.
pub(crate) struct Opened {
    pub(crate) store: Store,
    pub(crate) writer: Writer,
    /// The key of every token the service issues; created with the database.
    pub(crate) secret: [u8; 32],
    pub(crate) stats: WriterStats,
    /// What other processes sharing the database committed, for a backend that has them.
    pub(crate) signals: Option<tokio::sync::mpsc::UnboundedReceiver<Signal>>,
}

impl Store {
    /// Opens (or creates) the database in `dir` with the default page cache and starts the
    /// writer: for tests.
    #[cfg(test)]
    pub(crate) fn open(dir: &Path, clock: Arc<dyn Clock>) -> Result<Opened, StoreError> {
        let cache = crate::config::DEFAULT_STORE_CACHE_MIB << 20;
        Store::open_cached(dir, cache, clock)
    }

    /// Opens (or creates) the database in `dir`, keeping up to `cache` bytes of it in memory,
    /// and starts the writer.
    pub(crate) fn open_cached(
        dir: &Path,
        cache: usize,
        clock: Arc<dyn Clock>,
    ) -> Result<Opened, StoreError> {
        let dir_error = |source| StoreError::Dir {
            path: dir.to_owned(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(dir_error)?;
        let db = match Database::builder()
            .set_cache_size(cache)
            .create(dir.join("weft.redb"))
        {
            Ok(db) => db,
            Err(DatabaseError::DatabaseAlreadyOpen) => return Err(StoreError::Locked(dir.into())),
            Err(e) => return Err(StoreError::Db(e.into())),
        };
        let secret = initialize(&db)?;
        let db = Arc::new(db);
        let stats = WriterStats::default();
        let (jobs, thread) = writer::spawn(db.clone(), clock, stats.clone()).map_err(dir_error)?;
        Ok(Opened {
            store: Store {
                backend: Arc::new(Redb { db, jobs }),
            },
            writer: Writer(thread),
            secret,
            stats,
            signals: None,
        })
    }

    /// Connects to the PostgreSQL database `url` names, which other processes may share,
    /// migrating its schema if it is older than this build's. On a thread of its own: the
    /// blocking client must not run on an async runtime's thread, where callers may be.
    pub(crate) fn open_postgres(url: &str, clock: Arc<dyn Clock>) -> Result<Opened, StoreError> {
        std::thread::scope(|scope| {
            scope
                .spawn(|| pg::open(url, clock))
                .join()
                .unwrap_or(Err(StoreError::Panicked))
        })
    }

    /// A consistent snapshot taken on the calling thread, for start-up work done before
    /// serving (requests use [`Store::read`]).
    #[cfg(debug_assertions)]
    pub(crate) fn snapshot(&self) -> Result<Box<dyn Reads>, StoreError> {
        self.backend.snapshot()
    }

    /// Runs `op` on a consistent snapshot, off the async threads.
    pub(crate) async fn read<T, E, F>(&self, op: F) -> Result<T, E>
    where
        F: FnOnce(&dyn Reads) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let backend = self.backend.clone();
        tokio::task::spawn_blocking(move || op(&*backend.snapshot()?))
            .await
            .map_err(|_| StoreError::Panicked)?
    }

    /// Makes a change in the writer's next batch and answers once that batch is durably
    /// committed: `check` reads what the change depends on and may refuse it (writing nothing);
    /// then `apply` makes it with what `check` found. Both run in the same transaction. An
    /// error from `apply` is the store's own, and rolls the whole batch back.
    pub(crate) async fn write<P, T, E, C, A>(&self, check: C, apply: A) -> Result<T, E>
    where
        P: 'static,
        C: FnOnce(&dyn Reads) -> Result<P, E> + Clone + Send + 'static,
        A: FnOnce(&mut dyn Writes, P) -> Result<T, StoreError> + Clone + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        self.submit(check, apply, false).await
    }

    /// A change with nothing to check.
    pub(crate) async fn apply<T, A>(&self, apply: A) -> Result<T, StoreError>
    where
        A: FnOnce(&mut dyn Writes) -> Result<T, StoreError> + Clone + Send + 'static,
        T: Send + 'static,
    {
        self.submit(|_| Ok(()), |tx, ()| apply(tx), false).await
    }

    /// Like [`Store::write`], except that the change is skipped if the caller has stopped
    /// waiting by the time the writer reaches it: a poller that went away must not be handed a
    /// task.
    pub(crate) async fn write_if_waited<P, T, E, C, A>(&self, check: C, apply: A) -> Result<T, E>
    where
        P: 'static,
        C: FnOnce(&dyn Reads) -> Result<P, E> + Clone + Send + 'static,
        A: FnOnce(&mut dyn Writes, P) -> Result<T, StoreError> + Clone + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        self.submit(check, apply, true).await
    }

    async fn submit<P, T, E, C, A>(&self, check: C, apply: A, skip_if_gone: bool) -> Result<T, E>
    where
        P: 'static,
        C: FnOnce(&dyn Reads) -> Result<P, E> + Clone + Send + 'static,
        A: FnOnce(&mut dyn Writes, P) -> Result<T, StoreError> + Clone + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let job = job::job(check, apply, reply, skip_if_gone);
        self.backend.submit(job)?;
        answer.await.map_err(|_| StoreError::Stopped)?
    }
}

/// Creates the tables of a new database and checks the format of an existing one.
fn initialize(db: &Database) -> Result<[u8; 32], StoreError> {
    let txn = db.begin_write()?;
    let secret = {
        let mut meta = txn.open_table(tables::META)?;
        let format = meta.get("format")?.map(|v| v.value().to_vec());
        match format {
            None => {
                meta.insert("format", &tables::FORMAT_VERSION.to_le_bytes()[..])?;
            }
            Some(bytes) => {
                let format = <[u8; 4]>::try_from(bytes.as_slice())
                    .map(u32::from_le_bytes)
                    .unwrap_or(u32::MAX);
                if format > tables::FORMAT_VERSION {
                    return Err(StoreError::Format(format));
                }
                if format < tables::FORMAT_VERSION {
                    upgrade::upgrade(&txn, format)?;
                    meta.insert("format", &tables::FORMAT_VERSION.to_le_bytes()[..])?;
                    tracing::info!(from = format, to = tables::FORMAT_VERSION, "store upgraded");
                }
            }
        }
        let stored = meta.get("secret")?.map(|v| v.value().to_vec());
        match stored.and_then(|bytes| <[u8; 32]>::try_from(bytes).ok()) {
            Some(secret) => secret,
            None => {
                let mut secret = [0; 32];
                getrandom::fill(&mut secret).map_err(|e| StoreError::Corrupt {
                    table: "meta",
                    detail: format!("no randomness for the token key: {e}"),
                })?;
                meta.insert("secret", &secret[..])?;
                secret
            }
        }
    };
    access::create_tables(&txn)?;
    txn.commit()?;
    Ok(secret)
}

#[cfg(test)]
mod contract;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::SystemClock;
    use crate::model::Scope;

    use super::contract::{domain, scope};

    #[tokio::test]
    async fn second_open_of_a_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let first = Store::open(dir.path(), Arc::new(SystemClock)).unwrap();
        let Err(StoreError::Locked(path)) = Store::open(dir.path(), Arc::new(SystemClock)) else {
            panic!("second open was allowed")
        };
        assert_eq!(path, dir.path());
        drop(first.store);
        first.writer.join();
        // Closed cleanly: it opens again, with the same token key.
        let again = Store::open(dir.path(), Arc::new(SystemClock)).unwrap();
        assert_eq!(again.secret, first.secret);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_writes_share_commits() {
        let dir = tempfile::tempdir().unwrap();
        let opened = Store::open(dir.path(), Arc::new(SystemClock)).unwrap();
        let writes: Vec<_> = (0..200)
            .map(|i| {
                let store = opened.store.clone();
                tokio::spawn(async move {
                    store
                        .apply(move |tx| tx.add_domain(&scope(), &domain(i, &format!("d{i}"))))
                        .await
                })
            })
            .collect();
        for write in writes {
            write.await.unwrap().unwrap();
        }
        assert_eq!(opened.stats.requests(), 200);
        assert!(
            opened.stats.commits() < 200,
            "{} commits",
            opened.stats.commits()
        );
        let count = opened
            .store
            .read(|tx| tx.domain_count(&scope().account, 1000))
            .await
            .unwrap();
        assert_eq!(count, 200);
    }

    /// A check's own refusal, as an operation's fault would be.
    #[derive(Debug, PartialEq)]
    enum Refusal {
        No,
        Store(String),
    }

    impl From<StoreError> for Refusal {
        fn from(e: StoreError) -> Self {
            Refusal::Store(e.to_string())
        }
    }

    #[tokio::test]
    async fn a_refused_check_does_not_stop_other_requests() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), Arc::new(SystemClock))
            .unwrap()
            .store;
        let refused = store.write(
            |_| Err::<(), _>(Refusal::No),
            |tx, ()| tx.add_domain(&scope(), &domain(2, "never")),
        );
        let passing = store.write(
            |_| Ok::<_, Refusal>(()),
            |tx, ()| tx.add_domain(&scope(), &domain(1, "kept")),
        );
        let (refused, passed) = tokio::join!(refused, passing);
        assert_eq!(refused, Err(Refusal::No));
        assert_eq!(passed, Ok(()));
        let found = |name: &'static str| {
            store.read(move |tx| Ok::<_, StoreError>(tx.domain(&scope(), name)?.is_some()))
        };
        assert!(found("kept").await.unwrap());
        assert!(!found("never").await.unwrap());
    }

    #[tokio::test]
    async fn a_failed_apply_rolls_back_its_whole_batch() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), Arc::new(SystemClock))
            .unwrap()
            .store;
        // Both requests wait in the queue before the writer takes them, so they share a batch.
        let first = store.apply(|tx| tx.add_domain(&scope(), &domain(1, "first")));
        let failing = store.apply(|tx| {
            tx.add_domain(&scope(), &domain(2, "half"))?;
            Err::<(), _>(StoreError::broken("the disk is gone"))
        });
        let (first, failed) = tokio::join!(first, failing);
        assert!(
            matches!(failed, Err(StoreError::Uncommitted(_))),
            "{failed:?}"
        );
        let found = |name: &'static str| {
            store.read(move |tx| Ok::<_, StoreError>(tx.domain(&scope(), name)?.is_some()))
        };
        assert!(!found("half").await.unwrap());
        // The request batched with the failure is answered as not committed, never as done.
        match first {
            Ok(()) => assert!(found("first").await.unwrap()),
            Err(error) => {
                assert!(matches!(error, StoreError::Uncommitted(_)));
                assert!(!found("first").await.unwrap());
            }
        }
    }

    #[tokio::test]
    async fn listings_page_both_ways_within_their_scope() {
        let dir = tempfile::tempdir().unwrap();
        let opened = Store::open(dir.path(), Arc::new(SystemClock)).unwrap();
        let store = opened.store;
        let other = Scope {
            region: "us-east-2".into(),
            ..scope()
        };
        store
            .apply(move |tx| {
                for (i, name) in ["b", "a", "c"].into_iter().enumerate() {
                    tx.add_domain(&scope(), &domain(i as u64, name))?;
                }
                tx.add_domain(&other, &domain(9, "a2"))?;
                Ok(())
            })
            .await
            .unwrap();

        let names = |after: Option<&'static str>, reverse: bool| {
            let store = store.clone();
            async move {
                store
                    .read(move |tx| {
                        let cursor = Cursor {
                            after,
                            reverse,
                            limit: 2,
                        };
                        let page = tx.domains(&scope(), cursor, &|_| true)?;
                        let names: Vec<String> = page.items.into_iter().map(|d| d.name).collect();
                        Ok::<_, StoreError>((names, page.more))
                    })
                    .await
                    .unwrap()
            }
        };
        assert_eq!(
            names(None, false).await,
            (vec!["a".into(), "b".into()], true)
        );
        assert_eq!(names(Some("b"), false).await, (vec!["c".into()], false));
        assert_eq!(
            names(None, true).await,
            (vec!["c".into(), "b".into()], true)
        );
        assert_eq!(names(Some("b"), true).await, (vec!["a".into()], false));
        assert_eq!(names(Some("c"), false).await, (vec![], false));
        assert_eq!(names(Some("a"), true).await, (vec![], false));
    }
}
