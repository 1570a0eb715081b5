//! The runs the writer's transaction has locked, with their items (open activities, timers,
//! children, ...): read together in one round trip, and kept up to date by the transaction's
//! own writes, so that the engine's further reads of the run while it changes it cost none.
//!
//! The run's row lock makes this sound: while the transaction holds it, no other transaction
//! changes the run's items, so what the transaction read and wrote is what the database holds.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, HashSet};

use tokio_postgres::Row;

use super::reads::from_big;
use crate::model::{ItemKind, Run};

/// A run, locked.
const LOCK_RUN: &str = "SELECT record FROM runs WHERE seq = $1 FOR UPDATE";

/// [`LOCK_RUN`]; but a run read without its lock under the test switch of [`unguarded_runs`].
pub(super) fn lock_run() -> &'static str {
    match unguarded_runs() {
        true => "SELECT record FROM runs WHERE seq = $1",
        false => LOCK_RUN,
    }
}

/// Whether a test turned off what keeps two nodes from changing one run at once
/// (`test-switches` feature, `WEFT_TEST_UNGUARDED_RUNS` set), to show that the partition test
/// notices: runs are read without their locks, and a second event of one id in a history (two
/// changes of one run, each from the same record) fails its transaction rather than running
/// it again.
pub(super) fn unguarded_runs() -> bool {
    #[cfg(feature = "test-switches")]
    {
        static ON: std::sync::LazyLock<bool> =
            std::sync::LazyLock::new(|| std::env::var_os("WEFT_TEST_UNGUARDED_RUNS").is_some());
        *ON
    }
    #[cfg(not(feature = "test-switches"))]
    false
}

/// The items and their names of each run of `$seqs` (an SQL array), as arrays (each `NULL`
/// if there are none), a row each, in the order [`Locked::load`] takes them, with the run's
/// seq last.
macro_rules! items_of {
    ($seqs:expr) => {
        concat!(
            "SELECT i.kinds, i.keys, i.jsons, n.kinds, n.names, n.keys, s.seq \
             FROM unnest(",
            $seqs,
            ") AS s(seq), \
             LATERAL (SELECT array_agg(kind) AS kinds, array_agg(key) AS keys, \
             array_agg(json) AS jsons FROM items WHERE items.seq = s.seq) i, \
             LATERAL (SELECT array_agg(kind) AS kinds, array_agg(name) AS names, \
             array_agg(key) AS keys FROM item_names WHERE item_names.seq = s.seq) n"
        )
    };
}

/// The items of run `$1`. Sent in one pipeline after [`LOCK_RUN`], so read in one round trip
/// with it, but in a statement of its own: in READ COMMITTED a statement that waited for a
/// lock still reads other rows as of its start, so items read by the locking statement itself
/// miss what the lock's holder committed (the contract test
/// `a_locked_run_s_items_are_as_its_last_holder_left_them` caught it).
pub(super) const RUN_ITEMS: &str = items_of!("ARRAY[$1::bigint]");

/// The first task of a list (`$1` domain, `$2` kind, `$3` list) taken off it: its run and
/// scheduling event (`NULL` if it holds none this transaction may take), whether the list
/// holds more (or, if none was taken, any another node's transaction holds), and its run,
/// locked (`NULL` if purged), and the task's scheduling event (which the claim reads: an
/// activity's input, when it was scheduled). One row, whatever was taken. The run's seq is
/// also kept for the transaction as `weft.popped`, for [`POPPED_RUN_ITEMS`], which the claim
/// reads next in the same round trip.
///
/// A task another node is claiming right now is locked, and skipped: it is that node's. The
/// statement's snapshot still shows the task it deletes, hence the `ctid` test.
pub(super) const POP_LOCKING_RUN: &str = "WITH popped AS (DELETE FROM tasks WHERE ctid = \
     (SELECT ctid FROM tasks WHERE domain = $1 AND kind = $2 AND list = $3 \
     ORDER BY rank, ord LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING seq, scheduled, ctid) \
     SELECT p.seq, p.scheduled, EXISTS (SELECT 1 FROM tasks t WHERE t.domain = $1 \
     AND t.kind = $2 AND t.list = $3 AND t.ctid IS DISTINCT FROM p.ctid), \
     (SELECT record FROM runs r WHERE r.seq = p.seq FOR UPDATE), \
     set_config('weft.popped', coalesce(p.seq::text, ''), true), \
     (SELECT json FROM events e WHERE e.seq = p.seq AND e.event_id = p.scheduled) \
     FROM (SELECT) AS one LEFT JOIN popped p ON true";

/// The items of the run whose task [`POP_LOCKING_RUN`] took, in a statement of its own
/// for the same reason. (After a pop that found nothing it reads no run: its row is then not
/// used. A setting a transaction set also reads `''` in the session's later transactions.)
pub(super) const POPPED_RUN_ITEMS: &str =
    items_of!("ARRAY[NULLIF(current_setting('weft.popped', true), '')::bigint]");

/// Up to `$4` tasks taken off the head of a list (`$1` domain, `$2` kind, `$3` list), ahead
/// of the batch's claims, as arrays (rank, order, run, scheduling event; `NULL` if none), and
/// whether the list holds more (other tasks, or tasks another node's transaction holds). Their
/// runs are added to the transaction's `weft.ahead`, for [`LOCK_RUNS`], which the same round
/// trip sends next. Last, the scheduling events themselves, which their claims read.
pub(super) const POP_AHEAD: &str = "WITH popped AS (DELETE FROM tasks WHERE ctid IN \
     (SELECT ctid FROM tasks WHERE domain = $1 AND kind = $2 AND list = $3 \
     ORDER BY rank, ord LIMIT $4 FOR UPDATE SKIP LOCKED) \
     RETURNING rank, ord, seq, scheduled, ctid) \
     SELECT array_agg(p.rank), array_agg(p.ord), array_agg(p.seq), array_agg(p.scheduled), \
     EXISTS (SELECT 1 FROM tasks t WHERE t.domain = $1 AND t.kind = $2 AND t.list = $3 \
     AND t.ctid NOT IN (SELECT ctid FROM popped)), \
     set_config('weft.ahead', concat_ws(',', NULLIF(current_setting('weft.ahead', true), ''), \
     string_agg(p.seq::text, ',')), true), \
     array_agg((SELECT json FROM events e WHERE e.seq = p.seq AND e.event_id = p.scheduled)) \
     FROM popped p";

/// The runs `$1` (an array) and those of the tasks [`POP_AHEAD`] took, as an SQL array. (A
/// setting a transaction set also reads `''` in the session's later transactions; an array
/// joined with `NULL` is itself.)
macro_rules! with_ahead {
    () => {
        "($1::bigint[] || \
         string_to_array(NULLIF(current_setting('weft.ahead', true), ''), ',')::bigint[])"
    };
}

/// Runs (`$1`, an array, and those [`POP_AHEAD`] took), locked in seq order, so that two
/// transactions locking several do not deadlock each other.
const LOCK_RUNS: &str = concat!(
    "SELECT seq, record FROM runs WHERE seq = ANY(",
    with_ahead!(),
    ") ORDER BY seq FOR UPDATE"
);

/// [`LOCK_RUNS`], or the runs read without their locks under the test switch of
/// [`unguarded_runs`].
pub(super) fn lock_runs() -> &'static str {
    match unguarded_runs() {
        true => concat!(
            "SELECT seq, record FROM runs WHERE seq = ANY(",
            with_ahead!(),
            ") ORDER BY seq"
        ),
        false => LOCK_RUNS,
    }
}

/// The items of the runs [`LOCK_RUNS`] locked, in a statement of its own for the same reason
/// as [`RUN_ITEMS`].
pub(super) const RUNS_ITEMS: &str = items_of!(with_ahead!());

/// Which of the workflows (`$1` domains, `$2` ids, arrays) have an open run: read, not
/// locked, as [`RunReads::open_run`](crate::store::seam::RunReads::open_run) reads a workflow
/// with none (there is no row to lock; the `open_runs` key keeps a second run out).
pub(super) const OPEN_OF: &str = "SELECT o.domain, o.workflow_id FROM open_runs o \
     JOIN unnest($1::bigint[], $2::text[]) AS k(d, w) ON o.domain = k.d AND o.workflow_id = k.w";

/// One run's record, its items by kind and key, and their names.
struct Items {
    run: Run,
    items: BTreeMap<(i16, u64), Vec<u8>>,
    names: HashMap<(i16, String), u64>,
}

/// The items of the runs locked so far, by run; and what the transaction knows of workflows'
/// open runs.
#[derive(Default)]
pub(super) struct Locked {
    runs: RefCell<HashMap<u64, Items>>,
    /// (domain, workflow id) found without an open run.
    none_open: RefCell<HashSet<(i64, String)>>,
    /// (domain, workflow id) a start guessed to have no open run, unread, with whether a
    /// request relied on the guess. A guess leaves once an open run of the workflow is
    /// inserted: the `open_runs` key then refuses it if it was wrong.
    guessed: RefCell<HashMap<(i64, String), bool>>,
    /// Whether the transaction closed a run a guess said was not there.
    guessed_wrong: Cell<bool>,
    /// Runs whose items the transaction wrote while they were not here.
    unread: RefCell<HashSet<u64>>,
}

impl Locked {
    /// Notes that workflow `id` of `domain` was found without an open run.
    pub(super) fn none_open(&self, domain: i64, id: String) {
        self.none_open.borrow_mut().insert((domain, id));
    }

    /// Takes workflow `id` of `domain` to have no open run, unread (see [`Locked::guessed`]).
    pub(super) fn guess_none_open(&self, domain: i64, id: String) {
        self.guessed.borrow_mut().insert((domain, id), false);
    }

    /// Whether workflow `id` of `domain` is known, or guessed, to have no open run (a guess
    /// answered here is one relied on).
    pub(super) fn has_none_open(&self, domain: i64, id: &str) -> bool {
        let key = (domain, id.to_owned());
        if self.none_open.borrow().contains(&key) {
            return true;
        }
        match self.guessed.borrow_mut().get_mut(&key) {
            Some(relied) => {
                *relied = true;
                true
            }
            None => false,
        }
    }

    /// Notes that the transaction opens a run of workflow `id`: what was known of it is
    /// stale, and a guess that it had none is checked by the insert.
    pub(super) fn run_opened(&self, domain: i64, id: &str) {
        let key = (domain, id.to_owned());
        self.none_open.borrow_mut().remove(&key);
        self.guessed.borrow_mut().remove(&key);
    }

    /// Notes that the transaction closes the open run of workflow `id`: what was known of it
    /// is stale, and a guess that it had none was wrong.
    pub(super) fn run_closed(&self, domain: i64, id: &str) {
        let key = (domain, id.to_owned());
        self.none_open.borrow_mut().remove(&key);
        if self.guessed.borrow_mut().remove(&key).is_some() {
            self.guessed_wrong.set(true);
        }
    }

    /// The guesses a request relied on that nothing checked yet: a start refused before it
    /// inserted an open run, or another request on the workflow and no start after it. `Err`
    /// if a guess is known wrong already.
    pub(super) fn unchecked_guesses(&self) -> Result<Vec<(i64, String)>, ()> {
        if self.guessed_wrong.get() {
            return Err(());
        }
        let guessed = self.guessed.borrow();
        let relied = guessed.iter().filter(|(_, relied)| **relied);
        Ok(relied.map(|(key, _)| key.clone()).collect())
    }

    /// The run `seq`, if it is here.
    pub(super) fn run(&self, seq: u64) -> Option<Run> {
        Some(self.runs.borrow().get(&seq)?.run.clone())
    }

    /// Keeps `run` with its items, from the row [`RUN_ITEMS`] (or another statement of
    /// `items_of!`) read them in.
    pub(super) fn load(&self, run: Run, row: &Row) {
        let array = |column| row.get::<_, Option<Vec<i64>>>(column).unwrap_or_default();
        let kinds = |column| row.get::<_, Option<Vec<i16>>>(column).unwrap_or_default();
        let key = from_big;
        let jsons: Vec<Vec<u8>> = row.get::<_, Option<_>>(2).unwrap_or_default();
        let names: Vec<String> = row.get::<_, Option<_>>(4).unwrap_or_default();
        let items = kinds(0).into_iter().zip(array(1)).zip(jsons);
        let names = kinds(3).into_iter().zip(names).zip(array(5));
        let seq = run.seq;
        let run = Items {
            run,
            items: items
                .map(|((kind, k), json)| ((kind, key(k)), json))
                .collect(),
            names: names.map(|(name, k)| (name, key(k))).collect(),
        };
        self.runs.borrow_mut().insert(seq, run);
    }

    /// Item `key` of `kind` in run `seq`: `None` if the run's items are not here.
    pub(super) fn item(&self, seq: u64, kind: ItemKind, key: u64) -> Option<Option<Vec<u8>>> {
        let runs = self.runs.borrow();
        let run = runs.get(&seq)?;
        Some(run.items.get(&(kind as i16, key)).cloned())
    }

    /// The key of the item named `name`: `None` if the run's items are not here.
    pub(super) fn item_named(&self, seq: u64, kind: ItemKind, name: &str) -> Option<Option<u64>> {
        let runs = self.runs.borrow();
        let run = runs.get(&seq)?;
        Some(run.names.get(&(kind as i16, name.to_owned())).copied())
    }

    /// The keys of `kind`, in order: `None` if the run's items are not here.
    pub(super) fn item_keys(&self, seq: u64, kind: ItemKind) -> Option<Vec<u64>> {
        let runs = self.runs.borrow();
        let run = runs.get(&seq)?;
        let kind = kind as i16;
        let keys = run.items.range((kind, 0)..=(kind, u64::MAX));
        Some(keys.map(|(&(_, key), _)| key).collect())
    }

    /// Keeps `run`, which the transaction made: its items are the ones it writes from now on,
    /// unless it wrote some already.
    pub(super) fn adopt(&self, run: &Run) {
        if self.unread.borrow().contains(&run.seq) {
            return;
        }
        let mut runs = self.runs.borrow_mut();
        runs.entry(run.seq).or_insert_with(|| Items {
            run: run.clone(),
            items: BTreeMap::new(),
            names: HashMap::new(),
        });
    }

    /// Notes a write of a run, if it is here.
    pub(super) fn put_run(&self, run: &Run) {
        if let Some(here) = self.runs.borrow_mut().get_mut(&run.seq) {
            here.run = run.clone();
        }
    }

    /// Notes a write of an item, if its run's items are here.
    pub(super) fn put(&self, seq: u64, kind: ItemKind, key: u64, name: Option<&str>, json: &[u8]) {
        let mut runs = self.runs.borrow_mut();
        let Some(run) = runs.get_mut(&seq) else {
            self.unread.borrow_mut().insert(seq);
            return;
        };
        run.items.insert((kind as i16, key), json.to_vec());
        if let Some(name) = name {
            run.names.insert((kind as i16, name.to_owned()), key);
        }
    }

    /// Notes the removal of an item, if its run's items are here.
    pub(super) fn remove(&self, seq: u64, kind: ItemKind, key: u64, name: Option<&str>) {
        let mut runs = self.runs.borrow_mut();
        let Some(run) = runs.get_mut(&seq) else {
            self.unread.borrow_mut().insert(seq);
            return;
        };
        run.items.remove(&(kind as i16, key));
        if let Some(name) = name {
            run.names.remove(&(kind as i16, name.to_owned()));
        }
    }

    /// Forgets a run that was purged.
    pub(super) fn forget(&self, seq: u64) {
        self.runs.borrow_mut().remove(&seq);
    }
}
