//! The HTTP face of the service: AWS JSON 1.0 over `POST /` (spec §1), and Weft's own JSON API
//! under `/v1` beside it (`extension`: modules and bindings).
//!
//! An SWF request is read in this order: `X-Amz-Target` names the [`Operation`]; the body (at
//! most `Limits::max_request_bytes`) must be a JSON object; [`Schema`] checks it against the
//! model; the operation runs. Both faces derive the caller's scope the same way ([`Api::ctx`])
//! and answer through `response`. Only this module knows HTTP.

mod edge;
mod extension;
pub(crate) mod operation;
mod response;
pub(crate) mod schema;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use axum::routing::post;
use bytes::Bytes;
use http_body_util::LengthLimitError;
use hyper::body::Body as _;
use serde_json::Value;

use crate::config::HttpLimits;
use crate::fault::Fault;
use crate::model::Scope;
use crate::ops::{Ctx, Service};

pub(crate) use self::edge::serve;
pub(crate) use self::operation::Operation;
use self::response::Face;
use self::schema::Schema;

/// The region of requests that carry no SigV4 credential scope.
const DEFAULT_REGION: &str = "us-east-1";

/// State shared by every request.
pub(crate) struct Api {
    pub(crate) service: Arc<Service>,
    pub(crate) account: String,
    /// The edge's connection cap and deadlines; `read_body` keeps the body deadline.
    pub(crate) http: HttpLimits,
}

impl Api {
    /// Who is asking: the configured account, in the region of the request's credential scope.
    /// Every request, SWF's or the extension's, is scoped here and nowhere else.
    fn ctx(&self, headers: &HeaderMap) -> Ctx {
        Ctx {
            scope: Scope {
                account: self.account.clone(),
                region: region(headers).to_owned(),
            },
        }
    }
}

/// The router: a function, so tests can drive it without a socket.
pub(crate) fn router(api: Arc<Api>) -> Router {
    Router::new()
        .route("/", post(handle))
        .merge(extension::routes())
        .fallback(no_route)
        .method_not_allowed_fallback(no_route)
        .with_state(api)
}

/// Any path or method nothing serves, answered as a fault like any other.
async fn no_route(method: Method, uri: Uri) -> Response {
    let fault = Fault::UnknownOperation(format!("No route for {method} {}", uri.path()));
    response::respond(Face::of_path(uri.path()), &request_id(), Err(fault))
}

async fn handle(State(api): State<Arc<Api>>, headers: HeaderMap, body: Body) -> Response {
    let request_id = request_id();
    let outcome = process(&api, &headers, body).await;
    response::respond(Face::Swf, &request_id, outcome)
}

async fn process(api: &Api, headers: &HeaderMap, body: Body) -> Result<Vec<u8>, Fault> {
    let target = headers
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let operation = Operation::from_target(target)?;
    let limit = api.service.limits.max_request_bytes;
    let bytes = read_body(body, limit, api.http.body_timeout).await?;
    let mut input = parse_body(&bytes)?;
    Schema::get().validate(operation.name(), &mut input)?;
    operation.call(&api.service, &api.ctx(headers), input).await
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

/// Runs `operation` for `scope` on `input` as if it had come over HTTP (schema check included),
/// and answers its output as JSON: how in-process workers poll and respond.
pub(crate) async fn call(
    service: &Service,
    scope: &Scope,
    operation: Operation,
    mut input: Value,
) -> Result<Value, Fault> {
    Schema::get().validate(operation.name(), &mut input)?;
    let ctx = Ctx {
        scope: scope.clone(),
    };
    let output = operation.call(service, &ctx, input).await?;
    serde_json::from_slice(&output).map_err(Fault::internal)
}

/// The request body as JSON; an empty body reads as `{}`.
fn parse_body(bytes: &[u8]) -> Result<Value, Fault> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_slice(bytes)
        .map_err(|e| Fault::Serialization(format!("The request body is not valid JSON: {e}")))
}

/// The region of the request's SigV4 credential scope
/// (`Authorization: AWS4-HMAC-SHA256 Credential=AKID/DATE/REGION/swf/aws4_request, ...`).
fn region(headers: &HeaderMap) -> &str {
    let scope = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|auth| auth.split("Credential=").nth(1))
        .and_then(|credential| credential.split([',', ' ']).next());
    scope
        .and_then(|s| s.split('/').nth(2))
        .filter(|r| {
            (1..=32).contains(&r.len())
                && r.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
        .unwrap_or(DEFAULT_REGION)
}

/// A fresh request id in the UUID form AWS uses.
fn request_id() -> String {
    let mut b = [0u8; 16];
    if getrandom::fill(&mut b).is_err() {
        // Ids only correlate logs; a clock-derived one will do if the OS has no randomness.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        b = nanos.to_le_bytes();
    }
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    #[test]
    fn region_comes_from_the_credential_scope() {
        let mut headers = HeaderMap::new();
        assert_eq!(region(&headers), "us-east-1");
        headers.insert(
            "authorization",
            HeaderValue::from_static(
                "AWS4-HMAC-SHA256 Credential=AKID/20240115/eu-west-2/swf/aws4_request, \
                 SignedHeaders=host, Signature=00",
            ),
        );
        assert_eq!(region(&headers), "eu-west-2");
        headers.insert(
            "authorization",
            HeaderValue::from_static("AWS4-HMAC-SHA256 Credential=AKID/20240115/EU:bad/swf/x"),
        );
        assert_eq!(region(&headers), "us-east-1");
    }

    #[test]
    fn request_ids_look_like_uuids() {
        let id = request_id();
        assert_eq!(id.len(), 36);
        assert_eq!(id.matches('-').count(), 4);
        assert_ne!(id, request_id());
    }

    #[test]
    fn empty_bodies_read_as_empty_objects() {
        assert_eq!(parse_body(b"").unwrap(), serde_json::json!({}));
        assert_eq!(parse_body(b" \n").unwrap(), serde_json::json!({}));
        assert!(matches!(parse_body(b"{"), Err(Fault::Serialization(_))));
    }
}
