//! Weft's own API beside SWF's, under `/v1`: upload, list and delete Wasm modules, bind them to a
//! domain's task lists and function names, read what their guests failed.
//!
//! Plain JSON in and out; the bodies are the types in `model::wasm`, which the client shares.
//! Faults have SWF's body (`{"__type", "message"}`, `x-amzn-errortype`)
//! with REST statuses: 400 for bad input, 404 for an unknown resource or route, 409 for a module
//! still bound, 413 for a body too large. Path segments are percent-decoded, so a task list name
//! may hold any character.
//!
//! | route | answer |
//! | --- | --- |
//! | `POST /v1/modules?name=&version=&dryRun=` (body: the `.wasm` bytes) | the module, with the name and version label given (bytes uploaded before take them); with `dryRun=true`, checked (quota, component, world) and not stored |
//! | `GET /v1/modules` | `{"modules": [...]}`, each with the bindings that use it |
//! | `DELETE /v1/modules/{digest}` | `{}` |
//! | `PUT /v1/domains/{domain}/bindings/{kind}/{name}?dryRun=` (body: `{"module", "concurrency"?, "limits"?, "httpHosts"?, "upgrade"?, "force"?, "ramp"?}`) | the binding, with `upgraded` if its upgrade policy ran an upgrade; with `dryRun=true`, only its name, limits, concurrency, HTTP grants and policy checked: `{"concurrency", "limits"}` |
//! | `GET /v1/domains/{domain}/bindings` | `{"bindings": [...]}` |
//! | `DELETE /v1/domains/{domain}/bindings/{kind}/{name}` | `{}` |
//! | `GET /v1/domains/{domain}/bindings/{kind}/{name}/failures` | `{"failures": [...]}` |
//! | `POST /v1/domains/{domain}/bindings/{kind}/{name}/rollback` | the binding, back on the module it ran before |
//! | `POST /v1/domains/{domain}/bindings/decision/{name}/promote` | the binding, its ramp ended: its module takes every new run (and, under the `replay` policy, `upgraded`) |
//! | `POST /v1/domains/{domain}/bindings/decision/{name}/upgrade?dryRun=&all=&force=` | `{"module", "runs": [...]}`: each open run pinned to an older module, replayed with the current one, and whether it moved (`all`, with `force`: moved unreplayed) |
//! | `GET /v1/domains/{domain}/task-lists` | `{"taskLists": [...]}`: each list's pending tasks, waiting polls, binding |
//! | `GET /v1/domains/{domain}/workflows/{workflowId}/runs/{runId}/failures` | `{"failures": [...]}`: the run's latest failures of bound guests |
//! | `GET /v1/domains/{domain}/workflows/{workflowId}/runs/{runId}/logs` | `{"lines": [...]}`: what its bound guests logged lately, on this node |
//! | `POST /v1/domains/{domain}/replay` (body: `{"module", "workflowType"?, "taskList"?, "last"?}`) | `{"runs": [...]}`: each run's replay, and where it diverged |
//!
//! `kind` is `decision`, `activity` or `function`. `httpHosts` (activity bindings only; none by
//! default) lists the hosts, `host` or `host:port`, its guest may send HTTP requests to.

use crate::model::routes;
use std::sync::Arc;

use axum::Router;
use axum::extract::path::ErrorKind;
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequestParts, Path, RawQuery, State};
use axum::http::request::Parts;
use axum::response::Response;
use axum::routing::{get, post, put};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::response::{self, Face};
use super::{Api, auth, request_id};
use crate::fault::{Fault, echo};
use crate::model::BindingKind;
use crate::model::{
    Bind, BindingList, FailureList, ModuleLabel, ModuleList, Replay, RunFailureList, RunLogList,
    TaskListList, UpgradeQuery,
};
use crate::ops::modules::{self, MAX_MODULE_BYTES};
use crate::ops::wasm;
use crate::ops::{replay, run_failures, run_logs, upgrades};

/// The extension's routes, to merge into the router.
pub(super) fn routes() -> Router<Arc<Api>> {
    Router::new()
        .route(routes::MODULES, post(upload_module).get(list_modules))
        .route(routes::MODULE, axum::routing::delete(delete_module))
        .route(routes::BINDINGS, get(list_bindings))
        .route(routes::BINDING, put(bind).delete(unbind))
        .route(routes::BINDING_FAILURES, get(failures))
        .route(routes::BINDING_ROLLBACK, post(rollback))
        .route(routes::BINDING_UPGRADE, post(upgrade))
        .route(routes::BINDING_PROMOTE, post(promote))
        .route(routes::RUN_FAILURES, get(run_failures))
        .route(routes::RUN_LOGS, get(run_logs))
        .route(routes::TASK_LISTS, get(task_lists))
        .route(routes::REPLAY, post(replay))
}

/// A binding's place: domain, kind and name, as the path names them.
type Place = (String, String, String);

/// An admitted request whose body is at most the service's request limit.
pub(super) type Admitted = auth::Admitted<0>;

async fn upload_module(
    State(api): State<Arc<Api>>,
    RawQuery(query): RawQuery,
    auth::Admitted { ctx, body }: auth::Admitted<MAX_MODULE_BYTES>,
) -> Response {
    reply(
        async {
            let query: UploadQuery = parse_query(query.as_deref(), &["name", "version", "dryRun"])?;
            let label = ModuleLabel {
                name: query.name,
                version: query.version,
            };
            let code = body.into();
            modules::upload_module(&api.service, &ctx, code, label, query.dry_run).await
        }
        .await,
    )
}

async fn list_modules(State(api): State<Arc<Api>>, Admitted { ctx, .. }: Admitted) -> Response {
    let modules = modules::list_modules(&api.service, &ctx).await;
    reply(modules.map(|modules| ModuleList { modules }))
}

async fn delete_module(
    State(api): State<Arc<Api>>,
    Params(digest): Params<String>,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    let deleted = modules::delete_module(&api.service, &ctx, digest).await;
    reply(deleted.map(|()| json!({})))
}

/// `POST /v1/modules`' query: the module's label, and whether only to check it.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct UploadQuery {
    name: Option<String>,
    version: Option<String>,
    #[serde(default)]
    dry_run: bool,
}

/// A change's query: whether only to check it (`?dryRun=true`).
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct DryRun {
    #[serde(default)]
    dry_run: bool,
}

async fn bind(
    State(api): State<Arc<Api>>,
    Params((domain, kind, name)): Params<Place>,
    RawQuery(query): RawQuery,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            let kind = kind_named(&kind)?;
            auth::authorize_domain(&ctx, "Bind", &domain)?;
            let query: DryRun = parse_query(query.as_deref(), &["dryRun"])?;
            let input: Bind = parse_input(&body)?;
            if query.dry_run {
                let (limits, concurrency) = wasm::check_bind(&ctx, kind, &name, &input)?;
                return Ok(json!({"concurrency": concurrency, "limits": limits}));
            }
            let binding = wasm::bind(&api.service, &ctx, domain, kind, name, input).await?;
            serde_json::to_value(binding).map_err(Fault::internal)
        }
        .await,
    )
}

async fn rollback(
    State(api): State<Arc<Api>>,
    Params((domain, kind, name)): Params<Place>,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            let kind = kind_named(&kind)?;
            auth::authorize_domain(&ctx, "RollbackBinding", &domain)?;
            wasm::rollback(&api.service, &ctx, domain, kind, name).await
        }
        .await,
    )
}

async fn upgrade(
    State(api): State<Arc<Api>>,
    Params((domain, kind, name)): Params<Place>,
    RawQuery(query): RawQuery,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            let query: UpgradeQuery = parse_query(query.as_deref(), &["dryRun", "all", "force"])?;
            decision_only(&kind, "are upgraded")?;
            if query.all && !query.force {
                return Err(Fault::Validation(
                    "all moves every open run to the current module without replaying it; it \
                     is for emergencies: give force=true (weft's --force) to mean it"
                        .into(),
                ));
            }
            auth::authorize_domain(&ctx, "UpgradeBinding", &domain)?;
            let how = upgrades::Upgrade {
                dry_run: query.dry_run,
                all: query.all,
                back: false,
            };
            upgrades::upgrade(&api.service, &ctx, domain, name, how).await
        }
        .await,
    )
}

async fn promote(
    State(api): State<Arc<Api>>,
    Params((domain, kind, name)): Params<Place>,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            decision_only(&kind, "ramp up")?;
            auth::authorize_domain(&ctx, "PromoteBinding", &domain)?;
            wasm::promote(&api.service, &ctx, domain, name).await
        }
        .await,
    )
}

async fn list_bindings(
    State(api): State<Arc<Api>>,
    Params(domain): Params<String>,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "ListBindings", &domain)?;
            let bindings = wasm::list_bindings(&api.service, &ctx, domain).await?;
            Ok(BindingList { bindings })
        }
        .await,
    )
}

async fn unbind(
    State(api): State<Arc<Api>>,
    Params((domain, kind, name)): Params<Place>,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            let kind = kind_named(&kind)?;
            auth::authorize_domain(&ctx, "Unbind", &domain)?;
            wasm::unbind(&api.service, &ctx, domain, kind, name).await?;
            Ok(json!({}))
        }
        .await,
    )
}

async fn failures(
    State(api): State<Arc<Api>>,
    Params((domain, kind, name)): Params<Place>,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            let kind = kind_named(&kind)?;
            auth::authorize_domain(&ctx, "ListBindingFailures", &domain)?;
            let failures = wasm::failures(&api.service, &ctx, domain, kind, name).await?;
            Ok(FailureList { failures })
        }
        .await,
    )
}

async fn run_failures(
    State(api): State<Arc<Api>>,
    Params((domain, workflow_id, run_id)): Params<(String, String, String)>,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "ListRunFailures", &domain)?;
            let (workflow_id, run_id) = (workflow_id.into(), run_id.into());
            let failures =
                run_failures::run_failures(&api.service, &ctx, domain, workflow_id, run_id).await?;
            Ok(RunFailureList { failures })
        }
        .await,
    )
}

async fn run_logs(
    State(api): State<Arc<Api>>,
    Params((domain, workflow_id, run_id)): Params<(String, String, String)>,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "ListRunLogs", &domain)?;
            let (workflow_id, run_id) = (workflow_id.into(), run_id.into());
            let lines = run_logs::run_logs(&api.service, &ctx, domain, workflow_id, run_id).await?;
            Ok(RunLogList { lines })
        }
        .await,
    )
}

async fn task_lists(
    State(api): State<Arc<Api>>,
    Params(domain): Params<String>,
    Admitted { ctx, .. }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "ListTaskLists", &domain)?;
            let task_lists = wasm::task_lists(&api.service, &ctx, domain).await?;
            Ok(TaskListList { task_lists })
        }
        .await,
    )
}

async fn replay(
    State(api): State<Arc<Api>>,
    Params(domain): Params<String>,
    Admitted { ctx, body }: Admitted,
) -> Response {
    reply(
        async {
            auth::authorize_domain(&ctx, "Replay", &domain)?;
            let input: Replay = parse_input(&body)?;
            replay::replay(&api.service, &ctx, domain, input).await
        }
        .await,
    )
}

/// The extension's answer: `outcome` as JSON, or its fault.
pub(super) fn reply<T: Serialize>(outcome: Result<T, Fault>) -> Response {
    let body = outcome.and_then(|output| serde_json::to_vec(&output).map_err(Fault::internal));
    response::respond(Face::Extension, &request_id(), body)
}

/// Refuses a binding kind other than `decision` for what only decision bindings `do`.
fn decision_only(kind: &str, what: &str) -> Result<(), Fault> {
    match kind_named(kind)? {
        BindingKind::Decision => Ok(()),
        _ => Err(Fault::Validation(format!(
            "Only decision bindings {what}: {kind} tasks are not pinned to a module"
        ))),
    }
}

pub(super) fn kind_named(name: &str) -> Result<BindingKind, Fault> {
    BindingKind::from_name(name).ok_or_else(|| {
        Fault::Validation(format!(
            "Unknown binding kind: {}; it must be decision, activity or function",
            echo(name)
        ))
    })
}

/// The body as the input `T`: malformed JSON is a `SerializationException`, well-formed JSON of
/// the wrong shape (a missing or unknown member, a wrong type) a `ValidationException`.
pub(super) fn parse_input<T: DeserializeOwned>(body: &[u8]) -> Result<T, Fault> {
    serde_json::from_slice(body).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => {
            Fault::Validation(format!("Invalid input: {}", echo(&in_json_terms(&e))))
        }
        _ => Fault::Serialization(format!(
            "The request body is not valid JSON: {}",
            echo(&e.to_string())
        )),
    })
}

/// serde's message for `e` with the Rust types it names said in JSON's terms: the client sent
/// JSON and should not have to know that `concurrency` is a `u32`. (The structs set their own
/// `expecting`, so no struct name appears.)
fn in_json_terms(e: &serde_json::Error) -> String {
    let mut message = e.to_string();
    for (rust, json) in [
        ("expected u32", "expected an integer from 0 to 4294967295"),
        (
            "expected u64",
            "expected an integer from 0 to 18446744073709551615",
        ),
    ] {
        message = message.replace(rust, json);
    }
    message
}

/// Path parameters, percent-decoded. A path that does not decode (such as `%FF`, not UTF-8) is
/// the client's error, answered like any other fault, and so is a parameter longer than any
/// name may be ([`MAX_SEGMENT_CHARS`]): faults quote what they name, and must not quote a
/// 60 KB path back.
pub(super) struct Params<T>(pub(super) T);

/// The longest path parameter: SWF's names (domains, task lists, functions) are at most 256
/// characters, and digests 64.
const MAX_SEGMENT_CHARS: usize = 256;

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for Params<T> {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Response> {
        let params = async {
            let Path(segments) = Path::<Vec<(String, String)>>::from_request_parts(parts, state)
                .await
                .map_err(path_fault)?;
            let too_long = segments
                .iter()
                .find(|(_, value)| value.chars().count() > MAX_SEGMENT_CHARS);
            if let Some((key, value)) = too_long {
                return Err(Fault::Validation(format!(
                    "Invalid path: its {key} '{}' is {} characters long; at most \
                     {MAX_SEGMENT_CHARS}",
                    echo(value),
                    value.chars().count()
                )));
            }
            let Path(params) = Path::<T>::from_request_parts(parts, state)
                .await
                .map_err(path_fault)?;
            Ok(Params(params))
        };
        params.await.map_err(|fault| reply::<Value>(Err(fault)))
    }
}

/// The fault for a path that did not decode. Only a segment that is not UTF-8 once
/// percent-decoded is the client's doing: every parameter is a string, and the routes name as
/// many as their handlers take, so anything else is a bug, whose detail (Rust types) stays in the
/// log.
fn path_fault(rejection: PathRejection) -> Fault {
    if let PathRejection::FailedToDeserializePathParams(e) = &rejection
        && let ErrorKind::InvalidUtf8InPathParam { key } = e.kind()
    {
        return Fault::Validation(format!(
            "Invalid path: its {key} is not UTF-8 once percent-decoded"
        ));
    }
    Fault::internal(format!("path parameters: {}", rejection.body_text()))
}

/// A URL query as `T`, whose parameters are `known`: another parameter, or one that does not
/// parse, is a `ValidationException` naming it. (`T` cannot refuse unknown members itself: a
/// flattened struct only takes its own.)
pub(super) fn parse_query<T: DeserializeOwned>(
    query: Option<&str>,
    known: &[&str],
) -> Result<T, Fault> {
    let query = query.unwrap_or_default();
    let invalid = |why: String| Fault::Validation(format!("Invalid query: {}", echo(&why)));
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(query).map_err(|e| invalid(e.to_string()))?;
    if let Some((name, _)) = pairs
        .iter()
        .find(|(name, _)| !known.contains(&name.as_str()))
    {
        return Err(invalid(format!(
            "unknown parameter '{name}'; it takes {}",
            known.join(", ")
        )));
    }
    serde_urlencoded::from_str(query).map_err(|e| invalid(e.to_string()))
}

#[cfg(test)]
mod tests;
