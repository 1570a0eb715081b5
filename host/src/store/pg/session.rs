//! A transaction on one connection, in one of two modes: a snapshot (repeatable read, read
//! only, begun at its first statement) or the writer's (read committed, where reads of runs
//! and counters lock their rows, and every write is noted so that an empty batch commits
//! nothing).

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::ops::DerefMut;

use tokio_postgres::Row;

use super::conn::{Conn, connection_ended, is_conflict};
use super::reads::{Params, Sql};
use crate::clock::Timestamp;
use crate::store::StoreError;

/// A connection a session runs on: the pool's, or the writer's own.
pub(super) trait Link: DerefMut<Target = Conn> {}

impl<T: DerefMut<Target = Conn>> Link for T {}

/// What kind of transaction a session is.
pub(super) trait Mode {
    /// Whether reads lock the runs and counters they read.
    const LOCKS: bool;

    /// Prepares `conn` for a statement.
    fn before(&self, conn: &mut Conn) -> Result<(), StoreError>;

    /// Notes that a statement failed with `error`: the transaction can do nothing more.
    fn failed(&self, error: &StoreError);

    /// Whether dropping the session must roll its transaction back: the writer ends its own.
    fn open_at_drop(&self) -> bool;
}

/// A consistent snapshot for reads, begun lazily and rolled back when dropped.
#[derive(Default)]
pub(super) struct Snapshot {
    begun: Cell<bool>,
}

impl Mode for Snapshot {
    const LOCKS: bool = false;

    fn before(&self, conn: &mut Conn) -> Result<(), StoreError> {
        if !self.begun.get() {
            conn.batch("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")?;
            self.begun.set(true);
        }
        Ok(())
    }

    fn failed(&self, _: &StoreError) {}

    fn open_at_drop(&self) -> bool {
        self.begun.get()
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
    /// Anything else.
    Other,
}

impl Failure {
    pub(super) fn of(error: &StoreError) -> Failure {
        match error {
            _ if is_conflict(error) => Failure::Conflict,
            StoreError::Pg(e) if connection_ended(e) => Failure::Lost,
            StoreError::Unavailable(_) => Failure::Unanswered,
            _ => Failure::Other,
        }
    }

    /// Whether the batch may be run again.
    pub(super) fn retry(self) -> bool {
        matches!(self, Failure::Conflict | Failure::Lost)
    }
}

/// The writer's transaction: what it has done beyond its statements.
pub(super) struct Writing {
    pub(super) now: Timestamp,
    pub(super) after_commit: Vec<Box<dyn FnOnce() + Send>>,
    /// Whether anything was written: a batch that wrote nothing is rolled back, not committed.
    pub(super) changed: bool,
    /// What to tell the other nodes once this commits (`pg_notify` payloads).
    pub(super) notices: BTreeSet<String>,
    /// How the first statement that failed did, and why: the transaction is then unusable.
    pub(super) failure: Cell<Option<(Failure, String)>>,
}

impl Writing {
    pub(super) fn new(now: Timestamp) -> Self {
        Writing {
            now,
            after_commit: Vec::new(),
            changed: false,
            notices: BTreeSet::new(),
            failure: Cell::new(None),
        }
    }
}

impl Mode for Writing {
    const LOCKS: bool = true;

    fn before(&self, _: &mut Conn) -> Result<(), StoreError> {
        Ok(())
    }

    fn failed(&self, error: &StoreError) {
        let first = self.failure.take();
        self.failure
            .set(first.or_else(|| Some((Failure::of(error), error.to_string()))));
    }

    fn open_at_drop(&self) -> bool {
        false
    }
}

/// A transaction on connection `C` in mode `M`.
pub(super) struct Session<C: Link, M: Mode> {
    conn: RefCell<C>,
    pub(super) mode: M,
}

impl<C: Link, M: Mode> Session<C, M> {
    pub(super) fn new(conn: C, mode: M) -> Self {
        Session {
            conn: RefCell::new(conn),
            mode,
        }
    }

    /// Runs a statement that writes, answering how many rows it changed.
    pub(super) fn exec(&self, sql: &'static str, params: &Params<'_>) -> Result<u64, StoreError> {
        let mut conn = self.conn.borrow_mut();
        self.mode.before(&mut conn)?;
        conn.execute(sql, params)
            .inspect_err(|e| self.mode.failed(e))
    }

    /// Rolls the transaction back; a connection that cannot is not used again. A broken one
    /// is left as it is: the database ends its transaction when it is closed.
    pub(super) fn rollback(&self) {
        let mut conn = self.conn.borrow_mut();
        if conn.is_broken() || conn.batch("ROLLBACK").is_err() {
            conn.mark_broken();
        }
    }
}

impl<C: Link, M: Mode> Sql for Session<C, M> {
    fn rows(&self, sql: &'static str, params: &Params<'_>) -> Result<Vec<Row>, StoreError> {
        let mut conn = self.conn.borrow_mut();
        self.mode.before(&mut conn)?;
        conn.query(sql, params).inspect_err(|e| self.mode.failed(e))
    }

    fn locks(&self) -> bool {
        M::LOCKS
    }
}

impl<C: Link, M: Mode> Drop for Session<C, M> {
    fn drop(&mut self) {
        // A snapshot ends its transaction; a connection that cannot is never handed to the
        // next reader. The writer ends its own transactions.
        if self.mode.open_at_drop() {
            self.rollback();
        }
    }
}
