//! The database schema, as numbered migrations applied at start.
//!
//! Each node applies what is missing under an advisory lock, so nodes starting together migrate
//! once; a database migrated by a newer Weft is refused rather than misread. The tables mirror
//! redb's (`store/redb/tables.rs`), key for key: values are the same JSON records, keys are columns,
//! and every listing is an index range. Text that is part of an ordered key uses the "C"
//! collation, so it sorts by bytes, as redb's keys do; filter values in the visibility index
//! are `bytea`, since they may hold a NUL.

use super::conn::Conn;
use crate::store::{OpenError, StoreError};

/// The migrations, in order: migration `i` brings the schema to version `i + 1`. Never edit
/// one that has shipped; add the next.
pub(super) const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE weft_meta (key text PRIMARY KEY, value bytea NOT NULL);
CREATE SEQUENCE weft_ids;
CREATE TABLE domains (
    account text COLLATE "C", region text COLLATE "C", name text COLLATE "C",
    record bytea NOT NULL,
    PRIMARY KEY (account, region, name));
CREATE TABLE types (
    domain bigint, kind smallint, name text COLLATE "C", version text COLLATE "C",
    record bytea NOT NULL,
    PRIMARY KEY (domain, kind, name, version));
CREATE TABLE counters (
    domain bigint, counter smallint, value bigint NOT NULL,
    PRIMARY KEY (domain, counter));
CREATE TABLE runs (seq bigint PRIMARY KEY, record bytea NOT NULL);
CREATE TABLE run_ids (
    domain bigint, workflow_id text COLLATE "C", run_id text COLLATE "C", seq bigint NOT NULL,
    PRIMARY KEY (domain, workflow_id, run_id));
CREATE TABLE open_runs (
    domain bigint, workflow_id text COLLATE "C", seq bigint NOT NULL,
    PRIMARY KEY (domain, workflow_id));
CREATE TABLE events (
    seq bigint, event_id bigint, json bytea NOT NULL,
    PRIMARY KEY (seq, event_id));
CREATE TABLE items (
    seq bigint, kind smallint, key bigint, json bytea NOT NULL,
    PRIMARY KEY (seq, kind, key));
CREATE TABLE item_names (
    seq bigint, kind smallint, name text COLLATE "C", key bigint NOT NULL,
    PRIMARY KEY (seq, kind, name));
CREATE TABLE visibility (
    domain bigint, listing smallint, filter smallint, value bytea, time bigint, seq bigint,
    PRIMARY KEY (domain, listing, filter, value, time, seq));
CREATE TABLE tasks (
    domain bigint, kind smallint, list text COLLATE "C", rank bigint, ord bigint,
    seq bigint NOT NULL, scheduled bigint NOT NULL,
    PRIMARY KEY (domain, kind, list, rank, ord));
CREATE TABLE deadlines (
    at bigint, seq bigint, event_id bigint, kind smallint,
    PRIMARY KEY (at, seq, event_id, kind));
CREATE TABLE modules (
    account text COLLATE "C", digest text COLLATE "C", record bytea NOT NULL,
    PRIMARY KEY (account, digest));
CREATE INDEX modules_by_digest ON modules (digest);
CREATE TABLE module_code (
    account text COLLATE "C", digest text COLLATE "C", code bytea NOT NULL,
    PRIMARY KEY (account, digest));
CREATE TABLE bindings (
    domain bigint, kind smallint, name text COLLATE "C", record bytea NOT NULL,
    PRIMARY KEY (domain, kind, name));
CREATE TABLE guest_failures (
    domain bigint, kind smallint, name text COLLATE "C", seq bigint, record bytea NOT NULL,
    PRIMARY KEY (domain, kind, name, seq));
"#,
    // Each counter in 16 rows that count up and 16 that count down (`counters.rs`, `SHARDS`),
    // its value moved to the first; the shards nodes take in turn.
    r#"
CREATE SEQUENCE weft_shards MINVALUE 0 START 0;
CREATE TABLE counter_shards (
    domain bigint, counter smallint, shard smallint, value bigint NOT NULL,
    PRIMARY KEY (domain, counter, shard));
INSERT INTO counter_shards (domain, counter, shard, value)
    SELECT domain, counter, s, CASE WHEN s = 0 THEN value ELSE 0 END
    FROM counters, generate_series(0, 15) AS s;
DROP TABLE counters;
-- A cheap limit check (counters.rs): the node's shard locked, then the sum read, each
-- statement reading what was committed before it began; fails the transaction with WF001
-- if the sum is over `most`.
CREATE FUNCTION weft_counter_within(d bigint, c smallint, own smallint, most bigint)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM counter_shards WHERE domain = d AND counter = c AND shard = own FOR UPDATE;
    IF (SELECT COALESCE(sum(value), 0) FROM counter_shards
        WHERE domain = d AND counter = c) > most THEN
        RAISE EXCEPTION 'counter % of domain % is near its limit', c, d USING ERRCODE = 'WF001';
    END IF;
END $$;
"#,
    // The runs a transaction starts (`ds` domains, `ws` workflow ids, `ts` start times), checked
    // at its commit against the closes other transactions committed meanwhile (visibility's
    // closed-by-close rows of each workflow): fails it with WF002 if one starts before such a
    // close (pg/writer.rs runs it again, reading those closes).
    r#"
CREATE FUNCTION weft_starts_after_closes(ds bigint[], ws bytea[], ts bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM unnest(ds, ws, ts) AS s(d, w, t)
        WHERE EXISTS (SELECT 1 FROM visibility v WHERE v.domain = s.d AND v.listing = 2
            AND v.filter = 1 AND v.value = s.w AND v.time > s.t)) THEN
        RAISE EXCEPTION 'a run starts before its workflow''s previous run closed'
            USING ERRCODE = 'WF002';
    END IF;
END $$;
"#,
    // Schedules (`model::schedules`), by seq (their deadlines name it) and by id.
    r#"
CREATE TABLE schedules (
    seq bigint PRIMARY KEY, domain bigint NOT NULL, id text COLLATE "C" NOT NULL,
    record bytea NOT NULL,
    UNIQUE (domain, id));
"#,
    // Task lists' controls (`model::task_lists`), of the lists that have any.
    r#"
CREATE TABLE list_controls (
    domain bigint NOT NULL, kind smallint NOT NULL, list text COLLATE "C" NOT NULL,
    record bytea NOT NULL,
    PRIMARY KEY (domain, kind, list));
"#,
    // Batch jobs (`model::batches`), by seq (their deadlines name it) and by domain.
    r#"
CREATE TABLE batches (
    seq bigint PRIMARY KEY, domain bigint NOT NULL, record bytea NOT NULL);
CREATE INDEX batches_by_domain ON batches (domain, seq);
"#,
];

/// The schema version this build writes and reads.
pub(crate) const VERSION: i32 = MIGRATIONS.len() as i32;

/// Any number, the same on every node: the advisory lock nodes migrate under.
const MIGRATION_LOCK: i64 = 0x5745_4654; // "WEFT"

/// Brings the database's schema to [`VERSION`], or refuses one that is newer.
pub(super) fn migrate(conn: &mut Conn) -> Result<(), StoreError> {
    conn.query("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])?;
    let migrated = conn
        .batch("CREATE TABLE IF NOT EXISTS weft_schema (version integer NOT NULL)")
        .and_then(|()| apply_missing(conn));
    conn.query("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])?;
    migrated
}

fn apply_missing(conn: &mut Conn) -> Result<(), StoreError> {
    let row = conn.query_opt("SELECT max(version) FROM weft_schema", &[])?;
    let version: i32 = row.and_then(|row| row.get(0)).unwrap_or(0);
    if version > VERSION {
        return Err(OpenError::TooNew {
            what: "schema",
            found: u32::try_from(version).unwrap_or(u32::MAX),
            known: VERSION as u32,
        }
        .into());
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let to = i as i32 + 1;
        conn.batch("BEGIN")?;
        let applied = conn.batch(sql).and_then(|()| {
            conn.execute("INSERT INTO weft_schema (version) VALUES ($1)", &[&to])
                .map(drop)
        });
        match applied {
            Ok(()) => conn.batch("COMMIT")?,
            Err(error) => {
                let _ = conn.batch("ROLLBACK");
                return Err(error);
            }
        }
        tracing::info!(version = to, "database schema migrated");
    }
    Ok(())
}
