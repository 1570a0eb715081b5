//! The server's clock as `/v1/clock` shows it and `/v1/clock/advance` moves it. The server and
//! the client share these types.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;

/// The server's clock.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClockState {
    /// What the clock reads.
    pub now: Timestamp,
    /// Whether the server skips time (`--time-skipping`).
    pub time_skipping: bool,
    /// How far ahead of the wall clock it is, jumps by hand included.
    pub skipped_seconds: f64,
}

/// `POST /v1/clock/advance`'s body: how far to move the clock ahead.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClockAdvance {
    /// Seconds, more than 0 and at most [`ClockAdvance::MAX_SECONDS`].
    pub seconds: f64,
}

impl ClockAdvance {
    /// The longest move by hand: ten years, far beyond any SWF timeout, well within a timestamp.
    pub const MAX_SECONDS: f64 = 10.0 * 366.0 * 24.0 * 3600.0;
}
