//! The HTTP face of the service: AWS JSON 1.0 over `POST /` (spec §1), and Weft's own JSON API
//! under `/v1` beside it (`extension`: modules and bindings), and the web console's files under
//! `/console/` (`console`).
//!
//! Every request is first checked for what web pages send (`browsers`: the Host an open server
//! answers to, a foreign Origin, the content type its route reads). Then an SWF request is
//! read in this order: who it claims to be, from its headers; the body (at
//! most `Limits::max_request_bytes`, less while its signature cannot be checked); whether its
//! signature holds and its tenant has rate left (`auth`: SigV4 when tenants are configured);
//! `X-Amz-Target` names the [`Operation`]; the body must be a JSON object; [`Schema`] checks it
//! against the model; the tenant must be allowed the domain it names; a poll must find a place
//! among its tenant's long polls (`long_polls`); the operation runs. Both faces admit requests
//! the same way ([`Api::admit`]) and answer through `response`. Only this module knows HTTP.

mod auth;
mod batches;
mod browsers;
mod clock;
mod console;
mod edge;
mod extension;
pub(crate) mod imports;
mod long_polls;
pub(crate) mod operation;
mod request_id;
mod response;
mod runs;
mod schedules;
pub(crate) mod schema;
mod scrape;
mod task_lists;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, Uri};
use axum::response::Response;
use axum::routing::post;
use bytes::Bytes;
use http_body_util::LengthLimitError;
use hyper::body::Body as _;
use serde::Serialize;
use serde_json::Value;

use crate::config::HttpLimits;
use crate::fault::{Fault, echo};
use crate::ops::{Ctx, Service};

pub(crate) use self::edge::{Listener, serve};
use self::long_polls::LongPolls;
pub(crate) use self::operation::{Op, Operation, op};
use self::request_id::request_id;
use self::response::Face;
use self::schema::Schema;

/// State shared by every request.
pub(crate) struct Api {
    pub(crate) service: Arc<Service>,
    /// The edge's connection caps and deadlines; `admit` keeps the body deadlines.
    pub(crate) http: HttpLimits,
    /// The long polls each tenant has waiting over HTTP.
    long_polls: LongPolls,
    /// The token `/metrics` asks for, if any.
    metrics_token: Option<String>,
    /// The names an open server answers to beside loopback names and addresses.
    allowed_hosts: browsers::AllowedHosts,
    /// The turns imports take to be read and stored (`auth::IMPORT_TURNS`).
    imports: Arc<tokio::sync::Semaphore>,
}

impl Api {
    /// The API of `service`, within `http`'s limits.
    pub(crate) fn new(
        service: Arc<Service>,
        http: HttpLimits,
        metrics_token: Option<String>,
        allowed_hosts: Vec<String>,
    ) -> Api {
        Api {
            service,
            http,
            long_polls: LongPolls::default(),
            metrics_token,
            allowed_hosts: browsers::AllowedHosts::new(allowed_hosts),
            imports: Arc::new(tokio::sync::Semaphore::new(auth::IMPORT_TURNS)),
        }
    }
}

/// The router: a function, so tests can drive it without a socket.
pub(crate) fn router(api: Arc<Api>) -> Router {
    Router::new()
        // SWF's requests are POSTs to `/`; a browser's GET there wants the console.
        .route(
            "/",
            post(handle).get(|| async { axum::response::Redirect::temporary("/console/") }),
        )
        .merge(extension::routes())
        .merge(clock::routes())
        .merge(imports::routes())
        .merge(runs::routes())
        .merge(schedules::routes())
        .merge(task_lists::routes())
        .merge(batches::routes())
        .merge(console::routes())
        .route("/metrics", axum::routing::get(scrape::metrics))
        .fallback(no_route)
        .method_not_allowed_fallback(no_route)
        .layer(axum::middleware::from_fn_with_state(
            api.clone(),
            browsers::guard,
        ))
        .layer(axum::middleware::from_fn(request_id::identify))
        .with_state(api)
}

/// Any path or method nothing serves, answered as a fault like any other.
async fn no_route(method: Method, uri: Uri) -> Response {
    let fault = Fault::UnknownOperation(format!("No route for {method} {}", echo(uri.path())));
    response::respond(Face::of_path(uri.path()), &request_id(), Err(fault))
}

async fn handle(State(api): State<Arc<Api>>, request: Request) -> Response {
    let request_id = request_id();
    let outcome = process(&api, request).await;
    response::respond(Face::Swf, &request_id, outcome)
}

async fn process(api: &Api, request: Request) -> Result<Vec<u8>, Fault> {
    let (parts, body) = request.into_parts();
    let (ctx, bytes) = api
        .admit(&parts, body, api.service.limits.max_request_bytes)
        .await?;
    let target = parts
        .headers
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let operation = Operation::from_target(target)?;
    tracing::Span::current().record("operation", operation.name());
    let mut input = parse_body(&bytes)?;
    Schema::get().validate(operation.name(), &mut input)?;
    auth::authorize(&ctx, operation, &input)?;
    let _place = if is_long_poll(operation, &input) {
        let open = api.service.tenants.is_open();
        let metrics = &api.service.engine.metrics;
        Some(api.long_polls.enter(&ctx, open, metrics)?)
    } else {
        None
    };
    operation.call(&api.service, &ctx, input).await
}

/// Runs `operation` for `ctx` on the JSON `input` as if it had come over HTTP, past admission:
/// checked against the model and the tenant's domains, then called. What a `/v1` batch does
/// to each run.
pub(crate) async fn call_json(
    service: &Service,
    ctx: &Ctx,
    operation: Operation,
    mut input: Value,
) -> Result<Vec<u8>, Fault> {
    Schema::get().validate(operation.name(), &mut input)?;
    auth::authorize(ctx, operation, &input)?;
    operation.call(service, ctx, input).await
}

/// Checks `input` as the server checks a registration (`RegisterDomain`,
/// `RegisterWorkflowType`, `RegisterActivityType`) before acting on it: the model's shapes,
/// then the rules it states in prose; the fault is the one the server would answer. Acts on
/// nothing: what a client asks before it registers anything.
pub(crate) fn check_registration(operation: &str, mut input: Value) -> Result<(), Fault> {
    use crate::model::{ActivityKind, WorkflowKind};
    use crate::ops::{domains, types};
    fn read<T: serde::de::DeserializeOwned>(input: Value) -> Result<T, Fault> {
        serde_json::from_value(input).map_err(|e| Fault::Serialization(e.to_string()))
    }
    Schema::get().validate(operation, &mut input)?;
    match operation {
        "RegisterDomain" => domains::check_register(&read(input)?),
        "RegisterWorkflowType" => {
            types::check_register::<WorkflowKind>(&mut read(input)?).map(drop)
        }
        "RegisterActivityType" => {
            types::check_register::<ActivityKind>(&mut read(input)?).map(drop)
        }
        other => Err(Fault::internal(format!("{other} is not a registration"))),
    }
}

/// Whether the request waits for a task: a poll, unless it fetches the next history page of a
/// decision task already delivered.
fn is_long_poll(operation: Operation, input: &Value) -> bool {
    match operation {
        Operation::PollForActivityTask => true,
        Operation::PollForDecisionTask => input.get("nextPageToken").is_none_or(Value::is_null),
        _ => false,
    }
}

/// The whole body, if it is at most `limit` bytes and arrives within `deadline`. A client that
/// stops sending mid-body is answered `RequestTimeoutException`; the connection then closes, since
/// the rest of its body was never read.
async fn read_body(body: Body, limit: usize, deadline: Duration) -> Result<Bytes, Fault> {
    let too_large = || Fault::RequestTooLarge(format!("The request body exceeds {limit} bytes"));
    // A Content-Length over the limit is refused before a byte of the body is waited for.
    if body.size_hint().lower() > limit as u64 {
        return Err(too_large());
    }
    let read = tokio::time::timeout(deadline, axum::body::to_bytes(body, limit)).await;
    let Ok(read) = read else {
        return Err(Fault::RequestTimeout(format!(
            "The request body did not arrive within {} seconds",
            deadline.as_secs_f64()
        )));
    };
    read.map_err(|e| {
        if std::error::Error::source(&e).is_some_and(|s| s.is::<LengthLimitError>()) {
            too_large()
        } else {
            Fault::Serialization("The request body could not be read".into())
        }
    })
}

/// Runs operation `O` for `ctx` on `input` as if it had come over HTTP, and answers its output:
/// how in-process workers and `weft demo` call the service.
///
/// The input goes through exactly what an HTTP body goes through after admission: it is
/// written as JSON, checked against the model and the tenant's domains, and read back, so a
/// caller in-process is refused what an HTTP client would be, with the same fault.
/// Authentication, rate and long-poll places are left out: the caller is the service itself.
pub(crate) async fn call<O: Op>(
    service: &Service,
    ctx: &Ctx,
    input: O::Input,
) -> Result<O::Output, Fault>
where
    O::Input: Serialize,
{
    O::run(service, ctx, admit::<O>(ctx, input)?).await
}

/// `input` for `O`, as [`call`] hands it to the operation: written as JSON, checked against
/// the model and the tenant's domains, and read back. For a caller in-process that then calls
/// the operation's own function with more than its wire input says.
pub(crate) fn admit<O: Op>(ctx: &Ctx, input: O::Input) -> Result<O::Input, Fault>
where
    O::Input: Serialize,
{
    let mut body = serde_json::to_value(&input).map_err(Fault::internal)?;
    Schema::get().validate(O::OPERATION.name(), &mut body)?;
    auth::authorize(ctx, O::OPERATION, &body)?;
    crate::fault::decode(body)
}

/// The request body as JSON; an empty body reads as `{}`.
fn parse_body(bytes: &[u8]) -> Result<Value, Fault> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_slice(bytes).map_err(|e| {
        let e = echo(&e.to_string());
        Fault::Serialization(format!("The request body is not valid JSON: {e}"))
    })
}

#[cfg(test)]
mod tests;
