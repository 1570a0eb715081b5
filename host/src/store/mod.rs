//! Durable state: the interface the engine and the operations use (`seam.rs`: [`Reads`],
//! [`Writes`]), and three backends behind it, each in its own folder: redb, embedded
//! (`redb/`), PostgreSQL, shared by several nodes (`pg/`), and ordered maps in memory for
//! `--ephemeral` (`memory/`). They share what is here: the jobs changes are made of
//! (`job.rs`), the errors (`error.rs`), and the contract every backend must keep (`seam.rs`,
//! tested by `contract/`); the durable two also the group-commit writer (`writer.rs`) and the
//! records' encoding (`codec.rs`), where the memory store keeps records as values.
//!
//! Every change goes through the one writer ([`Store::write`]), which commits concurrent requests
//! together and answers each only after its change is on disk (the memory store applies each
//! change at once, on the caller's thread). A change is a *check*, which reads
//! and may refuse, and an *apply*, which writes and cannot refuse: a refused request leaves the
//! batch untouched, and a partly applied change is impossible by construction. Reads
//! ([`Store::read`]) use snapshots and never wait for the writer.

mod backends;
mod codec;
mod error;
#[cfg(test)]
mod faulty;
mod history_pages;
mod items;
mod job;
mod kinds;
mod memory;
mod pg;
mod redb;
mod seam;
mod shared;
mod stats;
mod writer;

use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;

use tokio::sync::oneshot;

use crate::clock::Clock;

pub use error::{OpenError, StoreError};
#[cfg(test)]
pub(crate) use faulty::{Faults, Rates};
pub(crate) use history_pages::HistoryPages;
use seam::Backend;
pub(crate) use seam::{
    About, Counter, Cursor, Deadline, Due, Filter, HistoryCell, ItemReads, ItemWrites, Listing,
    Page, Reads, Signal, TypeReads, TypeWrites, Writes,
};
pub use stats::WriterStats;

/// Where a store keeps its state, as the configuration says: the store's location, if one is
/// given (`--store`: a URL, or a backend's own form of one), else the embedded default in the
/// data directory. Each backend tells its own places (`backends.rs`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Place<'a> {
    /// The store's location, if one is given.
    pub(crate) location: Option<&'a str>,
    /// The data directory.
    pub(crate) dir: &'a Path,
    /// Bytes of the embedded store's page cache.
    pub(crate) cache: usize,
    /// Whether the embedded store is kept in memory only, on no file.
    pub(crate) ephemeral: bool,
}

/// The database, whichever backend holds it: cheap to clone, shared by every request.
#[derive(Clone)]
pub(crate) struct Store {
    backend: Arc<dyn Backend>,
}

/// The writer thread, if the backend has one (the ephemeral store applies changes on the
/// caller's thread). Join it after the last [`Store`] clone is dropped, so that the database
/// is closed (and its lock released) before the process moves on.
pub(crate) struct Writer(Option<JoinHandle<()>>);

impl Writer {
    /// Waits for the writer to drain its queue and stop.
    pub(crate) fn join(self) {
        if self.0.is_some_and(|thread| thread.join().is_err()) {
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
    /// Opens (or creates) the store at `place` and starts its writer; a PostgreSQL database
    /// older than this build's schema is migrated.
    pub(crate) fn open(place: Place, clock: Arc<dyn Clock>) -> Result<Opened, StoreError> {
        let opened = (backends::BACKENDS.iter()).find_map(|open| open(&place, clock.clone()));
        opened.unwrap_or_else(|| {
            let refused = "no backend keeps a store at the location given (--store)";
            Err(OpenError::Config(refused.into()).into())
        })
    }

    /// Opens (or creates) a redb store in `dir` with the default page cache: for tests.
    #[cfg(test)]
    pub(crate) fn open_dir(dir: &Path, clock: Arc<dyn Clock>) -> Result<Opened, StoreError> {
        let cache = crate::config::DEFAULT_STORE_CACHE_MIB << 20;
        let place = Place {
            location: None,
            dir,
            cache,
            ephemeral: false,
        };
        Store::open(place, clock)
    }

    /// This store with every call meeting `faults`: for tests.
    #[cfg(test)]
    pub(crate) fn with_faults(&self, faults: Arc<Faults>) -> Store {
        let inner = self.backend.clone();
        Store {
            backend: Arc::new(faulty::Faulty { inner, faults }),
        }
    }

    /// A consistent snapshot taken on the calling thread, for start-up work done before
    /// serving (requests use [`Store::read`]).
    pub(crate) fn snapshot(&self) -> Result<Box<dyn Reads>, StoreError> {
        self.backend.snapshot()
    }

    /// Runs `op`, a read of a bounded size (a record, a page), on a consistent snapshot: on
    /// the calling thread where reads never wait on a network (redb: a read takes
    /// microseconds, less than the hop to a blocking thread and back, which cost about a fifth
    /// of a small request's CPU), else off the async threads.
    pub(crate) async fn read<T, E, F>(&self, op: F) -> Result<T, E>
    where
        F: FnOnce(&dyn Reads) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        if self.backend.reads_wait() {
            return self.read_long(op).await;
        }
        op(&*self.backend.snapshot()?)
    }

    /// Runs `op`, a read whose work grows with the data (a count, a whole history, a module's
    /// code), on a consistent snapshot off the async threads, whatever the backend.
    pub(crate) async fn read_long<T, E, F>(&self, op: F) -> Result<T, E>
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
        self.submit(check, apply, false, None).await
    }

    /// Like [`Store::write`], for a change that is `about` something known before it runs (a
    /// run a task token names, a workflow to start): a backend may read what it needs
    /// together with what the batch's other changes need.
    pub(crate) async fn write_about<P, T, E, C, A>(
        &self,
        about: About,
        check: C,
        apply: A,
    ) -> Result<T, E>
    where
        P: 'static,
        C: FnOnce(&dyn Reads) -> Result<P, E> + Clone + Send + 'static,
        A: FnOnce(&mut dyn Writes, P) -> Result<T, StoreError> + Clone + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        self.submit(check, apply, false, Some(about)).await
    }

    /// A change with nothing to check.
    pub(crate) async fn apply<T, A>(&self, apply: A) -> Result<T, StoreError>
    where
        A: FnOnce(&mut dyn Writes) -> Result<T, StoreError> + Clone + Send + 'static,
        T: Send + 'static,
    {
        self.submit(|_| Ok(()), |tx, ()| apply(tx), false, None)
            .await
    }

    /// Like [`Store::write_about`] (`about` if it is known), except that the change is skipped
    /// if the caller has stopped waiting by the time the writer reaches it: a poller that went
    /// away must not be handed a task.
    pub(crate) async fn write_if_waited<P, T, E, C, A>(
        &self,
        about: Option<About>,
        check: C,
        apply: A,
    ) -> Result<T, E>
    where
        P: 'static,
        C: FnOnce(&dyn Reads) -> Result<P, E> + Clone + Send + 'static,
        A: FnOnce(&mut dyn Writes, P) -> Result<T, StoreError> + Clone + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        self.submit(check, apply, true, about).await
    }

    async fn submit<P, T, E, C, A>(
        &self,
        check: C,
        apply: A,
        skip_if_gone: bool,
        about: Option<About>,
    ) -> Result<T, E>
    where
        P: 'static,
        C: FnOnce(&dyn Reads) -> Result<P, E> + Clone + Send + 'static,
        A: FnOnce(&mut dyn Writes, P) -> Result<T, StoreError> + Clone + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let job = job::job(check, apply, reply, skip_if_gone, about);
        self.backend.submit(job)?;
        answer.await.map_err(|_| StoreError::Stopped)?
    }
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
        let first = Store::open_dir(dir.path(), Arc::new(SystemClock)).unwrap();
        let Err(StoreError::Open(OpenError::Locked(path))) =
            Store::open_dir(dir.path(), Arc::new(SystemClock))
        else {
            panic!("second open was allowed")
        };
        assert_eq!(path, dir.path());
        drop(first.store);
        first.writer.join();
        // Closed cleanly: it opens again, with the same token key.
        let again = Store::open_dir(dir.path(), Arc::new(SystemClock)).unwrap();
        assert_eq!(again.secret, first.secret);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_writes_share_commits() {
        let dir = tempfile::tempdir().unwrap();
        let opened = Store::open_dir(dir.path(), Arc::new(SystemClock)).unwrap();
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
        let store = Store::open_dir(dir.path(), Arc::new(SystemClock))
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
    async fn a_failed_apply_rolls_back_its_own_change_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_dir(dir.path(), Arc::new(SystemClock))
            .unwrap()
            .store;
        // Both requests wait in the queue before the writer takes them, so they may share a
        // batch (the contract test `a_request_whose_change_fails_fails_alone` makes sure).
        let first = store.apply(|tx| tx.add_domain(&scope(), &domain(1, "first")));
        let failing = store.apply(|tx| {
            tx.add_domain(&scope(), &domain(2, "half"))?;
            Err::<(), _>(StoreError::broken("the disk is gone"))
        });
        let (first, failed) = tokio::join!(first, failing);
        assert!(matches!(failed, Err(StoreError::Broken(_))), "{failed:?}");
        assert_eq!(first.ok(), Some(()));
        let found = |name: &'static str| {
            store.read(move |tx| Ok::<_, StoreError>(tx.domain(&scope(), name)?.is_some()))
        };
        assert!(!found("half").await.unwrap());
        assert!(found("first").await.unwrap());
    }

    #[tokio::test]
    async fn listings_page_both_ways_within_their_scope() {
        let dir = tempfile::tempdir().unwrap();
        let opened = Store::open_dir(dir.path(), Arc::new(SystemClock)).unwrap();
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
