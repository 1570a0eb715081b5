//! The writer's most numerous writes, events, which are only ever added, sent as one statement
//! instead of one each. They wait with the transaction's other writes and go at its next read
//! or its commit, after the writes made before them (`session.rs`); a write that deletes events
//! sends them first.
//! (The other single-row writes are kept by key instead, `grouped.rs`.)

use std::cell::RefCell;
use std::collections::HashMap;

use super::session::Pending;

/// Events added, not sent yet, sent as one statement; and every event the transaction added,
/// sent or not, or read with a task it took, by run and id, so that reading one back costs no
/// round trip. The transaction holds the lock of every run it adds events to, and events never
/// change once added, so these are what the database holds.
#[derive(Default)]
pub(super) struct Events {
    unsent: RefCell<Writes>,
    added: RefCell<HashMap<(i64, i64), Vec<u8>>>,
}

#[derive(Default)]
struct Writes {
    /// The request that added the first event: a failure of the statement is its.
    events_job: Option<usize>,
    seqs: Vec<i64>,
    ids: Vec<i64>,
    jsons: Vec<Vec<u8>>,
}

impl Events {
    /// Adds event `event_id` of run `seq`, made for request `job`.
    pub(super) fn add(&self, job: Option<usize>, seq: i64, event_id: i64, json: &[u8]) {
        let mut writes = self.unsent.borrow_mut();
        if writes.seqs.is_empty() {
            writes.events_job = job;
        }
        writes.seqs.push(seq);
        writes.ids.push(event_id);
        writes.jsons.push(json.to_vec());
        self.added
            .borrow_mut()
            .insert((seq, event_id), json.to_vec());
    }

    /// Keeps event `event_id` of run `seq`, read with the task it scheduled.
    pub(super) fn read(&self, seq: i64, event_id: i64, json: Vec<u8>) {
        self.added.borrow_mut().insert((seq, event_id), json);
    }

    /// Event `event_id` of run `seq`, if the transaction added or read it.
    pub(super) fn added(&self, seq: i64, event_id: i64) -> Option<Vec<u8>> {
        self.added.borrow().get(&(seq, event_id)).cloned()
    }

    /// Forgets the events added to run `seq`: it is purged.
    pub(super) fn forget(&self, seq: i64) {
        self.added.borrow_mut().retain(|&(run, _), _| run != seq);
    }

    /// Moves what waits to `pending`, as statements; forgets it.
    pub(super) fn take(&self, pending: &mut Vec<Pending>) {
        let writes = std::mem::take(&mut *self.unsent.borrow_mut());
        if !writes.seqs.is_empty() {
            pending.push(Pending {
                sql: "INSERT INTO events (seq, event_id, json) \
                      SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bytea[])",
                params: vec![
                    Box::new(writes.seqs),
                    Box::new(writes.ids),
                    Box::new(writes.jsons),
                ],
                job: writes.events_job,
            });
        }
    }
}
