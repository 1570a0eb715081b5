//! The storage interface the engine and the operations work against: typed reads ([`Reads`])
//! and typed writes ([`Writes`]), with no database type, and no SWF fault, in any signature.
//!
//! redb implements it (`ReadTx` for snapshots, `WriteTx` inside the one writer), and so does
//! PostgreSQL (`pg::Session`), which several processes may share. The engine holds a
//! `&mut dyn Writes`, so a backend is a second implementation, not a fork of the engine. The
//! rules below are tests in `contract/`, which every backend passes.
//!
//! # What a backend must guarantee
//!
//! A write job runs as a *check*, then an *apply*, both inside one write transaction (see
//! [`Store::write`](super::Store::write)): every read a change depends on is made in the
//! transaction that writes the change. The check only reads and may refuse with a fault; the
//! apply cannot fault, and a [`StoreError`] from it aborts the whole transaction. Several
//! processes may share one database, so a backend for that case must make each write
//! transaction serializable with respect to the others it could conflict with:
//!
//! - **Runs.** [`Reads::run`] (and the other run lookups) inside a write transaction must lock
//!   the run for the rest of the transaction (SQL: `SELECT … FOR UPDATE`, or SERIALIZABLE
//!   isolation with the whole transaction retried on a serialization failure): two processes
//!   changing one run apply one after the other, and the second sees the first's events.
//! - **Task claims.** [`Writes::pop_task`] removes and returns the first entry exactly once
//!   across processes (SQL: `DELETE … WHERE ctid = (SELECT … ORDER BY rank, ord LIMIT 1 FOR
//!   UPDATE SKIP LOCKED) RETURNING`). A claim that loses the race simply sees the next task.
//!   A backend may answer a pop from what it knows of the list, provided it hears of every
//!   task another process queues there (PostgreSQL: a list it saw empty and heard nothing of
//!   since, `pg/lists.rs`): such a task is then found once its signal arrives.
//! - **Deadlines.** [`Writes::take_due`] removes and returns each due deadline exactly once
//!   (SQL: `FOR UPDATE SKIP LOCKED` on the due prefix, deleted in the same transaction), so two
//!   timer loops never fire one deadline twice. [`Writes::clear_deadline`] of a deadline that
//!   another process took is a no-op; the engine re-checks the run anyway.
//! - **Ids and counters.** [`Writes::next_id`] never returns a number twice (SQL: a sequence;
//!   gaps are fine). [`Writes::add_count`] is an atomic increment, and [`Reads::count`] and
//!   [`DomainReads::reaches`] inside a write transaction answer for the transaction's whole
//!   life, so a limit checked against them holds exactly (SQL: the counter's rows locked; on
//!   PostgreSQL, a counter in shards, locked whole only near the limit: `pg/counters.rs`).
//! - **Uniqueness.** Every write that creates ([`Writes::name_run`], [`DomainWrites::add_domain`],
//!   [`DomainWrites::add_stored_type`], [`WasmWrites::add_module`]) fails the transaction (a
//!   [`StoreError`]) rather than overwrite when another process created the same name first:
//!   the check that it is new is repeated by the database's constraint, and the retried
//!   batch's check then sees the other process's record and refuses.
//! - **Changes of shared records.** [`DomainReads::domain_to_change`] and
//!   [`DomainReads::stored_type_to_change`] inside a write transaction lock what they read
//!   until it ends, so that two changes of one domain or type (tags, deprecation) apply one
//!   after the other and neither is lost. The plain reads lock nothing: every operation reads
//!   its domain, and a lock there would make a domain's writes take turns across processes.
//!   A backend may answer the plain reads from records it keeps, provided the writer's
//!   transaction that changed one reads its own change, the process that committed it sees
//!   it at once, and other processes soon after (PostgreSQL's `pg/catalog.rs`).
//! - **Own writes.** Every read in a write transaction sees the transaction's earlier writes,
//!   however the backend sends them (PostgreSQL sends writes with the next read or the commit).
//!
//! Waking other processes' pollers and timer loops after a commit is an optimisation
//! ([`Writes::after_commit`] runs only in the committing process); correctness never depends
//! on it.
//!
//! A shared database may abort a transaction for a conflict with another process's; its
//! backend then applies the same jobs again in a new one ([`Job::apply`]'s `again`).
//!
//! A transaction that wrote nothing (a poll that only waits) needs no durable commit, and
//! neither backend makes one. On redb, heartbeats without details are not written at all: the
//! engine keeps their times in its memory (`engine::heartbeats`) and consults them when a
//! heartbeat timeout fires. On a database other processes share, whichever process fires the
//! timeout must see them, so there they are committed like any change.

use crate::clock::Timestamp;
use crate::model::{
    AnyType, BatchRecord, Binding, BindingKind, Domain, GuestFailureRecord, ItemKind, Kind,
    ListControl, ListKey, ModuleRecord, Queued, Run, RunId, Schedule, Scope, Slot, TaskKind,
    TypeKind, TypeName, TypeRecord, WorkflowId,
};

use super::StoreError;
pub(crate) use super::items::{ItemReads, ItemWrites};
pub(crate) use super::kinds::{
    About, Counter, Deadline, Due, Filter, HistoryCell, Listing, Signal,
};

/// A database the [`Store`](super::Store) runs on: consistent snapshots for reads, and write
/// transactions for queued jobs. redb is one (one writer thread, group commit); a shared SQL
/// database would be another (see the module docs for what it must guarantee).
pub(crate) trait Backend: Send + Sync {
    /// A consistent snapshot. Blocking: the store calls it off the async threads unless
    /// [`Backend::reads_wait`] says its reads never wait.
    fn snapshot(&self) -> Result<Box<dyn Reads>, StoreError>;

    /// Whether a read may wait on something slow (a network): the store then runs reads off
    /// the async threads.
    fn reads_wait(&self) -> bool {
        true
    }

    /// Queues `job` for a write transaction. The backend applies it (and others with it, as it
    /// sees fit), commits durably, and only then calls [`Job::finish`]: with no error if the
    /// transaction committed, else with why not.
    fn submit(&self, job: Box<dyn Job>) -> Result<(), StoreError>;
}

/// A change queued for a write transaction: its check and apply, and whoever waits for it.
pub(crate) trait Job: Send {
    /// Applies the change inside the transaction and keeps its result. Returns false if its apply
    /// step failed, which may have left partial changes: the transaction must then be dropped.
    /// `again`: the transaction may yet be abandoned for a conflict and the job applied once
    /// more, so it must keep what it needs for that.
    fn apply(&mut self, tx: &mut dyn Writes, again: bool) -> bool;
    /// Answers the change once the transaction is committed, or failed with `error`.
    fn finish(self: Box<Self>, error: Option<&StoreError>);
    /// What the change is about, if it is known before the change runs: a backend may read
    /// what the batch's jobs need together first.
    fn about(&self) -> Option<&About> {
        None
    }
    /// When the change was handed to the writer.
    fn queued(&self) -> std::time::Instant;
}

/// One page of a listing.
#[derive(Debug)]
pub(crate) struct Page<T> {
    pub(crate) items: Vec<T>,
    /// Whether more items follow the last one.
    pub(crate) more: bool,
}

/// Where a listing starts and which way it reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cursor<P> {
    /// The position of the last item of the previous page.
    pub(crate) after: Option<P>,
    pub(crate) reverse: bool,
    pub(crate) limit: usize,
}

/// A type as listed: its name and version, and its record.
pub(crate) type TypeEntry<C> = (TypeName, TypeRecord<C>);

/// Reads, from a snapshot or inside a write transaction (where they see the transaction's own
/// changes, and lock what a decision depends on: see the module docs).
pub(crate) trait Reads:
    DomainReads + RunReads + WasmReads + ScheduleReads + ControlReads + BatchReads
{
}

impl<T: DomainReads + RunReads + WasmReads + ScheduleReads + ControlReads + BatchReads + ?Sized>
    Reads for T
{
}

/// The reads of domains, their counters and their types.
pub(crate) trait DomainReads {
    /// The domain `name` in `scope`.
    fn domain(&self, scope: &Scope, name: &str) -> Result<Option<Domain>, StoreError>;

    /// The domain `name` in `scope`, read in order to change it: inside a write transaction
    /// of a shared database it stays locked until the transaction ends (see the module docs).
    fn domain_to_change(&self, scope: &Scope, name: &str) -> Result<Option<Domain>, StoreError> {
        self.domain(scope, name)
    }

    /// A page of the domains in `scope` that `keep` accepts, in name order.
    fn domains(
        &self,
        scope: &Scope,
        cursor: Cursor<&str>,
        keep: &dyn Fn(&Domain) -> bool,
    ) -> Result<Page<Domain>, StoreError>;

    /// How many domains `account` holds in all regions, counting no further than `cap`.
    fn domain_count(&self, account: &str, cap: usize) -> Result<usize, StoreError>;

    /// Every domain of every scope, with its scope: for the operator's view (metrics).
    fn every_domain(&self) -> Result<Vec<(Scope, Domain)>, StoreError>;

    /// The domain's `counter`.
    fn count(&self, domain: u64, counter: Counter) -> Result<u64, StoreError>;

    /// Whether the domain's `counter` has reached `limit`: a check before adding one. A
    /// backend whose exact count would make concurrent transactions wait for each other may
    /// answer `false` without it, where no transaction could pass the limit meanwhile.
    fn reaches(&self, domain: u64, counter: Counter, limit: u64) -> Result<bool, StoreError> {
        Ok(self.count(domain, counter)? >= limit)
    }

    /// The type `name`/`version` of `kind` in domain `domain`.
    fn stored_type(
        &self,
        domain: u64,
        kind: Kind,
        name: &str,
        version: &str,
    ) -> Result<Option<AnyType>, StoreError>;

    /// The type `name`/`version` of `kind` in domain `domain`, read in order to change it: inside
    /// a write transaction of a shared database it stays locked until the transaction ends.
    fn stored_type_to_change(
        &self,
        domain: u64,
        kind: Kind,
        name: &str,
        version: &str,
    ) -> Result<Option<AnyType>, StoreError> {
        self.stored_type(domain, kind, name, version)
    }

    /// A page of the domain's types of `kind` (only those called `name`, if given) that `keep`
    /// accepts, in (name, version) order.
    fn stored_types(
        &self,
        domain: u64,
        kind: Kind,
        name: Option<&str>,
        cursor: Cursor<(&str, &str)>,
        keep: &dyn Fn(&AnyType) -> bool,
    ) -> Result<Page<(TypeName, AnyType)>, StoreError>;
}

/// The reads of runs: records, names, histories, listings, task queues and deadlines.
pub(crate) trait RunReads {
    /// The run `seq`.
    fn run(&self, seq: u64) -> Result<Option<Run>, StoreError>;

    /// The run named (workflow id, run id) in the domain.
    fn run_named(
        &self,
        domain: u64,
        workflow_id: &WorkflowId,
        run_id: &RunId,
    ) -> Result<Option<Run>, StoreError>;

    /// The open run of `workflow_id` in the domain.
    fn open_run(&self, domain: u64, workflow_id: &WorkflowId) -> Result<Option<Run>, StoreError>;

    /// The earliest time a new run of workflow `workflow_id` may start at: the latest close
    /// of its runs, when another process's transaction may have committed it after this one
    /// took its time (a shared database whose check found a start stamped before such a
    /// close: `pg/writer.rs`); else `None`, and the transaction's time will do.
    fn start_floor(
        &self,
        _domain: u64,
        _workflow_id: &WorkflowId,
    ) -> Result<Option<Timestamp>, StoreError> {
        Ok(None)
    }

    /// A page of the run's events `first..=last`, as wire JSON, after the cursor's event.
    fn history(
        &self,
        seq: u64,
        first: u64,
        last: u64,
        cursor: Cursor<u64>,
    ) -> Result<Page<(u64, Vec<u8>)>, StoreError>;

    /// One event of the run, as wire JSON.
    fn event(&self, seq: u64, event_id: u64) -> Result<Option<Vec<u8>>, StoreError>;

    /// A page of the domain's runs in `listing` that `filter` picks, with times in
    /// `[from, to]`, in time order (newest first if `cursor.reverse`). Costs the page, not the
    /// runs it passes over: the filter is part of the index.
    fn listed_runs(
        &self,
        domain: u64,
        listing: Listing,
        filter: &Filter<'_>,
        range: (Timestamp, Timestamp),
        cursor: Cursor<(i64, u64)>,
    ) -> Result<Page<Run>, StoreError>;

    /// How many of the domain's runs in `listing` that `filter` picks have times in
    /// `[from, to]`, counted in the index, without reading a run.
    fn count_listed(
        &self,
        domain: u64,
        listing: Listing,
        filter: &Filter<'_>,
        range: (Timestamp, Timestamp),
    ) -> Result<u64, StoreError>;

    /// How many tasks wait in the task list, in its own queue and its keys' queues.
    fn pending_tasks(&self, domain: u64, kind: TaskKind, list: &str) -> Result<u64, StoreError>;

    /// How many tasks wait on each list of domain `domain` (of every domain if `None`) that
    /// has any, by domain, kind and list.
    fn queued(&self, domain: Option<u64>) -> Result<Vec<Queued>, StoreError>;

    /// The earliest deadline; with `purges` false, the earliest that is not a closed run's
    /// purge, a schedule's next time nor a batch job's next step (what a time-skipping clock
    /// jumps to, so that a test's finished runs stay readable until time passes their
    /// retention for another reason, and a schedule or a batch job does not make an idle
    /// server's time run on without end).
    fn next_deadline(&self, purges: bool) -> Result<Option<Timestamp>, StoreError>;

    /// The seq of every run that has a history, in order (debug builds check them all).
    #[cfg(debug_assertions)]
    fn history_seqs(&self) -> Result<Vec<u64>, StoreError>;

    /// The open item `key` of `kind` of run `seq`, as stored (JSON). Typed: [`ItemReads`].
    fn item(&self, seq: u64, kind: ItemKind, key: u64) -> Result<Option<Vec<u8>>, StoreError>;

    /// The key of the open item of `kind` of run `seq` named `name`.
    fn item_named(&self, seq: u64, kind: ItemKind, name: &str) -> Result<Option<u64>, StoreError>;

    /// The keys of the open items of `kind` of run `seq`, in order.
    fn item_keys(&self, seq: u64, kind: ItemKind) -> Result<Vec<u64>, StoreError>;
}

/// Failures kept per binding: the latest ones.
pub(crate) const FAILURES_KEPT: usize = 50;

/// The reads of Weft's Wasm extension: modules, bindings and their guests' failures.
pub(crate) trait WasmReads {
    /// The record of module `digest` of `account`.
    fn module(&self, account: &str, digest: &str) -> Result<Option<ModuleRecord>, StoreError>;

    /// The code of module `digest` of `account`.
    fn module_code(&self, account: &str, digest: &str) -> Result<Option<Vec<u8>>, StoreError>;

    /// Every module of `account`, by digest.
    fn modules(&self, account: &str) -> Result<Vec<ModuleRecord>, StoreError>;

    /// Whether any account has module `digest`.
    fn module_held(&self, digest: &str) -> Result<bool, StoreError>;

    /// Whether `account` has module `digest`, read to depend on it (a run pinned to it):
    /// inside a write transaction of a shared database, the module's deletion waits until the
    /// transaction ends, while other such reads do not wait for each other.
    fn module_kept(&self, account: &str, digest: &str) -> Result<bool, StoreError>;

    /// The binding of `kind` and `name` in domain `domain`.
    fn binding(
        &self,
        domain: u64,
        kind: BindingKind,
        name: &str,
    ) -> Result<Option<Binding>, StoreError>;

    /// Whether a function called `name` is bound in domain `domain`.
    fn function_bound(&self, domain: u64, name: &str) -> Result<bool, StoreError>;

    /// The bindings of domain `domain` (all domains if `None`), with their domain ids.
    fn bindings(&self, domain: Option<u64>) -> Result<Vec<(u64, Binding)>, StoreError>;

    /// The latest failures of a binding's guest, oldest first.
    fn guest_failures(
        &self,
        domain: u64,
        kind: BindingKind,
        name: &str,
    ) -> Result<Vec<GuestFailureRecord>, StoreError>;
}

/// The reads of schedules (`model::schedules`).
pub(crate) trait ScheduleReads {
    /// The schedule `seq` (its deadline names it), locked in a write transaction.
    fn schedule(&self, seq: u64) -> Result<Option<Schedule>, StoreError>;

    /// The schedule `id` of domain `domain`, locked in a write transaction.
    fn schedule_named(&self, domain: u64, id: &str) -> Result<Option<Schedule>, StoreError>;

    /// Up to `limit` schedules of domain `domain` in id order, from the first id after `after`.
    fn schedules(
        &self,
        domain: u64,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Schedule>, StoreError>;
}

/// The reads of task lists' controls (`model::task_lists`).
pub(crate) trait ControlReads {
    /// The controls of every task list that has any, with each list's (domain, kind, name).
    fn list_controls(&self) -> Result<Vec<(ListKey, ListControl)>, StoreError>;

    /// The controls of the list `key`, if it has any; locked in a write transaction.
    fn list_control(&self, key: &ListKey) -> Result<Option<ListControl>, StoreError>;
}

/// The reads of batch jobs (`model::batches`).
pub(crate) trait BatchReads {
    /// The job `seq` (its deadlines name it), locked in a write transaction.
    fn batch(&self, seq: u64) -> Result<Option<BatchRecord>, StoreError>;

    /// Up to `limit` jobs of domain `domain`, newest first.
    fn batches(&self, domain: u64, limit: usize) -> Result<Vec<BatchRecord>, StoreError>;
}

/// The changes of one write transaction. Only the apply step of a write job holds one.
pub(crate) trait Writes:
    Reads + DomainWrites + RunWrites + WasmWrites + ScheduleWrites + ControlWrites + BatchWrites
{
    /// The time of this transaction: every change in it happens "now".
    fn now(&self) -> Timestamp;

    /// Runs `action` once the transaction is durably committed (never, if it is not).
    fn after_commit(&mut self, action: Box<dyn FnOnce() + Send>);

    /// Reads the page [`RunReads::history`] would read now, and puts it in `into` once the
    /// transaction commits: a backend may send the read with its commit (a decision task's
    /// history, claimed for a poll, then costs no round trip). The events it covers must be
    /// written before.
    fn history_at_commit(
        &mut self,
        seq: u64,
        (first, last): (u64, u64),
        cursor: Cursor<u64>,
        into: HistoryCell,
    ) -> Result<(), StoreError> {
        let page = self.history(seq, first, last, cursor)?;
        self.after_commit(Box::new(move || into.put(page)));
        Ok(())
    }

    /// A number never handed out before (to any process sharing the database).
    fn next_id(&mut self) -> Result<u64, StoreError>;
}

/// The changes to batch jobs.
pub(crate) trait BatchWrites {
    /// Adds `batch`, or replaces the one of its seq.
    fn put_batch(&mut self, batch: &BatchRecord) -> Result<(), StoreError>;

    /// Removes the job `batch`.
    fn delete_batch(&mut self, batch: &BatchRecord) -> Result<(), StoreError>;
}

/// The changes to task lists' controls.
pub(crate) trait ControlWrites {
    /// Keeps `control` for the list `key`; an empty one removes its record. The other nodes
    /// read the controls again once this commits, unless `quiet`: a claim's token taken from a
    /// rate changes nothing they keep.
    fn put_list_control(
        &mut self,
        key: &ListKey,
        control: &ListControl,
        quiet: bool,
    ) -> Result<(), StoreError>;

    /// Tells the other nodes, once this commits, that the list `key` may hand out a task now,
    /// as a task queued there does: a started task of its concurrency cap ended.
    fn announce(&mut self, key: &ListKey) -> Result<(), StoreError>;
}

/// The changes to schedules.
pub(crate) trait ScheduleWrites {
    /// Adds `schedule`, or replaces the one of its seq.
    fn put_schedule(&mut self, schedule: &Schedule) -> Result<(), StoreError>;

    /// Removes `schedule`.
    fn delete_schedule(&mut self, schedule: &Schedule) -> Result<(), StoreError>;
}

/// The changes to domains, their counters and their types.
pub(crate) trait DomainWrites {
    /// Moves the domain's `counter` by `delta`, atomically.
    fn add_count(&mut self, domain: u64, counter: Counter, delta: i64) -> Result<(), StoreError>;

    /// Stores a new domain in `scope`; fails if `scope` has a domain of its name already.
    fn add_domain(&mut self, scope: &Scope, domain: &Domain) -> Result<(), StoreError>;

    /// Stores a changed domain of `scope`, read with [`DomainReads::domain_to_change`].
    fn put_domain(&mut self, scope: &Scope, domain: &Domain) -> Result<(), StoreError>;

    /// Stores a new type; fails if the domain has a type of its kind, name and version already.
    fn add_stored_type(
        &mut self,
        domain: u64,
        ty: &TypeName,
        record: &AnyType,
    ) -> Result<(), StoreError>;

    /// Stores a changed type, read with [`DomainReads::stored_type_to_change`].
    fn put_stored_type(
        &mut self,
        domain: u64,
        ty: &TypeName,
        record: &AnyType,
    ) -> Result<(), StoreError>;

    /// Removes a type.
    fn delete_stored_type(
        &mut self,
        domain: u64,
        kind: Kind,
        ty: &TypeName,
    ) -> Result<(), StoreError>;
}

/// The changes to runs and what hangs off them.
pub(crate) trait RunWrites {
    /// Stores `run`, new or changed.
    fn put_run(&mut self, run: &Run) -> Result<(), StoreError>;

    /// Stores item `key` of `kind` of run `seq` (JSON), new or changed, findable by `name` if
    /// it has one. Typed: [`ItemWrites`].
    fn put_item(
        &mut self,
        seq: u64,
        kind: ItemKind,
        key: u64,
        name: Option<&str>,
        json: &[u8],
    ) -> Result<(), StoreError>;

    /// Removes item `key` of `kind` of run `seq`, and its `name`.
    fn remove_item(
        &mut self,
        seq: u64,
        kind: ItemKind,
        key: u64,
        name: Option<&str>,
    ) -> Result<(), StoreError>;

    /// Records the names of a new run and, if it is open, that it is the open run of its
    /// workflow id (a closed one, imported, leaves the workflow's open run as it was).
    fn name_run(&mut self, run: &Run) -> Result<(), StoreError>;

    /// Records that `run` is no longer the open run of its workflow id.
    fn unname_open_run(&mut self, run: &Run) -> Result<(), StoreError>;

    /// Removes a closed run with its names, history and listings: its retention is over.
    fn purge_run(&mut self, run: &Run) -> Result<(), StoreError>;

    /// Appends an event (wire JSON) to the run's history.
    fn put_event(&mut self, seq: u64, event_id: u64, json: &[u8]) -> Result<(), StoreError>;

    /// Adds the run to `listing` at `time`, under every filter it matches
    /// ([`Filter::all_of`]).
    fn list_run(&mut self, run: &Run, listing: Listing, time: Timestamp) -> Result<(), StoreError>;

    /// Removes the run from `listing`.
    fn unlist_run(
        &mut self,
        run: &Run,
        listing: Listing,
        time: Timestamp,
    ) -> Result<(), StoreError>;

    /// Adds the run, listed in `listing` at `time` already, under `filter` too (`remove`:
    /// takes it from under `filter` alone): for a filter that changes while the run is listed.
    fn index_run(
        &mut self,
        run: &Run,
        listing: Listing,
        time: Timestamp,
        filter: &Filter<'_>,
        remove: bool,
    ) -> Result<(), StoreError>;

    /// Queues a task of run `seq` scheduled by event `scheduled`, at `slot` of its list.
    fn push_task(
        &mut self,
        domain: u64,
        kind: TaskKind,
        slot: &Slot,
        task: (u64, u64),
    ) -> Result<(), StoreError>;

    /// Takes the first task of the list (highest priority, then earliest scheduled), exactly
    /// once across processes.
    fn pop_task(
        &mut self,
        domain: u64,
        kind: TaskKind,
        list: &str,
    ) -> Result<Option<(u64, u64)>, StoreError>;

    /// Removes a queued task from its list.
    fn remove_task(&mut self, domain: u64, kind: TaskKind, slot: &Slot) -> Result<(), StoreError>;

    /// The keys whose queues of the list `list` (`model::keyed_queue`) hold tasks, in order,
    /// as the store holds them (a key whose tasks this transaction took may be among them).
    fn keyed_queues(
        &mut self,
        domain: u64,
        kind: TaskKind,
        list: &str,
    ) -> Result<Vec<String>, StoreError>;

    /// Sets a deadline.
    fn set_deadline(
        &mut self,
        at: Timestamp,
        seq: u64,
        event_id: u64,
        kind: Deadline,
    ) -> Result<(), StoreError>;

    /// Clears a deadline that has not come yet.
    fn clear_deadline(
        &mut self,
        at: Timestamp,
        seq: u64,
        event_id: u64,
        kind: Deadline,
    ) -> Result<(), StoreError>;

    /// Takes up to `limit` deadlines that are due by now, earliest first, each exactly once
    /// across processes.
    fn take_due(&mut self, limit: usize) -> Result<Vec<Due>, StoreError>;
}

/// The changes to modules, bindings and their guests' failures.
pub(crate) trait WasmWrites {
    /// Tells every process sharing the database that the deciders of some runs changed (an
    /// upgrade moved them), as a change of the bindings does.
    fn notify_deciders(&mut self) -> Result<(), StoreError>;

    /// Stores a new module and its code; fails if `account` has it already.
    fn add_module(
        &mut self,
        account: &str,
        record: &ModuleRecord,
        code: &[u8],
    ) -> Result<(), StoreError>;

    /// Replaces the record of a module `account` has (its name and version label).
    fn put_module(&mut self, account: &str, record: &ModuleRecord) -> Result<(), StoreError>;

    /// Removes a module and its code.
    fn delete_module(&mut self, account: &str, digest: &str) -> Result<(), StoreError>;

    /// Stores a binding of domain `domain`, new or replacing the one it names.
    fn put_binding(&mut self, domain: u64, binding: &Binding) -> Result<(), StoreError>;

    /// Removes a binding and its failures; answers whether there was one.
    fn delete_binding(
        &mut self,
        domain: u64,
        kind: BindingKind,
        name: &str,
    ) -> Result<bool, StoreError>;

    /// Records a failure of a binding's guest, forgetting the oldest beyond the kept number.
    fn record_guest_failure(
        &mut self,
        domain: u64,
        kind: BindingKind,
        name: &str,
        failure: &GuestFailureRecord,
    ) -> Result<(), StoreError>;
}

/// Typed conveniences over [`Reads`] for one registry of types.
pub(crate) trait TypeReads: DomainReads {
    /// The type `name`/`version` of kind `K` in the domain.
    fn type_record<K: TypeKind>(
        &self,
        domain: &Domain,
        name: &str,
        version: &str,
    ) -> Result<Option<TypeRecord<K::Config>>, StoreError> {
        let stored = self.stored_type(domain.id, K::KIND, name, version)?;
        Ok(stored.and_then(K::unwrap))
    }

    /// The type `name`/`version` of kind `K` in the domain, read in order to change it
    /// ([`DomainReads::stored_type_to_change`]).
    fn type_record_to_change<K: TypeKind>(
        &self,
        domain: &Domain,
        name: &str,
        version: &str,
    ) -> Result<Option<TypeRecord<K::Config>>, StoreError> {
        let stored = self.stored_type_to_change(domain.id, K::KIND, name, version)?;
        Ok(stored.and_then(K::unwrap))
    }

    /// A page of the domain's types of kind `K` (only those called `name`, if given) that
    /// `keep` accepts, in (name, version) order.
    fn types<K: TypeKind>(
        &self,
        domain: &Domain,
        name: Option<&str>,
        cursor: Cursor<(&str, &str)>,
        keep: impl Fn(&TypeRecord<K::Config>) -> bool,
    ) -> Result<Page<TypeEntry<K::Config>>, StoreError> {
        let keep = |stored: &AnyType| K::peek(stored).is_some_and(&keep);
        let page = self.stored_types(domain.id, K::KIND, name, cursor, &keep)?;
        Ok(Page {
            items: page
                .items
                .into_iter()
                .filter_map(|(name, stored)| Some((name, K::unwrap(stored)?)))
                .collect(),
            more: page.more,
        })
    }
}

impl<R: DomainReads + ?Sized> TypeReads for R {}

/// Typed conveniences over [`Writes`] for one registry of types.
pub(crate) trait TypeWrites: DomainWrites {
    /// Stores a new type of kind `K` ([`DomainWrites::add_stored_type`]).
    fn add_type<K: TypeKind>(
        &mut self,
        domain: &Domain,
        ty: &TypeName,
        record: &TypeRecord<K::Config>,
    ) -> Result<(), StoreError> {
        self.add_stored_type(domain.id, ty, &K::wrap(record.clone()))
    }

    /// Stores a changed type of kind `K` ([`DomainWrites::put_stored_type`]).
    fn put_type<K: TypeKind>(
        &mut self,
        domain: &Domain,
        ty: &TypeName,
        record: &TypeRecord<K::Config>,
    ) -> Result<(), StoreError> {
        self.put_stored_type(domain.id, ty, &K::wrap(record.clone()))
    }

    /// Removes a type of kind `K`.
    fn delete_type<K: TypeKind>(
        &mut self,
        domain: &Domain,
        ty: &TypeName,
    ) -> Result<(), StoreError> {
        self.delete_stored_type(domain.id, K::KIND, ty)
    }
}

impl<W: DomainWrites + ?Sized> TypeWrites for W {}
