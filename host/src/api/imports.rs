//! Importing runs recorded elsewhere, under `/v1` (`weft import` sends them one at a time).
//!
//! | route | answer |
//! | --- | --- |
//! | `POST /v1/domains/{domain}/imports` (body: `{"workflowId", "runId", "events"}`) | `{"added"}`: false if the run was there already |

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;

use super::extension::{Params, parse_input, reply};
use super::{Api, auth};
use crate::model::RunImport;
use crate::ops::imports;

/// The most one imported run may send: a history at SWF's 25,000-event cap, of big events.
const MAX_IMPORT_BYTES: usize = 256 << 20;

/// The routes, to merge into the router.
pub(super) fn routes() -> Router<Arc<Api>> {
    Router::new().route("/v1/domains/{domain}/imports", post(import))
}

async fn import(
    State(api): State<Arc<Api>>,
    Params(domain): Params<String>,
    auth::Admitted { ctx, body }: auth::Admitted<MAX_IMPORT_BYTES>,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "ImportRun", &domain)?;
            let input: RunImport = parse_input(&body)?;
            imports::import(&api.service, &ctx, domain, input).await
        }
        .await,
    )
}
