//! Run records and deadlines, the writer's most frequent single-row writes after events, kept
//! by key until the transaction's next read or its commit and then sent as one statement each
//! when there are enough of them: a batch read ahead (`run_reads.rs`) sends most of its writes
//! together, and a batch of seven requests makes about fifty of these.
//!
//! Each key ends in the state its last write gave it, which is what the writes in order would
//! leave: a run's record is the last put; a deadline is set (`ON CONFLICT DO NOTHING`) or
//! cleared. Nothing the writer sends with them reads these tables; a write that deletes runs
//! sends them first (`writes.rs`).
//!
//! Fewer rows go one statement each: measured, an `unnest` statement of one or two rows costs
//! the database more than the single-row statements it replaces.

use std::cell::RefCell;
use std::collections::BTreeMap;

use super::params::owned;
use super::session::Pending;

/// The fewest rows sent as one statement.
const GROUP_FROM: usize = 3;

/// A deadline's key: when, run, event, kind.
type DeadlineKey = (i64, i64, i64, i16);

/// Writes kept, not sent yet.
#[derive(Default)]
pub(super) struct Grouped(RefCell<Kept>);

#[derive(Default)]
struct Kept {
    /// The request that made the first write kept: a failure of a grouped statement is its.
    job: Option<usize>,
    runs: BTreeMap<i64, Vec<u8>>,
    /// Whether each deadline is set (else cleared).
    deadlines: BTreeMap<DeadlineKey, bool>,
}

const PUT_RUN: &str = "INSERT INTO runs (seq, record) VALUES ($1, $2) \
     ON CONFLICT (seq) DO UPDATE SET record = excluded.record";
const PUT_RUNS: &str = "INSERT INTO runs (seq, record) \
     SELECT * FROM unnest($1::bigint[], $2::bytea[]) \
     ON CONFLICT (seq) DO UPDATE SET record = excluded.record";
const SET_DEADLINE: &str = "INSERT INTO deadlines (at, seq, event_id, kind) \
     VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING";
const SET_DEADLINES: &str = "INSERT INTO deadlines (at, seq, event_id, kind) \
     SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::smallint[]) \
     ON CONFLICT DO NOTHING";
const CLEAR_DEADLINE: &str =
    "DELETE FROM deadlines WHERE at = $1 AND seq = $2 AND event_id = $3 AND kind = $4";
const CLEAR_DEADLINES: &str = "DELETE FROM deadlines WHERE (at, seq, event_id, kind) IN \
     (SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::smallint[]))";

impl Grouped {
    fn keep(&self, job: Option<usize>, write: impl FnOnce(&mut Kept)) {
        let mut kept = self.0.borrow_mut();
        if kept.runs.is_empty() && kept.deadlines.is_empty() {
            kept.job = job;
        }
        write(&mut kept);
    }

    /// Puts run `seq`'s record, for request `job`.
    pub(super) fn put_run(&self, job: Option<usize>, seq: i64, record: Vec<u8>) {
        self.keep(job, |kept| {
            kept.runs.insert(seq, record);
        });
    }

    /// Sets (or clears) the deadline `key`, for request `job`.
    pub(super) fn deadline(&self, job: Option<usize>, key: DeadlineKey, set: bool) {
        self.keep(job, |kept| {
            kept.deadlines.insert(key, set);
        });
    }

    /// Moves what is kept to `pending`, as statements; forgets it.
    pub(super) fn take(&self, pending: &mut Vec<Pending>) {
        let Kept {
            job,
            runs,
            deadlines,
        } = std::mem::take(&mut *self.0.borrow_mut());
        let mut push = |sql, params| {
            pending.push(Pending {
                sql,
                params,
                job,
                queues: None,
            });
        };
        if runs.len() >= GROUP_FROM {
            let (seqs, records): (Vec<_>, Vec<_>) = runs.into_iter().unzip();
            push(PUT_RUNS, owned![seqs, records]);
        } else {
            for (seq, record) in runs {
                push(PUT_RUN, owned![seq, record]);
            }
        }
        let (set, cleared): (Vec<_>, Vec<_>) = deadlines.into_iter().partition(|(_, set)| *set);
        for (keys, one, many) in [
            (set, SET_DEADLINE, SET_DEADLINES),
            (cleared, CLEAR_DEADLINE, CLEAR_DEADLINES),
        ] {
            if keys.len() >= GROUP_FROM {
                let mut columns = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                for ((at, seq, event_id, kind), _) in keys {
                    columns.0.push(at);
                    columns.1.push(seq);
                    columns.2.push(event_id);
                    columns.3.push(kind);
                }
                push(many, owned![columns.0, columns.1, columns.2, columns.3]);
            } else {
                for ((at, seq, event_id, kind), _) in keys {
                    push(one, owned![at, seq, event_id, kind]);
                }
            }
        }
    }
}
