//! Durable state in redb.
//!
//! Every change goes through the one writer ([`Store::write`]), which commits concurrent requests
//! together and answers each only after its change is on disk. Reads ([`Store::read`]) use redb
//! snapshots and never wait for the writer. Only this module knows redb.

mod access;
mod runs;
mod tables;
mod wasm;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

use redb::{Database, DatabaseError, ReadableDatabase, ReadableTable};
use tokio::sync::oneshot;

use crate::clock::Clock;
use crate::fault::Fault;

pub(crate) use access::{Counter, Cursor, Page, ReadTx, Reads, WriteTx};
#[allow(
    unused_imports,
    reason = "the Wasm runtime writes bindings; only engine tests use the kinds here yet"
)]
pub(crate) use runs::{Deadline, Due, Listing, RunReads, TaskKind};
pub(crate) use wasm::WasmReads;
pub use writer::WriterStats;

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
    /// An operation failed part-way inside the writer; its batch was rolled back.
    #[error("an operation failed inside the writer; its batch was rolled back")]
    Aborted,
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

impl From<StoreError> for Fault {
    fn from(e: StoreError) -> Self {
        Fault::internal(e)
    }
}

/// The database: cheap to clone, shared by every request.
#[derive(Clone)]
pub(crate) struct Store {
    db: Arc<Database>,
    jobs: writer::Queue,
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
}

impl Store {
    /// Opens (or creates) the database in `dir` and starts the writer.
    pub(crate) fn open(dir: &Path, clock: Arc<dyn Clock>) -> Result<Opened, StoreError> {
        let dir_error = |source| StoreError::Dir {
            path: dir.to_owned(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(dir_error)?;
        let db = match Database::create(dir.join("weft.redb")) {
            Ok(db) => db,
            Err(DatabaseError::DatabaseAlreadyOpen) => return Err(StoreError::Locked(dir.into())),
            Err(e) => return Err(StoreError::Db(e.into())),
        };
        let secret = initialize(&db)?;
        let db = Arc::new(db);
        let stats = WriterStats::default();
        let (jobs, thread) = writer::spawn(db.clone(), clock, stats.clone()).map_err(dir_error)?;
        Ok(Opened {
            store: Store { db, jobs },
            writer: Writer(thread),
            secret,
            stats,
        })
    }

    /// The earliest durable deadline, read directly (cheap enough for the timer loop).
    pub(crate) fn next_deadline(&self) -> Result<Option<crate::clock::Timestamp>, StoreError> {
        let tx = ReadTx(self.db.begin_read()?);
        tx.next_deadline()
    }

    /// A consistent snapshot taken on the calling thread, for start-up work done before
    /// serving (requests use [`Store::read`]).
    #[cfg(debug_assertions)]
    pub(crate) fn snapshot(&self) -> Result<ReadTx, StoreError> {
        Ok(ReadTx(self.db.begin_read()?))
    }

    /// Runs `op` on a consistent snapshot, off the async threads.
    pub(crate) async fn read<T, F>(&self, op: F) -> Result<T, Fault>
    where
        F: FnOnce(&ReadTx) -> Result<T, Fault> + Send + 'static,
        T: Send + 'static,
    {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || {
            let tx = ReadTx(db.begin_read().map_err(StoreError::from)?);
            op(&tx)
        })
        .await
        .map_err(Fault::internal)?
    }

    /// Runs `op` in the writer's next batch and answers once that batch is durably committed.
    ///
    /// `op` must make its checks before its first write (see the `writer` module).
    pub(crate) async fn write<T, F>(&self, op: F) -> Result<T, Fault>
    where
        F: FnOnce(&mut WriteTx<'_>) -> Result<T, Fault> + Send + 'static,
        T: Send + 'static,
    {
        self.submit(op, false).await
    }

    /// Like [`Store::write`], except that `op` is skipped if the caller has stopped waiting by
    /// the time the writer reaches it: a poller that went away must not be handed a task.
    pub(crate) async fn write_if_waited<T, F>(&self, op: F) -> Result<T, Fault>
    where
        F: FnOnce(&mut WriteTx<'_>) -> Result<T, Fault> + Send + 'static,
        T: Send + 'static,
    {
        self.submit(op, true).await
    }

    async fn submit<T, F>(&self, op: F, skip_if_gone: bool) -> Result<T, Fault>
    where
        F: FnOnce(&mut WriteTx<'_>) -> Result<T, Fault> + Send + 'static,
        T: Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(writer::job(op, reply, skip_if_gone))
            .map_err(|_| Fault::internal("the writer has stopped"))?;
        answer
            .await
            .map_err(|_| Fault::internal("the writer dropped a request"))?
    }
}

#[cfg(debug_assertions)]
impl ReadTx {
    /// The seq of every run that has a history, in order.
    pub(crate) fn history_seqs(&self) -> Result<Vec<u64>, StoreError> {
        use access::Snapshot as _;

        let table = self.event_table()?;
        let mut seqs = Vec::new();
        let mut from = 0;
        // One lookup per run: each jumps past the previous run's events.
        while let Some(entry) = table.range((from, 0)..)?.next() {
            let seq = entry?.0.value().0;
            seqs.push(seq);
            match seq.checked_add(1) {
                Some(next) => from = next,
                None => break,
            }
        }
        Ok(seqs)
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
                if format != tables::FORMAT_VERSION {
                    return Err(StoreError::Format(format));
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
mod tests {
    use super::*;
    use crate::clock::SystemClock;
    use crate::model::Scope;

    fn scope() -> Scope {
        Scope {
            account: "000000000000".into(),
            region: "us-east-1".into(),
        }
    }

    fn domain(id: u64, name: &str) -> crate::model::Domain {
        crate::model::Domain {
            id,
            name: name.into(),
            description: None,
            retention: "1".into(),
            deprecated_at: None,
            tags: vec![],
        }
    }

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
                        .write(move |tx| Ok(tx.put_domain(&scope(), &domain(i, &format!("d{i}")))?))
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
            .read(|tx| Ok(tx.domain_count(&scope().account, 1000)?))
            .await
            .unwrap();
        assert_eq!(count, 200);
    }

    #[tokio::test]
    async fn a_fault_does_not_stop_other_requests() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), Arc::new(SystemClock))
            .unwrap()
            .store;
        let failing = store.write(|_| Err::<(), _>(Fault::DomainDeprecated("x".into())));
        let passing = store.write(|tx| Ok(tx.put_domain(&scope(), &domain(1, "kept"))?));
        let (failed, passed) = tokio::join!(failing, passing);
        assert_eq!(failed, Err(Fault::DomainDeprecated("x".into())));
        assert_eq!(passed, Ok(()));
        let kept = store
            .read(|tx| Ok(tx.domain(&scope(), "kept")?.is_some()))
            .await
            .unwrap();
        assert!(kept);
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
            .write(move |tx| {
                for (i, name) in ["b", "a", "c"].into_iter().enumerate() {
                    tx.put_domain(&scope(), &domain(i as u64, name))?;
                }
                tx.put_domain(&other, &domain(9, "a2"))?;
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
                        let page = tx.domains(&scope(), cursor, |_| true)?;
                        let names: Vec<String> = page.items.into_iter().map(|d| d.name).collect();
                        Ok((names, page.more))
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
