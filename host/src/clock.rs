//! Time: the wire timestamp and the injected clock.
//!
//! Every "now" in Weft comes from a [`Clock`], and every wait for SWF's time to pass (the timer
//! loop's, a long poll's) waits on it, so time-dependent rules (timeouts, timers, retention,
//! page-token lifetime, poll timeouts) are tested with a [`ManualClock`] instead of by sleeping.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use tokio::sync::watch;

/// A point in time in milliseconds since the Unix epoch, the precision SWF uses on the wire.
///
/// On the wire it is a JSON number of seconds (`1326593394.566`). Requests may also carry it as an
/// integer or a numeric string (botocore versions differ), so all three are accepted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The timestamp `millis` milliseconds after the epoch.
    pub const fn from_millis(millis: i64) -> Self {
        Timestamp(millis)
    }

    /// Milliseconds since the epoch.
    pub const fn as_millis(self) -> i64 {
        self.0
    }

    /// The timestamp `secs` seconds later.
    pub(crate) fn plus_secs(self, secs: u64) -> Self {
        self.plus_millis(secs.saturating_mul(1000))
    }

    /// The timestamp `millis` milliseconds later (saturating: no real duration comes close).
    pub(crate) fn plus_millis(self, millis: u64) -> Self {
        let millis = i64::try_from(millis).unwrap_or(i64::MAX);
        Timestamp(self.0.saturating_add(millis))
    }

    /// The timestamp for `secs` seconds since the epoch, if it is finite and in range.
    pub fn from_secs_f64(secs: f64) -> Option<Self> {
        let millis = (secs * 1000.0).round();
        // Beyond ±2^53 ms an f64 no longer holds whole milliseconds; no real date is that far out.
        (millis.is_finite() && millis.abs() < 9.0e15).then_some(Timestamp(millis as i64))
    }

    /// Seconds since the epoch, as sent on the wire.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.as_secs_f64())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Secs;

        impl Visitor<'_> for Secs {
            type Value = Timestamp;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of seconds since the Unix epoch")
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Timestamp, E> {
                Timestamp::from_secs_f64(v).ok_or_else(|| E::custom("timestamp out of range"))
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Timestamp, E> {
                self.visit_f64(v as f64)
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Timestamp, E> {
                self.visit_f64(v as f64)
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Timestamp, E> {
                let secs = v
                    .trim()
                    .parse::<f64>()
                    .map_err(|_| E::custom("timestamp is not a number"))?;
                self.visit_f64(secs)
            }
        }

        deserializer.deserialize_any(Secs)
    }
}

/// A wait on a [`Clock`]: completes once the clock reads the instant waited for.
pub type Sleep<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Who waits on the clock. A [`ManualClock`] lists its waits by kind, so a test knows when a
/// long poll is waiting, or when the timer loop has acted on every deadline due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// The timer loop, until the earliest deadline. The loop looks at the store again however
    /// it is woken, so a clock may end this wait early: a [`ManualClock`] does at every move,
    /// so the loop sees every deadline written before the move, even one it was not yet told of.
    Deadline,
    /// A long poll, until its poll timeout.
    LongPoll,
}

/// Where Weft reads the current time, and waits for a time to come.
pub trait Clock: Send + Sync + 'static {
    /// The current time.
    fn now(&self) -> Timestamp;

    /// Completes once [`Clock::now`] reads `at` or later (at once if it already does); a
    /// [`Wait::Deadline`] may complete earlier.
    fn sleep_until(&self, at: Timestamp, why: Wait) -> Sleep<'_>;

    /// Whether the clock jumps ahead to the instant the timer loop waits for (time-skipping):
    /// the loop then waits for the earliest deadline itself, not for a periodic look first.
    fn jumps(&self) -> bool {
        false
    }
}

/// The system's wall clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Timestamp(i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX))
    }

    fn sleep_until(&self, at: Timestamp, _why: Wait) -> Sleep<'_> {
        // Measured once, then slept on tokio's monotonic clock: a wall clock set back or
        // forward meanwhile does not stretch or cut the wait.
        let wait = u64::try_from(at.0.saturating_sub(self.now().0)).unwrap_or(0);
        Box::pin(tokio::time::sleep(Duration::from_millis(wait)))
    }
}

/// The clock a server runs on: the system's, unless a test skews it (`test-switches` feature,
/// `WEFT_TEST_CLOCK_SKEW_MS`: milliseconds ahead, or behind if negative), to stand for a node
/// whose clock is wrong.
pub(crate) fn system_clock() -> Arc<dyn Clock> {
    #[cfg(feature = "test-switches")]
    if let Some(skew_ms) = std::env::var("WEFT_TEST_CLOCK_SKEW_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
    {
        return Arc::new(SkewedClock { skew_ms });
    }
    Arc::new(SystemClock)
}

/// The system's wall clock off by `skew_ms`.
#[cfg(feature = "test-switches")]
#[derive(Clone, Copy, Debug)]
struct SkewedClock {
    skew_ms: i64,
}

#[cfg(feature = "test-switches")]
impl Clock for SkewedClock {
    fn now(&self) -> Timestamp {
        Timestamp(SystemClock.now().0.saturating_add(self.skew_ms))
    }

    fn sleep_until(&self, at: Timestamp, _why: Wait) -> Sleep<'_> {
        let wait = u64::try_from(at.0.saturating_sub(self.now().0)).unwrap_or(0);
        Box::pin(tokio::time::sleep(Duration::from_millis(wait)))
    }
}

/// A clock that moves only when told to, for tests. Moving it wakes every wait for an instant
/// it reaches, and every [`Wait::Deadline`]; [`ManualClock::waits`] lists the waits pending.
pub struct ManualClock {
    now: watch::Sender<Timestamp>,
    /// The pending waits, by a number of their own. Locked while the clock moves, so a wait is
    /// either listed before a move (and the move wakes it) or sees the moved clock.
    waits: Mutex<HashMap<u64, (Wait, Timestamp)>>,
    next_wait: AtomicU64,
}

impl ManualClock {
    /// A clock standing at `start`.
    pub fn new(start: Timestamp) -> Self {
        ManualClock {
            now: watch::Sender::new(start),
            waits: Mutex::new(HashMap::new()),
            next_wait: AtomicU64::new(0),
        }
    }

    /// Moves the clock forward by `millis` milliseconds, waking the waits it reaches and every
    /// [`Wait::Deadline`] (which leave the list at once).
    pub fn advance(&self, millis: i64) {
        let mut waits = self.lock_waits();
        self.now
            .send_modify(|now| *now = Timestamp(now.0.saturating_add(millis)));
        waits.retain(|_, (why, _)| *why != Wait::Deadline);
    }

    /// The instants that the pending waits of kind `why` wait for, soonest first. A wait for
    /// an instant that has come stays listed until its waiter has woken and let it go.
    pub fn waits(&self, why: Wait) -> Vec<Timestamp> {
        let mut at: Vec<Timestamp> = self
            .lock_waits()
            .values()
            .filter(|(kind, _)| *kind == why)
            .map(|(_, at)| *at)
            .collect();
        at.sort_unstable();
        at
    }

    fn lock_waits(&self) -> MutexGuard<'_, HashMap<u64, (Wait, Timestamp)>> {
        self.waits
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Lists a wait for `at`, unless it is over already: the time has come, or (for a
    /// deadline) the clock moved since `changes` was taken.
    fn list(&self, changes: &watch::Receiver<Timestamp>, at: Timestamp, why: Wait) -> Option<u64> {
        let mut waits = self.lock_waits();
        let moved = changes.has_changed().unwrap_or(true);
        if *changes.borrow() >= at || (why == Wait::Deadline && moved) {
            return None;
        }
        let id = self.next_wait.fetch_add(1, Ordering::Relaxed);
        waits.insert(id, (why, at));
        Some(id)
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock::new(Timestamp::default())
    }
}

impl fmt::Debug for ManualClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManualClock")
            .field("now", &self.now())
            .finish_non_exhaustive()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        *self.now.borrow()
    }

    fn sleep_until(&self, at: Timestamp, why: Wait) -> Sleep<'_> {
        // Taken now, so a move between this call and the first poll still counts.
        let mut changes = self.now.subscribe();
        Box::pin(async move {
            let Some(id) = self.list(&changes, at, why) else {
                return;
            };
            let _listed = Listed { clock: self, id };
            // The sender lives as long as `self`, so these end only with the clock moving.
            let _ = match why {
                Wait::Deadline => changes.changed().await,
                Wait::LongPoll => changes.wait_for(|now| *now >= at).await.map(drop),
            };
        })
    }
}

/// Takes a wait off its clock's list when the wait ends, however it ends.
struct Listed<'a> {
    clock: &'a ManualClock,
    id: u64,
}

impl Drop for Listed<'_> {
    fn drop(&mut self) {
        self.clock.lock_waits().remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_form_is_seconds_with_millisecond_precision() {
        let t = Timestamp::from_millis(1_326_593_394_566);
        assert_eq!(serde_json::to_string(&t).unwrap(), "1326593394.566");
    }

    #[test]
    fn accepts_integers_floats_and_numeric_strings() {
        for (json, millis) in [
            ("1704067200", 1_704_067_200_000),
            ("1704067200.5", 1_704_067_200_500),
            ("\"1704067200.25\"", 1_704_067_200_250),
        ] {
            let t: Timestamp = serde_json::from_str(json).unwrap();
            assert_eq!(t.as_millis(), millis, "{json}");
        }
        assert!(serde_json::from_str::<Timestamp>("\"soon\"").is_err());
        assert!(serde_json::from_str::<Timestamp>("1e300").is_err());
    }

    #[tokio::test]
    async fn advancing_wakes_the_waits_it_reaches_and_every_deadline() {
        let clock = ManualClock::new(Timestamp::from_millis(1_000));
        let mut poll = clock.sleep_until(Timestamp::from_millis(2_000), Wait::LongPoll);
        // A deadline's wait taken before a move is over before it begins.
        let mut stale = clock.sleep_until(Timestamp::from_millis(5_000), Wait::Deadline);
        clock.advance(0);
        let mut deadline = clock.sleep_until(Timestamp::from_millis(1_500), Wait::Deadline);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        assert!(stale.as_mut().poll(&mut cx).is_ready());
        assert!(poll.as_mut().poll(&mut cx).is_pending());
        assert!(deadline.as_mut().poll(&mut cx).is_pending());
        assert_eq!(clock.waits(Wait::LongPoll), [Timestamp::from_millis(2_000)]);
        assert_eq!(clock.waits(Wait::Deadline), [Timestamp::from_millis(1_500)]);

        // Any move ends a deadline's wait (the timer loop looks again), and takes it off the
        // list at once; a long poll waits for its time.
        clock.advance(1);
        assert!(clock.waits(Wait::Deadline).is_empty());
        assert!(deadline.as_mut().poll(&mut cx).is_ready());
        clock.advance(998);
        assert!(poll.as_mut().poll(&mut cx).is_pending());
        clock.advance(1);
        assert!(poll.as_mut().poll(&mut cx).is_ready());
        // A finished wait is off the list; a dropped one too.
        let mut dropped = clock.sleep_until(Timestamp::from_millis(9_000), Wait::LongPoll);
        assert!(dropped.as_mut().poll(&mut cx).is_pending());
        assert_eq!(clock.waits(Wait::LongPoll).len(), 1);
        drop(poll);
        drop(dropped);
        assert!(clock.waits(Wait::LongPoll).is_empty());
        // A time already reached is no wait at all.
        let now = clock.now();
        tokio::time::timeout(
            Duration::from_secs(5),
            clock.sleep_until(now, Wait::Deadline),
        )
        .await
        .expect("no wait for a time that has come");
    }

    #[tokio::test]
    async fn a_waiting_task_is_woken_by_advance() {
        let clock = std::sync::Arc::new(ManualClock::new(Timestamp::from_millis(0)));
        let waiter = tokio::spawn({
            let clock = clock.clone();
            async move {
                clock
                    .sleep_until(Timestamp::from_millis(60_000), Wait::LongPoll)
                    .await
            }
        });
        while clock.waits(Wait::LongPoll).is_empty() {
            tokio::task::yield_now().await;
        }
        clock.advance(60_000);
        tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("advance wakes the waiting task")
            .unwrap();
    }

    #[tokio::test]
    async fn the_system_clock_sleeps_until_its_time() {
        let at = SystemClock.now().plus_millis(30);
        SystemClock.sleep_until(at, Wait::Deadline).await;
        assert!(SystemClock.now() >= at);
    }

    #[test]
    fn manual_clock_moves_only_when_advanced() {
        let clock = ManualClock::new(Timestamp::from_millis(1_000));
        assert_eq!(clock.now().as_millis(), 1_000);
        clock.advance(500);
        assert_eq!(clock.now().as_millis(), 1_500);
    }
}
