//! Connections to PostgreSQL: a pool of them, each with its prepared statements and a deadline
//! on every call, and what the database's errors mean to the store.
//!
//! A database that stops answering (a cut link, a silent partition, a server that hangs) must
//! not hang the node: every call (connecting included) waits at most [`DEADLINE`], and a
//! connection that missed one is never used again. The server bounds the other side: a
//! statement runs at most [`DEADLINE`], and a transaction left idle (by a node cut off in the
//! middle of it) is ended after [`IDLE_IN_TRANSACTION`], which frees the rows it locked for
//! the other nodes. TCP keepalives and a user timeout let the kernel notice a dead peer on
//! connections that wait idle (the pool's, the listener's).

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;
use tokio::sync::mpsc;
use tokio_postgres::error::SqlState;
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::types::ToSql;
use tokio_postgres::{AsyncMessage, Client, Connection, NoTls, Notification, Row, Statement};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::store::{OpenError, StoreError, WriterStats};

/// The longest one call to the database waits for its answer, connecting included; also the
/// server's `statement_timeout`.
pub(super) const DEADLINE: Duration = Duration::from_secs(5);

/// How much longer than the server's `statement_timeout` a call waits for an answer.
const SERVER_FIRST: Duration = Duration::from_millis(500);

/// How long the server lets a transaction of Weft's sit idle before it ends the session: the
/// bound on how long a node cut off mid-transaction keeps its locks. Weft's own transactions
/// are never idle for more than the milliseconds between two statements.
pub(super) const IDLE_IN_TRANSACTION: Duration = Duration::from_secs(5);

/// How long migrations may take, statement by statement: an index built on a large table may
/// take minutes, and a node waits here for another node's migration.
pub(super) const MIGRATION_DEADLINE: Duration = Duration::from_secs(600);

/// One statement of a [`Conn::pipeline`].
#[derive(Clone, Copy)]
pub(super) enum Step<'a> {
    /// A statement without parameters, sent as it is: `BEGIN`, `COMMIT`.
    Simple(&'static str),
    /// A statement prepared once per connection, with its parameters.
    Prepared(&'static str, &'a [&'a (dyn ToSql + Sync)]),
}

/// How a pipeline failed: the index of the step that failed, if the call got that far.
pub(super) type Stepped = (Option<usize>, StoreError);

/// A call's answer, or the deadline it missed.
type Answer<T> = Result<Result<T, tokio_postgres::Error>, tokio::time::error::Elapsed>;

/// How recently a connection must have answered for the pool to hand it out untested (as
/// HikariCP's `aliveBypassWindowMs`): a busy node's connections cost no test round trip, and
/// one that sat idle, whose server may have gone meanwhile, is tested first.
const FRESH: Duration = Duration::from_secs(1);

/// The TCP keepalive and user timeout Weft's sockets use unless the URL sets its own.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(10);
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(5);
const KEEPALIVE_RETRIES: u32 = 3;
const TCP_USER_TIMEOUT: Duration = Duration::from_secs(15);

/// A connection and the statements prepared on it. Every statement Weft runs is a `'static`
/// string, so each is parsed once per connection and then sent by name: one round trip per
/// query instead of two.
pub(super) struct Conn {
    client: Client,
    statements: HashMap<&'static str, Statement>,
    /// Set when the connection's state is unknown: the pool then drops it.
    broken: bool,
    /// Counts the round trips.
    stats: WriterStats,
    /// How long one call may wait.
    deadline: Duration,
    /// When the connection last answered a call.
    answered: Instant,
    /// The `NOTIFY` messages received, for a connection that listens.
    notices: mpsc::UnboundedReceiver<Notification>,
    /// Drives the socket while a call waits: a runtime of the connection's own, on the
    /// caller's thread, as the blocking client's. Always there but while dropped.
    runtime: Option<Runtime>,
    /// The generation of connections it belongs to, and the current one (see [`Generation`]).
    generation: u64,
    current: Generation,
}

/// The generation of a node's connections: moved on whenever a call misses its deadline. A database that stops answering leaves every open connection waiting in vain, so
/// one found dead condemns all that were opened before it: they are dropped untried, and a
/// request waits out one deadline, not one per pooled connection.
#[derive(Clone, Debug, Default)]
pub(super) struct Generation(Arc<AtomicU64>);

impl Generation {
    fn now(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }

    /// Condemns every connection of generation `of` or earlier.
    fn condemn(&self, of: u64) {
        self.0.fetch_max(of + 1, Ordering::SeqCst);
    }
}

impl Conn {
    /// Marks the connection unusable: the pool will close it rather than reuse it.
    pub(super) fn mark_broken(&mut self) {
        self.broken = true;
    }

    /// Whether the connection can take no more statements, or is of a generation condemned
    /// since it was opened.
    pub(super) fn is_broken(&self) -> bool {
        self.broken || self.client.is_closed() || self.generation < self.current.now()
    }

    /// Lets each call wait up to `deadline`, and statements run as long on the server.
    pub(super) fn set_deadline(&mut self, deadline: Duration) -> Result<(), StoreError> {
        self.deadline = deadline;
        let millis = deadline.as_millis();
        self.batch(&format!("SET statement_timeout = {millis}"))
    }

    /// Waits for `call` on the connection's runtime, at most the connection's deadline and
    /// [`SERVER_FIRST`]: a statement that runs too long is ended by the server's own
    /// `statement_timeout`, an answer, so that only a server that does not answer at all
    /// misses the deadline (and condemns the connections opened before it).
    fn wait<T>(&self, call: impl Future<Output = Result<T, tokio_postgres::Error>>) -> Answer<T> {
        let runtime = self.runtime.as_ref().expect("a connection has its runtime");
        let deadline = self.deadline + SERVER_FIRST;
        // The timer is made inside: it needs the runtime it runs on.
        runtime.block_on(async { tokio::time::timeout(deadline, call).await })
    }

    /// What a call came to. One that missed its deadline leaves the connection in an unknown
    /// state: it is marked broken, and the database unavailable.
    fn settle<T>(&mut self, answer: Answer<T>) -> Result<T, StoreError> {
        match answer {
            Ok(answer) => {
                let answer = answer?;
                self.answered = Instant::now();
                Ok(answer)
            }
            Err(_) => {
                self.broken = true;
                self.current.condemn(self.generation);
                Err(StoreError::Unavailable(format!(
                    "the database did not answer within {} s",
                    self.deadline.as_secs_f64()
                )))
            }
        }
    }

    fn statement(&mut self, sql: &'static str) -> Result<Statement, StoreError> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        self.stats.round_trip();
        let answer = self.wait(self.client.prepare(sql));
        let statement = self.settle(answer)?;
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
        let answer = self.wait(self.client.query(&statement, params));
        self.settle(answer)
    }

    /// Runs `sql`, answering its one row if it has one.
    pub(super) fn query_opt(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, StoreError> {
        let statement = self.statement(sql)?;
        self.stats.round_trip();
        let answer = self.wait(self.client.query_opt(&statement, params));
        self.settle(answer)
    }

    /// Runs `sql`, answering how many rows it changed.
    pub(super) fn execute(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, StoreError> {
        let statement = self.statement(sql)?;
        self.stats.round_trip();
        let answer = self.wait(self.client.execute(&statement, params));
        self.settle(answer)
    }

    /// Sends `steps` together and waits for all their answers: one round trip however many
    /// there are. Answers each step's rows, or the index of the first step that failed
    /// with its error (none if the call failed as a whole: the deadline, a lost connection).
    /// The server runs each step on its own (each ends with its own `Sync`), so in a
    /// transaction a failed step makes every later one fail too, and a `COMMIT` roll back.
    pub(super) fn pipeline(&mut self, steps: &[Step<'_>]) -> Result<Vec<Vec<Row>>, Stepped> {
        let mut statements = Vec::with_capacity(steps.len());
        for step in steps {
            statements.push(match step {
                Step::Simple(_) => None,
                Step::Prepared(sql, _) => Some(self.statement(sql).map_err(|e| (None, e))?),
            });
        }
        self.stats.round_trip();
        let client = &self.client;
        let calls = steps.iter().zip(&statements).map(|call| match call {
            (Step::Simple(sql), _) => futures_util::future::Either::Left(async move {
                client.batch_execute(sql).await.map(|()| Vec::new())
            }),
            (Step::Prepared(_, params), Some(statement)) => {
                futures_util::future::Either::Right(client.query(statement, params))
            }
            (Step::Prepared(..), None) => unreachable!("prepared above"),
        });
        let answer = self.wait(async {
            Ok::<_, tokio_postgres::Error>(futures_util::future::join_all(calls).await)
        });
        let answers = self.settle(answer).map_err(|e| (None, e))?;
        let mut rows = Vec::with_capacity(answers.len());
        for (i, answer) in answers.into_iter().enumerate() {
            match answer {
                Ok(answer) => rows.push(answer),
                Err(error) => {
                    self.broken |= connection_ended(&error);
                    return Err((Some(i), error.into()));
                }
            }
        }
        Ok(rows)
    }

    /// Sends `sql` (no parameters) without waiting for its answer, which the connection's
    /// next call passes over: for the `ROLLBACK` that ends a snapshot, so that ending one
    /// costs no round trip (and counts as none). The statement is written to the socket before
    /// this returns, so the server ends the transaction at once even if the connection then
    /// sits idle.
    pub(super) fn send(&mut self, sql: &'static str) {
        use futures_util::FutureExt;
        let call = self.client.batch_execute(sql);
        // The first poll queues the statement; the answer is not awaited.
        if let Some(Err(_)) = call.now_or_never() {
            self.broken = true;
            return;
        }
        let runtime = self.runtime.as_ref().expect("a connection has its runtime");
        // One turn of the runtime lets the task that drives the socket write the statement.
        runtime.block_on(tokio::task::yield_now());
    }

    /// Runs statements that take no parameters (`BEGIN`, `COMMIT`, the schema).
    pub(super) fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        self.stats.round_trip();
        let answer = self.wait(self.client.batch_execute(sql));
        self.settle(answer)
    }

    /// The notices that arrive within `wait` (none if none does); an error once the
    /// connection has closed.
    pub(super) fn notifications(
        &mut self,
        wait: Duration,
    ) -> Result<Vec<Notification>, StoreError> {
        let runtime = self.runtime.as_ref().expect("a connection has its runtime");
        let first =
            runtime.block_on(async { tokio::time::timeout(wait, self.notices.recv()).await });
        let mut notices = match first {
            Err(_) => return Ok(Vec::new()),
            Ok(None) => {
                return Err(StoreError::Unavailable(
                    "the listening connection closed".into(),
                ));
            }
            Ok(Some(notice)) => vec![notice],
        };
        while let Ok(notice) = self.notices.try_recv() {
            notices.push(notice);
        }
        Ok(notices)
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        // Closes the socket without waiting for anything: a connection may be dropped on an
        // async runtime's thread, where blocking is not allowed.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Reads the connection's messages until it closes: answers to calls go to their callers on
/// their own; `NOTIFY` messages are passed on to `notices`.
async fn drive<S, T>(mut connection: Connection<S, T>, notices: mpsc::UnboundedSender<Notification>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    loop {
        match std::future::poll_fn(|cx| connection.poll_message(cx)).await {
            Some(Ok(AsyncMessage::Notification(notice))) => {
                let _ = notices.send(notice);
            }
            Some(Ok(_)) => {}
            Some(Err(error)) => {
                tracing::debug!(error = %explain(&error), "a database connection failed");
                return;
            }
            None => return,
        }
    }
}

/// Opens connections for the pool.
#[derive(Clone)]
pub(super) struct Manager {
    config: tokio_postgres::Config,
    /// TLS, if the store's URL asks for it.
    tls: Option<MakeRustlsConnect>,
    stats: WriterStats,
    /// Where the connections go, without the password: for errors.
    place: String,
    /// The generation of its connections, shared by its clones.
    generation: Generation,
}

impl Manager {
    /// Opens connections to `place` with `config` (over `tls`, if any) whose round trips count
    /// in `stats`.
    pub(super) fn new(
        mut config: tokio_postgres::Config,
        tls: Option<MakeRustlsConnect>,
        stats: WriterStats,
        place: String,
    ) -> Self {
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(DEADLINE);
        }
        if config.get_tcp_user_timeout().is_none() {
            config.tcp_user_timeout(TCP_USER_TIMEOUT);
        }
        // The driver's defaults, which leave a dead peer unnoticed for two hours.
        if config.get_keepalives_idle() == Duration::from_secs(2 * 60 * 60) {
            config.keepalives_idle(KEEPALIVE_IDLE);
        }
        if config.get_keepalives_interval().is_none() {
            config.keepalives_interval(KEEPALIVE_INTERVAL);
        }
        if config.get_keepalives_retries().is_none() {
            config.keepalives_retries(KEEPALIVE_RETRIES);
        }
        config.application_name("weft");
        Manager {
            config,
            tls,
            stats,
            place,
            generation: Generation::default(),
        }
    }

    /// Where its connections count their round trips.
    pub(super) fn stats(&self) -> &WriterStats {
        &self.stats
    }

    /// A new connection, outside any pool (the writer's and the listener's own), with
    /// Weft's session settings: statements and idle transactions bounded.
    pub(super) fn connect(&self) -> Result<Conn, StoreError> {
        let unavailable = |why: String| StoreError::Unavailable(format!("{}: {why}", self.place));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(OpenError::Thread)?;
        let (sender, notices) = mpsc::unbounded_channel();
        let generation = self.generation.now();
        let connecting = async {
            match &self.tls {
                Some(tls) => self.start(tls.clone(), sender).await,
                None => self.start(NoTls, sender).await,
            }
        };
        let connected =
            runtime.block_on(async { tokio::time::timeout(DEADLINE, connecting).await });
        let client = match connected {
            Ok(Ok(client)) => client,
            Ok(Err(error)) => return Err(unavailable(explain(&error))),
            Err(_) => {
                runtime.shutdown_background();
                return Err(unavailable(format!(
                    "no connection within {} s",
                    DEADLINE.as_secs_f64()
                )));
            }
        };
        let mut conn = Conn {
            client,
            statements: HashMap::new(),
            broken: false,
            stats: self.stats.clone(),
            deadline: DEADLINE,
            answered: Instant::now(),
            notices,
            runtime: Some(runtime),
            generation,
            current: self.generation.clone(),
        };
        conn.batch(&format!(
            "SET statement_timeout = {}; SET idle_in_transaction_session_timeout = {}",
            DEADLINE.as_millis(),
            IDLE_IN_TRANSACTION.as_millis()
        ))
        .map_err(|e| match e.driver() {
            Some(pg) => unavailable(explain(pg)),
            None => e,
        })?;
        Ok(conn)
    }

    /// Connects over `tls` and has the current runtime drive the connection.
    async fn start<T>(
        &self,
        tls: T,
        notices: mpsc::UnboundedSender<Notification>,
    ) -> Result<Client, tokio_postgres::Error>
    where
        T: MakeTlsConnect<tokio_postgres::Socket>,
        T::Stream: Send + 'static,
    {
        let (client, connection) = self.config.connect(tls).await?;
        tokio::spawn(drive(connection, notices));
        Ok(client)
    }
}

/// The pool reports a connection's failure by its message: a `StoreError`'s has the causes.
impl r2d2::ManageConnection for Manager {
    type Connection = Conn;
    type Error = StoreError;

    fn connect(&self) -> Result<Conn, StoreError> {
        Manager::connect(self)
    }

    fn is_valid(&self, conn: &mut Conn) -> Result<(), StoreError> {
        if conn.is_broken() {
            return Err(StoreError::Unavailable("a condemned connection".into()));
        }
        if conn.answered.elapsed() < FRESH {
            return Ok(());
        }
        conn.batch("")
    }

    fn has_broken(&self, conn: &mut Conn) -> bool {
        conn.is_broken()
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(error: tokio_postgres::Error) -> Self {
        StoreError::backend("database", explain(&error), error)
    }
}

/// `error` with its causes: the driver's own message names only the kind of failure ("db
/// error", "error performing TLS handshake").
pub(crate) fn explain(error: &tokio_postgres::Error) -> String {
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
    let Some(error) = error.driver::<tokio_postgres::Error>() else {
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
            && !(*code == SqlState::UNIQUE_VIOLATION && super::run_items::unguarded_runs())
    })
}

/// Whether `error` is a cheap limit check's failure (`counters.rs`).
pub(super) fn is_near_limit(error: &StoreError) -> bool {
    has_code(error, "WF001")
}

/// Whether `error` is the commit's check that a started run was stamped before a close
/// another transaction committed (`weft_starts_after_closes`).
pub(super) fn is_started_early(error: &StoreError) -> bool {
    has_code(error, "WF002")
}

/// Whether `error` is a statement's failure with SQLSTATE `code`.
fn has_code(error: &StoreError, code: &str) -> bool {
    let Some(error) = error.driver::<tokio_postgres::Error>() else {
        return false;
    };
    error.code().is_some_and(|c| c.code() == code)
}

/// Whether `error` ended the connection: it closed, or the server said it is ending the session
/// (an idle transaction or session timed out, an administrator or a shutdown terminated it, a
/// connection exception). The driver may report either first when the server ends a session, so
/// both mean the same: what was in flight on it has an unknown outcome, and a new connection may
/// succeed.
pub(super) fn connection_ended(error: &tokio_postgres::Error) -> bool {
    error.is_closed()
        || error.code().is_some_and(|code| {
            code.code().starts_with("08")
                || [
                    SqlState::IDLE_IN_TRANSACTION_SESSION_TIMEOUT,
                    SqlState::ADMIN_SHUTDOWN,
                    SqlState::CRASH_SHUTDOWN,
                    SqlState::CANNOT_CONNECT_NOW,
                    SqlState::IDLE_SESSION_TIMEOUT,
                ]
                .contains(code)
        })
}
