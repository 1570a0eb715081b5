//! The domains' counters (open runs, and types of each kind), each kept in shards: [`SHARDS`]
//! rows that count up, and as many that count down.
//!
//! In one row, a counter made every node's starts and closes wait for the other nodes'
//! commits: a change locks the row until the commit, and the limit check of a start locked it
//! from the check on (issue 31: with two nodes, that check waited 0.76 ms on average). A
//! node's writer changes only its own shards; a count is the sum of them all. A limit is
//! passed only by counting up, so a check waits only for the shards that count up: a close
//! waits for nobody, and a check does not wait for closes.
//!
//! A limit still holds exactly. A transaction checks it one of two ways:
//! - **cheaply**, far from the limit: it locks its own shard and reads the sum. No other
//!   shard holds more than [`CHEAP_DELTA`] counted up and uncommitted (below), so if the sum,
//!   plus one, plus that for every other shard, is within the limit, no order of commits can
//!   pass it. This costs no round trip of its own: it is a function (`weft_counter_within`,
//!   `schema.rs`) sent with the transaction's next statements, whose failure (`WF001`) fails
//!   the transaction, which then runs again checking exactly;
//! - **exactly**, otherwise: it locks every shard that counts up (waiting for every
//!   transaction that counted one up to end) and reads the sum, which then rises only by its
//!   own changes.
//!
//! A transaction that does not hold every shard that counts up never counts more than
//! [`CHEAP_DELTA`] up in its own: past that, it locks them all first. Each lock and the read
//! after it are two statements of one pipeline: in READ COMMITTED the read then sees what the
//! locks' last holders committed (in the function, each statement reads what was committed
//! before it began). Two transactions can still deadlock near a limit (each holds
//! its own shard from a cheap check and then needs the other's); the writer's lock timeout
//! ends one, and its batch runs again.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio_postgres::types::ToSql;

use super::conn::{Conn, Step};
use super::grouped::send;
use super::params::owned;
use super::reads::{Sql, big};
use super::session::{Link, Mode, Session, Writing};
use super::writer::MAX_BATCH;
use crate::store::StoreError;
use crate::store::seam::Counter;

/// How many rows count each counter up (and how many count it down): the shards a migration
/// made (`schema.rs`), which a change of this number must remake. Shard `s` counts up, shard
/// `s + SHARDS` down.
pub(super) const SHARDS: i16 = 16;

/// The most a transaction adds to its shard of a counter while it does not hold every shard:
/// a batch of starts, one each.
const CHEAP_DELTA: i64 = MAX_BATCH as i64;

/// The sum of a counter's shards (never below zero, as a counter in one row never was).
const SUM: &str = "SELECT GREATEST(COALESCE(sum(value), 0), 0)::bigint FROM counter_shards \
                   WHERE domain = $1 AND counter = $2";

/// Every shard that counts a counter up, locked in one order (so that two transactions taking
/// them all do not deadlock each other); `$3` is [`SHARDS`].
const LOCK_ALL: &str = "SELECT shard FROM counter_shards WHERE domain = $1 AND counter = $2 \
                        AND shard < $3 ORDER BY shard FOR UPDATE";

/// A counter's key columns: (domain, counter key).
type Key = (i64, i16);

/// A node writer's shards, kept across its transactions.
#[derive(Clone)]
pub(super) struct NodeShards {
    /// The shard that counts up; `own + SHARDS` counts down.
    own: i16,
    /// The counters found near a limit: checked exactly straight away, since a transaction
    /// that locked its own shard for a cheap check and then needs them all may deadlock
    /// with another doing the same. Forgotten once a check finds the counter far from it.
    near: Arc<Mutex<HashSet<Key>>>,
    /// Set when a cheap check failed its transaction: the next checks every limit exactly.
    exact: Arc<AtomicBool>,
}

impl NodeShards {
    /// A new writer's, taken on its connection `conn`: the nodes' writers take the shards in
    /// turn, so that up to [`SHARDS`] nodes change different rows. (Any shard is correct.)
    pub(super) fn take(conn: &mut Conn) -> Result<Self, StoreError> {
        let row = conn.query_opt("SELECT nextval('weft_shards') % $1", &[&i64::from(SHARDS)])?;
        let turn: i64 = row.map_or(0, |row| row.get(0));
        Ok(NodeShards {
            own: i16::try_from(turn).unwrap_or(0),
            near: Arc::default(),
            exact: Arc::default(),
        })
    }

    /// Makes the next transaction check every limit exactly: a cheap check failed this one.
    pub(super) fn check_exactly(&self) {
        self.exact.store(true, Ordering::Relaxed);
    }

    fn near(&self) -> std::sync::MutexGuard<'_, HashSet<Key>> {
        self.near.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What the writer's transaction did to counters.
pub(super) struct Shards {
    node: NodeShards,
    /// What the transaction counted up in its shard of each counter.
    added: RefCell<HashMap<Key, i64>>,
    /// The counters whose every shard that counts up the transaction holds.
    whole: RefCell<HashSet<Key>>,
    /// Whether every check is exact: the transaction runs again after a cheap one failed.
    exact: bool,
}

impl Shards {
    /// For a transaction of the writer whose shards are `node`.
    pub(super) fn new(node: NodeShards) -> Self {
        let exact = node.exact.swap(false, Ordering::Relaxed);
        Shards {
            node,
            added: RefCell::default(),
            whole: RefCell::default(),
            exact,
        }
    }

    fn added(&self, key: Key) -> i64 {
        self.added.borrow().get(&key).copied().unwrap_or(0)
    }
}

fn key(domain: u64, counter: Counter) -> Key {
    (big(domain), i16::from(counter.key()))
}

impl<C: Link, M: Mode> Session<C, M> {
    /// The counter's value. In the writer's transaction every shard is locked first, and stays
    /// so: the value then changes only by the transaction's own changes.
    pub(super) fn counter(&self, domain: u64, counter: Counter) -> Result<u64, StoreError> {
        let (domain, counter) = key(domain, counter);
        let params: [&(dyn ToSql + Sync); 2] = [&domain, &counter];
        match self.mode.shards() {
            Some((shards, _)) if !shards.whole.borrow().contains(&(domain, counter)) => {
                let sum = self.locked_sum(LOCK_ALL, &[&domain, &counter, &SHARDS])?;
                shards.whole.borrow_mut().insert((domain, counter));
                Ok(sum)
            }
            _ => Ok(self
                .row(SUM, &params)?
                .map_or(0, |row| unsigned(row.get(0)))),
        }
    }

    /// Whether the counter has reached `limit`; in the writer's transaction, checked cheaply
    /// when the counter is far enough from it (the module docs).
    pub(super) fn counter_reaches(
        &self,
        domain: u64,
        counter: Counter,
        limit: u64,
    ) -> Result<bool, StoreError> {
        let Some((shards, grouped)) = self.mode.shards() else {
            return Ok(self.counter(domain, counter)? >= limit);
        };
        let key = key(domain, counter);
        // What the other shards may hold counted up and uncommitted.
        let others = u64::try_from(i64::from(SHARDS - 1) * CHEAP_DELTA).unwrap_or(0);
        // The most the sum may be for the cheap check to pass, if it can.
        let most = limit
            .checked_sub(1 + others)
            .and_then(|most| i64::try_from(most).ok());
        let cheap = !shards.exact
            && !shards.whole.borrow().contains(&key)
            && shards.added(key) < CHEAP_DELTA
            && !shards.node.near().contains(&key);
        if let (true, Some(most)) = (cheap, most) {
            // Checked with the transaction's next statements, not now: a check that fails
            // fails the transaction, which runs again checking exactly.
            let own = shards.node.own;
            grouped.keep(self.mode.job(), |kept| kept.counters.check(key, own, most));
            return Ok(false);
        }
        let sum = self.counter(domain, counter)?;
        if sum.saturating_add(1 + others) > limit {
            shards.node.near().insert(key);
        } else if sum.saturating_add(1 + 2 * others) <= limit {
            shards.node.near().remove(&key);
        }
        Ok(sum >= limit)
    }

    /// Sends `lock` and then the sum of the counter in `params` (its first two), in one
    /// round trip; answers the sum.
    fn locked_sum(
        &self,
        lock: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, StoreError> {
        let rows = self.send(&[
            Step::Prepared(lock, params),
            Step::Prepared(SUM, &params[..2]),
        ])?;
        let sum = rows.last().and_then(|rows| rows.first());
        Ok(sum.map_or(0, |row| unsigned(row.get(0))))
    }
}

/// A transaction's changes to counters not sent yet, summed by shard, and its cheap checks of
/// them, sent as one check per counter after the changes (`grouped.rs`).
#[derive(Default)]
pub(super) struct CounterWrites {
    /// What each shard (domain, counter, shard) is moved by.
    deltas: BTreeMap<(i64, i16, i16), i64>,
    counters: BTreeMap<Key, Unsent>,
}

/// One counter's changes and checks not sent yet.
#[derive(Default)]
struct Unsent {
    /// What it was counted up by, and down by (at most zero).
    up: i64,
    down: i64,
    /// The shard its checks lock, and the most the sum may be before all these changes for
    /// every check to pass: each check passes if the sum, with what was counted up before it,
    /// is within its own most. (What was counted down is not taken off: a close between two
    /// starts makes the later check no weaker, so one check at the end still holds for both.)
    check: Option<(i16, i64)>,
}

/// Moves a shard of a counter by a delta.
const ADD: &str = "INSERT INTO counter_shards (domain, counter, shard, value) \
     VALUES ($1, $2, $3, $4) ON CONFLICT (domain, counter, shard) \
     DO UPDATE SET value = counter_shards.value + excluded.value";
const ADDS: &str = "INSERT INTO counter_shards (domain, counter, shard, value) \
     SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::smallint[], $4::bigint[]) \
     ON CONFLICT (domain, counter, shard) \
     DO UPDATE SET value = counter_shards.value + excluded.value";

impl CounterWrites {
    /// Moves counter `key` by `delta` in `shard`.
    fn add(&mut self, key: Key, shard: i16, delta: i64) {
        *self.deltas.entry((key.0, key.1, shard)).or_default() += delta;
        let unsent = self.counters.entry(key).or_default();
        match delta > 0 {
            true => unsent.up += delta,
            false => unsent.down += delta,
        }
    }

    /// Checks, after the changes made before, that counter `key` is at most `most`, locking
    /// shard `own`.
    fn check(&mut self, key: Key, own: i16, most: i64) {
        let unsent = self.counters.entry(key).or_default();
        let before = most - unsent.up;
        unsent.check = Some(match unsent.check {
            Some((_, earlier)) => (own, earlier.min(before)),
            None => (own, before),
        });
    }

    /// Makes the changes' statements, then the checks'.
    pub(super) fn take(
        &mut self,
        push: &mut impl FnMut(&'static str, Vec<Box<dyn ToSql + Sync + Send>>),
    ) {
        let deltas: Vec<_> = std::mem::take(&mut self.deltas)
            .into_iter()
            .filter(|(_, delta)| *delta != 0)
            .map(|((d, c, shard), delta)| (d, c, shard, delta))
            .collect();
        send(deltas, (ADD, ADDS), push);
        for ((d, c), unsent) in std::mem::take(&mut self.counters) {
            if let Some((own, most)) = unsent.check {
                push(
                    "SELECT weft_counter_within($1, $2, $3, $4)",
                    owned![d, c, own, most + unsent.up + unsent.down],
                );
            }
        }
    }
}

fn unsigned(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

impl<C: Link> Session<C, Writing> {
    /// Moves the counter by `delta`, in this node's shard that counts that way; first locks
    /// every shard that counts up if the transaction would otherwise hold more than
    /// [`CHEAP_DELTA`] uncommitted in its own.
    pub(super) fn add_to_counter(
        &mut self,
        domain: u64,
        counter: Counter,
        delta: i64,
    ) -> Result<(), StoreError> {
        let (d, c) = key(domain, counter);
        let shards = &self.mode.shards;
        let own = match delta > 0 {
            true => shards.node.own,
            false => shards.node.own + SHARDS,
        };
        if delta > 0 {
            let added = shards.added((d, c)).saturating_add(delta);
            if added > CHEAP_DELTA && !shards.whole.borrow().contains(&(d, c)) {
                self.rows(LOCK_ALL, &[&d, &c, &SHARDS])?;
                self.mode.shards.whole.borrow_mut().insert((d, c));
            }
            self.mode.shards.added.borrow_mut().insert((d, c), added);
        }
        self.mode.changed = true;
        let job = self.mode.job;
        self.mode
            .grouped
            .keep(job, |kept| kept.counters.add((d, c), own, delta));
        Ok(())
    }

    /// Makes every shard that counts up of every counter of a new domain, so that locking them
    /// locks all there will ever be.
    pub(super) fn add_counters(&mut self, domain: u64) {
        self.mode.changed = true;
        self.defer(
            "INSERT INTO counter_shards (domain, counter, shard, value) \
             SELECT $1, c, s, 0 FROM unnest($2::smallint[]) AS c, generate_series(0, $3::smallint - 1) AS s \
             ON CONFLICT DO NOTHING",
            owned![
                big(domain),
                Counter::ALL.map(|c| i16::from(c.key())).to_vec(),
                SHARDS
            ],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statements `writes` makes, as text and parameters.
    fn taken(mut writes: CounterWrites) -> Vec<String> {
        let mut made = Vec::new();
        writes.take(&mut |sql: &str, params| {
            let verb = sql.split_whitespace().next().unwrap_or_default();
            made.push(format!("{verb} {params:?}"));
        });
        made
    }

    #[test]
    fn checks_of_a_counter_go_as_one_after_its_changes_and_as_strict_as_the_strictest() {
        let mut writes = CounterWrites::default();
        let key = (1, 0);
        // Two starts (each checked, then counted up) and a close, in one transaction: the
        // second check, after one up, allows a sum before the changes of 10 - 1, so the one
        // check made allows 9 and what the changes add: 2 up, 1 down.
        writes.check(key, 3, 10);
        writes.add(key, 3, 1);
        writes.check(key, 3, 10);
        writes.add(key, 3, 1);
        writes.add(key, 3 + SHARDS, -1);
        assert_eq!(
            taken(writes),
            [
                "INSERT [1, 0, 3, 2]",
                "INSERT [1, 0, 19, -1]",
                "SELECT [1, 0, 3, 10]"
            ]
        );
    }

    #[test]
    fn changes_that_cancel_out_send_nothing_and_unchecked_counters_no_check() {
        let mut writes = CounterWrites::default();
        writes.add((1, 0), 3, 1);
        writes.add((1, 0), 3, -1);
        writes.add((2, 0), 3, 1);
        assert_eq!(taken(writes), ["INSERT [2, 0, 3, 1]"]);
    }
}
