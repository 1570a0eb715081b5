//! PostgreSQL's side of the reads: the same trait implementations for a snapshot and for the
//! writer's transaction, which differ in one thing: the writer's reads of runs and counters
//! lock the rows they read (`FOR UPDATE`), so that two nodes changing one run, or checking
//! one limit, apply one after the other. Here: the statements' plumbing, and the reads of
//! domains, counters and types; runs are in `run_reads.rs`, the Wasm extension in
//! `wasm_reads.rs`.

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::session::{Link, Mode, Session};
use crate::model::{AnyType, Domain, Kind, Scope, TypeName};
use crate::store::StoreError;
use crate::store::codec::{decode, decode_type};
use crate::store::seam::{Counter, Cursor, DomainReads, Page};

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

    /// Like [`lock_account`](Self::lock_account), the lock shared: holders of it do not wait
    /// for each other, only for (and keep out) the one taking it whole.
    fn share_account(&self, what: &str, account: &str) -> Result<(), StoreError> {
        if self.locks() {
            self.rows(
                "SELECT pg_advisory_xact_lock_shared(\
                 hashtextextended(current_schema() || $1 || $2, 0))",
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

/// A `bigint` read back as the store's `u64`.
pub(super) fn from_big(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// A `bigint` column read back as the store's `u64`.
pub(super) fn unbig(row: &Row, column: usize) -> u64 {
    from_big(row.get(column))
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
pub(super) fn page_of<T>(
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
pub(super) fn past(limit: usize) -> i64 {
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
        self.counter(domain, counter)
    }

    fn reaches(&self, domain: u64, counter: Counter, limit: u64) -> Result<bool, StoreError> {
        self.counter_reaches(domain, counter, limit)
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
