//! Batch jobs in Weft's `/v1` API (see `model::batches`):
//!
//! | route | answer |
//! | --- | --- |
//! | `POST /v1/domains/{domain}/batches` (body: `{"filter", "action": "terminate" \| "requestCancel" \| "signal" \| "pause" \| "resume", ..., "rate"?, "identity"?}`) | the job, made: `{"id", "state": "running", "matched", "done": 0, ...}`; it acts from now on |
//! | `GET /v1/domains/{domain}/batches` | `{"jobs": [...]}`, newest first (at most 100) |
//! | `GET /v1/domains/{domain}/batches/{id}` | the job: its state and progress (`matched`, `done`, `failed`, the latest `failures` with why) |
//! | `POST /v1/domains/{domain}/batches/{id}/cancel` | the job, canceled: the runs left are not acted on |
//!
//! The action's members are checked as the SWF call's would be before the job is made.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};

use super::extension::{Admitted, Params, parse_input, reply};
use super::runs::{swf_call, with_run};
use super::schema::Schema;
use super::{Api, auth};
use crate::model::{BatchJobList, BatchJobRequest, routes};
use crate::ops::batches;

/// The routes, to merge into the router.
pub(super) fn routes() -> Router<Arc<Api>> {
    Router::new()
        .route(routes::BATCHES, post(create).get(list))
        .route(routes::BATCH, get(describe))
        .route(routes::BATCH_CANCEL, post(cancel))
}

async fn create(
    State(api): State<Arc<Api>>,
    Params(domain): Params<String>,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "StartBatchJob", &domain)?;
            let request: BatchJobRequest = parse_input(&body)?;
            if let Some((operation, members)) = swf_call(&domain, &request.batch.action) {
                Schema::get().validate(operation.name(), &mut with_run(&members, "-", None))?;
            }
            batches::create(&api.service, &ctx, domain, request).await
        }
        .await,
    )
}

async fn list(
    State(api): State<Arc<Api>>,
    Params(domain): Params<String>,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "ListBatchJobs", &domain)?;
            let jobs = batches::list(&api.service, &ctx, domain).await?;
            Ok(BatchJobList { jobs })
        }
        .await,
    )
}

async fn describe(
    State(api): State<Arc<Api>>,
    Params((domain, id)): Params<(String, String)>,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "DescribeBatchJob", &domain)?;
            batches::describe(&api.service, &ctx, domain, id).await
        }
        .await,
    )
}

async fn cancel(
    State(api): State<Arc<Api>>,
    Params((domain, id)): Params<(String, String)>,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "CancelBatchJob", &domain)?;
            batches::cancel(&api.service, &ctx, domain, id).await
        }
        .await,
    )
}
