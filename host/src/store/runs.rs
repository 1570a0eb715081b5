//! Typed access to the tables of runs: run records and their names, histories, listings, task
//! queues and deadlines, and whether a function is bound to run a domain's Lambda tasks.

use std::ops::Bound;

use redb::ReadableTable;

use crate::clock::Timestamp;
use crate::model::{Run, Slot};

use super::StoreError;
use super::access::{Cursor, Page, Snapshot, WriteTx, bounds, decode, encode, scan};

/// The kinds of task queue; they are separate namespaces (spec §8.3). Stored (in task queue keys
/// and task tokens): never renumber.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum TaskKind {
    Decision = 0,
    Activity = 1,
    /// Lambda function tasks (spec §6.13), queued under the function's name. Only the
    /// in-process function worker takes them; HTTP polls never ask for this kind.
    Function = 2,
}

/// The orders in which visibility lists runs. Stored: never renumber.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Listing {
    /// Open runs by start time.
    Open = 0,
    /// Closed runs by start time.
    ClosedByStart = 1,
    /// Closed runs by close time.
    ClosedByClose = 2,
}

/// What a durable deadline does when it comes, and which event it belongs to. Stored: never
/// renumber.
///
/// Deadlines of one activity task share its `ActivityTaskScheduled` event, so at one instant
/// they come in the order of their numbers: the spec's tie order (§8.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Deadline {
    /// A timer fires; the event is its `TimerStarted`.
    Timer = 0,
    /// Activity timeouts; the event is the task's `ActivityTaskScheduled`.
    ActivityScheduleToClose = 1,
    ActivityStartToClose = 2,
    ActivityHeartbeat = 3,
    ActivityScheduleToStart = 4,
    /// Decision task timeouts; the event is the task's `DecisionTaskScheduled`.
    DecisionStartToClose = 5,
    DecisionScheduleToStart = 6,
    /// The run times out; the event is its `WorkflowExecutionStarted`.
    RunStartToClose = 7,
    /// A closed run's retention ends; the event is its last.
    Purge = 8,
    /// A started Lambda function task times out; the event is its `LambdaFunctionScheduled`.
    LambdaStartToClose = 9,
}

impl Deadline {
    const ALL: [Deadline; 10] = [
        Deadline::Timer,
        Deadline::ActivityScheduleToClose,
        Deadline::ActivityStartToClose,
        Deadline::ActivityHeartbeat,
        Deadline::ActivityScheduleToStart,
        Deadline::DecisionStartToClose,
        Deadline::DecisionScheduleToStart,
        Deadline::RunStartToClose,
        Deadline::Purge,
        Deadline::LambdaStartToClose,
    ];

    fn from_u8(kind: u8) -> Option<Deadline> {
        Deadline::ALL.get(usize::from(kind)).copied()
    }
}

/// A deadline that has come: when, which run, set by which event, for what.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Due {
    pub(crate) at: Timestamp,
    pub(crate) run: u64,
    pub(crate) event_id: u64,
    pub(crate) kind: Deadline,
}

/// The reads of runs, available in read snapshots and inside the writer.
pub(crate) trait RunReads: Snapshot {
    /// The run `seq`.
    fn run(&self, seq: u64) -> Result<Option<Run>, StoreError> {
        let table = self.run_table()?;
        let value = table.get(seq)?;
        value.map(|v| decode("runs", v.value())).transpose()
    }

    /// The run named (workflow id, run id) in the domain.
    fn run_named(
        &self,
        domain: u64,
        workflow_id: &str,
        run_id: &str,
    ) -> Result<Option<Run>, StoreError> {
        let seq = self
            .run_id_table()?
            .get((domain, workflow_id, run_id))?
            .map(|v| v.value());
        seq.map_or(Ok(None), |seq| self.run(seq))
    }

    /// The open run of `workflow_id` in the domain.
    fn open_run(&self, domain: u64, workflow_id: &str) -> Result<Option<Run>, StoreError> {
        let seq = self
            .open_run_table()?
            .get((domain, workflow_id))?
            .map(|v| v.value());
        seq.map_or(Ok(None), |seq| self.run(seq))
    }

    /// A page of the run's events `first..=last`, as wire JSON, after the cursor's event.
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

    /// One event of the run, as wire JSON.
    fn event(&self, seq: u64, event_id: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let table = self.event_table()?;
        let value = table.get((seq, event_id))?;
        Ok(value.map(|v| v.value().to_vec()))
    }

    /// A page of the domain's runs in `listing` with times in `[from, to]` that `keep` accepts,
    /// in time order (newest first if `cursor.reverse`).
    fn listed_runs(
        &self,
        domain: u64,
        listing: Listing,
        (from, to): (Timestamp, Timestamp),
        cursor: Cursor<(i64, u64)>,
        keep: impl Fn(&Run) -> bool,
    ) -> Result<Page<Run>, StoreError> {
        let table = self.listing_table()?;
        let runs = self.run_table()?;
        let l = listing as u8;
        let range = bounds(
            (domain, l, from.as_millis(), 0),
            (domain, l, to.as_millis().saturating_add(1), 0),
            cursor.after.map(|(t, s)| (domain, l, t, s)),
            cursor.reverse,
        );
        scan(&*table, range, cursor, |key, _| {
            let (_, _, _, seq) = key.value();
            let Some(bytes) = runs.get(seq)? else {
                return Ok(None);
            };
            let run: Run = decode("runs", bytes.value())?;
            Ok(keep(&run).then_some(run))
        })
    }

    /// How many tasks wait in the task list.
    fn pending_tasks(&self, domain: u64, kind: TaskKind, list: &str) -> Result<u64, StoreError> {
        let table = self.task_table()?;
        let (lo, hi) = list_range(domain, kind, list);
        let mut count = 0;
        for entry in table.range(lo..=hi)? {
            entry?;
            count += 1;
        }
        Ok(count)
    }

    /// The earliest deadline.
    fn next_deadline(&self) -> Result<Option<Timestamp>, StoreError> {
        let table = self.deadline_table()?;
        let first = table.first()?;
        Ok(first.map(|(key, _)| Timestamp::from_millis(key.value().0)))
    }
}

impl<T: Snapshot> RunReads for T {}

/// A key of the task queues, borrowing the list name.
type QueueKey<'a> = (u64, u8, &'a str, u32, u64);

/// The key range of one task list's queue.
fn list_range(domain: u64, kind: TaskKind, list: &str) -> (QueueKey<'_>, QueueKey<'_>) {
    let kind = kind as u8;
    (
        (domain, kind, list, 0, 0),
        (domain, kind, list, u32::MAX, u64::MAX),
    )
}

impl WriteTx<'_> {
    /// Stores `run`, new or changed.
    pub(crate) fn put_run(&mut self, run: &Run) -> Result<(), StoreError> {
        self.runs.insert(run.seq, encode(run).as_slice())?;
        Ok(())
    }

    /// Records the names of a new run, and that it is the open run of its workflow id.
    pub(crate) fn name_run(&mut self, run: &Run) -> Result<(), StoreError> {
        let (domain, id) = (run.domain, run.execution.workflow_id.as_str());
        self.run_ids
            .insert((domain, id, run.execution.run_id.as_str()), run.seq)?;
        self.open_runs.insert((domain, id), run.seq)?;
        Ok(())
    }

    /// Records that `run` is no longer the open run of its workflow id.
    pub(crate) fn unname_open_run(&mut self, run: &Run) -> Result<(), StoreError> {
        let key = (run.domain, run.execution.workflow_id.as_str());
        let current = self.open_runs.get(key)?.map(|v| v.value());
        if current == Some(run.seq) {
            self.open_runs.remove(key)?;
        }
        Ok(())
    }

    /// Removes a closed run with its names, history and listings: its retention is over.
    pub(crate) fn purge_run(&mut self, run: &Run) -> Result<(), StoreError> {
        let id = &run.execution;
        self.run_ids
            .remove((run.domain, id.workflow_id.as_str(), id.run_id.as_str()))?;
        self.events
            .retain_in((run.seq, 0)..=(run.seq, u64::MAX), |_, _| false)?;
        self.unlist_run(run, Listing::ClosedByStart, run.started_at)?;
        if let Some(closed) = run.closed {
            self.unlist_run(run, Listing::ClosedByClose, closed.at)?;
        }
        self.runs.remove(run.seq)?;
        Ok(())
    }

    /// Appends an event (wire JSON) to the run's history.
    pub(crate) fn put_event(
        &mut self,
        seq: u64,
        event_id: u64,
        json: &[u8],
    ) -> Result<(), StoreError> {
        self.events.insert((seq, event_id), json)?;
        Ok(())
    }

    /// Adds the run to `listing` at `time`.
    pub(crate) fn list_run(
        &mut self,
        run: &Run,
        listing: Listing,
        time: Timestamp,
    ) -> Result<(), StoreError> {
        self.listings
            .insert((run.domain, listing as u8, time.as_millis(), run.seq), ())?;
        Ok(())
    }

    /// Removes the run from `listing`.
    pub(crate) fn unlist_run(
        &mut self,
        run: &Run,
        listing: Listing,
        time: Timestamp,
    ) -> Result<(), StoreError> {
        self.listings
            .remove((run.domain, listing as u8, time.as_millis(), run.seq))?;
        Ok(())
    }

    /// Queues a task of run `seq` scheduled by event `scheduled`, at `slot` of its list.
    pub(crate) fn push_task(
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
        self.tasks.insert(key, (seq, scheduled))?;
        Ok(())
    }

    /// Takes the first task of the list: highest priority, then earliest scheduled.
    pub(crate) fn pop_task(
        &mut self,
        domain: u64,
        kind: TaskKind,
        list: &str,
    ) -> Result<Option<(u64, u64)>, StoreError> {
        let (lo, hi) = list_range(domain, kind, list);
        let first = match self.tasks.range(lo..=hi)?.next() {
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
        self.tasks.remove((domain, kind as u8, list, rank, order))?;
        Ok(Some(task))
    }

    /// Removes a queued task from its list.
    pub(crate) fn remove_task(
        &mut self,
        domain: u64,
        kind: TaskKind,
        slot: &Slot,
    ) -> Result<(), StoreError> {
        self.tasks.remove((
            domain,
            kind as u8,
            slot.list.as_str(),
            slot.rank,
            slot.order,
        ))?;
        Ok(())
    }

    /// Sets a deadline.
    pub(crate) fn set_deadline(
        &mut self,
        at: Timestamp,
        seq: u64,
        event_id: u64,
        kind: Deadline,
    ) -> Result<(), StoreError> {
        self.deadlines
            .insert((at.as_millis(), seq, event_id, kind as u8), ())?;
        Ok(())
    }

    /// Clears a deadline that has not come yet.
    pub(crate) fn clear_deadline(
        &mut self,
        at: Timestamp,
        seq: u64,
        event_id: u64,
        kind: Deadline,
    ) -> Result<(), StoreError> {
        self.deadlines
            .remove((at.as_millis(), seq, event_id, kind as u8))?;
        Ok(())
    }

    /// Binds `name` in the domain with a raw `Binding` value, as the Wasm runtime will.
    #[cfg(test)]
    pub(crate) fn put_binding_raw(
        &mut self,
        domain: u64,
        kind: crate::model::BindingKind,
        name: &str,
        value: &[u8],
    ) -> Result<(), StoreError> {
        self.bindings.insert((domain, kind as u8, name), value)?;
        Ok(())
    }

    /// Takes up to `limit` deadlines that are due by now, earliest first.
    pub(crate) fn take_due(&mut self, limit: usize) -> Result<Vec<Due>, StoreError> {
        let now = self.now().as_millis();
        let mut keys = Vec::new();
        for entry in self
            .deadlines
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
            self.deadlines.remove(key)?;
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

#[cfg(test)]
mod tests {
    use super::Deadline;

    #[test]
    fn deadline_kinds_read_back_as_stored() {
        for (n, kind) in Deadline::ALL.into_iter().enumerate() {
            assert_eq!(kind as usize, n);
            assert_eq!(Deadline::from_u8(kind as u8), Some(kind));
        }
        assert_eq!(Deadline::from_u8(Deadline::ALL.len() as u8), None);
    }
}
