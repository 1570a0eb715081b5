//! The embedded default: redb, in one file of the data directory, with one writer thread that
//! commits concurrent changes together (`writer.rs`) and reads on snapshots that never wait for
//! it. Only this folder knows redb.

mod access;
mod batches;
mod runs;
mod schedules;
mod tables;
mod upgrade;
mod wasm;
mod writer;

use std::sync::Arc;

use redb::{Database, DatabaseError, ReadableDatabase, ReadableTable};

use crate::clock::Clock;

use super::seam::{Backend, Job, Reads};
use super::{OpenError, Opened, Place, Store, StoreError, Writer, WriterStats};
use access::ReadTx;

/// The embedded default: redb, with one writer thread that commits concurrent changes together.
struct Redb {
    db: Arc<Database>,
    jobs: super::writer::Queue,
}

impl Backend for Redb {
    fn snapshot(&self) -> Result<Box<dyn Reads>, StoreError> {
        Ok(Box::new(ReadTx(self.db.begin_read()?)))
    }

    /// A read of the embedded file takes microseconds (its pages are in redb's cache or the
    /// kernel's): on the async thread it costs less than the hop to a blocking thread and back.
    fn reads_wait(&self) -> bool {
        false
    }

    fn submit(&self, job: Box<dyn Job>) -> Result<(), StoreError> {
        self.jobs.send(job).map_err(|_| StoreError::Stopped)
    }
}

/// Opens the store at `place` if it is redb's: the embedded default, when no location is given
/// (an ephemeral one is the memory store's).
pub(super) fn open_place(
    place: &Place<'_>,
    clock: Arc<dyn Clock>,
) -> Option<Result<Opened, StoreError>> {
    let local = place.location.is_none() && !place.ephemeral;
    local.then(|| open(place, clock))
}

/// Opens (or creates) the database in the place's directory, keeping up to its cache's bytes
/// of it in memory, and starts the writer.
fn open(place: &Place<'_>, clock: Arc<dyn Clock>) -> Result<Opened, StoreError> {
    let dir = place.dir;
    let dir_error = |source| {
        StoreError::from(OpenError::Dir {
            path: dir.to_owned(),
            source,
        })
    };
    let mut builder = Database::builder();
    builder.set_cache_size(place.cache);
    std::fs::create_dir_all(dir).map_err(dir_error)?;
    let db = match builder.create(dir.join("weft.redb")) {
        Ok(db) => db,
        Err(DatabaseError::DatabaseAlreadyOpen) => return Err(OpenError::Locked(dir.into()).into()),
        Err(e) => return Err(failed(e.into())),
    };
    let secret = initialize(&db)?;
    let db = Arc::new(db);
    let stats = WriterStats::default();
    let (jobs, thread) = writer::spawn(db.clone(), clock, stats.clone()).map_err(dir_error)?;
    Ok(Opened {
        store: Store {
            backend: Arc::new(Redb { db, jobs }),
        },
        writer: Writer(Some(thread)),
        secret,
        stats,
        signals: None,
    })
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
                    return Err(OpenError::TooNew {
                        what: "format",
                        found: format,
                        known: tables::FORMAT_VERSION,
                    }
                    .into());
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

/// Marks the store in `dir` as written by a build of the next format: for tests.
#[cfg(test)]
pub(super) fn as_if_newer(dir: &std::path::Path) {
    let db = Database::create(dir.join("weft.redb")).expect("the store opens");
    let txn = db.begin_write().expect("a write transaction");
    {
        let mut meta = txn.open_table(tables::META).expect("the meta table");
        let newer = tables::FORMAT_VERSION + 1;
        meta.insert("format", &newer.to_le_bytes()[..])
            .expect("written");
    }
    txn.commit().expect("committed");
}

macro_rules! from_redb {
    ($($error:ty),*) => {$(
        impl From<$error> for StoreError {
            fn from(e: $error) -> Self {
                failed(e.into())
            }
        }
    )*};
}
/// redb's failure `error`, as the store reports it.
fn failed(error: redb::Error) -> StoreError {
    StoreError::backend("storage", error.to_string(), error)
}

impl From<redb::Error> for StoreError {
    fn from(e: redb::Error) -> Self {
        failed(e)
    }
}

from_redb!(
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError
);
