//! Every redb table Weft keeps, with its key layout.
//!
//! Values are JSON-encoded records (`model::*`): self-describing, so a record can gain members
//! without a migration. Keys are tuples ordered the way listings read them, so every listing is a
//! range scan.

use redb::TableDefinition;

/// Stored values: JSON bytes.
pub(crate) type Bytes = &'static [u8];
/// (account id, region, domain name).
pub(crate) type DomainKey = (&'static str, &'static str, &'static str);
/// (domain id, `Kind` as u8, type name, version).
pub(crate) type TypeKey = (u64, u8, &'static str, &'static str);

/// Small named values. Keys: `"format"` (on-disk format version, u32 LE), `"next_id"` (u64 LE,
/// the next domain id), `"secret"` (32 random bytes keying every token the service issues).
pub(crate) const META: TableDefinition<&str, Bytes> = TableDefinition::new("meta");

/// Domains. Key: (account id, region, domain name), so a scope's domains are one range in name
/// order. Value: `Domain`.
pub(crate) const DOMAINS: TableDefinition<DomainKey, Bytes> = TableDefinition::new("domains");

/// Workflow and activity types. Key: (domain id, `Kind` as u8, type name, version), so a domain's
/// types of one kind are one range in (name, version) order. Value: `TypeRecord<Config>`.
pub(crate) const TYPES: TableDefinition<TypeKey, Bytes> = TableDefinition::new("types");

/// Per-domain counts kept for SWF's limits, so that enforcing a limit never rewrites the domain
/// record. Key: (domain id, `Counter::key`). Value: the count.
pub(crate) const COUNTERS: TableDefinition<(u64, u8), u64> = TableDefinition::new("counters");

/// Runs. Key: the run's seq. Value: `Run` (its identity, configuration and open state).
pub(crate) const RUNS: TableDefinition<u64, Bytes> = TableDefinition::new("runs");

/// (domain id, workflow id, run id).
pub(crate) type RunIdKey = (u64, &'static str, &'static str);

/// Every run by its names. Key: (domain id, workflow id, run id). Value: the run's seq.
pub(crate) const RUN_IDS: TableDefinition<RunIdKey, u64> = TableDefinition::new("run_ids");

/// The one open run of each workflow id. Key: (domain id, workflow id). Value: the run's seq.
pub(crate) const OPEN_RUNS: TableDefinition<(u64, &str), u64> = TableDefinition::new("open_runs");

/// Histories. Key: (run seq, event id), so a history is one range in event order. Value: the
/// event as wire JSON, served as stored.
pub(crate) const EVENTS: TableDefinition<(u64, u64), Bytes> = TableDefinition::new("events");

/// (run seq, `ItemKind` as u8, item key).
pub(crate) type ItemKey = (u64, u8, u64);

/// The open items of runs, each apart from its run's record (`model::Item`): activity tasks,
/// timers, children and Lambda function tasks. Key: (run seq, kind, the event that opened it).
/// Value: the item.
pub(crate) const ITEMS: TableDefinition<ItemKey, Bytes> = TableDefinition::new("items");

/// (run seq, `ItemKind` as u8, name).
pub(crate) type ItemNameKey = (u64, u8, &'static str);

/// The open items that have a name (activity, timer and Lambda ids), by name. Value: the
/// item's key.
pub(crate) const ITEM_NAMES: TableDefinition<ItemNameKey, u64> = TableDefinition::new("item_names");

/// (domain id, `Listing` as u8, `Filter` number, filter value, time in ms, run seq).
pub(crate) type VisibilityKey = (u64, u8, u8, &'static str, i64, u64);

/// Visibility: each run under every filter it matches, in the order listings read them. Key:
/// (domain id, listing, filter, filter value, time, run seq), where the listing is
/// open-by-start-time, closed-by-start-time or closed-by-close-time and the filter one of
/// SWF's (all runs, a workflow id, a type name, a type, a tag, a close status: `Filter`), so
/// each List/Count call is one range, and costs what it reads.
pub(crate) const VISIBILITY: TableDefinition<VisibilityKey, ()> =
    TableDefinition::new("visibility");

/// (domain id, task kind, task list, rank, order).
pub(crate) type TaskQueueKey = (u64, u8, &'static str, u32, u64);

/// Scheduled tasks waiting for a poller. Key: (domain id, kind (0 decision, 1 activity,
/// 2 Lambda function), task list (for a function: its name), rank, order): a list's tasks are
/// one range, highest priority first, then in scheduling order. Value: (run seq, scheduled
/// event id).
pub(crate) const TASKS: TableDefinition<TaskQueueKey, (u64, u64)> = TableDefinition::new("tasks");

/// (deadline in ms, run seq, event id, `Deadline` kind).
pub(crate) type DeadlineKey = (i64, u64, u64, u8);

/// Durable deadlines (timers, later timeouts). Key: (when, run seq, the event that set it, kind),
/// so the due ones are a prefix range.
pub(crate) const DEADLINES: TableDefinition<DeadlineKey, ()> = TableDefinition::new("deadlines");

/// The on-disk format this build writes and reads. Format 1 (visibility by time only, in
/// `listings`) is upgraded at open (`upgrade.rs`); format 2 needs nothing. Format 3 holds what
/// a format-2 build would misread: schedules, paused runs and task lists, batch jobs, and
/// their deadlines; so a format-2 build refuses it.
pub(crate) const FORMAT_VERSION: u32 = 3;

/// (account id, module digest in lowercase hex).
pub(crate) type ModuleKey = (&'static str, &'static str);

/// Uploaded Wasm modules. Key: (account id, digest). Value: `ModuleRecord`.
pub(crate) const MODULES: TableDefinition<ModuleKey, Bytes> = TableDefinition::new("modules");

/// The code of each uploaded module, apart from its record so that listing modules never reads
/// code. Key: as `MODULES`. Value: the component's bytes.
pub(crate) const MODULE_CODE: TableDefinition<ModuleKey, Bytes> =
    TableDefinition::new("module_code");

/// (domain id, `BindingKind` as u8, task list or function name).
pub(crate) type BindingKey = (u64, u8, &'static str);

/// Wasm modules bound to serve a domain's decision task list (kind 0), activity task list
/// (kind 1) or function name (kind 2). Value: `Binding`.
pub(crate) const BINDINGS: TableDefinition<BindingKey, Bytes> = TableDefinition::new("bindings");

/// (domain id, `BindingKind` as u8, task list or function name, sequence).
pub(crate) type FailureKey = (u64, u8, &'static str, u64);

/// The latest tasks each binding's guest failed, oldest first. Key: the binding's key and a
/// sequence from `next_id`. Value: `GuestFailureRecord`.
pub(crate) const GUEST_FAILURES: TableDefinition<FailureKey, Bytes> =
    TableDefinition::new("guest_failures");

/// Schedules (`model::schedules`). Key: the schedule's seq, which its deadline names. Value:
/// `Schedule`.
pub(crate) const SCHEDULES: TableDefinition<u64, Bytes> = TableDefinition::new("schedules");

/// Every schedule by its id. Key: (domain id, schedule id), so a domain's schedules are one range
/// in id order. Value: the schedule's seq.
pub(crate) const SCHEDULE_IDS: TableDefinition<(u64, &str), u64> =
    TableDefinition::new("schedule_ids");

/// (domain id, `TaskKind` as u8, task list or function name).
pub(crate) type ListControlKey = (u64, u8, &'static str);

/// The controls of task lists that have any (`model::task_lists`). Value: `ListControl`.
pub(crate) const LIST_CONTROLS: TableDefinition<ListControlKey, Bytes> =
    TableDefinition::new("list_controls");

/// Batch jobs (`model::batches`). Key: the job's seq, which its deadlines name. Value:
/// `BatchRecord`.
pub(crate) const BATCHES: TableDefinition<u64, Bytes> = TableDefinition::new("batches");

/// Every batch job by its domain. Key: (domain id, job seq), so a domain's jobs are one range,
/// newest last.
pub(crate) const DOMAIN_BATCHES: TableDefinition<(u64, u64), ()> =
    TableDefinition::new("domain_batches");
