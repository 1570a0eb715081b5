//! The writer's single-row writes, kept by key until the transaction's next read or its commit
//! and then sent as one statement per table and kind of write when there are enough of them:
//! a batch of seven requests makes about fifty of these, and each statement costs the database
//! about as much to receive, plan and answer as its rows cost to write (issue 31).
//!
//! Each key ends in the state its last write gave it, which is what the writes in order would
//! leave: a row put (inserted, or upserted where the table's statement says so) or deleted.
//! A table's deletes go before its puts, so that a row deleted and another put under the same
//! unique name (an open run closed and its successor opened) do not collide. Nothing the writer
//! sends with them reads these tables; a read, and a write that reads or deletes more than a
//! key (`writes.rs`: a run purged), sends them first. Counters' changes are summed instead
//! (`counters.rs`).
//!
//! Fewer rows go one statement each: measured, an `unnest` statement of one or two rows costs
//! the database more than the single-row statements it replaces.

use std::cell::RefCell;
use std::collections::BTreeMap;

use tokio_postgres::types::ToSql;

use super::counters::CounterWrites;
use super::session::Pending;

/// The fewest rows sent as one statement.
const GROUP_FROM: usize = 3;

/// A statement's parameters, owned.
type Params = Vec<Box<dyn ToSql + Sync + Send>>;

/// A row (or a key) of a table: its columns as one statement's parameters, or many rows' as
/// one array per column, for `unnest`.
pub(super) trait Row: Sized {
    /// The row's columns, one parameter each.
    fn one(self) -> Params;
    /// The rows' columns, one array parameter each.
    fn many(rows: Vec<Self>) -> Params;
}

macro_rules! row {
    ($($t:ident $i:tt),+) => {
        impl<$($t),+> Row for ($($t,)+)
        where
            $($t: ToSql + Sync + Send + 'static, Vec<$t>: ToSql + Sync + Send,)+
        {
            fn one(self) -> Params {
                vec![$(Box::new(self.$i)),+]
            }

            fn many(rows: Vec<Self>) -> Params {
                let mut columns = ($(Vec::<$t>::with_capacity(rows.len()),)+);
                for row in rows {
                    $(columns.$i.push(row.$i);)+
                }
                vec![$(Box::new(columns.$i)),+]
            }
        }
    };
}

row!(A 0);
row!(A 0, B 1);
row!(A 0, B 1, C 2);
row!(A 0, B 1, C 2, D 3);
row!(A 0, B 1, C 2, D 3, E 4);
row!(A 0, B 1, C 2, D 3, E 4, F 5);
row!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);

/// A table's statements: a row put and rows put; a key deleted and keys deleted, unless the
/// writer deletes its rows another way.
pub(super) struct Table {
    put: (&'static str, &'static str),
    delete: Option<(&'static str, &'static str)>,
}

/// One table's writes kept, by key: the row last put, or `None` for a delete.
pub(super) struct Keyed<K, R>(BTreeMap<K, Option<R>>);

impl<K, R> Default for Keyed<K, R> {
    fn default() -> Self {
        Keyed(BTreeMap::new())
    }
}

impl<K: Ord + Row, R: Row> Keyed<K, R> {
    /// Puts `row` under `key`.
    pub(super) fn put(&mut self, key: K, row: R) {
        self.0.insert(key, Some(row));
    }

    /// Deletes the row of `key`.
    pub(super) fn delete(&mut self, key: K) {
        self.0.insert(key, None);
    }

    /// Takes back the put of `key` not sent yet, if there is one; answers whether there was.
    /// Only for rows no statement sent before made, whose put is then as if never made.
    pub(super) fn withdraw(&mut self, key: &K) -> bool {
        let kept = matches!(self.0.get(key), Some(Some(_)));
        if kept {
            self.0.remove(key);
        }
        kept
    }

    /// Makes the statements of what is kept, deletes first; forgets it.
    fn take(&mut self, table: &Table, push: &mut impl FnMut(&'static str, Params)) {
        let (mut puts, mut deletes) = (Vec::new(), Vec::new());
        for (key, row) in std::mem::take(&mut self.0) {
            match row {
                Some(row) => puts.push(row),
                None => deletes.push(key),
            }
        }
        match table.delete {
            Some(statements) => send(deletes, statements, push),
            None => debug_assert!(deletes.is_empty(), "a delete kept without its statement"),
        }
        send(puts, table.put, push);
    }
}

/// Pushes `rows` as one statement (`sqls.1`) if there are enough, else one each (`sqls.0`).
pub(super) fn send<R: Row>(
    rows: Vec<R>,
    (one, many): (&'static str, &'static str),
    push: &mut impl FnMut(&'static str, Params),
) {
    if rows.len() >= GROUP_FROM {
        push(many, R::many(rows));
    } else {
        for row in rows {
            push(one, row.one());
        }
    }
}

/// A deadline's key: when, run, event, kind.
pub(super) type DeadlineKey = (i64, i64, i64, i16);
/// A task's key: domain, kind, list, rank, order.
pub(super) type TaskKey = (i64, i16, String, i64, i64);
/// A task's row: its key, its run, its scheduling event.
type TaskRow = (i64, i16, String, i64, i64, i64, i64);
/// A visibility entry: domain, listing, filter, value, time, run.
pub(super) type Entry = (i64, i16, i16, Vec<u8>, i64, i64);
/// An item's key (run, kind, key) and row (and its JSON).
type ItemKey = (i64, i16, i64);
type ItemRow = (i64, i16, i64, Vec<u8>);
/// An item name's key (run, kind, name) and row (and the item's key).
type NameKey = (i64, i16, String);
type NameRow = (i64, i16, String, i64);
/// An open run: domain, workflow id, run.
type OpenRun = (i64, String, i64);
/// A run id's key (domain, workflow id, run id) and row (and the run).
type RunIdKey = (i64, String, String);
type RunIdRow = (i64, String, String, i64);

/// The writes kept, by table.
#[derive(Default)]
pub(super) struct Kept {
    /// The request that made the first write kept: a failure of a grouped statement is its.
    job: Option<usize>,
    /// Whether anything is kept (and `job` set).
    any: bool,
    pub(super) runs: Keyed<(i64,), (i64, Vec<u8>)>,
    pub(super) deadlines: Keyed<DeadlineKey, DeadlineKey>,
    pub(super) tasks: Keyed<TaskKey, TaskRow>,
    pub(super) visibility: Keyed<Entry, Entry>,
    pub(super) items: Keyed<ItemKey, ItemRow>,
    pub(super) item_names: Keyed<NameKey, NameRow>,
    pub(super) open_runs: Keyed<OpenRun, OpenRun>,
    pub(super) run_ids: Keyed<RunIdKey, RunIdRow>,
    pub(super) counters: CounterWrites,
}

/// Writes kept, not sent yet.
#[derive(Default)]
pub(super) struct Grouped(RefCell<Kept>);

impl Grouped {
    /// Keeps what `write` writes, for request `job`; answers what `write` answers.
    pub(super) fn keep<T>(&self, job: Option<usize>, write: impl FnOnce(&mut Kept) -> T) -> T {
        let mut kept = self.0.borrow_mut();
        if !kept.any {
            (kept.job, kept.any) = (job, true);
        }
        write(&mut kept)
    }

    /// Moves what is kept to `pending`, as statements; forgets it.
    pub(super) fn take(&self, pending: &mut Vec<Pending>) {
        let mut kept = std::mem::take(&mut *self.0.borrow_mut());
        if !kept.any {
            return;
        }
        let job = kept.job;
        let mut push = |sql, params| {
            pending.push(Pending { sql, params, job });
        };
        kept.runs.take(&RUNS, &mut push);
        kept.deadlines.take(&DEADLINES, &mut push);
        kept.tasks.take(&TASKS, &mut push);
        kept.visibility.take(&VISIBILITY, &mut push);
        kept.items.take(&ITEMS, &mut push);
        kept.item_names.take(&ITEM_NAMES, &mut push);
        kept.open_runs.take(&OPEN_RUNS, &mut push);
        kept.run_ids.take(&RUN_IDS, &mut push);
        kept.counters.take(&mut push);
    }
}

/// Keys deleted as one statement: each row found by its whole key. Joined with `unnest`
/// instead, the planner may scan a range of the key for each (it did for visibility: 0.46 ms
/// per close with 3,000 runs listed); the `LIMIT` keeps each lookup a lateral one, which it
/// cannot be planned out of.
macro_rules! delete_keys {
    ($table:literal, $unnest:literal, $($column:literal),+) => {
        concat!(
            "DELETE FROM ", $table, " WHERE ctid = ANY (ARRAY(SELECT r.ctid FROM unnest(",
            $unnest, ") AS k(", delete_keys!(@list $($column),+),
            ") CROSS JOIN LATERAL (SELECT ctid FROM ", $table, " WHERE ",
            delete_keys!(@match $($column),+), " LIMIT 1) r))"
        )
    };
    (@list $first:literal $(, $column:literal)*) => { concat!($first $(, ", ", $column)*) };
    (@match $first:literal $(, $column:literal)*) => {
        concat!($first, " = k.", $first $(, " AND ", $column, " = k.", $column)*)
    };
}

/// Run records: put only (a purge deletes its run's own way, after sending these).
const RUNS: Table = Table {
    put: (
        "INSERT INTO runs (seq, record) VALUES ($1, $2) \
         ON CONFLICT (seq) DO UPDATE SET record = excluded.record",
        "INSERT INTO runs (seq, record) SELECT * FROM unnest($1::bigint[], $2::bytea[]) \
         ON CONFLICT (seq) DO UPDATE SET record = excluded.record",
    ),
    delete: None,
};

const DEADLINES: Table = Table {
    put: (
        "INSERT INTO deadlines (at, seq, event_id, kind) VALUES ($1, $2, $3, $4) \
         ON CONFLICT DO NOTHING",
        "INSERT INTO deadlines (at, seq, event_id, kind) \
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::smallint[]) \
         ON CONFLICT DO NOTHING",
    ),
    delete: Some((
        "DELETE FROM deadlines WHERE at = $1 AND seq = $2 AND event_id = $3 AND kind = $4",
        "DELETE FROM deadlines WHERE (at, seq, event_id, kind) IN \
         (SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::smallint[]))",
    )),
};

/// Queues a task: domain, kind, list, rank, order, run, scheduling event.
const TASKS: Table = Table {
    put: (
        "INSERT INTO tasks (domain, kind, list, rank, ord, seq, scheduled) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        "INSERT INTO tasks (domain, kind, list, rank, ord, seq, scheduled) \
         SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::text[], $4::bigint[], \
         $5::bigint[], $6::bigint[], $7::bigint[])",
    ),
    delete: Some((
        "DELETE FROM tasks WHERE domain = $1 AND kind = $2 AND list = $3 AND rank = $4 \
         AND ord = $5",
        delete_keys!(
            "tasks",
            "$1::bigint[], $2::smallint[], $3::text[], $4::bigint[], $5::bigint[]",
            "domain",
            "kind",
            "list",
            "rank",
            "ord"
        ),
    )),
};

const VISIBILITY: Table = Table {
    put: (
        "INSERT INTO visibility (domain, listing, filter, value, time, seq) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
        "INSERT INTO visibility (domain, listing, filter, value, time, seq) \
         SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::smallint[], $4::bytea[], \
         $5::bigint[], $6::bigint[]) ON CONFLICT DO NOTHING",
    ),
    delete: Some((
        "DELETE FROM visibility WHERE domain = $1 AND listing = $2 AND filter = $3 \
         AND value = $4 AND time = $5 AND seq = $6",
        delete_keys!(
            "visibility",
            "$1::bigint[], $2::smallint[], $3::smallint[], $4::bytea[], $5::bigint[], \
             $6::bigint[]",
            "domain",
            "listing",
            "filter",
            "value",
            "time",
            "seq"
        ),
    )),
};

const ITEMS: Table = Table {
    put: (
        "INSERT INTO items (seq, kind, key, json) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (seq, kind, key) DO UPDATE SET json = excluded.json",
        "INSERT INTO items (seq, kind, key, json) \
         SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::bigint[], $4::bytea[]) \
         ON CONFLICT (seq, kind, key) DO UPDATE SET json = excluded.json",
    ),
    delete: Some((
        "DELETE FROM items WHERE seq = $1 AND kind = $2 AND key = $3",
        delete_keys!(
            "items",
            "$1::bigint[], $2::smallint[], $3::bigint[]",
            "seq",
            "kind",
            "key"
        ),
    )),
};

const ITEM_NAMES: Table = Table {
    put: (
        "INSERT INTO item_names (seq, kind, name, key) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (seq, kind, name) DO UPDATE SET key = excluded.key",
        "INSERT INTO item_names (seq, kind, name, key) \
         SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::text[], $4::bigint[]) \
         ON CONFLICT (seq, kind, name) DO UPDATE SET key = excluded.key",
    ),
    delete: Some((
        "DELETE FROM item_names WHERE seq = $1 AND kind = $2 AND name = $3",
        delete_keys!(
            "item_names",
            "$1::bigint[], $2::smallint[], $3::text[]",
            "seq",
            "kind",
            "name"
        ),
    )),
};

/// No `ON CONFLICT`: a run of this id opened by another node first fails this transaction,
/// and its retry's check then finds that run.
const OPEN_RUNS: Table = Table {
    put: (
        "INSERT INTO open_runs (domain, workflow_id, seq) VALUES ($1, $2, $3)",
        "INSERT INTO open_runs (domain, workflow_id, seq) \
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[])",
    ),
    delete: Some((
        "DELETE FROM open_runs WHERE domain = $1 AND workflow_id = $2 AND seq = $3",
        delete_keys!(
            "open_runs",
            "$1::bigint[], $2::text[], $3::bigint[]",
            "domain",
            "workflow_id",
            "seq"
        ),
    )),
};

/// Put only (a purge deletes its run's own way, after sending these). No `ON CONFLICT`, as
/// for open runs.
const RUN_IDS: Table = Table {
    put: (
        "INSERT INTO run_ids (domain, workflow_id, run_id, seq) VALUES ($1, $2, $3, $4)",
        "INSERT INTO run_ids (domain, workflow_id, run_id, seq) \
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[])",
    ),
    delete: None,
};
