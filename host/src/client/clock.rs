//! The server's clock (`/v1/clock`): read it, and move a time-skipping server's ahead.

use crate::model::routes;
use hyper::Method;

use super::{Client, ClientError, ClockAdvance, ClockState};

impl Client {
    /// The server's clock.
    pub async fn clock(&self) -> Result<ClockState, ClientError> {
        self.call(Method::GET, routes::CLOCK.into(), None).await
    }

    /// Moves the clock of a server that skips time `seconds` ahead; answers it moved.
    pub async fn advance_clock(&self, seconds: f64) -> Result<ClockState, ClientError> {
        let body = serde_json::to_vec(&ClockAdvance { seconds }).map_err(|e| self.protocol(e))?;
        self.call(
            Method::POST,
            routes::CLOCK_ADVANCE.into(),
            Some(("application/json", body)),
        )
        .await
    }
}
