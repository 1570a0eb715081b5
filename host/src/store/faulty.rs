//! A store that fails on purpose, for tests: a wrapper over any backend that, on a seed, makes
//! chosen calls fail as a shared database's do. A snapshot may be unavailable or slow; a write
//! may be refused before it runs (unavailable), given up for a conflict (busy: the locks it
//! needed stayed taken), slow, or committed with its answer lost on the way back (the client
//! hears unavailable, the change stands). What every request must then show: it fails cleanly,
//! with a fault a client retries, and nothing acknowledged is lost.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use super::StoreError;
use super::seam::{About, Backend, Job, Reads, Writes};

/// How often each fault comes, in percent of the calls it can hit.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rates {
    /// A snapshot or a write refused before anything runs.
    pub(crate) unavailable: u8,
    /// A write given up for a conflict: nothing of it is applied.
    pub(crate) conflict: u8,
    /// A snapshot or a write delayed by up to [`SLOW`].
    pub(crate) slow: u8,
    /// A write committed, its answer lost: the caller hears unavailable.
    pub(crate) lost_answer: u8,
}

/// The longest delay a slow call takes.
const SLOW: Duration = Duration::from_millis(5);

/// What one call comes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Fine,
    Unavailable,
    Conflict,
    Slow(Duration),
    LostAnswer,
}

/// The faults' source: a seeded sequence, so a failing seed fails again.
pub(crate) struct Faults {
    rates: Rates,
    state: AtomicU64,
    on: AtomicBool,
    /// How many faults of each kind came: unavailable, conflict, slow, lost answer.
    counts: [AtomicU64; 4],
}

impl Faults {
    /// Faults at `rates`, drawn from `seed`.
    pub(crate) fn new(rates: Rates, seed: u64) -> Arc<Faults> {
        Arc::new(Faults {
            rates,
            state: AtomicU64::new(seed),
            on: AtomicBool::new(true),
            counts: Default::default(),
        })
    }

    /// Stops (or resumes) every fault: a test reads what is stored with them off.
    pub(crate) fn set_on(&self, on: bool) {
        self.on.store(on, Ordering::Relaxed);
    }

    /// How many of each fault came: (unavailable, conflict, slow, lost answer).
    pub(crate) fn counts(&self) -> [u64; 4] {
        self.counts.each_ref().map(|c| c.load(Ordering::Relaxed))
    }

    /// The next number of the sequence (SplitMix64).
    fn next(&self) -> u64 {
        let mut z = self
            .state
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
            .wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The fate of a call that may meet the faults `allowed`.
    fn draw(&self, allowed: &[Fate]) -> Fate {
        if !self.on.load(Ordering::Relaxed) {
            return Fate::Fine;
        }
        let roll = self.next();
        let mut percent = (roll % 100) as u8;
        for &fate in allowed {
            let (rate, slot) = match fate {
                Fate::Unavailable => (self.rates.unavailable, 0),
                Fate::Conflict => (self.rates.conflict, 1),
                Fate::Slow(_) => (self.rates.slow, 2),
                Fate::LostAnswer => (self.rates.lost_answer, 3),
                Fate::Fine => continue,
            };
            if percent < rate {
                self.counts[slot].fetch_add(1, Ordering::Relaxed);
                return match fate {
                    Fate::Slow(_) => {
                        Fate::Slow(SLOW.mul_f64((roll >> 32) as f64 / f64::from(u32::MAX)))
                    }
                    fate => fate,
                };
            }
            percent -= rate;
        }
        Fate::Fine
    }
}

/// A backend whose calls meet [`Faults`].
pub(super) struct Faulty {
    pub(super) inner: Arc<dyn Backend>,
    pub(super) faults: Arc<Faults>,
}

const ANY_SLOW: Fate = Fate::Slow(Duration::ZERO);

impl Backend for Faulty {
    fn snapshot(&self) -> Result<Box<dyn Reads>, StoreError> {
        match self.faults.draw(&[Fate::Unavailable, ANY_SLOW]) {
            Fate::Unavailable => Err(unavailable("no connection for a read")),
            Fate::Slow(delay) => {
                std::thread::sleep(delay);
                self.inner.snapshot()
            }
            _ => self.inner.snapshot(),
        }
    }

    fn submit(&self, job: Box<dyn Job>) -> Result<(), StoreError> {
        let fate = self.faults.draw(&[
            Fate::Unavailable,
            Fate::Conflict,
            ANY_SLOW,
            Fate::LostAnswer,
        ]);
        match fate {
            Fate::Unavailable => Err(unavailable("no connection for a write")),
            Fate::Fine => self.inner.submit(job),
            fate => self.inner.submit(Box::new(Fated { job, fate })),
        }
    }
}

fn unavailable(why: &str) -> StoreError {
    StoreError::Unavailable(format!("injected: {why}"))
}

/// A job with its fate.
struct Fated {
    job: Box<dyn Job>,
    fate: Fate,
}

impl Job for Fated {
    fn apply(&mut self, tx: &mut dyn Writes, again: bool) -> bool {
        match self.fate {
            // Given up before it ran: nothing of it is in the transaction.
            Fate::Conflict => true,
            Fate::Slow(delay) => {
                std::thread::sleep(delay);
                self.job.apply(tx, again)
            }
            _ => self.job.apply(tx, again),
        }
    }

    fn finish(self: Box<Self>, error: Option<&StoreError>) {
        let injected = match (self.fate, error) {
            (Fate::Conflict, None) => StoreError::Busy("injected: a conflict".into()),
            (Fate::LostAnswer, None) => unavailable("the commit's answer was lost"),
            (_, error) => return self.job.finish(error),
        };
        self.job.finish(Some(&injected));
    }

    fn about(&self) -> Option<&About> {
        self.job.about()
    }

    fn queued(&self) -> std::time::Instant {
        self.job.queued()
    }
}
