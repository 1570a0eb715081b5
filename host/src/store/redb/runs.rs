//! redb's side of the reads and writes of runs: run records and their names, histories,
//! listings, task queues and deadlines.

use std::ops::Bound;

use redb::{ReadableTable, Table};

use crate::clock::Timestamp;
use crate::model::{
    ItemKind, Queued, Run, RunId, Slot, TaskKind, WorkflowId, keyed_queues_end, queue_key,
};

use super::access::{Tables, WriteTx, scan};
use super::tables::VisibilityKey;
use crate::store::StoreError;
use crate::store::codec::{decode, encode};
use crate::store::seam::{
    Cursor, Deadline, Due, Filter, Listing, Page, RunReads, RunWrites, Writes,
};
use crate::store::shared::bounds;

impl<T: Tables> RunReads for T {
    fn run(&self, seq: u64) -> Result<Option<Run>, StoreError> {
        let table = self.run_table()?;
        let value = table.get(seq)?;
        value.map(|v| decode("runs", v.value())).transpose()
    }

    fn run_named(
        &self,
        domain: u64,
        workflow_id: &WorkflowId,
        run_id: &RunId,
    ) -> Result<Option<Run>, StoreError> {
        let seq = self
            .run_id_table()?
            .get((domain, &**workflow_id, &**run_id))?
            .map(|v| v.value());
        seq.map_or(Ok(None), |seq| self.run(seq))
    }

    fn open_run(&self, domain: u64, workflow_id: &WorkflowId) -> Result<Option<Run>, StoreError> {
        let seq = self
            .open_run_table()?
            .get((domain, &**workflow_id))?
            .map(|v| v.value());
        seq.map_or(Ok(None), |seq| self.run(seq))
    }

    fn history(
        &self,
        seq: u64,
        first: u64,
        last: u64,
        cursor: Cursor<u64>,
    ) -> Result<Page<(u64, Vec<u8>)>, StoreError> {
        let table = self.event_table()?;
        let range = bounds(
            (seq, first),
            (seq, last.saturating_add(1)),
            cursor.after.map(|id| (seq, id)),
            cursor.reverse,
        );
        scan(&*table, range, cursor, |key, value| {
            Ok(Some((key.value().1, value.value().to_vec())))
        })
    }

    fn event(&self, seq: u64, event_id: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let table = self.event_table()?;
        let value = table.get((seq, event_id))?;
        Ok(value.map(|v| v.value().to_vec()))
    }

    fn listed_runs(
        &self,
        domain: u64,
        listing: Listing,
        filter: &Filter<'_>,
        (from, to): (Timestamp, Timestamp),
        cursor: Cursor<(i64, u64)>,
    ) -> Result<Page<Run>, StoreError> {
        let table = self.visibility_table()?;
        let runs = self.run_table()?;
        let (l, (f, value)) = (listing as u8, filter.key());
        let key = |time: i64, seq: u64| (domain, l, f, value.as_ref(), time, seq);
        let range = bounds(
            key(from.as_millis(), 0),
            key(to.as_millis().saturating_add(1), 0),
            cursor.after.map(|(t, s)| key(t, s)),
            cursor.reverse,
        );
        scan(&*table, range, cursor, |entry, _| {
            let Some(bytes) = runs.get(entry.value().5)? else {
                return Ok(None);
            };
            decode("runs", bytes.value()).map(Some)
        })
    }

    fn count_listed(
        &self,
        domain: u64,
        listing: Listing,
        filter: &Filter<'_>,
        (from, to): (Timestamp, Timestamp),
    ) -> Result<u64, StoreError> {
        let table = self.visibility_table()?;
        let (l, (f, value)) = (listing as u8, filter.key());
        let key = |time: i64| (domain, l, f, value.as_ref(), time, 0);
        let mut count = 0;
        for entry in table.range(key(from.as_millis())..key(to.as_millis().saturating_add(1)))? {
            entry?;
            count += 1;
        }
        Ok(count)
    }

    fn pending_tasks(&self, domain: u64, kind: TaskKind, list: &str) -> Result<u64, StoreError> {
        let table = self.task_table()?;
        // The list's own queue and its keys' queues, which sort right after it.
        let end = keyed_queues_end(list);
        let (lo, hi) = (
            (domain, kind as u8, list, 0, 0),
            (domain, kind as u8, end.as_str(), 0, 0),
        );
        let mut count = 0;
        for entry in table.range(lo..hi)? {
            entry?;
            count += 1;
        }
        Ok(count)
    }

    fn queued(&self, domain: Option<u64>) -> Result<Vec<Queued>, StoreError> {
        let table = self.task_table()?;
        let entries = match domain {
            Some(d) => table.range((d, 0, "", 0, 0)..(d.saturating_add(1), 0, "", 0, 0))?,
            None => table.range::<QueueKey<'_>>(..)?,
        };
        // Keys are in (domain, kind, list) order: each list's tasks are one run of keys.
        let mut queued: Vec<Queued> = Vec::new();
        for entry in entries {
            let (key, _) = entry?;
            let (domain, kind, list, _, _) = key.value();
            match queued.last_mut() {
                Some(last)
                    if last.domain == domain && last.kind as u8 == kind && last.list == list =>
                {
                    last.count += 1;
                }
                _ => queued.push(Queued {
                    domain,
                    kind: TaskKind::from_key(kind)
                        .ok_or_else(|| StoreError::broken("task kind"))?,
                    list: list.to_owned(),
                    count: 1,
                }),
            }
        }
        Ok(queued)
    }

    fn next_deadline(&self, purges: bool) -> Result<Option<Timestamp>, StoreError> {
        let table = self.deadline_table()?;
        if purges {
            let first = table.first()?;
            return Ok(first.map(|(key, _)| Timestamp::from_millis(key.value().0)));
        }
        // Past the purges before it: as many as closed runs are kept, on a test's server.
        for entry in table.iter()? {
            let (at, _, _, kind) = entry?.0.value();
            let skipped = [Deadline::Purge, Deadline::Schedule, Deadline::Batch].map(|d| d as u8);
            if !skipped.contains(&kind) {
                return Ok(Some(Timestamp::from_millis(at)));
            }
        }
        Ok(None)
    }

    #[cfg(debug_assertions)]
    fn history_seqs(&self) -> Result<Vec<u64>, StoreError> {
        let table = self.event_table()?;
        let mut seqs = Vec::new();
        let mut from = 0;
        // One lookup per run: each jumps past the previous run's events.
        while let Some(entry) = table.range((from, 0)..)?.next() {
            let seq = entry?.0.value().0;
            seqs.push(seq);
            match seq.checked_add(1) {
                Some(next) => from = next,
                None => break,
            }
        }
        Ok(seqs)
    }

    fn item(&self, seq: u64, kind: ItemKind, key: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let table = self.item_table()?;
        let value = table.get((seq, kind as u8, key))?;
        Ok(value.map(|v| v.value().to_vec()))
    }

    fn item_named(&self, seq: u64, kind: ItemKind, name: &str) -> Result<Option<u64>, StoreError> {
        let table = self.item_name_table()?;
        let value = table.get((seq, kind as u8, name))?;
        Ok(value.map(|v| v.value()))
    }

    fn item_keys(&self, seq: u64, kind: ItemKind) -> Result<Vec<u64>, StoreError> {
        let table = self.item_table()?;
        let k = kind as u8;
        let mut keys = Vec::new();
        for entry in table.range((seq, k, 0)..=(seq, k, u64::MAX))? {
            keys.push(entry?.0.value().2);
        }
        Ok(keys)
    }
}

/// A key of the task queues, borrowing the list name.
type QueueKey<'a> = (u64, u8, &'a str, u32, u64);

/// Indexes `run` in `listing` at `time` under every filter it matches: for the writer, and
/// for the upgrade from format 1.
pub(super) fn index(
    table: &mut Table<'_, VisibilityKey, ()>,
    run: &Run,
    listing: Listing,
    time: Timestamp,
) -> Result<(), StoreError> {
    each_key(run, listing, time, |key| {
        table.insert(key, ())?;
        Ok(())
    })
}

/// Calls `each` with every index key of `run` in `listing` at `time`: one under each filter it
/// matches.
fn each_key(
    run: &Run,
    listing: Listing,
    time: Timestamp,
    mut each: impl FnMut((u64, u8, u8, &str, i64, u64)) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    for filter in Filter::all_of(run, listing) {
        let (f, value) = filter.key();
        each((
            run.domain,
            listing as u8,
            f,
            &value,
            time.as_millis(),
            run.seq,
        ))?;
    }
    Ok(())
}

/// The key range of one task list's queue.
fn list_range(domain: u64, kind: TaskKind, list: &str) -> (QueueKey<'_>, QueueKey<'_>) {
    let kind = kind as u8;
    (
        (domain, kind, list, 0, 0),
        (domain, kind, list, u32::MAX, u64::MAX),
    )
}

impl RunWrites for WriteTx<'_> {
    fn put_run(&mut self, run: &Run) -> Result<(), StoreError> {
        self.runs.write()?.insert(run.seq, encode(run).as_slice())?;
        Ok(())
    }

    fn put_item(
        &mut self,
        seq: u64,
        kind: ItemKind,
        key: u64,
        name: Option<&str>,
        json: &[u8],
    ) -> Result<(), StoreError> {
        self.items.write()?.insert((seq, kind as u8, key), json)?;
        if let Some(name) = name {
            self.item_names
                .write()?
                .insert((seq, kind as u8, name), key)?;
        }
        Ok(())
    }

    fn remove_item(
        &mut self,
        seq: u64,
        kind: ItemKind,
        key: u64,
        name: Option<&str>,
    ) -> Result<(), StoreError> {
        self.items.write()?.remove((seq, kind as u8, key))?;
        if let Some(name) = name {
            self.item_names.write()?.remove((seq, kind as u8, name))?;
        }
        Ok(())
    }

    fn name_run(&mut self, run: &Run) -> Result<(), StoreError> {
        let (domain, id) = (run.domain, run.execution.workflow_id.as_str());
        self.run_ids
            .write()?
            .insert((domain, id, run.execution.run_id.as_str()), run.seq)?;
        if run.closed.is_none() {
            self.open_runs.write()?.insert((domain, id), run.seq)?;
        }
        Ok(())
    }

    fn unname_open_run(&mut self, run: &Run) -> Result<(), StoreError> {
        let key = (run.domain, run.execution.workflow_id.as_str());
        let current = self.open_runs.read()?.get(key)?.map(|v| v.value());
        if current == Some(run.seq) {
            self.open_runs.write()?.remove(key)?;
        }
        Ok(())
    }

    fn purge_run(&mut self, run: &Run) -> Result<(), StoreError> {
        let id = &run.execution;
        self.run_ids
            .write()?
            .remove((run.domain, id.workflow_id.as_str(), id.run_id.as_str()))?;
        self.events
            .write()?
            .retain_in((run.seq, 0)..=(run.seq, u64::MAX), |_, _| false)?;
        // A closed run has no open items; a record from before they were kept apart may.
        self.items
            .write()?
            .retain_in((run.seq, 0, 0)..=(run.seq, u8::MAX, u64::MAX), |_, _| false)?;
        self.item_names
            .write()?
            .retain_in((run.seq, 0, "")..(run.seq + 1, 0, ""), |_, _| false)?;
        self.unlist_run(run, Listing::ClosedByStart, run.started_at)?;
        if let Some(closed) = run.closed {
            self.unlist_run(run, Listing::ClosedByClose, closed.at)?;
        }
        self.runs.write()?.remove(run.seq)?;
        Ok(())
    }

    fn put_event(&mut self, seq: u64, event_id: u64, json: &[u8]) -> Result<(), StoreError> {
        self.events.write()?.insert((seq, event_id), json)?;
        Ok(())
    }

    fn list_run(&mut self, run: &Run, listing: Listing, time: Timestamp) -> Result<(), StoreError> {
        index(self.visibility.write()?, run, listing, time)
    }

    fn unlist_run(
        &mut self,
        run: &Run,
        listing: Listing,
        time: Timestamp,
    ) -> Result<(), StoreError> {
        each_key(run, listing, time, |key| {
            self.visibility.write()?.remove(key)?;
            Ok(())
        })
    }

    fn index_run(
        &mut self,
        run: &Run,
        listing: Listing,
        time: Timestamp,
        filter: &Filter<'_>,
        remove: bool,
    ) -> Result<(), StoreError> {
        let (f, value) = filter.key();
        let key = (
            run.domain,
            listing as u8,
            f,
            &*value,
            time.as_millis(),
            run.seq,
        );
        match remove {
            true => self.visibility.write()?.remove(key).map(drop)?,
            false => self.visibility.write()?.insert(key, ()).map(drop)?,
        }
        Ok(())
    }

    fn push_task(
        &mut self,
        domain: u64,
        kind: TaskKind,
        slot: &Slot,
        (seq, scheduled): (u64, u64),
    ) -> Result<(), StoreError> {
        let key = (
            domain,
            kind as u8,
            slot.list.as_str(),
            slot.rank,
            slot.order,
        );
        self.tasks.write()?.insert(key, (seq, scheduled))?;
        Ok(())
    }

    fn pop_task(
        &mut self,
        domain: u64,
        kind: TaskKind,
        list: &str,
    ) -> Result<Option<(u64, u64)>, StoreError> {
        let (lo, hi) = list_range(domain, kind, list);
        let first = match self.tasks.read()?.range(lo..=hi)?.next() {
            Some(entry) => {
                let (key, value) = entry?;
                let (_, _, _, rank, order) = key.value();
                Some((rank, order, value.value()))
            }
            None => None,
        };
        let Some((rank, order, task)) = first else {
            return Ok(None);
        };
        self.tasks
            .write()?
            .remove((domain, kind as u8, list, rank, order))?;
        Ok(Some(task))
    }

    fn keyed_queues(
        &mut self,
        domain: u64,
        kind: TaskKind,
        list: &str,
    ) -> Result<Vec<String>, StoreError> {
        let table = self.tasks.read()?;
        let end = keyed_queues_end(list);
        let hi: QueueKey<'_> = (domain, kind as u8, end.as_str(), 0, 0);
        let mut keys = Vec::new();
        let mut after = list.to_owned();
        // One look per queue, skipping over each one's tasks.
        loop {
            let lo: QueueKey<'_> = (domain, kind as u8, after.as_str(), u32::MAX, u64::MAX);
            let range = (Bound::Excluded(lo), Bound::Excluded(hi));
            let Some(entry) = table.range::<QueueKey<'_>>(range)?.next() else {
                return Ok(keys);
            };
            let (key, _) = entry?;
            let queue = key.value().2.to_owned();
            keys.push(queue_key(&queue).1.to_owned());
            after = queue;
        }
    }

    fn remove_task(&mut self, domain: u64, kind: TaskKind, slot: &Slot) -> Result<(), StoreError> {
        self.tasks.write()?.remove((
            domain,
            kind as u8,
            slot.list.as_str(),
            slot.rank,
            slot.order,
        ))?;
        Ok(())
    }

    fn set_deadline(
        &mut self,
        at: Timestamp,
        seq: u64,
        event_id: u64,
        kind: Deadline,
    ) -> Result<(), StoreError> {
        self.deadlines
            .write()?
            .insert((at.as_millis(), seq, event_id, kind as u8), ())?;
        Ok(())
    }

    fn clear_deadline(
        &mut self,
        at: Timestamp,
        seq: u64,
        event_id: u64,
        kind: Deadline,
    ) -> Result<(), StoreError> {
        self.deadlines
            .write()?
            .remove((at.as_millis(), seq, event_id, kind as u8))?;
        Ok(())
    }

    fn take_due(&mut self, limit: usize) -> Result<Vec<Due>, StoreError> {
        let now = self.now().as_millis();
        let mut keys = Vec::new();
        for entry in self
            .deadlines
            .read()?
            .range((
                Bound::Unbounded,
                Bound::Included((now, u64::MAX, u64::MAX, u8::MAX)),
            ))?
            .take(limit)
        {
            keys.push(entry?.0.value());
        }
        let mut due = Vec::with_capacity(keys.len());
        for key in keys {
            self.deadlines.write()?.remove(key)?;
            let (at, run, event_id, kind) = key;
            if let Some(kind) = Deadline::from_u8(kind) {
                due.push(Due {
                    at: Timestamp::from_millis(at),
                    run,
                    event_id,
                    kind,
                });
            }
        }
        Ok(due)
    }
}
