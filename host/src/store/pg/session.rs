//! A transaction on one connection, in one of two modes: a snapshot (repeatable read, read
//! only) or the writer's (read committed, where reads of runs and counters lock their rows).
//!
//! Round trips are what a transaction costs (issue 31), so a session sends as little on its own
//! as it can: its `BEGIN` goes with its first statement; the writer's writes wait and go with
//! its next read or its `COMMIT`, all in one pipeline; a snapshot's `ROLLBACK` is sent without
//! waiting for the answer.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, VecDeque};
use std::ops::DerefMut;
use std::sync::{Arc, Mutex};

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::catalog::Catalog;
use super::conn::{
    Conn, Step, connection_ended, explain, is_conflict, is_near_limit, is_started_early,
};
use super::counters::{NodeShards, Shards};
use super::events::Events;
use super::grouped::Grouped;
use super::lists::{EmptyLists, TxLists};
use super::pages::HistoryBounds;
use super::reads::{Params, Sql};
use super::run_items::Locked;
use crate::clock::Timestamp;
use crate::store::{HistoryCell, StoreError};

/// A connection a session runs on: the pool's, or the writer's own.
pub(super) trait Link: DerefMut<Target = Conn> {}

impl<T: DerefMut<Target = Conn>> Link for T {}

/// What kind of transaction a session is.
pub(super) trait Mode {
    /// Whether reads lock the runs and counters they read.
    const LOCKS: bool;

    /// The statement that begins the transaction.
    const BEGIN: &'static str;

    /// Notes that a statement made for request `job` failed with `error`, and answers the
    /// error to report: the transaction can do nothing more.
    fn failed(&self, error: StoreError, job: Option<usize>) -> StoreError;

    /// The request whose statements are being made, if the mode has requests.
    fn job(&self) -> Option<usize> {
        None
    }

    /// Whether the transaction changed a domain or a type: its reads of them then go to the
    /// database, not the node's [`Catalog`].
    fn catalog_changed(&self) -> bool {
        false
    }

    /// The items of the runs the transaction locked, if it locks runs.
    fn locked(&self) -> Option<&Locked> {
        None
    }

    /// Whether a new run's start reads the latest close of its workflow
    /// ([`Writing::read_floors`]).
    fn reads_floors(&self) -> bool {
        false
    }

    /// What the transaction did to counters, if it can change them, and the writes it keeps
    /// (where its checks of counters wait).
    fn shards(&self) -> Option<(&Shards, &Grouped)> {
        None
    }

    /// Moves the events added and the writes kept (`events.rs`, `grouped.rs`), not sent yet,
    /// to `pending`, as statements.
    fn events(&self, _pending: &mut Vec<Pending>) {}

    /// Event `event_id` of run `seq`, if the transaction added it.
    fn added_event(&self, _seq: i64, _event_id: i64) -> Option<Vec<u8>> {
        None
    }

    /// Whether dropping the session must roll its transaction back: the writer ends its own.
    const ROLLBACK_AT_DROP: bool;
}

/// A consistent snapshot for reads, rolled back when dropped.
pub(super) struct Snapshot;

impl Mode for Snapshot {
    const LOCKS: bool = false;
    const BEGIN: &'static str = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY";
    const ROLLBACK_AT_DROP: bool = true;

    /// A connection the server ended (a restart, an idle timeout) while the pool held it is
    /// known only once used, unless it sat idle long enough to be tested: the read answers
    /// unavailable, and the connection is not used again.
    fn failed(&self, error: StoreError, _: Option<usize>) -> StoreError {
        match error.driver() {
            Some(pg) if connection_ended(pg) => StoreError::Unavailable(explain(pg)),
            _ => error,
        }
    }
}

/// How the writer's transaction failed, if it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Failure {
    /// It lost a race with another process's transaction: running it again may succeed.
    Conflict,
    /// The connection was lost before the commit: running it again on a new one may succeed.
    Lost,
    /// The database did not answer in time: it is unavailable for now, and a new attempt
    /// would only make the batch's requests wait longer for the same answer.
    Unanswered,
    /// A cheap check of a limit failed (`counters.rs`): running it again checking exactly
    /// answers the requests.
    NearLimit,
    /// A run it started was stamped before the close of its workflow's previous run, which
    /// another transaction committed meanwhile: running it again reading those closes (as
    /// `RunReads::start_floor`) stamps it after.
    StartedEarly,
    /// Anything else.
    Other,
}

impl Failure {
    pub(super) fn of(error: &StoreError) -> Failure {
        match error {
            _ if is_near_limit(error) => Failure::NearLimit,
            _ if is_started_early(error) => Failure::StartedEarly,
            _ if is_conflict(error) => Failure::Conflict,
            _ if error.driver().is_some_and(connection_ended) => Failure::Lost,
            StoreError::Unavailable(_) => Failure::Unanswered,
            _ => Failure::Other,
        }
    }

    /// Whether the batch may be run again.
    pub(super) fn retry(self) -> bool {
        matches!(
            self,
            Failure::Conflict | Failure::Lost | Failure::NearLimit | Failure::StartedEarly
        )
    }
}

/// The writer's transaction: what it has done beyond its statements.
pub(super) struct Writing {
    pub(super) now: Timestamp,
    /// The request of the batch being applied: the statements made now are its.
    pub(super) job: Option<usize>,
    pub(super) after_commit: Vec<Box<dyn FnOnce() + Send>>,
    /// Whether anything was written: a batch that wrote nothing is rolled back, not committed.
    pub(super) changed: bool,
    /// Whether a domain or a type was written: the node's catalog is emptied at the commit.
    pub(super) catalog_changed: bool,
    /// The items of the runs locked so far.
    pub(super) locked: Locked,
    /// The events added and not sent yet.
    pub(super) events: Events,
    /// Run records and deadlines written and not sent yet.
    pub(super) grouped: Grouped,
    /// The task lists the transaction knows empty but for its own tasks.
    pub(super) lists: TxLists,
    /// Ids taken from the sequence and not used yet: the writer's, kept across transactions.
    pub(super) ids: Ids,
    /// What the transaction did to counters, and the node's shard of each.
    pub(super) shards: Shards,
    /// History pages to read with the commit, and where each goes.
    pub(super) at_commit: Vec<(HistoryBounds, HistoryCell)>,
    /// What to tell the other nodes once this commits (`pg_notify` payloads).
    pub(super) notices: BTreeSet<String>,
    /// The earliest deadline the transaction set: told to the other nodes with the commit,
    /// so that their timer loops need not read the store to learn it.
    pub(super) earliest_deadline: Option<Timestamp>,
    /// How the first statement that failed did, why, and for which request: the
    /// transaction is then unusable.
    pub(super) failure: Cell<Option<FirstFailure>>,
    /// The runs it started: domain, workflow id, start time, checked at the commit against
    /// the closes other transactions committed meanwhile (`weft_starts_after_closes`).
    pub(super) started: RefCell<Vec<(i64, Vec<u8>, i64)>>,
    /// Whether a new run's start reads the latest close of its workflow (after an attempt
    /// that stamped one before it).
    pub(super) read_floors: bool,
}

impl Writing {
    /// A transaction at `now` of the writer whose ids are `ids`, whose counters' shards are
    /// `shards`, and whose node knows the lists `lists` empty.
    pub(super) fn new(
        now: Timestamp,
        ids: Ids,
        shards: NodeShards,
        lists: &Arc<EmptyLists>,
    ) -> Self {
        Writing {
            now,
            job: None,
            after_commit: Vec::new(),
            changed: false,
            catalog_changed: false,
            locked: Locked::default(),
            events: Events::default(),
            grouped: Grouped::default(),
            lists: TxLists::new(lists.clone()),
            ids,
            shards: Shards::new(shards),
            at_commit: Vec::new(),
            notices: BTreeSet::new(),
            earliest_deadline: None,
            failure: Cell::new(None),
            started: RefCell::default(),
            read_floors: false,
        }
    }
}

/// Ids the writer took from the sequence and has not used yet, shared by its transactions.
#[derive(Clone, Default)]
pub(super) struct Ids(Arc<Mutex<VecDeque<u64>>>);

impl Ids {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<u64>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The next id, if any is left.
    pub(super) fn take(&self) -> Option<u64> {
        self.lock().pop_front()
    }

    /// Keeps `block`, in order, for the next ids.
    pub(super) fn refill(&self, block: Vec<u64>) {
        self.lock().extend(block);
    }
}

/// The first statement of the writer's transaction that failed.
#[derive(Clone, Debug)]
pub(super) struct FirstFailure {
    pub(super) failure: Failure,
    pub(super) detail: String,
    /// The request it was made for, if it was made for one.
    pub(super) job: Option<usize>,
}

impl Mode for Writing {
    const LOCKS: bool = true;
    const BEGIN: &'static str = "BEGIN";
    const ROLLBACK_AT_DROP: bool = false;

    fn failed(&self, error: StoreError, job: Option<usize>) -> StoreError {
        let first = self.failure.take();
        self.failure.set(first.or_else(|| {
            Some(FirstFailure {
                failure: Failure::of(&error),
                detail: error.to_string(),
                job,
            })
        }));
        error
    }

    fn job(&self) -> Option<usize> {
        self.job
    }

    fn catalog_changed(&self) -> bool {
        self.catalog_changed
    }

    fn locked(&self) -> Option<&Locked> {
        Some(&self.locked)
    }

    fn reads_floors(&self) -> bool {
        self.read_floors
    }

    fn shards(&self) -> Option<(&Shards, &Grouped)> {
        Some((&self.shards, &self.grouped))
    }

    fn events(&self, pending: &mut Vec<Pending>) {
        self.events.take(pending);
        self.grouped.take(pending);
    }

    fn added_event(&self, seq: i64, event_id: i64) -> Option<Vec<u8>> {
        self.events.added(seq, event_id)
    }
}

/// A write the writer has made but not yet sent.
pub(super) struct Pending {
    pub(super) sql: &'static str,
    pub(super) params: Vec<Box<dyn ToSql + Sync + Send>>,
    /// The request it was made for.
    pub(super) job: Option<usize>,
}

/// A transaction on connection `C` in mode `M`.
pub(super) struct Session<C: Link, M: Mode> {
    conn: RefCell<C>,
    /// Whether the `BEGIN` has been sent.
    begun: Cell<bool>,
    /// The writes not sent yet, in order.
    pending: RefCell<Vec<Pending>>,
    /// The node's domain and type records.
    pub(super) catalog: Arc<Catalog>,
    /// The catalog's generation when the session was made, before its transaction began.
    pub(super) generation: u64,
    pub(super) mode: M,
}

impl<C: Link, M: Mode> Session<C, M> {
    pub(super) fn new(conn: C, mode: M, catalog: Arc<Catalog>) -> Self {
        Session {
            conn: RefCell::new(conn),
            begun: Cell::new(false),
            pending: RefCell::new(Vec::new()),
            generation: catalog.generation(),
            catalog,
            mode,
        }
    }

    /// Whether reads of domains and types may use the node's catalog.
    pub(super) fn cached(&self) -> bool {
        !self.mode.catalog_changed()
    }

    /// Makes a write, sent with the next read or the commit: its failure, if it fails, is
    /// reported then, as the failure of the request it was made for.
    pub(super) fn defer(&self, sql: &'static str, params: Vec<Box<dyn ToSql + Sync + Send>>) {
        self.pending.borrow_mut().push(Pending {
            sql,
            params,
            job: self.mode.job(),
        });
    }

    /// Queues the events added and the writes kept so far, after the writes made so far.
    pub(super) fn send_events(&self) {
        self.mode.events(&mut self.pending.borrow_mut());
    }

    /// Sends the `BEGIN` if it has not gone yet, the writes not sent yet, and `tail`, in one
    /// round trip; answers the rows of each of `tail`'s statements.
    pub(super) fn send(&self, tail: &[Step<'_>]) -> Result<Vec<Vec<Row>>, StoreError> {
        self.send_events();
        let pending = std::mem::take(&mut *self.pending.borrow_mut());
        let params: Vec<Vec<&(dyn ToSql + Sync)>> = pending
            .iter()
            .map(|write| write.params.iter().map(|p| &**p as _).collect())
            .collect();
        let begin = !self.begun.replace(true);
        let mut steps = Vec::with_capacity(pending.len() + tail.len() + 1);
        if begin {
            steps.push(Step::Simple(M::BEGIN));
        }
        for (write, params) in pending.iter().zip(&params) {
            steps.push(Step::Prepared(write.sql, params));
        }
        steps.extend(tail.iter().map(Step::clone));
        let mut conn = self.conn.borrow_mut();
        let mut rows = conn.pipeline(&steps).map_err(|(step, error)| {
            // The request of the write that failed; else the one being applied.
            let job = step
                .and_then(|i| i.checked_sub(usize::from(begin)))
                .and_then(|i| pending.get(i))
                .map_or(self.mode.job(), |write| write.job);
            self.mode.failed(error, job)
        })?;
        Ok(rows.split_off(steps.len() - tail.len()))
    }

    /// Rolls the transaction back, if it has begun; a connection that cannot is not used
    /// again. A broken one is left as it is: the database ends its transaction when it is
    /// closed.
    pub(super) fn rollback(&self) {
        self.pending.borrow_mut().clear();
        self.mode.events(&mut Vec::new());
        if !self.begun.replace(false) {
            return;
        }
        let mut conn = self.conn.borrow_mut();
        if conn.is_broken() || conn.batch("ROLLBACK").is_err() {
            conn.mark_broken();
        }
    }
}

impl<C: Link, M: Mode> Sql for Session<C, M> {
    fn rows(&self, sql: &'static str, params: &Params<'_>) -> Result<Vec<Row>, StoreError> {
        Ok(self
            .send(&[Step::Prepared(sql, params)])?
            .pop()
            .unwrap_or_default())
    }

    fn locks(&self) -> bool {
        M::LOCKS
    }
}

impl<C: Link, M: Mode> Drop for Session<C, M> {
    fn drop(&mut self) {
        // A snapshot ends its transaction without waiting for the answer; a connection that
        // cannot is never handed to the next reader. The writer ends its own transactions.
        if M::ROLLBACK_AT_DROP && self.begun.get() {
            let conn = self.conn.get_mut();
            if !conn.is_broken() {
                conn.send("ROLLBACK");
            }
        }
    }
}
