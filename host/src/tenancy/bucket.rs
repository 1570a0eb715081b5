//! A token bucket: a tenant's request rate.

use std::time::Instant;

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

    /// Takes a token if there is one.
    pub(super) fn take(&mut self) -> bool {
        self.take_at(Instant::now())
    }

    fn take_at(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn allows_a_burst_then_the_rate() {
        let mut bucket = Bucket::new(2.0, 3);
        let t0 = bucket.last;
        assert!((0..3).all(|_| bucket.take_at(t0)));
        assert!(!bucket.take_at(t0));
        // Half a second at 2/s is one token.
        assert!(bucket.take_at(t0 + Duration::from_millis(500)));
        assert!(!bucket.take_at(t0 + Duration::from_millis(500)));
        // A long pause refills to the burst, no further.
        let later = t0 + Duration::from_secs(60);
        assert!((0..3).all(|_| bucket.take_at(later)));
        assert!(!bucket.take_at(later));
    }
}
