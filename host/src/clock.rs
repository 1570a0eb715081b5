//! Time: the wire timestamp and the injected clock.
//!
//! Every "now" in Weft comes from a [`Clock`], so time-dependent rules (page-token lifetime today,
//! timeouts later) are tested with a [`ManualClock`] instead of by sleeping.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

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

/// Where Weft reads the current time.
pub trait Clock: Send + Sync + 'static {
    /// The current time.
    fn now(&self) -> Timestamp;
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
}

/// A clock that moves only when told to, for tests.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    /// A clock standing at `start`.
    pub fn new(start: Timestamp) -> Self {
        ManualClock(AtomicI64::new(start.as_millis()))
    }

    /// Moves the clock forward by `millis` milliseconds.
    pub fn advance(&self, millis: i64) {
        self.0.fetch_add(millis, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.0.load(Ordering::SeqCst))
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

    #[test]
    fn manual_clock_moves_only_when_advanced() {
        let clock = ManualClock::new(Timestamp::from_millis(1_000));
        assert_eq!(clock.now().as_millis(), 1_000);
        clock.advance(500);
        assert_eq!(clock.now().as_millis(), 1_500);
    }
}
