//! The ephemeral store (`--ephemeral`): every table an ordered map in this process's memory
//! (the visibility index one per partition), holding records as values rather than encoded
//! bytes, and lost when the process ends.
//!
//! There is nothing to make durable, so there is no writer thread and no group commit: a
//! change is applied on the caller's thread under the state's write lock, and undone from its
//! undo log if its apply fails, so that no half-applied change is ever seen. Reads hold the
//! read lock for their closure (a snapshot is the state itself, unchanged while they read):
//! reads are of bounded size, and a change waits for the reads under way, microseconds.

mod reads;
mod writes;

use std::collections::{BTreeMap, HashMap};
use std::ops::{Bound, Deref};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::RwLock;

use crate::clock::{Clock, Timestamp};
use crate::model::{
    AnyType, BatchRecord, Binding, Domain, GuestFailureRecord, ListControl, ModuleRecord, Run,
    Schedule,
};

use super::seam::{Backend, Cursor, Job, Page, Reads};
use super::writer::AfterCommit;
use super::{Opened, Place, Store, StoreError, Writer, WriterStats};

/// One table: ordered like redb's, so every listing reads one range.
type Map<K, V> = BTreeMap<K, V>;

/// Where the visibility index lists a run: the partition (domain id, listing, filter, filter
/// value), then (time in ms, run seq) within it. redb keeps one table ordered by the whole
/// key; here every listing reads within one partition, so each has a tree of its own and
/// listing a run compares integers, not the filter's string at every step down a tree of
/// every run (which cost 4 % of the server's CPU once it held 12,000 closed runs).
type VisibilityKey = (Partition, (i64, u64));

/// (domain id, listing, filter, filter value): see [`VisibilityKey`].
type Partition = (u64, u8, u8, String);

/// The runs one partition lists, by (time in ms, run seq).
type Listed = Map<(i64, u64), ()>;

/// (domain id, task kind, task list, rank, order).
type TaskKey = (u64, u8, String, u32, u64);

/// Every table, each keyed as its redb counterpart (`redb/tables.rs` tells what each holds).
#[derive(Default)]
pub(super) struct State {
    /// The next number `next_id` hands out, less one.
    last_id: u64,
    counters: Map<(u64, u8), u64>,
    domains: Map<(String, String, String), Domain>,
    types: Map<(u64, u8, String, String), AnyType>,
    runs: Map<u64, Run>,
    run_ids: Map<(u64, String, String), u64>,
    open_runs: Map<(u64, String), u64>,
    events: Map<(u64, u64), Vec<u8>>,
    items: Map<(u64, u8, u64), Vec<u8>>,
    item_names: Map<(u64, u8, String), u64>,
    visibility: HashMap<Partition, Listed>,
    tasks: Map<TaskKey, (u64, u64)>,
    deadlines: Map<(i64, u64, u64, u8), ()>,
    modules: Map<(String, String), ModuleRecord>,
    module_code: Map<(String, String), Arc<[u8]>>,
    bindings: Map<(u64, u8, String), Binding>,
    guest_failures: Map<(u64, u8, String, u64), GuestFailureRecord>,
    schedules: Map<u64, Schedule>,
    schedule_ids: Map<(u64, String), u64>,
    list_controls: Map<(u64, u8, String), ListControl>,
    batches: Map<u64, BatchRecord>,
    domain_batches: Map<(u64, u64), ()>,
}

/// The store's tables seen through a snapshot (a read lock) or a change (the write lock): the
/// reads are written once, for both (`reads.rs`).
pub(super) struct Access<S>(S);

/// One change under way: the state, and how to undo what it did so far.
pub(super) struct Tx<'s> {
    state: &'s mut State,
    undo: Vec<Undo>,
    now: Timestamp,
    after_commit: AfterCommit,
}

/// Puts back one entry a change overwrote or removed.
type Undo = Box<dyn FnOnce(&mut State) + Send>;

/// Where a table lives in the state: how a change's undo finds it again.
type Table<K, V> = fn(&mut State) -> &mut Map<K, V>;

impl Deref for Tx<'_> {
    type Target = State;

    fn deref(&self) -> &State {
        self.state
    }
}

impl<'s> Tx<'s> {
    fn new(state: &'s mut State, now: Timestamp) -> Self {
        Tx {
            state,
            undo: Vec::new(),
            now,
            after_commit: Vec::new(),
        }
    }

    /// Sets `key` to `value` in `table`; answers whether the key is new.
    fn put<K, V>(&mut self, table: Table<K, V>, key: K, value: V) -> bool
    where
        K: Ord + Clone + Send + 'static,
        V: Send + 'static,
    {
        let old = table(self.state).insert(key.clone(), value);
        let new = old.is_none();
        self.undo.push(Box::new(move |state| match old {
            Some(old) => drop(table(state).insert(key, old)),
            None => drop(table(state).remove(&key)),
        }));
        new
    }

    /// Removes `key` from `table`; answers whether it was there.
    fn delete<K, V>(&mut self, table: Table<K, V>, key: &K) -> bool
    where
        K: Ord + Send + 'static,
        V: Send + 'static,
    {
        let Some((key, old)) = table(self.state).remove_entry(key) else {
            return false;
        };
        self.undo
            .push(Box::new(move |state| drop(table(state).insert(key, old))));
        true
    }

    /// Removes every key of `table` in `range`.
    fn delete_range<K, V>(&mut self, table: Table<K, V>, range: (Bound<K>, Bound<K>))
    where
        K: Ord + Clone + Send + 'static,
        V: Send + 'static,
    {
        let keys: Vec<K> =
            (entries(table(self.state), range).map(|(key, _)| key.clone())).collect();
        for key in keys {
            self.delete(table, &key);
        }
    }

    /// Lists the run a visibility key names, or (`listed` false) unlists it.
    fn set_listed(&mut self, (partition, at): VisibilityKey, listed: bool) {
        if list_in(&mut self.state.visibility, &partition, at, listed) {
            self.undo.push(Box::new(move |state| {
                list_in(&mut state.visibility, &partition, at, !listed);
            }));
        }
    }

    /// Undoes every change made so far, latest first.
    fn roll_back(&mut self) {
        while let Some(undo) = self.undo.pop() {
            undo(self.state);
        }
        self.after_commit.clear();
    }
}

/// Lists `at` in `partition` of `visibility`, or (`listed` false) unlists it; answers whether
/// that changed anything. A partition emptied goes: one per workflow id would pile up.
fn list_in(
    visibility: &mut HashMap<Partition, Listed>,
    partition: &Partition,
    at: (i64, u64),
    listed: bool,
) -> bool {
    match (listed, visibility.get_mut(partition)) {
        (true, Some(runs)) => runs.insert(at, ()).is_none(),
        (true, None) => visibility
            .insert(partition.clone(), Listed::from([(at, ())]))
            .is_none(),
        (false, Some(runs)) => {
            let removed = runs.remove(&at).is_some();
            if runs.is_empty() {
                visibility.remove(partition);
            }
            removed
        }
        (false, None) => false,
    }
}

/// Every key from `lo` up to, not including, `hi`.
fn between<K>(lo: K, hi: K) -> (Bound<K>, Bound<K>) {
    (Bound::Included(lo), Bound::Excluded(hi))
}

/// Every key from `lo` to `hi`, both included.
fn through<K>(lo: K, hi: K) -> (Bound<K>, Bound<K>) {
    (Bound::Included(lo), Bound::Included(hi))
}

/// The entries of `map` in `range`; none for a range that is empty (which `BTreeMap::range`
/// would refuse with a panic).
fn entries<K: Ord, V>(
    map: &Map<K, V>,
    range: (Bound<K>, Bound<K>),
) -> impl DoubleEndedIterator<Item = (&K, &V)> {
    let empty = match &range {
        (Bound::Included(lo), Bound::Included(hi)) => lo > hi,
        (Bound::Included(lo) | Bound::Excluded(lo), Bound::Included(hi) | Bound::Excluded(hi)) => {
            lo >= hi
        }
        _ => false,
    };
    (!empty).then(|| map.range(range)).into_iter().flatten()
}

/// Reads `range` of `map` in the cursor's direction, keeping what `pick` returns, until a page
/// is full.
fn scan<K: Ord, V, T>(
    map: &Map<K, V>,
    range: (Bound<K>, Bound<K>),
    cursor: Cursor<impl Sized>,
    mut pick: impl FnMut(&K, &V) -> Option<T>,
) -> Page<T> {
    let mut page = Page {
        items: Vec::new(),
        more: false,
    };
    let entries = entries(map, range);
    let entries: Box<dyn Iterator<Item = _>> = match cursor.reverse {
        true => Box::new(entries.rev()),
        false => Box::new(entries),
    };
    for item in entries.filter_map(|(key, value)| pick(key, value)) {
        if page.items.len() == cursor.limit {
            page.more = true;
            break;
        }
        page.items.push(item);
    }
    page
}

/// The ephemeral store: its state, and the clock its changes are stamped by.
struct Memory {
    state: Arc<RwLock<State>>,
    clock: Arc<dyn Clock>,
    stats: WriterStats,
}

impl Backend for Memory {
    /// A read holds the read lock for as long as it reads. Recursive: a read that starts
    /// another on the same thread never waits for a change waiting for the first.
    fn snapshot(&self) -> Result<Box<dyn Reads>, StoreError> {
        Ok(Box::new(Access(self.state.read_arc_recursive())))
    }

    /// A read takes microseconds, less than the hop to a blocking thread and back.
    fn reads_wait(&self) -> bool {
        false
    }

    /// Applies the change at once, on the caller's thread, and answers it.
    fn submit(&self, mut job: Box<dyn Job>) -> Result<(), StoreError> {
        let started = Instant::now();
        let (changed, after_commit) = {
            let mut state = self.state.write();
            let mut tx = Access(Tx::new(&mut state, self.clock.now()));
            if !job.apply(&mut tx, false) {
                tx.0.roll_back();
            }
            (
                !tx.0.undo.is_empty(),
                std::mem::take(&mut tx.0.after_commit),
            )
        };
        for action in after_commit {
            action();
        }
        self.stats.batch_done(1, started.elapsed(), changed);
        job.finish(None);
        Ok(())
    }
}

/// Opens the store at `place` if it is this backend's: the embedded default's place, kept in
/// memory (`--ephemeral`).
pub(super) fn open_place(
    place: &Place<'_>,
    clock: Arc<dyn Clock>,
) -> Option<Result<Opened, StoreError>> {
    (place.location.is_none() && place.ephemeral).then(|| open(clock))
}

/// A new, empty store in memory, with a fresh key for the tokens it issues.
fn open(clock: Arc<dyn Clock>) -> Result<Opened, StoreError> {
    let mut secret = [0; 32];
    getrandom::fill(&mut secret).map_err(|e| StoreError::Corrupt {
        table: "meta",
        detail: format!("no randomness for the token key: {e}"),
    })?;
    let stats = WriterStats::default();
    let memory = Memory {
        state: Arc::default(),
        clock,
        stats: stats.clone(),
    };
    Ok(Opened {
        store: Store {
            backend: Arc::new(memory),
        },
        writer: Writer(None),
        secret,
        stats,
        signals: None,
    })
}

#[cfg(test)]
mod tests {
    use std::ops::Bound;

    use super::{Map, State, Tx, entries};
    use crate::clock::Timestamp;

    #[test]
    fn an_empty_or_inverted_range_reads_nothing_rather_than_panicking() {
        let map: Map<u64, ()> = (0..10).map(|n| (n, ())).collect();
        let read = |range| entries(&map, range).map(|(k, _)| *k).collect::<Vec<_>>();
        let none: Vec<u64> = vec![];
        assert_eq!(read((Bound::Excluded(3), Bound::Excluded(3))), none);
        assert_eq!(read((Bound::Included(5), Bound::Excluded(2))), none);
        assert_eq!(read((Bound::Included(3), Bound::Included(3))), vec![3]);
        assert_eq!(read((Bound::Excluded(7), Bound::Unbounded)), vec![8, 9]);
    }

    #[test]
    fn a_rolled_back_change_leaves_every_table_as_it_was() {
        let (open, closed) = ((1, 0, 0, "id".to_owned()), (1, 1, 0, String::new()));
        let mut state = State::default();
        state.counters.insert((1, 0), 5);
        state.runs.insert(7, crate::store::contract::run(7));
        state
            .visibility
            .insert(open.clone(), Map::from([((10, 7), ())]));
        let mut tx = Tx::new(&mut state, Timestamp::from_millis(0));
        tx.put(|s| &mut s.counters, (1, 0), 6);
        tx.put(|s| &mut s.counters, (2, 0), 1);
        tx.delete(|s| &mut s.runs, &7);
        tx.put(|s| &mut s.deadlines, (1, 2, 3, 4), ());
        tx.delete_range(|s| &mut s.counters, (Bound::Unbounded, Bound::Unbounded));
        tx.set_listed((open.clone(), (10, 7)), false);
        tx.set_listed((closed.clone(), (20, 7)), true);
        assert!(
            !tx.state.visibility.contains_key(&open),
            "an emptied partition goes"
        );
        tx.roll_back();
        assert_eq!(
            state.counters.into_iter().collect::<Vec<_>>(),
            vec![((1, 0), 5)]
        );
        assert_eq!(state.runs.keys().copied().collect::<Vec<_>>(), vec![7]);
        assert!(state.deadlines.is_empty());
        assert_eq!(
            state.visibility,
            [(open, Map::from([((10, 7), ())]))].into()
        );
    }
}
