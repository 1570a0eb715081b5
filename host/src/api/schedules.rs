//! Schedules in Weft's `/v1` API (`model::schedules`):
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /v1/domains/{domain}/schedules?limit=&nextPageToken=` | `{"schedules": [...], "nextPageToken"?}` |
//! | `POST /v1/domains/{domain}/schedules/{id}` (body: `{"spec", "action", "overlap"?, "catchupWindow"?, "limit"?}`) | the schedule, described |
//! | `GET /v1/domains/{domain}/schedules/{id}` | `{"id", "schedule", "info", "nextTimes"}` |
//! | `PUT /v1/domains/{domain}/schedules/{id}` (body: as made) | the schedule, described |
//! | `DELETE /v1/domains/{domain}/schedules/{id}` | `{}` |
//! | `POST /v1/domains/{domain}/schedules/{id}/pause` and `.../unpause` (body: `{"note"?}`) | the schedule, described |
//! | `POST /v1/domains/{domain}/schedules/{id}/trigger` | `{"times", "started"}` |
//! | `POST /v1/domains/{domain}/schedules/{id}/backfill` (body: `{"from", "to"}`, seconds) | `{"times", "started"}` |

use std::sync::Arc;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;

use super::extension::{Admitted, Params, parse_input, parse_query, reply};
use super::{Api, auth};
use crate::model::{Backfill, ScheduleDefinition, ScheduleNote, routes};
use crate::ops::schedules;

/// The routes, to merge into the router.
pub(super) fn routes() -> Router<Arc<Api>> {
    Router::new()
        .route(routes::SCHEDULES, get(list))
        .route(
            routes::SCHEDULE,
            get(describe).post(create).put(update).delete(delete),
        )
        .route(routes::SCHEDULE_PAUSE, post(pause))
        .route(routes::SCHEDULE_UNPAUSE, post(unpause))
        .route(routes::SCHEDULE_TRIGGER, post(trigger))
        .route(routes::SCHEDULE_BACKFILL, post(backfill))
}

/// The query of `GET .../schedules`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page {
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    next_page_token: Option<String>,
}

type Named = Params<(String, String)>;

async fn create(
    State(api): State<Arc<Api>>,
    Params((domain, id)): Named,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "CreateSchedule", &domain)?;
            let definition: ScheduleDefinition = parse_input(&body)?;
            schedules::create(&api.service, &ctx, domain, id, definition).await
        }
        .await,
    )
}

async fn list(
    State(api): State<Arc<Api>>,
    Params(domain): Params<String>,
    RawQuery(query): RawQuery,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "ListSchedules", &domain)?;
            let page: Page = parse_query(query.as_deref(), &["limit", "nextPageToken"])?;
            schedules::list(&api.service, &ctx, domain, page.next_page_token, page.limit).await
        }
        .await,
    )
}

async fn describe(
    State(api): State<Arc<Api>>,
    Params((domain, id)): Named,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "DescribeSchedule", &domain)?;
            schedules::describe(&api.service, &ctx, domain, id).await
        }
        .await,
    )
}

async fn update(
    State(api): State<Arc<Api>>,
    Params((domain, id)): Named,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "UpdateSchedule", &domain)?;
            let definition: ScheduleDefinition = parse_input(&body)?;
            schedules::update(&api.service, &ctx, domain, id, definition).await
        }
        .await,
    )
}

async fn delete(
    State(api): State<Arc<Api>>,
    Params((domain, id)): Named,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "DeleteSchedule", &domain)?;
            schedules::delete(&api.service, &ctx, domain, id).await?;
            Ok(json!({}))
        }
        .await,
    )
}

async fn pause(
    State(api): State<Arc<Api>>,
    Params((domain, id)): Named,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "PauseSchedule", &domain)?;
            let note: ScheduleNote = parse_body_or_default(&body)?;
            schedules::pause(&api.service, &ctx, domain, id, true, note.note).await
        }
        .await,
    )
}

async fn unpause(
    State(api): State<Arc<Api>>,
    Params((domain, id)): Named,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "PauseSchedule", &domain)?;
            let note: ScheduleNote = parse_body_or_default(&body)?;
            schedules::pause(&api.service, &ctx, domain, id, false, note.note).await
        }
        .await,
    )
}

async fn trigger(
    State(api): State<Arc<Api>>,
    Params((domain, id)): Named,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "TriggerSchedule", &domain)?;
            schedules::trigger(&api.service, &ctx, domain, id).await
        }
        .await,
    )
}

async fn backfill(
    State(api): State<Arc<Api>>,
    Params((domain, id)): Named,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "BackfillSchedule", &domain)?;
            let range: Backfill = parse_input(&body)?;
            schedules::backfill(&api.service, &ctx, domain, id, range).await
        }
        .await,
    )
}

/// A JSON body, or the default for an empty one.
fn parse_body_or_default<T: serde::de::DeserializeOwned + Default>(
    body: &[u8],
) -> Result<T, crate::fault::Fault> {
    match body.iter().all(u8::is_ascii_whitespace) {
        true => Ok(T::default()),
        false => parse_input(body),
    }
}
