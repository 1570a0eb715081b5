//! A token bucket: a tenant's request rate.

use std::time::{Duration, Instant};

/// Holds up to `burst` tokens and gains `rate` per second; a request takes one.
#[derive(Debug)]
pub(super) struct Bucket {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl Bucket {
    /// A full bucket.
    pub(super) fn new(rate: f64, burst: u32) -> Bucket {
        Bucket {
            rate,
            burst: f64::from(burst),
            tokens: f64::from(burst),
            last: Instant::now(),
        }
    }

    /// Takes `n` tokens: at once if the bucket holds them, else if they come within
    /// `patience`, as a debt that requests after it wait behind. Answers how long to wait
    /// before acting on them, or `None`, having taken nothing, if they would come later.
    pub(super) fn take_within(&mut self, n: u32, patience: Duration) -> Option<Duration> {
        self.take_at(Instant::now(), n, patience)
    }

    fn take_at(&mut self, now: Instant, n: u32, patience: Duration) -> Option<Duration> {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        let short = f64::from(n) - self.tokens;
        let wait = if short <= 0.0 {
            Duration::ZERO
        } else {
            Duration::try_from_secs_f64(short / self.rate).ok()?
        };
        if wait > patience {
            return None;
        }
        self.tokens -= f64::from(n);
        Some(wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allows_a_burst_then_the_rate() {
        let mut bucket = Bucket::new(2.0, 3);
        let t0 = bucket.last;
        let take = |bucket: &mut Bucket, at| bucket.take_at(at, 1, Duration::ZERO).is_some();
        assert!((0..3).all(|_| take(&mut bucket, t0)));
        assert!(!take(&mut bucket, t0));
        // Half a second at 2/s is one token.
        assert!(take(&mut bucket, t0 + Duration::from_millis(500)));
        assert!(!take(&mut bucket, t0 + Duration::from_millis(500)));
        // A long pause refills to the burst, no further.
        let later = t0 + Duration::from_secs(60);
        assert!((0..3).all(|_| take(&mut bucket, later)));
        assert!(!take(&mut bucket, later));
    }

    #[test]
    fn tokens_that_come_within_the_patience_are_taken_as_a_debt() {
        let mut bucket = Bucket::new(2.0, 3);
        let t0 = bucket.last;
        // More than the burst: the three held and two more, which come in a second.
        let patience = Duration::from_secs(2);
        assert_eq!(
            bucket.take_at(t0, 5, patience),
            Some(Duration::from_secs(1))
        );
        // The next token comes after the debt is paid: 1.5 s from now.
        assert_eq!(bucket.take_at(t0, 1, Duration::from_secs(1)), None);
        assert_eq!(
            bucket.take_at(t0, 1, patience),
            Some(Duration::from_millis(1500))
        );
        // Nothing was taken by the refusal: after 1.5 s the bucket is even.
        let t1 = t0 + Duration::from_millis(1500);
        assert_eq!(bucket.take_at(t1, 1, Duration::ZERO), None);
        assert_eq!(
            bucket.take_at(t1 + Duration::from_millis(500), 1, Duration::ZERO),
            Some(Duration::ZERO)
        );
    }
}
