//! The run listing and batch actions of Weft's `/v1` API:
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /v1/domains/{domain}/runs?status=&workflowId=&tag=&type=&version=&closeStatus=&startedAfter=&startedBefore=&closedAfter=&closedBefore=&module=&limit=&oldestFirst=&nextPageToken=` | `{"runs": [...], "nextPageToken"?}`, each run with the decider module it is pinned to |
//! | `GET /v1/domains/{domain}/runs/count?<the same filter>` | `{"count"}` |
//! | `GET /v1/domains/{domain}/workflows/{workflowId}/runs/{runId}` | the run, as the listing shows it |
//! | `POST /v1/domains/{domain}/workflows/{workflowId}/reset` (body: `{"to": eventId \| "first" \| "lastGood", "runId"?, "reason"?, "force"?, "reapplySignals"?}`) | `{"runId", "resetRunId", "carriedEvents", ...}`: the new run (see `model::resets`) |
//! | `POST /v1/domains/{domain}/workflows/{workflowId}/pause` (body: `{"runId"?, "reason"?, "identity"?}`) | `{"runId", "paused"?, "changed", "tasks"}`: the run's queued tasks held (see `model::pauses`) |
//! | `POST /v1/domains/{domain}/workflows/{workflowId}/resume` (body: `{"runId"?, "identity"?}`) | the same: its held tasks queued again |
//! | `POST /v1/domains/{domain}/runs/batch` (body: `{"filter", "action": "terminate" \| "requestCancel" \| "signal", ...}`) | `{"matched", "done", "failures"?}` |
//!
//! A batch calls the SWF operation for each open run the filter picks, exactly as a client
//! would (so the history records what that call records); its own members are that call's,
//! checked against the model before any run is touched. Each run counts against the tenant's
//! request rate as that call would; once the rate would keep the batch waiting past
//! [`BATCH_PATIENCE`], the runs left are answered as failures that say so.

use crate::model::routes;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::extension::{Admitted, Params, parse_input, parse_query, reply};
use super::operation::Operation;
use super::schema::Schema;
use super::{Api, auth};

use crate::fault::Fault;
use crate::model::{
    Batch, BatchAction, BatchFailure, BatchOutcome, PauseRequest, ResetPoint, ResetRequest,
    RunCount, RunFilter, RunQuery,
};
use crate::ops::{Ctx, pauses, resets, runs};

/// The routes, to merge into the router.
pub(super) fn routes() -> Router<Arc<Api>> {
    Router::new()
        .route(routes::RUNS, get(list))
        .route(routes::RUNS_COUNT, get(count))
        .route(routes::RUNS_BATCH, post(batch))
        .route(routes::RUN, get(one))
        .route(routes::RESET, post(reset))
        .route(routes::PAUSE, post(pause))
        .route(routes::RESUME, post(resume))
}

async fn pause(
    State(api): State<Arc<Api>>,
    Params((domain, workflow_id)): Params<(String, String)>,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "PauseWorkflowExecution", &domain)?;
            let input: PauseRequest = parse_input(&body)?;
            pauses::pause(&api.service, &ctx, domain, workflow_id.into(), input).await
        }
        .await,
    )
}

async fn resume(
    State(api): State<Arc<Api>>,
    Params((domain, workflow_id)): Params<(String, String)>,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "ResumeWorkflowExecution", &domain)?;
            let input: PauseRequest = parse_input(&body)?;
            pauses::resume(&api.service, &ctx, domain, workflow_id.into(), input).await
        }
        .await,
    )
}

async fn reset(
    State(api): State<Arc<Api>>,
    Params((domain, workflow_id)): Params<(String, String)>,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "ResetWorkflowExecution", &domain)?;
            let input: ResetRequest = parse_input(&body)?;
            resets::reset(&api.service, &ctx, domain, workflow_id.into(), input).await
        }
        .await,
    )
}

async fn one(
    State(api): State<Arc<Api>>,
    Params((domain, workflow_id, run_id)): Params<(String, String, String)>,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "ListRuns", &domain)?;
            let (workflow_id, run_id) = (workflow_id.into(), run_id.into());
            runs::run_summary(&api.service, &ctx, domain, workflow_id, run_id).await
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
            auth::authorize_domain(&ctx, "ListRuns", &domain)?;
            let query: RunQuery = parse_query(query.as_deref(), &LIST_PARAMS)?;
            runs::list_runs(&api.service, &ctx, domain, query).await
        }
        .await,
    )
}

async fn count(
    State(api): State<Arc<Api>>,
    Params(domain): Params<String>,
    RawQuery(query): RawQuery,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "CountRuns", &domain)?;
            let filter: RunFilter = parse_query(query.as_deref(), &LIST_PARAMS[..FILTER_PARAMS])?;
            let count = runs::count_runs(&api.service, &ctx, domain, filter).await?;
            Ok(RunCount { count })
        }
        .await,
    )
}

async fn batch(
    State(api): State<Arc<Api>>,
    Params(domain): Params<String>,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "BatchRuns", &domain)?;
            let batch: Batch = parse_input(&body)?;
            let call = swf_call(&domain, &batch.action);
            // The members are checked once, on a stand-in run, so that a bad one is refused
            // before any run is acted on.
            if let Some((operation, members)) = &call {
                Schema::get().validate(operation.name(), &mut with_run(members, "-", None))?;
            }
            if let BatchAction::Pause { reason } = &batch.action {
                pauses::check_reason(reason.as_deref())?;
            }
            let action = batch.action.clone();
            let picked = runs::open_runs(&api.service, &ctx, domain.clone(), batch.filter).await?;
            let mut outcome = BatchOutcome {
                matched: picked.len() as u64,
                ..BatchOutcome::default()
            };
            let began = Instant::now();
            for (workflow_id, run_id) in picked {
                // Each run is the SWF call the batch makes for it, and counts against the
                // tenant's rate as that call would: the batch waits for the rate, a while.
                let left = BATCH_PATIENCE.saturating_sub(began.elapsed());
                let Some(wait) = ctx.tenant.admit_within(1, left) else {
                    let message = format!(
                        "Not acted on: the tenant's request rate ran out (the batch waited {} \
                         seconds for it); each run counts as one request",
                        BATCH_PATIENCE.as_secs()
                    );
                    outcome.failures.push(BatchFailure {
                        workflow_id,
                        run_id,
                        message,
                    });
                    continue;
                };
                crate::tenancy::wait_out(wait).await;
                let run = (workflow_id.clone(), run_id.clone());
                match act(&api, &ctx, &domain, (&action, call.as_ref()), run).await {
                    Ok(()) => outcome.done += 1,
                    Err(fault) => outcome.failures.push(BatchFailure {
                        workflow_id,
                        run_id,
                        message: fault.client_message(),
                    }),
                }
            }
            Ok(outcome)
        }
        .await,
    )
}

/// How long a batch waits, in all, for its tenant's request rate to let it act on its runs;
/// those it would reach later are answered as not acted on.
const BATCH_PATIENCE: Duration = Duration::from_secs(5);

/// The SWF operation a batch action makes, and its members but the run.
pub(super) fn swf_call(domain: &str, action: &BatchAction) -> Option<(Operation, Value)> {
    match action {
        BatchAction::Terminate { reason, details } => Some((
            Operation::TerminateWorkflowExecution,
            json!({"domain": domain, "reason": reason, "details": details}),
        )),
        BatchAction::RequestCancel => Some((
            Operation::RequestCancelWorkflowExecution,
            json!({"domain": domain}),
        )),
        BatchAction::Signal { signal_name, input } => Some((
            Operation::SignalWorkflowExecution,
            json!({"domain": domain, "signalName": signal_name, "input": input}),
        )),
        BatchAction::Pause { .. } | BatchAction::Resume | BatchAction::Reset { .. } => None,
    }
}

/// Acts on the run `workflow_id`/`run_id`: its SWF call, if the action is one, else its pause,
/// resume or reset (unchecked, as a batch job's).
async fn act(
    api: &Api,
    ctx: &Ctx,
    domain: &str,
    (action, call): (&BatchAction, Option<&(Operation, Value)>),
    (workflow_id, run_id): (String, String),
) -> Result<(), Fault> {
    let service = &api.service;
    if let Some((operation, members)) = call {
        let input = with_run(members, &workflow_id, Some(&run_id));
        return super::call_json(service, ctx, *operation, input)
            .await
            .map(drop);
    }
    if let BatchAction::Reset { to, reason } = action {
        let request = ResetRequest {
            run_id: Some(run_id),
            to: ResetPoint::Named(*to),
            reason: reason.clone(),
            force: true,
            reapply_signals: true,
        };
        let (domain, workflow_id) = (domain.to_owned(), workflow_id.into());
        let reset = resets::reset(service, ctx, domain, workflow_id, request).await;
        return reset.map(drop);
    }
    let request = PauseRequest {
        run_id: Some(run_id),
        reason: match action {
            BatchAction::Pause { reason } => reason.clone(),
            _ => None,
        },
        identity: None,
    };
    let (domain, workflow_id) = (domain.to_owned(), workflow_id.into());
    let report = match action {
        BatchAction::Resume => pauses::resume(service, ctx, domain, workflow_id, request).await?,
        _ => pauses::pause(service, ctx, domain, workflow_id, request).await?,
    };
    match report.changed {
        true => Ok(()),
        false if report.paused.is_some() => {
            Err(Fault::Validation("The run is paused already".into()))
        }
        false => Err(Fault::Validation("The run is not paused".into())),
    }
}

/// `members` naming the run `workflow_id`/`run_id`.
pub(super) fn with_run(members: &Value, workflow_id: &str, run_id: Option<&str>) -> Value {
    let mut input = members.clone();
    input["workflowId"] = workflow_id.into();
    input["runId"] = run_id.into();
    input
}

/// The parameters of a run listing: the filter's, then the page's.
const LIST_PARAMS: [&str; 14] = [
    "status",
    "workflowId",
    "tag",
    "type",
    "version",
    "closeStatus",
    "startedAfter",
    "startedBefore",
    "closedAfter",
    "closedBefore",
    "module",
    "limit",
    "oldestFirst",
    "nextPageToken",
];
/// How many of [`LIST_PARAMS`] are the filter's.
const FILTER_PARAMS: usize = 11;

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::clock::Timestamp;
    use crate::model::RunState;

    /// The parameters `query` is written with.
    fn names(query: &impl serde::Serialize) -> BTreeSet<String> {
        let pairs: Vec<(String, String)> =
            serde_urlencoded::from_str(&serde_urlencoded::to_string(query).unwrap()).unwrap();
        pairs.into_iter().map(|(name, _)| name).collect()
    }

    #[test]
    fn the_known_parameters_are_the_query_structs_members() {
        let filter = RunFilter {
            status: Some(RunState::Open),
            workflow_id: Some("w".into()),
            tag: Some("t".into()),
            type_name: Some("n".into()),
            version: Some("1".into()),
            close_status: Some("FAILED".into()),
            started_after: Some(Timestamp::from_millis(1)),
            started_before: Some(Timestamp::from_millis(2)),
            closed_after: Some(Timestamp::from_millis(3)),
            closed_before: Some(Timestamp::from_millis(4)),
            module: Some("0123abcd".into()),
        };
        let query = RunQuery {
            filter: filter.clone(),
            limit: Some(5),
            oldest_first: true,
            next_page_token: Some("x".into()),
        };
        let known = |params: &[&str]| params.iter().map(|p| p.to_string()).collect();
        assert_eq!(names(&filter), known(&LIST_PARAMS[..FILTER_PARAMS]));
        assert_eq!(names(&query), known(&LIST_PARAMS));
        let read: RunQuery = parse_query(
            Some(&serde_urlencoded::to_string(&query).unwrap()),
            &LIST_PARAMS,
        )
        .unwrap();
        assert_eq!(read, query);
    }

    #[test]
    fn a_parameter_the_listing_does_not_take_is_named() {
        let refused =
            parse_query::<RunFilter>(Some("tag=a&limit=2"), &LIST_PARAMS[..FILTER_PARAMS]);
        let message = refused.unwrap_err().to_string();
        assert!(message.contains("unknown parameter 'limit'"), "{message}");
    }
}
