//! The ephemeral store's writes: each through [`Tx::put`] or [`Tx::delete`], which keep what
//! undoes it.

use std::ops::Bound;

use crate::clock::Timestamp;
use crate::model::{
    AnyType, BatchRecord, Binding, BindingKind, Domain, GuestFailureRecord, ItemKind, Kind,
    ListControl, ListKey, ModuleRecord, Run, Schedule, Scope, Slot, TaskKind, TypeName,
    keyed_queues_end, queue_key,
};
use crate::store::StoreError;
use crate::store::seam::{
    BatchWrites, ControlWrites, Counter, Deadline, DomainReads, DomainWrites, Due, FAILURES_KEPT,
    Filter, Listing, RunWrites, ScheduleWrites, WasmWrites, Writes,
};
use crate::store::shared::created;

use super::{Access, TaskKey, Tx, VisibilityKey, entries, through};

impl Writes for Access<Tx<'_>> {
    fn now(&self) -> Timestamp {
        self.0.now
    }

    fn after_commit(&mut self, action: Box<dyn FnOnce() + Send>) {
        self.0.after_commit.push(action);
    }

    fn next_id(&mut self) -> Result<u64, StoreError> {
        let last = self.0.last_id;
        // Kept apart from the tables, so it needs an undo of its own.
        self.0.state.last_id = last + 1;
        self.0
            .undo
            .push(Box::new(move |state| state.last_id = last));
        Ok(last + 1)
    }
}

impl DomainWrites for Access<Tx<'_>> {
    fn add_count(&mut self, domain: u64, counter: Counter, delta: i64) -> Result<(), StoreError> {
        let count = self.count(domain, counter)?.saturating_add_signed(delta);
        self.0
            .put(|s| &mut s.counters, (domain, counter.key()), count);
        Ok(())
    }

    fn add_domain(&mut self, scope: &Scope, domain: &Domain) -> Result<(), StoreError> {
        let new = self.store_domain(scope, domain);
        created("domains", &domain.name, new)
    }

    fn put_domain(&mut self, scope: &Scope, domain: &Domain) -> Result<(), StoreError> {
        self.store_domain(scope, domain);
        Ok(())
    }

    fn add_stored_type(
        &mut self,
        domain: u64,
        ty: &TypeName,
        record: &AnyType,
    ) -> Result<(), StoreError> {
        let new = self.store_type(domain, ty, record);
        created("types", &ty.name, new)
    }

    fn put_stored_type(
        &mut self,
        domain: u64,
        ty: &TypeName,
        record: &AnyType,
    ) -> Result<(), StoreError> {
        self.store_type(domain, ty, record);
        Ok(())
    }

    fn delete_stored_type(
        &mut self,
        domain: u64,
        kind: Kind,
        ty: &TypeName,
    ) -> Result<(), StoreError> {
        let key = (domain, kind as u8, ty.name.clone(), ty.version.clone());
        self.0.delete(|s| &mut s.types, &key);
        Ok(())
    }
}

impl Access<Tx<'_>> {
    /// Stores `domain` in `scope`; answers whether it is new.
    fn store_domain(&mut self, scope: &Scope, domain: &Domain) -> bool {
        let key = (
            scope.account.clone(),
            scope.region.clone(),
            domain.name.clone(),
        );
        self.0.put(|s| &mut s.domains, key, domain.clone())
    }

    /// Stores a type of domain `domain`; answers whether it is new.
    fn store_type(&mut self, domain: u64, ty: &TypeName, record: &AnyType) -> bool {
        let kind = match record {
            AnyType::Workflow(_) => Kind::Workflow,
            AnyType::Activity(_) => Kind::Activity,
        };
        let key = (domain, kind as u8, ty.name.clone(), ty.version.clone());
        self.0.put(|s| &mut s.types, key, record.clone())
    }

    /// Calls `each` with every visibility key of `run` in `listing` at `time`: one under each
    /// filter it matches.
    fn each_key(
        &mut self,
        run: &Run,
        listing: Listing,
        time: Timestamp,
        mut each: impl FnMut(&mut Self, VisibilityKey),
    ) {
        for filter in Filter::all_of(run, listing) {
            each(self, visibility_key(run, listing, time, &filter));
        }
    }
}

/// The key that lists `run` in `listing` at `time` under `filter`.
fn visibility_key(run: &Run, listing: Listing, time: Timestamp, filter: &Filter) -> VisibilityKey {
    let (f, value) = filter.key();
    let partition = (run.domain, listing as u8, f, value.into_owned());
    (partition, (time.as_millis(), run.seq))
}

/// The key of a task in `slot` of a list of kind `kind`.
fn task_key(domain: u64, kind: TaskKind, slot: &Slot) -> TaskKey {
    (domain, kind as u8, slot.list.clone(), slot.rank, slot.order)
}

impl RunWrites for Access<Tx<'_>> {
    fn put_run(&mut self, run: &Run) -> Result<(), StoreError> {
        self.0.put(|s| &mut s.runs, run.seq, run.clone());
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
        self.0
            .put(|s| &mut s.items, (seq, kind as u8, key), json.to_vec());
        if let Some(name) = name {
            self.0
                .put(|s| &mut s.item_names, (seq, kind as u8, name.into()), key);
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
        self.0.delete(|s| &mut s.items, &(seq, kind as u8, key));
        if let Some(name) = name {
            self.0
                .delete(|s| &mut s.item_names, &(seq, kind as u8, name.into()));
        }
        Ok(())
    }

    fn name_run(&mut self, run: &Run) -> Result<(), StoreError> {
        let (domain, id) = (run.domain, &run.execution);
        let (workflow_id, run_id) = (id.workflow_id.as_str(), id.run_id.as_str());
        let named = (domain, workflow_id.to_owned(), run_id.to_owned());
        self.0.put(|s| &mut s.run_ids, named, run.seq);
        if run.closed.is_none() {
            let open = (domain, workflow_id.to_owned());
            self.0.put(|s| &mut s.open_runs, open, run.seq);
        }
        Ok(())
    }

    fn unname_open_run(&mut self, run: &Run) -> Result<(), StoreError> {
        let key = (run.domain, run.execution.workflow_id.as_str().to_owned());
        if self.0.open_runs.get(&key) == Some(&run.seq) {
            self.0.delete(|s| &mut s.open_runs, &key);
        }
        Ok(())
    }

    fn purge_run(&mut self, run: &Run) -> Result<(), StoreError> {
        let (id, seq) = (&run.execution, run.seq);
        let named = (
            run.domain,
            id.workflow_id.as_str().to_owned(),
            id.run_id.as_str().to_owned(),
        );
        self.0.delete(|s| &mut s.run_ids, &named);
        self.0
            .delete_range(|s| &mut s.events, through((seq, 0), (seq, u64::MAX)));
        // A closed run has no open items; a record from before they were kept apart may.
        let items = through((seq, 0, 0), (seq, u8::MAX, u64::MAX));
        self.0.delete_range(|s| &mut s.items, items);
        let names = (
            Bound::Included((seq, 0, String::new())),
            Bound::Excluded((seq + 1, 0, String::new())),
        );
        self.0.delete_range(|s| &mut s.item_names, names);
        self.unlist_run(run, Listing::ClosedByStart, run.started_at)?;
        if let Some(closed) = run.closed {
            self.unlist_run(run, Listing::ClosedByClose, closed.at)?;
        }
        self.0.delete(|s| &mut s.runs, &seq);
        Ok(())
    }

    fn put_event(&mut self, seq: u64, event_id: u64, json: &[u8]) -> Result<(), StoreError> {
        self.0
            .put(|s| &mut s.events, (seq, event_id), json.to_vec());
        Ok(())
    }

    fn list_run(&mut self, run: &Run, listing: Listing, time: Timestamp) -> Result<(), StoreError> {
        self.each_key(run, listing, time, |tx, key| tx.0.set_listed(key, true));
        Ok(())
    }

    fn unlist_run(
        &mut self,
        run: &Run,
        listing: Listing,
        time: Timestamp,
    ) -> Result<(), StoreError> {
        self.each_key(run, listing, time, |tx, key| tx.0.set_listed(key, false));
        Ok(())
    }

    fn index_run(
        &mut self,
        run: &Run,
        listing: Listing,
        time: Timestamp,
        filter: &Filter<'_>,
        remove: bool,
    ) -> Result<(), StoreError> {
        let key = visibility_key(run, listing, time, filter);
        self.0.set_listed(key, !remove);
        Ok(())
    }

    fn push_task(
        &mut self,
        domain: u64,
        kind: TaskKind,
        slot: &Slot,
        task: (u64, u64),
    ) -> Result<(), StoreError> {
        self.0
            .put(|s| &mut s.tasks, task_key(domain, kind, slot), task);
        Ok(())
    }

    fn pop_task(
        &mut self,
        domain: u64,
        kind: TaskKind,
        list: &str,
    ) -> Result<Option<(u64, u64)>, StoreError> {
        let key = |rank, order| (domain, kind as u8, list.to_owned(), rank, order);
        let range = through(key(0, 0), key(u32::MAX, u64::MAX));
        let first = entries(&self.0.tasks, range).next();
        let Some((key, &task)) = first.map(|(key, task)| (key.clone(), task)) else {
            return Ok(None);
        };
        self.0.delete(|s| &mut s.tasks, &key);
        Ok(Some(task))
    }

    fn remove_task(&mut self, domain: u64, kind: TaskKind, slot: &Slot) -> Result<(), StoreError> {
        self.0
            .delete(|s| &mut s.tasks, &task_key(domain, kind, slot));
        Ok(())
    }

    fn keyed_queues(
        &mut self,
        domain: u64,
        kind: TaskKind,
        list: &str,
    ) -> Result<Vec<String>, StoreError> {
        let key = |queue: String, rank, order| (domain, kind as u8, queue, rank, order);
        let hi = key(keyed_queues_end(list), 0, 0);
        let mut keys = Vec::new();
        let mut after = list.to_owned();
        // One look per queue, skipping over each one's tasks.
        loop {
            let lo = key(after, u32::MAX, u64::MAX);
            let range = (Bound::Excluded(lo), Bound::Excluded(hi.clone()));
            let Some(((_, _, queue, _, _), _)) = entries(&self.0.tasks, range).next() else {
                return Ok(keys);
            };
            keys.push(queue_key(queue).1.to_owned());
            after = queue.clone();
        }
    }

    fn set_deadline(
        &mut self,
        at: Timestamp,
        seq: u64,
        event_id: u64,
        kind: Deadline,
    ) -> Result<(), StoreError> {
        let key = (at.as_millis(), seq, event_id, kind as u8);
        self.0.put(|s| &mut s.deadlines, key, ());
        Ok(())
    }

    fn clear_deadline(
        &mut self,
        at: Timestamp,
        seq: u64,
        event_id: u64,
        kind: Deadline,
    ) -> Result<(), StoreError> {
        let key = (at.as_millis(), seq, event_id, kind as u8);
        self.0.delete(|s| &mut s.deadlines, &key);
        Ok(())
    }

    fn take_due(&mut self, limit: usize) -> Result<Vec<Due>, StoreError> {
        let now = self.0.now.as_millis();
        let due = (
            Bound::Unbounded,
            Bound::Included((now, u64::MAX, u64::MAX, u8::MAX)),
        );
        let keys: Vec<_> = entries(&self.0.deadlines, due)
            .take(limit)
            .map(|(k, ())| *k)
            .collect();
        let mut taken = Vec::with_capacity(keys.len());
        for key in keys {
            self.0.delete(|s| &mut s.deadlines, &key);
            let (at, run, event_id, kind) = key;
            if let Some(kind) = Deadline::from_u8(kind) {
                let at = Timestamp::from_millis(at);
                taken.push(Due {
                    at,
                    run,
                    event_id,
                    kind,
                });
            }
        }
        Ok(taken)
    }
}

impl WasmWrites for Access<Tx<'_>> {
    fn notify_deciders(&mut self) -> Result<(), StoreError> {
        // One process: the caller tells its own workers.
        Ok(())
    }

    fn add_module(
        &mut self,
        account: &str,
        record: &ModuleRecord,
        code: &[u8],
    ) -> Result<(), StoreError> {
        let key = (account.to_owned(), record.digest.clone());
        let new = self.0.put(|s| &mut s.modules, key.clone(), record.clone());
        self.0.put(|s| &mut s.module_code, key, code.into());
        created("modules", &record.digest, new)
    }

    fn put_module(&mut self, account: &str, record: &ModuleRecord) -> Result<(), StoreError> {
        let key = (account.to_owned(), record.digest.clone());
        self.0.put(|s| &mut s.modules, key, record.clone());
        Ok(())
    }

    fn delete_module(&mut self, account: &str, digest: &str) -> Result<(), StoreError> {
        let key = (account.to_owned(), digest.to_owned());
        self.0.delete(|s| &mut s.modules, &key);
        self.0.delete(|s| &mut s.module_code, &key);
        Ok(())
    }

    fn put_binding(&mut self, domain: u64, binding: &Binding) -> Result<(), StoreError> {
        let key = (domain, binding.kind as u8, binding.name.clone());
        self.0.put(|s| &mut s.bindings, key, binding.clone());
        Ok(())
    }

    fn delete_binding(
        &mut self,
        domain: u64,
        kind: BindingKind,
        name: &str,
    ) -> Result<bool, StoreError> {
        let removed = (self.0).delete(|s| &mut s.bindings, &(domain, kind as u8, name.into()));
        let key = |seq| (domain, kind as u8, name.to_owned(), seq);
        let failures = through(key(0), key(u64::MAX));
        self.0.delete_range(|s| &mut s.guest_failures, failures);
        Ok(removed)
    }

    fn record_guest_failure(
        &mut self,
        domain: u64,
        kind: BindingKind,
        name: &str,
        failure: &GuestFailureRecord,
    ) -> Result<(), StoreError> {
        let seq = self.next_id()?;
        let key = |seq| (domain, kind as u8, name.to_owned(), seq);
        self.0
            .put(|s| &mut s.guest_failures, key(seq), failure.clone());
        let kept = through(key(0), key(u64::MAX));
        let held = entries(&self.0.guest_failures, kept.clone()).count();
        let oldest: Vec<_> = entries(&self.0.guest_failures, kept)
            .take(held.saturating_sub(FAILURES_KEPT))
            .map(|(key, _)| key.clone())
            .collect();
        for key in oldest {
            self.0.delete(|s| &mut s.guest_failures, &key);
        }
        Ok(())
    }
}

impl ScheduleWrites for Access<Tx<'_>> {
    fn put_schedule(&mut self, schedule: &Schedule) -> Result<(), StoreError> {
        let (seq, id) = (schedule.seq, (schedule.domain, schedule.id.clone()));
        self.0.put(|s| &mut s.schedules, seq, schedule.clone());
        self.0.put(|s| &mut s.schedule_ids, id, seq);
        Ok(())
    }

    fn delete_schedule(&mut self, schedule: &Schedule) -> Result<(), StoreError> {
        self.0.delete(|s| &mut s.schedules, &schedule.seq);
        let id = (schedule.domain, schedule.id.clone());
        self.0.delete(|s| &mut s.schedule_ids, &id);
        Ok(())
    }
}

impl ControlWrites for Access<Tx<'_>> {
    fn put_list_control(
        &mut self,
        (domain, kind, name): &ListKey,
        control: &ListControl,
        _quiet: bool,
    ) -> Result<(), StoreError> {
        let key = (*domain, *kind as u8, name.clone());
        match control.is_empty() {
            true => drop(self.0.delete(|s| &mut s.list_controls, &key)),
            false => drop(self.0.put(|s| &mut s.list_controls, key, control.clone())),
        }
        Ok(())
    }

    fn announce(&mut self, _key: &ListKey) -> Result<(), StoreError> {
        // One process: the engine offers the list to its own polls.
        Ok(())
    }
}

impl BatchWrites for Access<Tx<'_>> {
    fn put_batch(&mut self, batch: &BatchRecord) -> Result<(), StoreError> {
        self.0.put(|s| &mut s.batches, batch.seq, batch.clone());
        self.0
            .put(|s| &mut s.domain_batches, (batch.domain, batch.seq), ());
        Ok(())
    }

    fn delete_batch(&mut self, batch: &BatchRecord) -> Result<(), StoreError> {
        self.0.delete(|s| &mut s.batches, &batch.seq);
        self.0
            .delete(|s| &mut s.domain_batches, &(batch.domain, batch.seq));
        Ok(())
    }
}
