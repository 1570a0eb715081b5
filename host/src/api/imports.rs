//! Importing runs recorded elsewhere, under `/v1` (`weft import` sends them one at a time).
//!
//! | route | answer |
//! | --- | --- |
//! | `POST /v1/domains/{domain}/imports` (body: `{"workflowId", "runId", "events"}`) | `{"added"}`: false if the run was there already |

use crate::model::routes;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::response::Response;
use axum::routing::post;

use serde_json::Value;

use super::extension::{Params, parse_input, reply};
use super::schema::Schema;
use super::{Api, auth};
use crate::fault::{Fault, echo};
use crate::model::RunImport;
use crate::ops::imports;

/// The routes, to merge into the router.
pub(super) fn routes() -> Router<Arc<Api>> {
    Router::new().route(routes::IMPORTS, post(import))
}

async fn import(
    State(api): State<Arc<Api>>,
    Params(domain): Params<String>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    reply(
        async {
            let (ctx, body, _turn) = api.admit_import(&parts, body).await?;
            auth::authorize_domain(&ctx, "ImportRun", &domain)?;
            let mut input: RunImport = parse_input(&body)?;
            drop(body);
            check_shapes(&mut input, api.service.limits.max_events_per_run)?;
            imports::import(&api.service, &ctx, domain, input).await
        }
        .await,
    )
}

/// Checks an import against the model as the calls that recorded it were checked: its ids as
/// `WorkflowId` and `WorkflowRunId`, at most `most` events (a run's limit), each as a
/// `HistoryEvent` (lengths, enums, names and ids free of control characters).
pub(crate) fn check_shapes(input: &mut RunImport, most: u64) -> Result<(), Fault> {
    let schema = Schema::get();
    let ids = [
        ("WorkflowId", "workflowId", &input.workflow_id),
        ("WorkflowRunId", "runId", &input.run_id),
    ];
    for (shape, path, id) in ids {
        schema.validate_shape(shape, &mut Value::String(id.clone()), path)?;
    }
    let count = input.events.len() as u64;
    if count > most {
        return Err(Fault::Validation(format!(
            "The history of {}/{} has {count} events; a run holds at most {most}",
            echo(&input.workflow_id),
            echo(&input.run_id)
        )));
    }
    for (i, event) in input.events.iter_mut().enumerate() {
        schema.validate_shape("HistoryEvent", event, &format!("events.{}.member", i + 1))?;
    }
    Ok(())
}
