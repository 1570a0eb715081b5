//! PostgreSQL's reads of runs: records and their names, histories, listings, task queues,
//! deadlines and open items; in the writer's transaction they lock the runs they read.

use std::collections::{HashMap, HashSet};

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::conn::Step;
use super::lists::ListKey;
use super::pages::{HistoryBounds, history_page};
use super::reads::{Params, Sql as _, big, bytes, from_big, page_of, past, unbig};
use super::run_items;
use super::session::{Link, Mode, Session, Writing};
use crate::clock::Timestamp;
use crate::model::{ItemKind, Queued, Run, RunId, TaskKind, WorkflowId};
use crate::store::StoreError;
use crate::store::codec::decode;
use crate::store::seam::Deadline;
use crate::store::seam::{Cursor, Filter, Listing, Page, RunReads};

/// How many times [`RunReads::open_run`] reads a workflow's open run that keeps changing.
const MOST_TRIES: usize = 8;

fn run_of(row: Option<Row>) -> Result<Option<Run>, StoreError> {
    row.map(|row| decode("runs", bytes(&row, 0))).transpose()
}

impl<C: Link> Session<C, Writing> {
    /// Reads what a batch's requests are about, in one round trip for them all instead of one
    /// each: the runs `seqs`, locked, with their items, for the requests that change them
    /// (a run not found is left for its request to find missing); which of the workflows
    /// `starts` (domain, id) have no open run, for the requests that start them; and, for the
    /// polls, as many tasks of each of `polls` (list, count) as poll there, taken off the
    /// list, with their runs locked and read (`lists.rs`).
    pub(super) fn read_ahead(
        &mut self,
        seqs: &[i64],
        starts: &[(i64, String)],
        polls: &[(ListKey, i64)],
    ) -> Result<(), StoreError> {
        let (domains, ids): (Vec<i64>, Vec<&str>) =
            starts.iter().map(|(d, id)| (*d, id.as_str())).unzip();
        let (runs, open): (&Params<'_>, &Params<'_>) = (&[&seqs], &[&domains, &ids]);
        let keys: Vec<(i64, i16, &str, i64)> = polls
            .iter()
            .map(|((domain, kind, list), n)| (big(*domain), *kind, list.as_str(), *n))
            .collect();
        let takes: Vec<[&(dyn ToSql + Sync); 4]> = keys
            .iter()
            .map(|(domain, kind, list, n)| [domain as _, kind as _, list as _, n as _])
            .collect();
        let mut steps = Vec::with_capacity(3 + polls.len());
        if !starts.is_empty() {
            steps.push(Step::Prepared(run_items::OPEN_OF, open));
        }
        for take in &takes {
            steps.push(Step::Prepared(run_items::POP_AHEAD, take));
        }
        // The runs named and those of the tasks taken, locked together in one order.
        let lock = !seqs.is_empty() || !polls.is_empty();
        if lock {
            steps.push(Step::Prepared(run_items::lock_runs(), runs));
            steps.push(Step::Prepared(run_items::RUNS_ITEMS, runs));
        }
        let mut answers = self.send(&steps)?.into_iter();
        if !starts.is_empty() {
            let rows = answers.next().unwrap_or_default();
            let open: HashSet<(i64, String)> = rows
                .iter()
                .map(|row| (row.get(0), row.get::<_, String>(1)))
                .collect();
            for start in starts.iter().filter(|start| !open.contains(start)) {
                self.mode.locked.none_open(start.0, start.1.clone());
            }
        }
        for (list, _) in polls {
            let row = answers.next().and_then(|rows| rows.into_iter().next());
            let row = row.ok_or_else(|| StoreError::broken("a pop ahead answered no row"))?;
            let column = |i| row.get::<_, Option<Vec<i64>>>(i).unwrap_or_default();
            let places = column(0).into_iter().zip(column(1));
            let tasks: Vec<(i64, i64)> = column(2).into_iter().zip(column(3)).collect();
            let events = row.get::<_, Option<Vec<Option<Vec<u8>>>>>(6);
            for (&(seq, scheduled), json) in tasks.iter().zip(events.unwrap_or_default()) {
                if let Some(json) = json {
                    self.mode.events.read(seq, scheduled, json);
                }
            }
            let taken: Vec<_> = places
                .zip(tasks)
                .map(|((rank, ord), (seq, scheduled))| {
                    let rank = u32::try_from(rank).unwrap_or(u32::MAX);
                    ((rank, from_big(ord)), (from_big(seq), from_big(scheduled)))
                })
                .collect();
            if !taken.is_empty() {
                // Taken off the list: given back or claimed, at the commit.
                self.mode.changed = true;
            }
            self.mode.lists.taken(list.clone(), taken, row.get(4));
        }
        if lock {
            self.load_runs(answers.next(), answers.next())?;
        }
        Ok(())
    }

    /// Whether the guesses that a workflow has no open run, which a request relied on and no
    /// insert of an open run checked, hold: read now (no round trip if there are none).
    pub(super) fn guesses_hold(&mut self) -> Result<bool, StoreError> {
        let Ok(unchecked) = self.mode.locked.unchecked_guesses() else {
            return Ok(false);
        };
        if unchecked.is_empty() {
            return Ok(true);
        }
        let (domains, ids): (Vec<i64>, Vec<&str>) =
            unchecked.iter().map(|(d, id)| (*d, id.as_str())).unzip();
        let answers = self.send(&[Step::Prepared(run_items::OPEN_OF, &[&domains, &ids])])?;
        Ok(answers.first().is_none_or(Vec::is_empty))
    }

    /// Keeps the runs locked by `rows` with their items from `items` (a run read already is
    /// kept as it was).
    fn load_runs(&self, rows: Option<Vec<Row>>, items: Option<Vec<Row>>) -> Result<(), StoreError> {
        let mut runs: HashMap<u64, Run> = HashMap::new();
        for row in rows.unwrap_or_default() {
            runs.insert(unbig(&row, 0), decode("runs", bytes(&row, 1))?);
        }
        for row in items.unwrap_or_default() {
            if let Some(run) = runs.remove(&unbig(&row, 6))
                && self.mode.locked.run(run.seq).is_none()
            {
                self.mode.locked.load(run, &row);
            }
        }
        Ok(())
    }
}

impl<C: Link, M: Mode> RunReads for Session<C, M> {
    fn run(&self, seq: u64) -> Result<Option<Run>, StoreError> {
        if let Some(locked) = self.mode.locked() {
            if let Some(run) = locked.run(seq) {
                return Ok(Some(run));
            }
            // The run, locked, then its items: one round trip.
            let seq = big(seq);
            let params: &Params<'_> = &[&seq];
            let steps = [
                Step::Prepared(run_items::lock_run(), params),
                Step::Prepared(run_items::RUN_ITEMS, params),
            ];
            let mut answers = self.send(&steps)?.into_iter().map(Vec::into_iter);
            let (mut run, mut items) = (answers.next(), answers.next());
            let Some(row) = run.as_mut().and_then(Iterator::next) else {
                return Ok(None);
            };
            let run: Run = decode("runs", bytes(&row, 0))?;
            let items = items.as_mut().and_then(Iterator::next);
            let items = items.ok_or_else(|| StoreError::broken("a run's items read no row"))?;
            locked.load(run.clone(), &items);
            return Ok(Some(run));
        }
        let sql = self.pick(
            "SELECT record FROM runs WHERE seq = $1",
            "SELECT record FROM runs WHERE seq = $1 FOR UPDATE",
        );
        run_of(self.row(sql, &[&big(seq)])?)
    }

    fn run_named(
        &self,
        domain: u64,
        workflow_id: &WorkflowId,
        run_id: &RunId,
    ) -> Result<Option<Run>, StoreError> {
        let sql = self.pick(
            "SELECT r.record FROM run_ids i JOIN runs r ON r.seq = i.seq \
             WHERE i.domain = $1 AND i.workflow_id = $2 AND i.run_id = $3",
            "SELECT r.record FROM run_ids i JOIN runs r ON r.seq = i.seq \
             WHERE i.domain = $1 AND i.workflow_id = $2 AND i.run_id = $3 FOR UPDATE OF r",
        );
        let (id, run) = (workflow_id.as_str(), run_id.as_str());
        run_of(self.row(sql, &[&big(domain), &id, &run])?)
    }

    fn open_run(&self, domain: u64, workflow_id: &WorkflowId) -> Result<Option<Run>, StoreError> {
        let (domain, id) = (big(domain), workflow_id.as_str());
        if !self.locks() {
            return run_of(self.row(
                "SELECT r.record FROM open_runs o JOIN runs r ON r.seq = o.seq \
                 WHERE o.domain = $1 AND o.workflow_id = $2",
                &[&domain, &id],
            )?);
        }
        if self
            .mode
            .locked()
            .is_some_and(|locked| locked.has_none_open(domain, id))
        {
            return Ok(None);
        }
        // The workflow's open-run row locked, then read again by a statement of its own: a
        // statement that waited for the lock reads as of its start, so it would miss a run
        // opened meanwhile (a continue-as-new on another node). The answer stands once both
        // name the same run (or none): the lock then keeps it the open one. One round trip
        // each time; another only if the open run changed while this waited.
        let params: &Params<'_> = &[&domain, &id];
        for _ in 0..MOST_TRIES {
            let steps = [
                Step::Prepared(
                    "SELECT seq FROM open_runs WHERE domain = $1 AND workflow_id = $2 FOR UPDATE",
                    params,
                ),
                Step::Prepared(
                    "SELECT o.seq, r.record FROM open_runs o JOIN runs r ON r.seq = o.seq \
                     WHERE o.domain = $1 AND o.workflow_id = $2 FOR UPDATE OF r",
                    params,
                ),
            ];
            let answers = self.send(&steps)?;
            let seq = |answer: usize| answers[answer].first().map(|row| row.get::<_, i64>(0));
            if seq(0) == seq(1) {
                let Some(row) = answers[1].first() else {
                    return Ok(None);
                };
                return decode("runs", bytes(row, 1)).map(Some);
            }
        }
        Err(StoreError::Busy(format!(
            "the open run of {id} changed {MOST_TRIES} times while it was read"
        )))
    }

    fn start_floor(
        &self,
        domain: u64,
        workflow_id: &WorkflowId,
    ) -> Result<Option<Timestamp>, StoreError> {
        if !self.mode.reads_floors() {
            return Ok(None);
        }
        let row = self.row(
            "SELECT max(time) FROM visibility WHERE domain = $1 AND listing = 2 \
             AND filter = 1 AND value = $2",
            &[&big(domain), &workflow_id.as_str().as_bytes()],
        )?;
        let at = row.and_then(|row| row.get::<_, Option<i64>>(0));
        Ok(at.map(Timestamp::from_millis))
    }

    fn history(
        &self,
        seq: u64,
        first: u64,
        last: u64,
        cursor: Cursor<u64>,
    ) -> Result<Page<(u64, Vec<u8>)>, StoreError> {
        let (sql, [a, b, c, d]) = HistoryBounds::new(seq, (first, last), cursor).statement();
        history_page(self.rows(sql, &[&a, &b, &c, &d])?, cursor.limit)
    }

    fn event(&self, seq: u64, event_id: u64) -> Result<Option<Vec<u8>>, StoreError> {
        // One this transaction added (the scheduling of an activity it hands out now).
        if let Some(json) = self.mode.added_event(big(seq), big(event_id)) {
            return Ok(Some(json));
        }
        let row = self.row(
            "SELECT json FROM events WHERE seq = $1 AND event_id = $2",
            &[&big(seq), &big(event_id)],
        )?;
        Ok(row.map(|row| bytes(&row, 0).to_vec()))
    }

    fn listed_runs(
        &self,
        domain: u64,
        listing: Listing,
        filter: &Filter<'_>,
        (from, to): (Timestamp, Timestamp),
        cursor: Cursor<(i64, u64)>,
    ) -> Result<Page<Run>, StoreError> {
        let (f, value) = filter.key();
        let (f, value) = (i16::from(f), value.as_bytes());
        let (domain, l, n) = (big(domain), listing as i16, past(cursor.limit));
        let (from, to) = (from.as_millis(), to.as_millis());
        let rows = if cursor.reverse {
            // Before the cursor, or through `to`: seqs are never negative.
            let (time, seq) = cursor
                .after
                .map_or((to.saturating_add(1), -1), |(t, s)| (t, big(s)));
            self.rows(
                "SELECT r.record FROM visibility v JOIN runs r ON r.seq = v.seq \
                 WHERE v.domain = $1 AND v.listing = $2 AND v.filter = $3 AND v.value = $4 \
                 AND v.time >= $5 AND (v.time, v.seq) < ($6, $7) \
                 ORDER BY v.time DESC, v.seq DESC LIMIT $8",
                &[&domain, &l, &f, &value, &from, &time, &seq, &n],
            )?
        } else {
            let (time, seq) = cursor.after.map_or((from, -1), |(t, s)| (t, big(s)));
            self.rows(
                "SELECT r.record FROM visibility v JOIN runs r ON r.seq = v.seq \
                 WHERE v.domain = $1 AND v.listing = $2 AND v.filter = $3 AND v.value = $4 \
                 AND (v.time, v.seq) > ($5, $6) AND v.time <= $7 \
                 ORDER BY v.time, v.seq LIMIT $8",
                &[&domain, &l, &f, &value, &time, &seq, &to, &n],
            )?
        };
        page_of(rows, cursor.limit, |row| decode("runs", bytes(row, 0)))
    }

    fn count_listed(
        &self,
        domain: u64,
        listing: Listing,
        filter: &Filter<'_>,
        (from, to): (Timestamp, Timestamp),
    ) -> Result<u64, StoreError> {
        let (f, value) = filter.key();
        let row = self.row(
            "SELECT count(*) FROM visibility WHERE domain = $1 AND listing = $2 \
             AND filter = $3 AND value = $4 AND time >= $5 AND time <= $6",
            &[
                &big(domain),
                &(listing as i16),
                &i16::from(f),
                &value.as_bytes(),
                &from.as_millis(),
                &to.as_millis(),
            ],
        )?;
        Ok(row.map_or(0, |row| unbig(&row, 0)))
    }

    fn pending_tasks(&self, domain: u64, kind: TaskKind, list: &str) -> Result<u64, StoreError> {
        // The list's own queue and its keys' queues, which sort right after it.
        let end = crate::model::keyed_queues_end(list);
        let row = self.row(
            "SELECT count(*) FROM tasks \
             WHERE domain = $1 AND kind = $2 AND list >= $3 AND list < $4",
            &[&big(domain), &(kind as i16), &list, &end],
        )?;
        Ok(row.map_or(0, |row| unbig(&row, 0)))
    }

    fn queued(&self, domain: Option<u64>) -> Result<Vec<Queued>, StoreError> {
        let rows = self.rows(
            "SELECT domain, kind, list, count(*) FROM tasks \
             WHERE ($1::bigint IS NULL OR domain = $1) \
             GROUP BY domain, kind, list ORDER BY domain, kind, list",
            &[&domain.map(big)],
        )?;
        rows.iter()
            .map(|row| {
                let kind = u8::try_from(row.get::<_, i16>(1)).ok();
                Ok(Queued {
                    domain: unbig(row, 0),
                    kind: kind
                        .and_then(TaskKind::from_key)
                        .ok_or_else(|| StoreError::broken("task kind"))?,
                    list: row.get(2),
                    count: unbig(row, 3),
                })
            })
            .collect()
    }

    fn next_deadline(&self, purges: bool) -> Result<Option<Timestamp>, StoreError> {
        let skipped: Vec<i16> = [Deadline::Purge, Deadline::Schedule, Deadline::Batch]
            .map(|d| d as i16)
            .into();
        let row = match purges {
            true => self.row("SELECT at FROM deadlines ORDER BY at LIMIT 1", &[])?,
            false => self.row(
                "SELECT at FROM deadlines WHERE kind <> ALL($1) ORDER BY at LIMIT 1",
                &[&skipped],
            )?,
        };
        Ok(row.map(|row| Timestamp::from_millis(row.get(0))))
    }

    #[cfg(debug_assertions)]
    fn history_seqs(&self) -> Result<Vec<u64>, StoreError> {
        let rows = self.rows("SELECT DISTINCT seq FROM events ORDER BY seq", &[])?;
        Ok(rows.iter().map(|row| unbig(row, 0)).collect())
    }

    fn item(&self, seq: u64, kind: ItemKind, key: u64) -> Result<Option<Vec<u8>>, StoreError> {
        if let Some(item) = self.mode.locked().and_then(|l| l.item(seq, kind, key)) {
            return Ok(item);
        }
        let row = self.row(
            "SELECT json FROM items WHERE seq = $1 AND kind = $2 AND key = $3",
            &[&big(seq), &(kind as i16), &big(key)],
        )?;
        Ok(row.map(|row| bytes(&row, 0).to_vec()))
    }

    fn item_named(&self, seq: u64, kind: ItemKind, name: &str) -> Result<Option<u64>, StoreError> {
        if let Some(key) = self
            .mode
            .locked()
            .and_then(|l| l.item_named(seq, kind, name))
        {
            return Ok(key);
        }
        let row = self.row(
            "SELECT key FROM item_names WHERE seq = $1 AND kind = $2 AND name = $3",
            &[&big(seq), &(kind as i16), &name],
        )?;
        Ok(row.map(|row| unbig(&row, 0)))
    }

    fn item_keys(&self, seq: u64, kind: ItemKind) -> Result<Vec<u64>, StoreError> {
        if let Some(keys) = self.mode.locked().and_then(|l| l.item_keys(seq, kind)) {
            return Ok(keys);
        }
        let rows = self.rows(
            "SELECT key FROM items WHERE seq = $1 AND kind = $2 ORDER BY key",
            &[&big(seq), &(kind as i16)],
        )?;
        Ok(rows.iter().map(|row| unbig(row, 0)).collect())
    }
}
