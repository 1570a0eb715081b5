//! PostgreSQL's side of the writes, in the writer's transaction. Writes answer nothing the
//! writer needs, so none waits for its answer: each is sent with the transaction's next read
//! or its commit (`session.rs`); most are kept by key and go grouped (`grouped.rs`). Modules,
//! bindings and guest failures are in `wasm_writes.rs`.

use crate::clock::Timestamp;
use crate::model::{AnyType, Domain, ItemKind, Kind, TaskKind};
use crate::model::{Run, Scope, Slot, TypeName, keyed_queues_end, queue_key};
use crate::store::StoreError;
use crate::store::codec::{decode, encode, encode_type};
use crate::store::seam::{
    Counter, Cursor, Deadline, DomainWrites, Due, Filter, HistoryCell, Listing, RunWrites, Writes,
};

use tokio_postgres::types::ToSql;

use super::conn::Step;
use super::grouped::{Entry, Kept, TaskKey};
use super::lists::{ListKey, Place};
use super::notices;
use super::pages::HistoryBounds;
use super::params::owned;
use super::reads::{Sql, big, from_big, unbig};
use super::run_items;
use super::session::{Link, Session, Writing};

/// How many ids the writer takes from the sequence at once.
const ID_BLOCK: i32 = 64;

impl<C: Link> Session<C, Writing> {
    /// Makes a statement that changes the database, sent with the next read or the commit.
    pub(super) fn write(&mut self, sql: &'static str, params: Vec<Box<dyn ToSql + Sync + Send>>) {
        self.mode.changed = true;
        self.defer(sql, params);
    }

    /// Keeps a write (`grouped.rs`), for the request being applied.
    fn keep<T>(&mut self, write: impl FnOnce(&mut Kept) -> T) -> T {
        self.mode.changed = true;
        let job = self.mode.job;
        self.mode.grouped.keep(job, write)
    }

    /// Queues task `(seq, scheduled)` at `place` on `list`.
    fn queue_task(&mut self, list: &ListKey, place: Place, (seq, scheduled): (u64, u64)) {
        let key = task_key(list, place);
        let row = (
            key.0,
            key.1,
            key.2.clone(),
            key.3,
            key.4,
            big(seq),
            big(scheduled),
        );
        self.keep(|kept| kept.tasks.put(key, row));
    }

    /// Takes the task at `place` off `list`: the write that queued it if it is not sent yet,
    /// else the task's row.
    fn unqueue_task(&mut self, list: &ListKey, place: Place) {
        let key = task_key(list, place);
        self.keep(|kept| {
            if !kept.tasks.withdraw(&key) {
                kept.tasks.delete(key);
            }
        });
    }

    /// Puts the tasks taken ahead that no claim took back on their lists.
    pub(super) fn give_back_unclaimed(&mut self) {
        let unclaimed: Vec<_> = self
            .mode
            .lists
            .unclaimed()
            .map(|(list, place, task)| (list.clone(), place, task))
            .collect();
        for (list, place, task) in unclaimed {
            self.queue_task(&list, place, task);
        }
    }

    /// Notes that a domain or a type changed: this node's catalog is emptied at the commit,
    /// and the other nodes' when they hear of it.
    fn catalog_changed(&mut self) {
        self.mode.catalog_changed = true;
        self.mode.notices.insert(notices::CATALOG.to_owned());
    }

    /// `run`'s visibility rows in `listing` at `time`, one for each filter it is indexed under.
    fn visibility(run: &Run, listing: Listing, time: Timestamp) -> Vec<Entry> {
        Filter::all_of(run, listing)
            .iter()
            .map(|filter| Self::entry(run, listing, time, filter))
            .collect()
    }

    /// `run`'s visibility row in `listing` at `time` under `filter`.
    fn entry(run: &Run, listing: Listing, time: Timestamp, filter: &Filter<'_>) -> Entry {
        let (f, value) = filter.key();
        (
            big(run.domain),
            listing as i16,
            i16::from(f),
            value.as_bytes().to_vec(),
            time.as_millis(),
            big(run.seq),
        )
    }
}

/// The key of the task at `place` on `list`.
fn task_key((domain, kind, list): &ListKey, (rank, order): Place) -> TaskKey {
    (
        big(*domain),
        *kind,
        list.clone(),
        i64::from(rank),
        big(order),
    )
}

impl<C: Link> Writes for Session<C, Writing> {
    fn now(&self) -> Timestamp {
        self.mode.now
    }

    fn after_commit(&mut self, action: Box<dyn FnOnce() + Send>) {
        self.mode.after_commit.push(action);
    }

    /// Sent with the `COMMIT`, after every write: no round trip of its own.
    fn history_at_commit(
        &mut self,
        seq: u64,
        (first, last): (u64, u64),
        cursor: Cursor<u64>,
        into: HistoryCell,
    ) -> Result<(), StoreError> {
        let page = HistoryBounds::new(seq, (first, last), cursor);
        self.mode.at_commit.push((page, into));
        Ok(())
    }

    /// Ids come from the shared sequence a block at a time, so that most cost no round trip:
    /// unique across nodes, and increasing on each node (though not across nodes: equal-
    /// priority tasks queued through two nodes at once may be handed out in either order).
    fn next_id(&mut self) -> Result<u64, StoreError> {
        if let Some(id) = self.mode.ids.take() {
            return Ok(id);
        }
        let rows = self.rows(
            "SELECT nextval('weft_ids') FROM generate_series(1, $1)",
            &[&ID_BLOCK],
        )?;
        let mut block: Vec<u64> = rows.iter().map(|row| unbig(row, 0)).collect();
        block.sort_unstable();
        self.mode.ids.refill(block);
        self.mode
            .ids
            .take()
            .ok_or_else(|| StoreError::Broken("the id sequence answered no ids".into()))
    }
}

impl<C: Link> DomainWrites for Session<C, Writing> {
    fn add_count(&mut self, domain: u64, counter: Counter, delta: i64) -> Result<(), StoreError> {
        self.add_to_counter(domain, counter, delta)
    }

    fn add_domain(&mut self, scope: &Scope, domain: &Domain) -> Result<(), StoreError> {
        // No ON CONFLICT: a domain of this name registered by another node first fails this
        // transaction, and its retry's check then finds that domain.
        self.catalog_changed();
        self.write(
            "INSERT INTO domains (account, region, name, record) VALUES ($1, $2, $3, $4)",
            owned![&scope.account, &scope.region, &domain.name, encode(domain)],
        );
        self.add_counters(domain.id);
        Ok(())
    }

    fn put_domain(&mut self, scope: &Scope, domain: &Domain) -> Result<(), StoreError> {
        self.catalog_changed();
        self.write(
            "UPDATE domains SET record = $4 WHERE account = $1 AND region = $2 AND name = $3",
            owned![&scope.account, &scope.region, &domain.name, encode(domain)],
        );
        Ok(())
    }

    fn add_stored_type(
        &mut self,
        domain: u64,
        ty: &TypeName,
        record: &AnyType,
    ) -> Result<(), StoreError> {
        let (kind, bytes) = encode_type(record);
        // No ON CONFLICT, as for domains: the loser's retry finds the winner's type.
        self.catalog_changed();
        self.write(
            "INSERT INTO types (domain, kind, name, version, record) VALUES ($1, $2, $3, $4, $5)",
            owned![big(domain), kind as i16, &ty.name, &ty.version, bytes],
        );
        Ok(())
    }

    fn put_stored_type(
        &mut self,
        domain: u64,
        ty: &TypeName,
        record: &AnyType,
    ) -> Result<(), StoreError> {
        let (kind, bytes) = encode_type(record);
        self.catalog_changed();
        self.write(
            "UPDATE types SET record = $5 \
             WHERE domain = $1 AND kind = $2 AND name = $3 AND version = $4",
            owned![big(domain), kind as i16, &ty.name, &ty.version, bytes],
        );
        Ok(())
    }

    fn delete_stored_type(
        &mut self,
        domain: u64,
        kind: Kind,
        ty: &TypeName,
    ) -> Result<(), StoreError> {
        self.catalog_changed();
        self.write(
            "DELETE FROM types WHERE domain = $1 AND kind = $2 AND name = $3 AND version = $4",
            owned![big(domain), kind as i16, &ty.name, &ty.version],
        );
        Ok(())
    }
}

impl<C: Link> RunWrites for Session<C, Writing> {
    fn put_run(&mut self, run: &Run) -> Result<(), StoreError> {
        self.mode.locked.put_run(run);
        let seq = big(run.seq);
        let row = (seq, encode(run));
        self.keep(|kept| kept.runs.put((seq,), row));
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
        // A name the locked run's items already give this key (an activity started, a timer
        // changed) is not written again.
        let locked = &self.mode.locked;
        let name = name.filter(|name| locked.item_named(seq, kind, name) != Some(Some(key)));
        locked.put(seq, kind, key, name, json);
        let (seq, kind, key) = (big(seq), kind as i16, big(key));
        self.keep(|kept| {
            kept.items
                .put((seq, kind, key), (seq, kind, key, json.to_vec()));
            if let Some(name) = name {
                let name = name.to_owned();
                kept.item_names
                    .put((seq, kind, name.clone()), (seq, kind, name, key));
            }
        });
        Ok(())
    }

    fn remove_item(
        &mut self,
        seq: u64,
        kind: ItemKind,
        key: u64,
        name: Option<&str>,
    ) -> Result<(), StoreError> {
        self.mode.locked.remove(seq, kind, key, name);
        let (seq, kind) = (big(seq), kind as i16);
        self.keep(|kept| {
            kept.items.delete((seq, kind, big(key)));
            if let Some(name) = name {
                kept.item_names.delete((seq, kind, name.to_owned()));
            }
        });
        Ok(())
    }

    fn name_run(&mut self, run: &Run) -> Result<(), StoreError> {
        let (domain, id, seq) = (
            big(run.domain),
            run.execution.workflow_id.as_str(),
            big(run.seq),
        );
        let open = run.closed.is_none();
        if open {
            self.mode.locked.run_opened(domain, id);
        }
        // An imported run keeps the start it was recorded with, whatever closed before it.
        if open && !run.imported {
            let started = (domain, id.as_bytes().to_vec(), run.started_at.as_millis());
            self.mode.started.borrow_mut().push(started);
        }
        // A run named here is new: the transaction knows all its items.
        self.mode.locked.adopt(run);
        let (id, run_id) = (id.to_owned(), run.execution.run_id.as_str().to_owned());
        self.keep(|kept| {
            let row = (domain, id.clone(), run_id.clone(), seq);
            kept.run_ids.put((domain, id.clone(), run_id), row);
            if open {
                kept.open_runs
                    .put((domain, id.clone(), seq), (domain, id, seq));
            }
        });
        Ok(())
    }

    fn unname_open_run(&mut self, run: &Run) -> Result<(), StoreError> {
        let id = run.execution.workflow_id.as_str();
        self.mode.locked.run_closed(big(run.domain), id);
        let key = (big(run.domain), id.to_owned(), big(run.seq));
        self.keep(|kept| kept.open_runs.delete(key));
        Ok(())
    }

    fn purge_run(&mut self, run: &Run) -> Result<(), StoreError> {
        self.mode.locked.forget(run.seq);
        self.mode.events.forget(big(run.seq));
        let seq = big(run.seq);
        let id = &run.execution;
        // After the writes kept and the events added in this transaction, whichever run they
        // are of: these statements delete what they may have written.
        self.send_events();
        self.write(
            "DELETE FROM run_ids WHERE domain = $1 AND workflow_id = $2 AND run_id = $3",
            owned![big(run.domain), id.workflow_id.as_str(), id.run_id.as_str()],
        );
        self.write("DELETE FROM events WHERE seq = $1", owned![seq]);
        self.write("DELETE FROM items WHERE seq = $1", owned![seq]);
        self.write("DELETE FROM item_names WHERE seq = $1", owned![seq]);
        self.unlist_run(run, Listing::ClosedByStart, run.started_at)?;
        if let Some(closed) = run.closed {
            self.unlist_run(run, Listing::ClosedByClose, closed.at)?;
        }
        // The unlisting kept, sent before the run's record goes.
        self.send_events();
        self.write("DELETE FROM runs WHERE seq = $1", owned![seq]);
        Ok(())
    }

    /// Events are the most numerous writes, and only ever added: they wait together and go
    /// in one statement (`events.rs`).
    fn put_event(&mut self, seq: u64, event_id: u64, json: &[u8]) -> Result<(), StoreError> {
        self.mode.changed = true;
        let job = self.mode.job;
        self.mode.events.add(job, big(seq), big(event_id), json);
        Ok(())
    }

    fn list_run(&mut self, run: &Run, listing: Listing, time: Timestamp) -> Result<(), StoreError> {
        let entries = Self::visibility(run, listing, time);
        self.keep(|kept| {
            for entry in entries {
                kept.visibility.put(entry.clone(), entry);
            }
        });
        Ok(())
    }

    fn unlist_run(
        &mut self,
        run: &Run,
        listing: Listing,
        time: Timestamp,
    ) -> Result<(), StoreError> {
        let entries = Self::visibility(run, listing, time);
        self.keep(|kept| {
            for entry in entries {
                kept.visibility.delete(entry);
            }
        });
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
        let entry = Self::entry(run, listing, time, filter);
        self.keep(|kept| match remove {
            true => kept.visibility.delete(entry),
            false => kept.visibility.put(entry.clone(), entry),
        });
        Ok(())
    }

    fn push_task(
        &mut self,
        domain: u64,
        kind: TaskKind,
        slot: &Slot,
        (seq, scheduled): (u64, u64),
    ) -> Result<(), StoreError> {
        let list = (domain, kind as i16, slot.list.clone());
        let place = (slot.rank, slot.order);
        self.queue_task(&list, place, (seq, scheduled));
        // On a list that holds no other task, the claim that often follows in this
        // transaction takes it back (`lists.rs`); the other nodes hear of it at the commit if
        // it is still there.
        if !self.mode.lists.queued(&list, place, (seq, scheduled)) {
            self.mode.notices.insert(notices::queued(&list));
        }
        Ok(())
    }

    fn pop_task(
        &mut self,
        domain: u64,
        kind: TaskKind,
        list: &str,
    ) -> Result<Option<(u64, u64)>, StoreError> {
        // A list known to hold no task but this transaction's own costs no round trip
        // (`lists.rs`): the engine tries one more pop than there are tasks when polls wait.
        let list_key = (domain, kind as i16, list.to_owned());
        if let Some(first) = self.mode.lists.pop(&list_key) {
            let Some((place, held)) = first else {
                return Ok(None);
            };
            self.mode.changed = true;
            if !held.taken {
                self.unqueue_task(&list_key, place);
            }
            return Ok(Some(held.task));
        }
        let (domain, kind) = (big(domain), kind as i16);
        let params: &[&(dyn ToSql + Sync)] = &[&domain, &kind, &list];
        let steps = [
            Step::Prepared(run_items::POP_LOCKING_RUN, params),
            Step::Prepared(run_items::POPPED_RUN_ITEMS, &[]),
        ];
        let mut answers = self.send(&steps)?.into_iter();
        let row = answers.next().and_then(|rows| rows.into_iter().next());
        let row = row.ok_or_else(|| StoreError::broken("a pop answered no row"))?;
        let (seq, scheduled): (Option<i64>, Option<i64>) = (row.get(0), row.get(1));
        let more: bool = row.get(2);
        let (Some(seq), Some(scheduled)) = (seq, scheduled) else {
            // Empty for this transaction; for the node too unless another transaction held
            // a task there, which it may give back.
            self.mode.lists.found_empty(list_key, !more);
            return Ok(None);
        };
        self.mode.changed = true;
        if !more {
            self.mode.lists.found_empty(list_key, true);
        }
        if let Some(json) = row.get::<_, Option<Vec<u8>>>(5) {
            self.mode.events.read(seq, scheduled, json);
        }
        let (seq, scheduled) = (from_big(seq), from_big(scheduled));
        // The claimer reads the task's run next: it is locked and read already.
        let items = answers.next().and_then(|rows| rows.into_iter().next());
        if let (Some(run), Some(items)) = (row.get::<_, Option<&[u8]>>(3), items)
            && self.mode.locked.run(seq).is_none()
        {
            self.mode.locked.load(decode("runs", run)?, &items);
        }
        Ok(Some((seq, scheduled)))
    }

    fn keyed_queues(
        &mut self,
        domain: u64,
        kind: TaskKind,
        list: &str,
    ) -> Result<Vec<String>, StoreError> {
        let end = keyed_queues_end(list);
        // One index look per queue (a loose index scan), not one per task.
        let rows = self.rows(
            "WITH RECURSIVE queue(list) AS ( \
                 SELECT min(list) FROM tasks \
                 WHERE domain = $1 AND kind = $2 AND list > $3 AND list < $4 \
               UNION ALL \
                 SELECT (SELECT min(t.list) FROM tasks t \
                         WHERE t.domain = $1 AND t.kind = $2 AND t.list > queue.list \
                           AND t.list < $4) \
                 FROM queue WHERE queue.list IS NOT NULL) \
             SELECT list FROM queue WHERE list IS NOT NULL",
            &[&big(domain), &(kind as i16), &list, &end],
        )?;
        let mut queues: Vec<String> = rows.iter().map(|row| row.get(0)).collect();
        // Tasks this transaction queued and holds in memory are not in the table yet.
        let own = (self.mode.lists.queued_on())
            .filter(|(d, k, q)| (*d, *k) == (domain, kind as i16) && q.as_str() > list && *q < end);
        queues.extend(own.map(|(_, _, q)| q.clone()));
        queues.sort();
        queues.dedup();
        Ok(queues
            .iter()
            .map(|queue| queue_key(queue).1.to_owned())
            .collect())
    }

    fn remove_task(&mut self, domain: u64, kind: TaskKind, slot: &Slot) -> Result<(), StoreError> {
        let list = (domain, kind as i16, slot.list.clone());
        let place = (slot.rank, slot.order);
        if !self.mode.lists.removed(&list, place) {
            self.unqueue_task(&list, place);
        }
        Ok(())
    }

    fn set_deadline(
        &mut self,
        at: Timestamp,
        seq: u64,
        event_id: u64,
        kind: Deadline,
    ) -> Result<(), StoreError> {
        let key = (at.as_millis(), big(seq), big(event_id), kind as i16);
        self.keep(|kept| kept.deadlines.put(key, key));
        let earliest = &mut self.mode.earliest_deadline;
        *earliest = Some(earliest.map_or(at, |e| e.min(at)));
        Ok(())
    }

    fn clear_deadline(
        &mut self,
        at: Timestamp,
        seq: u64,
        event_id: u64,
        kind: Deadline,
    ) -> Result<(), StoreError> {
        let key = (at.as_millis(), big(seq), big(event_id), kind as i16);
        self.keep(|kept| kept.deadlines.delete(key));
        Ok(())
    }

    fn take_due(&mut self, limit: usize) -> Result<Vec<Due>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // Deadlines another node is firing are locked, and skipped: each fires once.
        let rows = self.rows(
            "DELETE FROM deadlines WHERE (at, seq, event_id, kind) IN ( \
             SELECT at, seq, event_id, kind FROM deadlines WHERE at <= $1 \
             ORDER BY at, seq, event_id, kind LIMIT $2 FOR UPDATE SKIP LOCKED) \
             RETURNING at, seq, event_id, kind",
            &[&self.mode.now.as_millis(), &limit],
        )?;
        if !rows.is_empty() {
            self.mode.changed = true;
        }
        let mut due: Vec<_> = rows
            .iter()
            .filter_map(|row| {
                let kind = Deadline::from_u8(u8::try_from(row.get::<_, i16>(3)).ok()?)?;
                Some(Due {
                    at: Timestamp::from_millis(row.get(0)),
                    run: unbig(row, 1),
                    event_id: unbig(row, 2),
                    kind,
                })
            })
            .collect();
        due.sort_by_key(|d| (d.at, d.run, d.event_id, d.kind as u8));
        Ok(due)
    }
}
