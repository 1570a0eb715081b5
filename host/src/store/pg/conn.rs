//! Connections to PostgreSQL: a pool of them, each with its prepared statements, and what the
//! database's errors mean to the store.

use std::collections::HashMap;

use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{Client, NoTls, Row, Statement};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::store::{StoreError, WriterStats};

/// A connection and the statements prepared on it. Every statement Weft runs is a `'static`
/// string, so each is parsed once per connection and then sent by name: one round trip per
/// query instead of two.
pub(super) struct Conn {
    /// Always there but while the connection is dropped.
    client: Option<Client>,
    statements: HashMap<&'static str, Statement>,
    /// Set when the connection's state is unknown: the pool then drops it.
    broken: bool,
    /// Counts the round trips.
    stats: WriterStats,
}

impl Conn {
    /// Marks the connection unusable: the pool will close it rather than reuse it.
    pub(super) fn mark_broken(&mut self) {
        self.broken = true;
    }

    /// Whether the connection can take no more statements.
    pub(super) fn is_broken(&self) -> bool {
        self.broken || self.client.as_ref().is_none_or(Client::is_closed)
    }

    fn statement(&mut self, sql: &'static str) -> Result<Statement, postgres::Error> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        self.stats.round_trip();
        let statement = self.client().prepare(sql)?;
        self.statements.insert(sql, statement.clone());
        Ok(statement)
    }

    /// Runs `sql`, answering its rows.
    pub(super) fn query(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, StoreError> {
        let statement = self.statement(sql)?;
        self.stats.round_trip();
        Ok(self.client().query(&statement, params)?)
    }

    /// Runs `sql`, answering its one row if it has one.
    pub(super) fn query_opt(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, StoreError> {
        let statement = self.statement(sql)?;
        self.stats.round_trip();
        Ok(self.client().query_opt(&statement, params)?)
    }

    /// Runs `sql`, answering how many rows it changed.
    pub(super) fn execute(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, StoreError> {
        let statement = self.statement(sql)?;
        self.stats.round_trip();
        Ok(self.client().execute(&statement, params)?)
    }

    /// Runs statements that take no parameters (`BEGIN`, `COMMIT`, the schema).
    pub(super) fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        self.stats.round_trip();
        Ok(self.client().batch_execute(sql)?)
    }

    /// The client itself.
    pub(super) fn client(&mut self) -> &mut Client {
        self.client
            .as_mut()
            .expect("a connection has its client until dropped")
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        // The blocking client says goodbye on its own runtime, which panics on an async
        // runtime's thread, where the store's last handle may be dropped: elsewhere, then.
        if let Some(client) = self.client.take()
            && tokio::runtime::Handle::try_current().is_ok()
        {
            std::thread::spawn(move || drop(client));
        }
    }
}

/// Opens connections for the pool.
#[derive(Clone)]
pub(super) struct Manager {
    config: postgres::Config,
    /// TLS, if the store's URL asks for it.
    tls: Option<MakeRustlsConnect>,
    stats: WriterStats,
}

impl Manager {
    /// Opens connections with `config` (over `tls`, if any) whose round trips count in `stats`.
    pub(super) fn new(
        config: postgres::Config,
        tls: Option<MakeRustlsConnect>,
        stats: WriterStats,
    ) -> Self {
        Manager { config, tls, stats }
    }

    /// Where its connections count their round trips.
    pub(super) fn stats(&self) -> &WriterStats {
        &self.stats
    }

    /// A new connection, outside any pool (the writer's and the listener's own).
    pub(super) fn connect(&self) -> Result<Conn, postgres::Error> {
        let client = match &self.tls {
            Some(tls) => self.config.connect(tls.clone())?,
            None => self.config.connect(NoTls)?,
        };
        Ok(Conn {
            client: Some(client),
            statements: HashMap::new(),
            broken: false,
            stats: self.stats.clone(),
        })
    }
}

/// The pool reports a connection's failure by its message: a `StoreError`'s has the causes.
impl r2d2::ManageConnection for Manager {
    type Connection = Conn;
    type Error = StoreError;

    fn connect(&self) -> Result<Conn, StoreError> {
        Ok(Manager::connect(self)?)
    }

    fn is_valid(&self, conn: &mut Conn) -> Result<(), StoreError> {
        conn.stats.round_trip();
        Ok(conn.client().simple_query("").map(drop)?)
    }

    fn has_broken(&self, conn: &mut Conn) -> bool {
        conn.is_broken()
    }
}

/// `error` with its causes: the driver's own message names only the kind of failure ("db
/// error", "error performing TLS handshake").
pub(crate) fn explain(error: &postgres::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

/// Connections for snapshot reads.
pub(super) type Pool = r2d2::Pool<Manager>;

/// Whether a transaction that failed with `error` may simply be run again: it lost a race with
/// another process's transaction (a deadlock, a lock it waited too long for, a serialization
/// failure, or a name another transaction took first, which the retry's check then sees).
pub(super) fn is_conflict(error: &StoreError) -> bool {
    let StoreError::Pg(error) = error else {
        return false;
    };
    error.code().is_some_and(|code| {
        [
            SqlState::T_R_DEADLOCK_DETECTED,
            SqlState::T_R_SERIALIZATION_FAILURE,
            SqlState::LOCK_NOT_AVAILABLE,
            SqlState::UNIQUE_VIOLATION,
        ]
        .contains(code)
    })
}
