//! The WASI a decider reads, made a function of its decision task, so that the same history
//! always gives the same decisions, whatever language the decider is written in.
//!
//! - Both clocks stand still at the time of the task's `DecisionTaskStarted` event: the wall
//!   clock reads it, the monotonic clock reads it too (in nanoseconds since the epoch), for as
//!   long as the call lasts.
//! - `wasi:random/random` and `wasi:random/insecure` are ChaCha20 streams, and
//!   `wasi:random/insecure-seed` a number, each derived from the run id and the task's started
//!   event id. Different runs and different tasks draw different numbers; the same task drawn
//!   again (a replay, a retry) draws the same ones. Anyone who knows the run id can predict
//!   them: a decider must not make secrets.
//!
//! Everything else a decider could read is empty or denied for every guest (`super::guest`).

use std::time::Duration;

use chacha20::ChaCha20Rng;
use chacha20::rand_core::SeedableRng as _;
use serde_json::Value;
use sha2::{Digest as _, Sha256};
use wasmtime_wasi::{HostMonotonicClock, HostWallClock, WasiCtxBuilder};

/// The moment and the seed one decision task reads.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TaskWorld {
    /// Its `DecisionTaskStarted` time, since the Unix epoch.
    now: Duration,
    /// Where its randomness comes from.
    seed: [u8; 32],
}

impl TaskWorld {
    /// The world of the decision task `task`, in its wire JSON (`PollForDecisionTask`'s answer,
    /// all events included). A task without its started event (which the service never hands
    /// out) reads the epoch.
    pub(crate) fn of(task: &Value) -> TaskWorld {
        let started = task["startedEventId"].as_u64().unwrap_or(0);
        let run_id = task["workflowExecution"]["runId"].as_str().unwrap_or("");
        let events = task["events"].as_array().map_or(&[][..], Vec::as_slice);
        let now = events
            .iter()
            .rev()
            .find(|event| event["eventId"].as_u64() == Some(started))
            .and_then(|event| event["eventTimestamp"].as_f64())
            // Timestamps are whole milliseconds, which a double holds only nearly: rounded,
            // a runtime that reads milliseconds (`Date.now()`) reads the event's time exactly.
            // (The cast saturates: a time before the epoch reads the epoch.)
            .map(|seconds| Duration::from_millis((seconds * 1000.0).round() as u64))
            .unwrap_or_default();
        let seed = Sha256::new()
            .chain_update(b"weft decider randomness\0")
            .chain_update(run_id.as_bytes())
            .chain_update(b"\0")
            .chain_update(started.to_be_bytes())
            .finalize()
            .into();
        TaskWorld { now, seed }
    }

    /// Gives `wasi` this world's clocks and randomness.
    pub(crate) fn grant(&self, wasi: &mut WasiCtxBuilder) {
        let mut seed = [0; 16];
        seed.copy_from_slice(&self.derive(b"insecure-seed")[..16]);
        wasi.wall_clock(Stopped(self.now))
            .monotonic_clock(Stopped(self.now))
            .secure_random(ChaCha20Rng::from_seed(self.derive(b"random")))
            .insecure_random(ChaCha20Rng::from_seed(self.derive(b"insecure")))
            .insecure_random_seed(u128::from_le_bytes(seed));
    }

    /// A key of its own for each generator, so no two share a stream.
    fn derive(&self, purpose: &[u8]) -> [u8; 32] {
        Sha256::new()
            .chain_update(self.seed)
            .chain_update(purpose)
            .finalize()
            .into()
    }
}

/// A clock stopped at a moment since the epoch.
struct Stopped(Duration);

impl HostWallClock for Stopped {
    fn resolution(&self) -> Duration {
        Duration::from_millis(1)
    }

    fn now(&self) -> Duration {
        self.0
    }
}

impl HostMonotonicClock for Stopped {
    fn resolution(&self) -> u64 {
        1_000_000
    }

    fn now(&self) -> u64 {
        u64::try_from(self.0.as_nanos()).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use chacha20::rand_core::Rng as _;
    use serde_json::json;

    use super::*;

    fn task(run_id: &str, started: u64, at: f64) -> Value {
        json!({
            "workflowExecution": {"workflowId": "w", "runId": run_id},
            "startedEventId": started,
            "events": [
                {"eventId": started - 1, "eventTimestamp": at - 5.0},
                {"eventId": started, "eventTimestamp": at},
            ],
        })
    }

    fn draw(world: &TaskWorld) -> u64 {
        ChaCha20Rng::from_seed(world.derive(b"random")).next_u64()
    }

    #[test]
    fn the_clock_reads_the_started_event_and_the_seed_follows_run_and_task() {
        let world = TaskWorld::of(&task("run-a", 3, 1_700_000_000.123));
        assert_eq!(world.now, Duration::from_millis(1_700_000_000_123));
        assert_eq!(world, TaskWorld::of(&task("run-a", 3, 1_700_000_000.123)));
        assert_eq!(draw(&world), draw(&TaskWorld::of(&task("run-a", 3, 9.0))));
        assert_ne!(draw(&world), draw(&TaskWorld::of(&task("run-b", 3, 9.0))));
        assert_ne!(draw(&world), draw(&TaskWorld::of(&task("run-a", 9, 9.0))));
        assert_ne!(world.derive(b"random"), world.derive(b"insecure"));
    }

    /// The generator is ChaCha20 by name: a seed must draw the same numbers after an upgrade,
    /// or recorded histories would stop replaying. The all-zero key's keystream starts
    /// `76 b8 e0 ad a0 f1 3d 90` (RFC 8439, appendix A.1).
    #[test]
    fn a_seed_draws_the_same_numbers_in_every_version() {
        let mut rng = ChaCha20Rng::from_seed([0; 32]);
        assert_eq!(rng.next_u64(), 0x903d_f1a0_ade0_b876);
    }

    #[test]
    fn a_task_without_its_started_event_reads_the_epoch() {
        let world = TaskWorld::of(&json!({"startedEventId": 4, "events": []}));
        assert_eq!(world.now, Duration::ZERO);
    }
}
