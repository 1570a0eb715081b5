//! The node's writer on PostgreSQL: the same loop as redb's (`store/writer.rs`), committing
//! each batch of this node's requests in one transaction, and running a batch again when it
//! lost a race with another node's transaction.
//!
//! Other nodes write at the same time, so a batch can deadlock with one of theirs, wait too
//! long for a lock, or find a name another node took a moment before. Each of these aborts the
//! transaction before it changed anything; the batch then runs again from its checks, which
//! see the other node's committed work. Jobs keep their check and apply for this
//! (`store/job.rs`); after [`MAX_ATTEMPTS`] the batch is answered with the error.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant, SystemTime};

use tokio_postgres::types::ToSql;

use super::ahead::{Ahead, Doubts, Start, ahead, in_start_order};
use super::catalog::Catalog;
use super::conn::{Conn, Manager, Step};
use super::counters::NodeShards;
use super::lists::EmptyLists;
use super::notices;
use super::pages::CommitPages;
use super::session::{Failure, FirstFailure, Ids, Link, Session, Writing};
use crate::clock::Clock;
use crate::store::StoreError;
use crate::store::seam::Job;
use crate::store::writer::AfterCommit;

/// The most requests one transaction carries. Smaller than redb's: the transaction holds its
/// rows' locks until it commits, and other nodes may be waiting for them.
pub(super) const MAX_BATCH: usize = 128;

/// How often a batch is tried before its error is answered.
const MAX_ATTEMPTS: u32 = 12;

/// How many attempts in a row one request may fail on a conflict before it is answered alone
/// as busy, so that a run locked by a stalled node holds up only the requests that need it.
const SPLIT_AFTER: u32 = 4;

/// The writer's session settings, sent once per connection.
///
/// `lock_timeout`: how long the writer waits for a row another transaction holds before giving
/// up on the attempt and retrying: far sooner than PostgreSQL's deadlock detection (1 s by
/// default).
///
/// `plan_cache_mode`: the writer's statements take arrays (`unnest`), whose lengths a custom
/// plan knows and a generic one guesses, so PostgreSQL planned a few of them again on every
/// call (~0.15 ms each, 10 % of the database's CPU per workflow); every one of them finds its
/// rows by key, so one plan per connection serves. `enable_seqscan`: a generic plan made while
/// a table is still small would scan it whole for good (a visibility delete grew to 2.7 ms);
/// off, a key lookup always takes its index, and a statement with no index to use still scans.
/// `jit`: such a scan's cost, past `jit_above_cost`, would compile the statement on every call
/// (none of the writer's did across the test suites; this keeps it so).
const SETTINGS: &str = "SET lock_timeout = '250ms'; SET plan_cache_mode = force_generic_plan; \
     SET enable_seqscan = off; SET jit = off";

/// How an attempt failed, in which request, and whether another may succeed.
struct Failed {
    error: StoreError,
    failure: Failure,
    /// The index of the request whose statement failed, if one did.
    job: Option<usize>,
    /// Whether that request's own change failed (its answer says why), not a statement that
    /// may hold other requests' writes too.
    own: bool,
}

impl From<StoreError> for Failed {
    fn from(error: StoreError) -> Self {
        let failure = Failure::of(&error);
        Failed {
            error,
            failure,
            job: None,
            own: false,
        }
    }
}

/// The error answered for a request that kept losing to other nodes' transactions.
fn busy(error: &StoreError) -> StoreError {
    StoreError::Busy(format!(
        "another node's transaction kept what it needs: {error}"
    ))
}

/// The writer's connection, opened when first needed and again after it is lost.
pub(super) struct Committer {
    manager: Arc<Manager>,
    clock: Arc<dyn Clock>,
    conn: Option<Conn>,
    /// Where the other nodes hear of this node's commits.
    channel: String,
    /// The node's domain and type records, emptied when a batch changes one.
    catalog: Arc<Catalog>,
    /// Ids taken from the sequence and not used yet.
    ids: Ids,
    /// This node's shards of every counter (`counters.rs`), once connected.
    shards: Option<NodeShards>,
    /// The server process of the writer's connection, whose notices are this node's own.
    own: Arc<AtomicI32>,
    /// The task lists the node knows empty (`lists.rs`).
    lists: Arc<EmptyLists>,
    /// The workflows whose starts read their open run instead of guessing.
    doubts: Doubts,
    /// The workflows the latest attempt guessed to have no open run.
    guessed: Vec<Start>,
    /// When and why the latest attempt found the database unavailable, until one succeeds.
    unavailable: Option<(Instant, String)>,
    /// Whether the next attempt's starts read their workflows' latest closes.
    read_floors: bool,
}

impl Committer {
    pub(super) fn new(
        manager: Arc<Manager>,
        clock: Arc<dyn Clock>,
        channel: String,
        catalog: Arc<Catalog>,
        own: Arc<AtomicI32>,
        lists: Arc<EmptyLists>,
    ) -> Self {
        Committer {
            manager,
            clock,
            conn: None,
            channel,
            catalog,
            ids: Ids::default(),
            shards: None,
            own,
            lists,
            doubts: Doubts::default(),
            guessed: Vec::new(),
            unavailable: None,
            read_floors: false,
        }
    }

    /// Applies and commits `batch`, trying again after conflicts; answers whether anything
    /// was committed, and what to run now that it is. A request that keeps losing is answered
    /// [`StoreError::Busy`] on its own and taken out of the batch, as is one whose own change
    /// fails.
    pub(super) fn commit(
        &mut self,
        batch: &mut Vec<Box<dyn Job>>,
    ) -> Result<(bool, AfterCommit), StoreError> {
        let mut tries = Tries::default();
        loop {
            let again = tries.attempt < MAX_ATTEMPTS;
            // The first attempt takes the workflows it starts to have no open run, unread: the
            // open run's key refuses the guess that is wrong, and the next attempt reads.
            let guess = tries.attempt == 1;
            let failed = match self.attempt(batch, again, guess) {
                Ok(done) => {
                    (self.unavailable, self.read_floors) = (None, false);
                    return Ok(done);
                }
                Err(failed) => failed,
            };
            self.learn(&failed);
            if let Some(over) = self.after(failed, batch, &mut tries, (again, guess)) {
                return over;
            }
        }
    }

    /// Keeps what a failed attempt tells the next ones.
    fn learn(&mut self, failed: &Failed) {
        match failed.failure {
            // A run stamped before its workflow's previous run closed: the next attempt reads
            // the closes, and stamps it after.
            Failure::StartedEarly => self.read_floors = true,
            Failure::Unanswered => {
                let why = match &failed.error {
                    StoreError::Unavailable(why) => why.clone(),
                    other => other.to_string(),
                };
                self.unavailable = Some((Instant::now(), why));
            }
            Failure::NearLimit => {
                if let Some(shards) = &self.shards {
                    shards.check_exactly();
                }
            }
            _ => {}
        }
    }

    /// What follows an attempt of `batch` that `failed`: the batch's answer, or `None` to try
    /// again (after taking out a request that keeps losing or whose own change failed).
    fn after(
        &mut self,
        failed: Failed,
        batch: &mut Vec<Box<dyn Job>>,
        tries: &mut Tries,
        (again, guess): (bool, bool),
    ) -> Option<Result<(bool, AfterCommit), StoreError>> {
        if failed.failure == Failure::Conflict && again {
            tries.losing = match tries.losing {
                (job, n) if job == failed.job => (job, n + 1),
                _ => (failed.job, 1),
            };
            if let (Some(job), SPLIT_AFTER..) = tries.losing {
                tracing::debug!(error = %failed.error, "a request keeps losing; answered busy");
                batch.remove(job).finish(Some(&busy(&failed.error)));
                return tries.restart(batch);
            }
        }
        // One request's failure is its own: the rest of its batch runs again without it, or,
        // after a second failure or one whose request is unknown, each alone. (Not a commit
        // whose outcome is unknown: it may have happened.)
        let unknown = matches!(failed.error, StoreError::Unavailable(_));
        if failed.failure == Failure::Other && !unknown {
            if let (Some(job), true) = (failed.job, failed.own) {
                batch.remove(job).finish(None);
                if again && !tries.singled {
                    tries.singled = true;
                    return tries.restart(batch);
                }
            }
            if again && (batch.len() > 1 || tries.singled) {
                return Some(Ok(self.one_by_one(batch)));
            }
        }
        if batch.is_empty() {
            return Some(Ok((false, Vec::new())));
        }
        if !(failed.failure.retry() && again) {
            return Some(Err(match failed.failure {
                Failure::Conflict => busy(&failed.error),
                _ => failed.error,
            }));
        }
        tracing::debug!(error = %failed.error, attempt = tries.attempt, "retrying a batch");
        self.manager.stats().retry();
        // A wrong guess is no collision with another node: the next attempt reads at once,
        // and later batches read too, for a client that starts the workflow again.
        if guess && failed.failure == Failure::Conflict {
            self.doubts.doubt(std::mem::take(&mut self.guessed));
        } else {
            std::thread::sleep(backoff(tries.attempt));
        }
        tries.attempt += 1;
        None
    }

    /// Commits each request of `batch` alone, in order, after a failure whose request the
    /// batch cannot tell (a statement carries several requests' writes): a request that fails
    /// is answered and taken out, the rest stay in `batch`, committed, for the writer to
    /// answer. A database that stopped answering answers the rest at once.
    fn one_by_one(&mut self, batch: &mut Vec<Box<dyn Job>>) -> (bool, AfterCommit) {
        let (mut committed, mut after_commit) = (false, Vec::new());
        let mut kept = Vec::with_capacity(batch.len());
        let mut down = None;
        for job in batch.drain(..) {
            if let Some(error) = &down {
                job.finish(Some(error));
                continue;
            }
            let mut one = vec![job];
            match self.commit(&mut one) {
                Ok((changed, after)) => {
                    committed |= changed;
                    after_commit.extend(after);
                    kept.append(&mut one);
                }
                Err(error) => {
                    for job in one {
                        job.finish(Some(&error));
                    }
                    down = matches!(error, StoreError::Unavailable(_)).then_some(error);
                }
            }
        }
        *batch = kept;
        (committed, after_commit)
    }

    fn connection(&mut self) -> Result<&mut Conn, StoreError> {
        if self.conn.as_ref().is_none_or(Conn::is_broken) {
            self.conn = None;
            let mut conn = self.manager.connect()?;
            conn.batch(SETTINGS)?;
            let pid = conn.query_opt("SELECT pg_backend_pid()", &[])?;
            self.own
                .store(pid.map_or(0, |row| row.get(0)), Ordering::Relaxed);
            if self.shards.is_none() {
                self.shards = Some(NodeShards::take(&mut conn)?);
            }
            self.conn = Some(conn);
        }
        Ok(self.conn.as_mut().expect("connected above"))
    }

    fn attempt(
        &mut self,
        batch: &mut [Box<dyn Job>],
        again: bool,
        guess: bool,
    ) -> Result<(bool, AfterCommit), Failed> {
        // Requests that waited out an attempt that found the database unavailable are
        // answered so at once, not made to wait out another: a database that stopped
        // answering costs a request one deadline, not one per batch queued before it.
        // (Answered as another failure than `Unanswered`: this is no new attempt, and moves
        // the time of the one that found the database unavailable on by nothing.)
        if let Some((at, why)) = &self.unavailable
            && batch.iter().all(|job| job.queued() < *at)
        {
            return Err(Failed {
                error: StoreError::Unavailable(why.clone()),
                failure: Failure::Other,
                job: None,
                own: false,
            });
        }
        let now = self.clock.now();
        let channel = self.channel.clone();
        let catalog = self.catalog.clone();
        let lists = self.lists.clone();
        let ids = self.ids.clone();
        self.connection().map_err(|error| Failed {
            error,
            failure: Failure::Unanswered,
            job: None,
            own: false,
        })?;
        let shards = self.shards.clone().expect("taken when connected");
        let conn = self.conn.as_mut().expect("connected above");
        let writing = Writing {
            read_floors: self.read_floors,
            ..Writing::new(now, ids.clone(), shards.clone(), &lists)
        };
        let mut tx = Session::new(&mut *conn, writing, catalog.clone());
        in_start_order(&mut tx, batch);
        // What the requests are about, read together (when two or more would each have cost a
        // round trip of their own).
        let Ahead {
            runs,
            starts,
            polls,
        } = ahead(&mut tx, batch);
        let (guessed, starts) = match guess {
            true => self.doubts.split(starts),
            false => (Vec::new(), starts),
        };
        for (domain, id) in &guessed {
            tx.mode.locked.guess_none_open(*domain, id.clone());
        }
        self.guessed = guessed;
        let claims: i64 = polls.iter().map(|(_, n)| n).sum();
        let things = runs.len() + starts.len() + usize::try_from(claims).unwrap_or(usize::MAX);
        if things > 1 && tx.read_ahead(&runs, &starts, &polls).is_err() {
            let first = tx.mode.failure.take();
            tx.rollback();
            return Err(first.map_or_else(|| Failed::from(StoreError::Aborted), Failed::statement));
        }
        Self::apply_jobs(&mut tx, batch, again)?;
        tx.give_back_unclaimed();
        // Queued before the mode that holds them is taken apart. (The mode left in its place
        // is never used; it is made before this attempt's commit could ask the next to check
        // every limit exactly, so it takes no such request.)
        tx.send_events();
        let writing = std::mem::replace(&mut tx.mode, Writing::new(now, ids, shards, &lists));
        Self::commit_writes(tx, writing, &channel, &catalog, &lists)
    }

    /// Applies each request of `batch` in `tx`, then checks the guesses they relied on; a
    /// failure rolls `tx` back, and is the request's whose statement or change failed.
    fn apply_jobs<C: Link>(
        tx: &mut Session<C, Writing>,
        batch: &mut [Box<dyn Job>],
        again: bool,
    ) -> Result<(), Failed> {
        for (i, job) in batch.iter_mut().enumerate() {
            tx.mode.job = Some(i);
            let clean = job.apply(tx, again);
            // A statement that failed may be one of an earlier request's writes, sent with
            // this request's read: the failure is that request's.
            if let Some(first) = tx.mode.failure.take() {
                tx.rollback();
                return Err(Failed::statement(first));
            }
            if !clean {
                tx.rollback();
                return Err(Failed {
                    error: StoreError::Aborted,
                    failure: Failure::Other,
                    job: Some(i),
                    own: true,
                });
            }
        }
        tx.mode.job = None;
        Self::check_guesses(tx).inspect_err(|_| tx.rollback())
    }

    /// Commits what `writing`, the mode `tx` applied its batch in, holds: the writes not sent
    /// yet, the history pages read with the commit, the check of the runs it started, the
    /// notices and the `COMMIT`, in one round trip; or rolls back a transaction that changed
    /// nothing.
    fn commit_writes<C: Link>(
        mut tx: Session<C, Writing>,
        writing: Writing,
        channel: &str,
        catalog: &Catalog,
        lists: &EmptyLists,
    ) -> Result<(bool, AfterCommit), Failed> {
        let Writing {
            changed,
            catalog_changed,
            mut notices,
            earliest_deadline,
            after_commit,
            lists: tx_lists,
            at_commit,
            started,
            ..
        } = writing;
        if !changed {
            // Nothing to make durable (polls that only wait): a rollback costs no flush, and
            // loses nothing if it fails (the connection is then replaced).
            tx.rollback();
            tx_lists.ended();
            return Ok((false, after_commit));
        }
        notices.extend(tx_lists.queued_on().map(notices::queued));
        notices.extend(earliest_deadline.map(notices::deadline));
        let notices: Vec<String> = notices.into_iter().collect();
        let notify = [&channel as &(dyn ToSql + Sync), &notices];
        let pages = CommitPages::new(at_commit);
        let params = pages.params();
        let mut tail: Vec<Step<'_>> = pages.steps(&params).collect();
        let started = StartedRuns::new(started.into_inner());
        let started_params = started.params();
        if !started.is_empty() {
            tail.push(Step::Prepared(StartedRuns::CHECK, &started_params));
        }
        if !notices.is_empty() {
            tail.push(Step::Prepared(
                "SELECT pg_notify($1, n) FROM unnest($2::text[]) AS n",
                &notify,
            ));
        }
        tail.push(Step::Simple("COMMIT"));
        let sent = tx.send(&tail);
        if catalog_changed {
            // Emptied whatever the outcome: a commit whose answer was lost may have happened.
            catalog.empty();
        }
        let answers = match sent {
            Ok(answers) => answers,
            Err(error) => {
                // A commit whose answer was lost may have left tasks on lists it found empty.
                lists.forget();
                return Err(Self::commit_failed(&mut tx, &error));
            }
        };
        pages.fill(answers.into_iter());
        tx_lists.ended();
        Ok((true, after_commit))
    }

    /// Checks, by a read, the guesses that a workflow has no open run which a request relied
    /// on and no insert of an open run checked (a start refused after the guess, say): a
    /// wrong one fails the attempt as a conflict, which the next attempt reads instead.
    fn check_guesses<C: Link>(tx: &mut Session<C, Writing>) -> Result<(), Failed> {
        match tx.guesses_hold() {
            Ok(true) => Ok(()),
            Ok(false) => Err(Failed {
                error: StoreError::broken("a workflow guessed to have no open run has one"),
                failure: Failure::Conflict,
                job: None,
                own: false,
            }),
            Err(_) => Err(tx
                .mode
                .failure
                .take()
                .map_or_else(|| Failed::from(StoreError::Aborted), Failed::statement)),
        }
    }

    /// How an attempt whose commit pipeline failed with `error` failed.
    fn commit_failed<C: Link>(tx: &mut Session<C, Writing>, error: &StoreError) -> Failed {
        // Every failed statement is noted; the fallback only keeps a panic out.
        let first = tx.mode.failure.take().unwrap_or(FirstFailure {
            failure: Failure::Other,
            detail: error.to_string(),
            job: None,
        });
        match first.failure {
            // The server refused a statement before the COMMIT, which then rolled back: the
            // batch may run again.
            Failure::Conflict | Failure::NearLimit | Failure::StartedEarly | Failure::Other => {
                Failed::statement(first)
            }
            // A commit whose answer is lost may or may not have happened: never retried.
            Failure::Lost | Failure::Unanswered => Failed {
                error: StoreError::Unavailable(first.detail),
                failure: Failure::Other,
                job: None,
                own: false,
            },
        }
    }
}

/// Where a batch's attempts stand.
struct Tries {
    attempt: u32,
    /// The request that failed the latest attempts on a conflict, and how many in a row.
    losing: (Option<usize>, u32),
    /// Whether a request was taken out for its own failure.
    singled: bool,
}

impl Default for Tries {
    fn default() -> Self {
        Tries {
            attempt: 1,
            losing: (None, 0),
            singled: false,
        }
    }
}

impl Tries {
    /// Begins again with what is left of `batch`: its answer now if nothing is.
    fn restart(
        &mut self,
        batch: &[Box<dyn Job>],
    ) -> Option<Result<(bool, AfterCommit), StoreError>> {
        (self.attempt, self.losing) = (1, (None, 0));
        batch.is_empty().then(|| Ok((false, Vec::new())))
    }
}

/// The runs a transaction started, as the columns of `weft_starts_after_closes`: checked in
/// the commit's pipeline, after the writes (whose insert of an open run waited for the
/// transaction that closed its workflow's previous run, if one did).
struct StartedRuns {
    domains: Vec<i64>,
    ids: Vec<Vec<u8>>,
    times: Vec<i64>,
}

impl StartedRuns {
    const CHECK: &str = "SELECT weft_starts_after_closes($1, $2, $3)";

    fn new(started: Vec<(i64, Vec<u8>, i64)>) -> Self {
        let (mut domains, mut ids, mut times) = (Vec::new(), Vec::new(), Vec::new());
        for (domain, id, time) in started {
            domains.push(domain);
            ids.push(id);
            times.push(time);
        }
        StartedRuns {
            domains,
            ids,
            times,
        }
    }

    fn is_empty(&self) -> bool {
        self.domains.is_empty()
    }

    fn params(&self) -> [&(dyn ToSql + Sync); 3] {
        [&self.domains, &self.ids, &self.times]
    }
}

impl Failed {
    /// The attempt's failure when `first` is its first failed statement.
    fn statement(first: FirstFailure) -> Failed {
        let error = match first.failure {
            Failure::Lost | Failure::Unanswered => StoreError::Unavailable(first.detail),
            Failure::Conflict | Failure::NearLimit | Failure::StartedEarly | Failure::Other => {
                StoreError::Broken(first.detail)
            }
        };
        Failed {
            error,
            failure: first.failure,
            job: first.job,
            own: false,
        }
    }
}

/// A short, jittered pause before attempt `attempt + 1`, so that two nodes that collided do
/// not collide again in step.
fn backoff(attempt: u32) -> Duration {
    let jitter = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() % 1000);
    let base = 1u64 << attempt.min(6);
    Duration::from_micros(base * 500 + u64::from(jitter) * base)
}
