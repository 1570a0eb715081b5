//! Task lists' controls in Weft's `/v1` API (see `model::task_lists`):
//!
//! | route | answer |
//! | --- | --- |
//! | `POST /v1/domains/{domain}/task-lists/{kind}/{name}/pause` (body: `{"reason"?, "identity"?}`) | `{"kind", "name", "paused"?, "changed"}`: none of its tasks is handed out until it resumes |
//! | `POST /v1/domains/{domain}/task-lists/{kind}/{name}/resume` (body: `{"identity"?}`) | the same: its tasks handed out again |
//! | `POST /v1/domains/{domain}/task-lists/{kind}/{name}/limit` (body: `{"rate"?: number \| null, "concurrency"?: number \| null, "fairness"?: {"tagPrefix", "weights"?, "defaultWeight"?} \| null}`) | `{"kind", "name", "rate"?, "concurrency"?, "fairness"?, "changed"}`: at most `rate` tasks handed out per second and `concurrency` started and not finished, across all nodes, shared between keys by weight; a member left out stays as it is |
//!
//! `{kind}` is `decision`, `activity` or `function`. The lists themselves, with their pauses,
//! are listed by `GET /v1/domains/{domain}/task-lists` (`extension`).

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;

use super::extension::{Admitted, Params, kind_named, parse_input, reply};
use super::{Api, auth};
use crate::model::{ListLimitRequest, ListPauseRequest, routes};
use crate::ops::controls;

/// The routes, to merge into the router.
pub(super) fn routes() -> Router<Arc<Api>> {
    Router::new()
        .route(routes::TASK_LIST_PAUSE, post(pause))
        .route(routes::TASK_LIST_RESUME, post(resume))
        .route(routes::TASK_LIST_LIMIT, post(limit))
}

async fn limit(
    State(api): State<Arc<Api>>,
    Params((domain, kind, name)): Params<(String, String, String)>,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            let kind = kind_named(&kind)?;
            auth::authorize_domain(&ctx, "LimitTaskList", &domain)?;
            let input: ListLimitRequest = parse_input(&body)?;
            controls::limit_list(&api.service, &ctx, domain, (kind, name), input).await
        }
        .await,
    )
}

async fn pause(
    State(api): State<Arc<Api>>,
    Params((domain, kind, name)): Params<(String, String, String)>,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            let kind = kind_named(&kind)?;
            auth::authorize_domain(&ctx, "PauseTaskList", &domain)?;
            let input: ListPauseRequest = parse_input(&body)?;
            controls::pause_list(&api.service, &ctx, domain, (kind, name), input).await
        }
        .await,
    )
}

async fn resume(
    State(api): State<Arc<Api>>,
    Params((domain, kind, name)): Params<(String, String, String)>,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            let kind = kind_named(&kind)?;
            auth::authorize_domain(&ctx, "ResumeTaskList", &domain)?;
            let input: ListPauseRequest = parse_input(&body)?;
            controls::resume_list(&api.service, &ctx, domain, (kind, name), input).await
        }
        .await,
    )
}
