//! Admission: who a request is (SigV4, `tenancy`), whether its tenant has rate left, and whether
//! the domain it names is one the tenant may use.

use std::sync::Arc;
use std::time::SystemTime;

use axum::body::Body;
use axum::extract::{FromRequest, Request};
use axum::http::request::Parts;
use axum::response::Response;
use bytes::Bytes;
use serde_json::Value;

use super::response::{self, Face};
use super::{Api, Operation, read_body, request_id};
use crate::fault::Fault;
use crate::model::DomainArn;
use crate::ops::Ctx;
use crate::tenancy::Tenant;

impl Api {
    /// The context of a request with `parts` and `body`: authenticated, and within its
    /// tenant's rate.
    pub(super) fn admit(&self, parts: &Parts, body: &[u8]) -> Result<Ctx, Fault> {
        let caller = self
            .service
            .tenants
            .authenticate(parts, body, SystemTime::now())?;
        if !caller.tenant.admit() {
            return Err(Fault::Throttling("Rate exceeded".into()));
        }
        Ok(Ctx::new(caller))
    }
}

/// Refuses an SWF request naming a domain its tenant may not use. `input` has passed the
/// schema check.
pub(crate) fn authorize(ctx: &Ctx, operation: Operation, input: &Value) -> Result<(), Fault> {
    let text = |member: &str| input.get(member).and_then(Value::as_str);
    let domain = match operation {
        Operation::RegisterDomain => text("name").map(str::to_owned),
        Operation::TagResource | Operation::UntagResource | Operation::ListTagsForResource => {
            // An ARN of another scope is unknown to the operation; only the name matters here.
            text("resourceArn")
                .and_then(DomainArn::parse)
                .map(|arn| arn.name)
        }
        _ => text("domain").map(str::to_owned),
    };
    match domain {
        Some(name) => authorize_domain(ctx, operation.name(), &name),
        None => Ok(()),
    }
}

/// Refuses `action` (an operation's name) on domain `name` unless the tenant may use it.
pub(crate) fn authorize_domain(ctx: &Ctx, action: &str, name: &str) -> Result<(), Fault> {
    if ctx.tenant.may_use(name) {
        return Ok(());
    }
    Err(access_denied(&ctx.tenant, &ctx.scope.region, action, name))
}

/// AccessDeniedException, worded as IAM words it.
fn access_denied(tenant: &Tenant, region: &str, action: &str, domain: &str) -> Fault {
    let account = &tenant.account;
    Fault::AccessDenied(format!(
        "User: arn:aws:iam::{account}:user/{} is not authorized to perform: swf:{action} on \
         resource: arn:aws:swf:{region}:{account}:/domain/{domain}",
        tenant.name
    ))
}

/// A `/v1` request's context and body, admitted; the body at most `LIMIT` bytes or, when
/// `LIMIT` is 0, the service's request limit.
pub(super) struct Admitted<const LIMIT: usize> {
    pub(super) ctx: Ctx,
    pub(super) body: Bytes,
}

impl<const LIMIT: usize> FromRequest<Arc<Api>> for Admitted<LIMIT> {
    type Rejection = Response;

    async fn from_request(request: Request<Body>, api: &Arc<Api>) -> Result<Self, Response> {
        let (parts, body) = request.into_parts();
        let limit = match LIMIT {
            0 => api.service.limits.max_request_bytes,
            n => n,
        };
        let admitted = async {
            let body = read_body(body, limit).await?;
            let ctx = api.admit(&parts, &body)?;
            Ok(Admitted { ctx, body })
        };
        admitted
            .await
            .map_err(|fault| response::respond(Face::Extension, &request_id(), Err(fault)))
    }
}
