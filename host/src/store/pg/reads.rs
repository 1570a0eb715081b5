//! PostgreSQL's side of the reads: the same trait implementations for a snapshot and for the
//! writer's transaction, which differ in one thing: the writer's reads of runs and counters
//! lock the rows they read (`FOR UPDATE`), so that two nodes changing one run, or checking
//! one limit, apply one after the other.

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::conn::Step;
use super::run_items;
use super::session::{Link, Mode, Session};
use crate::clock::Timestamp;
use crate::model::{
    AnyType, Domain, ItemKind, Kind, Queued, Run, RunId, Scope, TaskKind, TypeName, WorkflowId,
};
use crate::store::StoreError;
use crate::store::codec::{decode, decode_type};
use crate::store::seam::{Counter, Cursor, DomainReads, Filter, Listing, Page, RunReads};

/// Parameters of a statement.
pub(super) type Params<'a> = [&'a (dyn ToSql + Sync)];

/// Runs statements in one transaction: a snapshot's or the writer's.
pub(super) trait Sql {
    /// The rows `sql` answers.
    fn rows(&self, sql: &'static str, params: &Params<'_>) -> Result<Vec<Row>, StoreError>;

    /// Whether reads lock the runs and counters they read: in the writer's transaction.
    fn locks(&self) -> bool;

    /// The one row `sql` answers, if any.
    fn row(&self, sql: &'static str, params: &Params<'_>) -> Result<Option<Row>, StoreError> {
        Ok(self.rows(sql, params)?.into_iter().next())
    }

    /// `sql`, or `locking` in the writer's transaction.
    fn pick(&self, sql: &'static str, locking: &'static str) -> &'static str {
        if self.locks() { locking } else { sql }
    }

    /// In the writer's transaction, waits for and takes `account`'s lock on `what` (one
    /// advisory lock per schema, account and `what`) until the transaction ends; elsewhere
    /// does nothing. For checks that depend on all of an account's records of a kind.
    fn lock_account(&self, what: &str, account: &str) -> Result<(), StoreError> {
        if self.locks() {
            self.rows(
                "SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || $1 || $2, 0))",
                &[&what, &account],
            )?;
        }
        Ok(())
    }
}

/// A number the store keeps as `u64`, as PostgreSQL's `bigint`: ids and seqs stay far below
/// 2^63.
pub(super) fn big(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A `bigint` column read back as the store's `u64`.
pub(super) fn unbig(row: &Row, column: usize) -> u64 {
    u64::try_from(row.get::<_, i64>(column)).unwrap_or(0)
}

pub(super) fn bytes(row: &Row, column: usize) -> &[u8] {
    row.get(column)
}

/// How many rows a page reads at a time when a filter in Rust may drop some.
const CHUNK: usize = 256;

/// A page read in chunks: `fetch(after, n)` answers up to `n` rows after a position, in
/// reading order, each with its position; `keep` picks the items. For listings whose filter
/// is applied to the decoded records (domains and types by status).
fn chunked<P: Clone, T>(
    cursor: Cursor<P>,
    mut fetch: impl FnMut(Option<&P>, i64) -> Result<Vec<(P, Option<T>)>, StoreError>,
) -> Result<Page<T>, StoreError> {
    let mut page = Page {
        items: Vec::new(),
        more: false,
    };
    let mut after = cursor.after;
    loop {
        let rows = fetch(after.as_ref(), CHUNK as i64)?;
        let full = rows.len() == CHUNK;
        for (position, item) in rows {
            after = Some(position);
            let Some(item) = item else { continue };
            if page.items.len() == cursor.limit {
                page.more = true;
                return Ok(page);
            }
            page.items.push(item);
        }
        if !full {
            return Ok(page);
        }
    }
}

/// A page from rows read `limit + 1` at a time: the extra one only tells that more follow.
fn page_of<T>(
    rows: Vec<Row>,
    limit: usize,
    item: impl Fn(&Row) -> Result<T, StoreError>,
) -> Result<Page<T>, StoreError> {
    let more = rows.len() > limit;
    let items = rows
        .iter()
        .take(limit)
        .map(item)
        .collect::<Result<_, _>>()?;
    Ok(Page { items, more })
}

/// The `LIMIT` that reads one row past a page.
fn past(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX - 1) + 1
}

/// A domain by scope and name; the same, locked for the writer's change.
const DOMAIN: &str = "SELECT record FROM domains WHERE account = $1 AND region = $2 AND name = $3";
const DOMAIN_LOCKED: &str =
    "SELECT record FROM domains WHERE account = $1 AND region = $2 AND name = $3 FOR UPDATE";

/// A type by domain, kind, name and version; the same, locked for the writer's change.
const TYPE: &str =
    "SELECT record FROM types WHERE domain = $1 AND kind = $2 AND name = $3 AND version = $4";
const TYPE_LOCKED: &str = "SELECT record FROM types WHERE domain = $1 AND kind = $2 \
                           AND name = $3 AND version = $4 FOR UPDATE";

impl<C: Link, M: Mode> Session<C, M> {
    /// The domain `sql` ([`DOMAIN`] or [`DOMAIN_LOCKED`]) reads.
    fn domain_by(
        &self,
        sql: &'static str,
        scope: &Scope,
        name: &str,
    ) -> Result<Option<Domain>, StoreError> {
        let row = self.row(sql, &[&scope.account, &scope.region, &name])?;
        row.map(|row| decode("domains", bytes(&row, 0))).transpose()
    }

    /// The type `sql` ([`TYPE`] or [`TYPE_LOCKED`]) reads.
    fn type_by(
        &self,
        sql: &'static str,
        domain: u64,
        kind: Kind,
        name: &str,
        version: &str,
    ) -> Result<Option<AnyType>, StoreError> {
        let row = self.row(sql, &[&big(domain), &(kind as i16), &name, &version])?;
        row.map(|row| decode_type(kind, bytes(&row, 0))).transpose()
    }
}

impl<C: Link, M: Mode> DomainReads for Session<C, M> {
    fn domain(&self, scope: &Scope, name: &str) -> Result<Option<Domain>, StoreError> {
        if !self.cached() {
            return self.domain_by(DOMAIN, scope, name);
        }
        if let Some(domain) = self.catalog.domain(scope, name) {
            return Ok(Some(domain));
        }
        let found = self.domain_by(DOMAIN, scope, name)?;
        if let Some(domain) = &found {
            self.catalog.keep_domain(self.generation, scope, domain);
        }
        Ok(found)
    }

    fn domain_to_change(&self, scope: &Scope, name: &str) -> Result<Option<Domain>, StoreError> {
        self.domain_by(self.pick(DOMAIN, DOMAIN_LOCKED), scope, name)
    }

    fn domains(
        &self,
        scope: &Scope,
        cursor: Cursor<&str>,
        keep: &dyn Fn(&Domain) -> bool,
    ) -> Result<Page<Domain>, StoreError> {
        let cursor = Cursor {
            after: cursor.after.map(str::to_owned),
            reverse: cursor.reverse,
            limit: cursor.limit,
        };
        let reverse = cursor.reverse;
        chunked(cursor, |after, n| {
            let (account, region) = (&scope.account, &scope.region);
            let rows = if reverse {
                self.rows(
                    "SELECT name, record FROM domains WHERE account = $1 AND region = $2 \
                     AND ($3::text IS NULL OR name < $3) ORDER BY name DESC LIMIT $4",
                    &[account, region, &after, &n],
                )?
            } else {
                let after = after.map_or("", String::as_str);
                self.rows(
                    "SELECT name, record FROM domains WHERE account = $1 AND region = $2 \
                     AND name > $3 ORDER BY name LIMIT $4",
                    &[account, region, &after, &n],
                )?
            };
            rows.iter()
                .map(|row| {
                    let domain: Domain = decode("domains", bytes(row, 1))?;
                    Ok((row.get(0), keep(&domain).then_some(domain)))
                })
                .collect()
        })
    }

    fn domain_count(&self, account: &str, cap: usize) -> Result<usize, StoreError> {
        // Registrations of an account's domains check the limit one after another: the count
        // below, a statement of its own, then sees every domain committed before.
        self.lock_account(" domains ", account)?;
        let cap = i64::try_from(cap).unwrap_or(i64::MAX);
        let row = self.row(
            "SELECT count(*) FROM (SELECT 1 FROM domains WHERE account = $1 LIMIT $2) capped",
            &[&account, &cap],
        )?;
        Ok(row.map_or(0, |row| usize::try_from(row.get::<_, i64>(0)).unwrap_or(0)))
    }

    fn every_domain(&self) -> Result<Vec<(Scope, Domain)>, StoreError> {
        let rows = self.rows(
            "SELECT account, region, record FROM domains ORDER BY account, region, name",
            &[],
        )?;
        rows.iter()
            .map(|row| {
                let scope = Scope {
                    account: row.get(0),
                    region: row.get(1),
                };
                Ok((scope, decode("domains", bytes(row, 2))?))
            })
            .collect()
    }

    fn count(&self, domain: u64, counter: Counter) -> Result<u64, StoreError> {
        let sql = self.pick(
            "SELECT value FROM counters WHERE domain = $1 AND counter = $2",
            "SELECT value FROM counters WHERE domain = $1 AND counter = $2 FOR UPDATE",
        );
        let row = self.row(sql, &[&big(domain), &i16::from(counter.key())])?;
        Ok(row.map_or(0, |row| unbig(&row, 0)))
    }

    fn stored_type(
        &self,
        domain: u64,
        kind: Kind,
        name: &str,
        version: &str,
    ) -> Result<Option<AnyType>, StoreError> {
        if !self.cached() {
            return self.type_by(TYPE, domain, kind, name, version);
        }
        if let Some(record) = self.catalog.stored_type(domain, kind, name, version) {
            return Ok(Some(record));
        }
        let found = self.type_by(TYPE, domain, kind, name, version)?;
        if let Some(record) = &found {
            let key = (domain, kind, name, version);
            self.catalog.keep_type(self.generation, key, record);
        }
        Ok(found)
    }

    fn stored_type_to_change(
        &self,
        domain: u64,
        kind: Kind,
        name: &str,
        version: &str,
    ) -> Result<Option<AnyType>, StoreError> {
        self.type_by(self.pick(TYPE, TYPE_LOCKED), domain, kind, name, version)
    }

    fn stored_types(
        &self,
        domain: u64,
        kind: Kind,
        name: Option<&str>,
        cursor: Cursor<(&str, &str)>,
        keep: &dyn Fn(&AnyType) -> bool,
    ) -> Result<Page<(TypeName, AnyType)>, StoreError> {
        let cursor = Cursor {
            after: cursor.after.map(|(n, v)| (n.to_owned(), v.to_owned())),
            reverse: cursor.reverse,
            limit: cursor.limit,
        };
        let (domain, k, reverse) = (big(domain), kind as i16, cursor.reverse);
        chunked(cursor, |after, n| {
            let (after_name, after_version) = match after {
                Some((name, version)) => (Some(name.as_str()), Some(version.as_str())),
                None => (None, None),
            };
            let rows = if reverse {
                self.rows(
                    "SELECT name, version, record FROM types WHERE domain = $1 AND kind = $2 \
                     AND ($3::text IS NULL OR name = $3) \
                     AND ($4::text IS NULL OR (name, version) < ($4, $5::text)) \
                     ORDER BY name DESC, version DESC LIMIT $6",
                    &[&domain, &k, &name, &after_name, &after_version, &n],
                )?
            } else {
                let (after_name, after_version) =
                    (after_name.unwrap_or(""), after_version.unwrap_or(""));
                self.rows(
                    "SELECT name, version, record FROM types WHERE domain = $1 AND kind = $2 \
                     AND ($3::text IS NULL OR name = $3) AND (name, version) > ($4, $5) \
                     ORDER BY name, version LIMIT $6",
                    &[&domain, &k, &name, &after_name, &after_version, &n],
                )?
            };
            rows.iter()
                .map(|row| {
                    let record = decode_type(kind, bytes(row, 2))?;
                    let ty = TypeName {
                        name: row.get(0),
                        version: row.get(1),
                    };
                    let position = (ty.name.clone(), ty.version.clone());
                    Ok((position, keep(&record).then_some((ty, record))))
                })
                .collect()
        })
    }
}

/// How many times [`RunReads::open_run`] reads a workflow's open run that keeps changing.
const MOST_TRIES: usize = 8;

fn run_of(row: Option<Row>) -> Result<Option<Run>, StoreError> {
    row.map(|row| decode("runs", bytes(&row, 0))).transpose()
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
                Step::Prepared(run_items::LOCK_RUN, params),
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

    fn history(
        &self,
        seq: u64,
        first: u64,
        last: u64,
        cursor: Cursor<u64>,
    ) -> Result<Page<(u64, Vec<u8>)>, StoreError> {
        let (seq, n) = (big(seq), past(cursor.limit));
        let rows = if cursor.reverse {
            let before = cursor.after.map_or(big(last).saturating_add(1), big);
            self.rows(
                "SELECT event_id, json FROM events WHERE seq = $1 AND event_id >= $2 \
                 AND event_id < $3 ORDER BY event_id DESC LIMIT $4",
                &[&seq, &big(first), &before, &n],
            )?
        } else {
            let after = cursor.after.map_or(big(first) - 1, big);
            self.rows(
                "SELECT event_id, json FROM events WHERE seq = $1 AND event_id > $2 \
                 AND event_id <= $3 ORDER BY event_id LIMIT $4",
                &[&seq, &after, &big(last), &n],
            )?
        };
        page_of(rows, cursor.limit, |row| {
            Ok((unbig(row, 0), bytes(row, 1).to_vec()))
        })
    }

    fn event(&self, seq: u64, event_id: u64) -> Result<Option<Vec<u8>>, StoreError> {
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
        let row = self.row(
            "SELECT count(*) FROM tasks WHERE domain = $1 AND kind = $2 AND list = $3",
            &[&big(domain), &(kind as i16), &list],
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

    fn next_deadline(&self) -> Result<Option<Timestamp>, StoreError> {
        let row = self.row("SELECT at FROM deadlines ORDER BY at LIMIT 1", &[])?;
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
