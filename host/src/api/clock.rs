//! The server's clock under `/v1`: read it, and move it ahead by hand when it skips time
//! (`weft serve --time-skipping`; `weft clock`).
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /v1/clock` | `{"now", "timeSkipping", "skippedSeconds"}`: `now` in epoch seconds, as SWF's timestamps |
//! | `POST /v1/clock/advance` (body: `{"seconds"}`) | the clock as `GET` answers it, moved; what came due fires at once |

use crate::model::routes;
use std::sync::Arc;
use std::time::Duration;

use super::Api;
use super::extension::{Admitted, parse_input, reply};
use crate::fault::Fault;
use crate::model::{ClockAdvance, ClockState};
use crate::ops::Service;
use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};

/// The clock's routes, to merge into the router.
pub(super) fn routes() -> Router<Arc<Api>> {
    Router::new()
        .route(routes::CLOCK, get(read))
        .route(routes::CLOCK_ADVANCE, post(advance))
}

fn state(svc: &Service) -> ClockState {
    ClockState {
        now: svc.clock.now(),
        time_skipping: svc.skipping.is_some(),
        skipped_seconds: svc
            .skipping
            .as_ref()
            .map_or(0.0, |clock| clock.skipped().as_secs_f64()),
    }
}

async fn read(State(api): State<Arc<Api>>, _: Admitted) -> Response {
    reply(Ok(state(&api.service)))
}

async fn advance(State(api): State<Arc<Api>>, Admitted { body, .. }: Admitted) -> Response {
    let moved = (|| {
        let input: ClockAdvance = parse_input(&body)?;
        let Some(clock) = &api.service.skipping else {
            return Err(Fault::Validation(
                "The clock moves by hand only on a server started with --time-skipping".into(),
            ));
        };
        if !(input.seconds > 0.0 && input.seconds <= ClockAdvance::MAX_SECONDS) {
            return Err(Fault::Validation(format!(
                "seconds must be more than 0 and at most {} (ten years)",
                ClockAdvance::MAX_SECONDS
            )));
        }
        clock.advance(Duration::from_secs_f64(input.seconds));
        Ok(state(&api.service))
    })();
    reply(moved)
}
