//! What can go wrong below the SWF layer: opening a store, a backend's own failures, and the
//! writer's outcomes.

use std::path::PathBuf;

/// What can go wrong below the SWF layer. Clients see any of these as an internal failure,
/// except [`StoreError::Unavailable`] and [`StoreError::Busy`], which they may retry.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store cannot be opened.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// The backend's database failed a call: its driver's error, which the backend explains.
    #[error("{backend}: {message}")]
    Backend {
        /// Which backend: `storage` (redb), `database` (PostgreSQL).
        backend: &'static str,
        /// What failed, as the backend explains its driver's error.
        message: String,
        /// The driver's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The shared database cannot be reached, or a commit's outcome is unknown: the request
    /// may be tried again once it is back.
    #[error("the database is unavailable: {0}")]
    Unavailable(String),
    /// What a change needs stayed locked by other processes' transactions (a node cut off in
    /// the middle of one, say) longer than the writer waits: the request may be tried again.
    #[error("busy: {0}")]
    Busy(String),
    /// A stored record cannot be read back.
    #[error("corrupt record in table {table}: {detail}")]
    Corrupt {
        /// The table holding it.
        table: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// An operation panicked inside the writer; its change was rolled back.
    #[error("an operation panicked; its change was rolled back")]
    Panicked,
    /// A request's change failed part-way inside the writer, and was rolled back.
    #[error("a change failed inside the writer and was rolled back")]
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
    /// The failure of `backend`'s database call: the driver's `source`, explained as `message`.
    pub(crate) fn backend(
        backend: &'static str,
        message: String,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        StoreError::Backend {
            backend,
            message,
            source: Box::new(source),
        }
    }

    /// The driver's error of a backend's failure, if it is one of type `E`.
    pub(crate) fn driver<E: std::error::Error + 'static>(&self) -> Option<&E> {
        match self {
            StoreError::Backend { source, .. } => source.downcast_ref(),
            _ => None,
        }
    }

    /// A change that cannot be applied, for `detail`.
    pub(crate) fn broken(detail: impl std::fmt::Display) -> Self {
        StoreError::Broken(detail.to_string())
    }
}

/// Why a store could not be opened, whichever its backend.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
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
    /// The database was written by a newer build: in a format (redb) or with a schema
    /// (PostgreSQL) of a later version than this build knows.
    #[error("the database's {what} is version {found}; this build knows versions up to {known}")]
    TooNew {
        /// `format` or `schema`.
        what: &'static str,
        /// The database's.
        found: u32,
        /// The newest this build knows.
        known: u32,
    },
    /// The store is configured wrongly.
    #[error("{0}")]
    Config(String),
    /// A thread of the store could not be started.
    #[error("cannot start the store's threads: {0}")]
    Thread(std::io::Error),
}
