//! Admission: who a request is (SigV4, `tenancy`), whether its tenant has rate left, and whether
//! the domain it names is one the tenant may use.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::body::Body;
use axum::extract::{FromRequest, Request};
use axum::http::request::Parts;
use axum::response::Response;
use bytes::Bytes;
use serde_json::Value;
use tokio::sync::OwnedSemaphorePermit;

use super::response::{self, Face};
use super::{Api, Operation, read_body, request_id};
use crate::fault::Fault;
use crate::model::DomainArn;
use crate::ops::Ctx;
use crate::tenancy::{Checked, Tenant, check_declared};

impl Api {
    /// The body of a request with `parts` (at most `limit` bytes), and its context:
    /// authenticated, and within its tenant's rate. The credentials are checked as far as they
    /// can be before the body is read, so a client without a key costs no body; the rate is
    /// taken only once the signature holds, so nobody can spend a tenant's rate but the tenant.
    ///
    /// A signed request is nobody's until its signature holds, and anyone can name a real
    /// access key id. So a request whose signature covers a body hash it does not declare (no
    /// `x-amz-content-sha256`: what SDKs send to SWF) may send only
    /// `HttpLimits::unverified_body_bytes`, within `unverified_body_timeout`; one that declares
    /// the hash has its signature checked before its body, and once it holds gets the full
    /// limits (large module uploads do this).
    pub(super) async fn admit(
        &self,
        parts: &Parts,
        body: Body,
        limit: usize,
    ) -> Result<(Ctx, Bytes), Fault> {
        let claimed = self.service.tenants.claim(parts, SystemTime::now())?;
        let (caller, body) = match claimed.check_headers(parts)? {
            Checked::Caller { caller, declared } => {
                let body = read_body(body, limit, self.http.body_timeout).await?;
                if let Some(declared) = declared {
                    check_declared(&declared, &body)?;
                }
                (caller, body)
            }
            Checked::NeedsBody(claimed) => {
                let body = self.read_unverified(body, limit).await?;
                (claimed.verify(parts, &body)?, body)
            }
        };
        self.charge(&caller.tenant, 1, Duration::ZERO).await?;
        Ok((Ctx::new(caller), body))
    }

    /// Admits an import as [`Api::admit`] does a request, but for two things. Its tenant's
    /// rate counts it as one request per `max_request_bytes` of its body (what it declares
    /// before it is read, the rest once it is), waiting up to [`IMPORT_PATIENCE`] for them.
    /// And its body is read in one of the server's [`IMPORT_TURNS`], taken once the request
    /// is its tenant's and held (the answer's permit) until the import is stored, so that the
    /// memory imports take at once is bounded. (A body whose signature can be checked only
    /// over it is at most `unverified_body_bytes`, read before its turn.)
    pub(super) async fn admit_import(
        &self,
        parts: &Parts,
        body: Body,
    ) -> Result<(Ctx, Bytes, OwnedSemaphorePermit), Fault> {
        let limit = self.service.limits.max_import_bytes;
        let unit = self.service.limits.max_request_bytes;
        let claimed = self.service.tenants.claim(parts, SystemTime::now())?;
        let turn = || async {
            self.imports
                .clone()
                .acquire_owned()
                .await
                .expect("never closed")
        };
        let (caller, body, turn) = match claimed.check_headers(parts)? {
            Checked::Caller { caller, declared } => {
                let charged = units(declared_length(parts).min(limit), unit);
                self.charge(&caller.tenant, charged, IMPORT_PATIENCE)
                    .await?;
                let turn = turn().await;
                let body = read_body(body, limit, self.http.body_timeout).await?;
                if let Some(declared) = declared {
                    check_declared(&declared, &body)?;
                }
                let more = units(body.len(), unit).saturating_sub(charged);
                if more > 0 {
                    self.charge(&caller.tenant, more, IMPORT_PATIENCE).await?;
                }
                (caller, body, turn)
            }
            Checked::NeedsBody(claimed) => {
                let body = self.read_unverified(body, limit).await?;
                let caller = claimed.verify(parts, &body)?;
                self.charge(&caller.tenant, units(body.len(), unit), IMPORT_PATIENCE)
                    .await?;
                (caller, body, turn().await)
            }
        };
        Ok((Ctx::new(caller), body, turn))
    }

    /// Takes `units` requests from `tenant`'s rate, waiting up to `patience` for them, or
    /// answers `ThrottlingException`.
    async fn charge(&self, tenant: &Tenant, units: u32, patience: Duration) -> Result<(), Fault> {
        let Some(wait) = tenant.admit_within(units, patience) else {
            let metrics = &self.service.engine.metrics;
            metrics.own.throttled(&metrics.tenant_labels(&tenant.name));
            return Err(match patience.is_zero() {
                true => Fault::throttled(),
                false => Fault::Throttling(format!(
                    "Rate exceeded: this request counts as {units} requests, more than the \
                     tenant's rate gives within {} seconds",
                    patience.as_secs()
                )),
            });
        };
        crate::tenancy::wait_out(wait).await;
        Ok(())
    }

    /// The body of a request whose signature can be checked only over it, within the tighter
    /// limits of a request that is nobody's yet.
    async fn read_unverified(&self, body: Body, limit: usize) -> Result<Bytes, Fault> {
        let bytes = limit.min(self.http.unverified_body_bytes);
        let deadline = self
            .http
            .body_timeout
            .min(self.http.unverified_body_timeout);
        read_body(body, bytes, deadline)
            .await
            .map_err(|fault| match fault {
                Fault::RequestTooLarge(_) if bytes < limit => Fault::RequestTooLarge(format!(
                    "The request body exceeds {bytes} bytes, the most accepted before the \
                 signature is checked; send the body's SHA-256 in a signed \
                 x-amz-content-sha256 header"
                )),
                other => other,
            })
    }
}

/// How many imports the server reads and stores at once; more wait their turn.
pub(super) const IMPORT_TURNS: usize = 2;

/// How long an import waits for its tenant's rate to allow its size.
const IMPORT_PATIENCE: Duration = Duration::from_secs(30);

/// The body length `parts` declares (`Content-Length`), or 0.
fn declared_length(parts: &Parts) -> usize {
    (parts.headers.get(axum::http::header::CONTENT_LENGTH))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(0)
}

/// What `bytes` of a body count as against a tenant's rate: one request per `unit` begun (at
/// least one).
fn units(bytes: usize, unit: usize) -> u32 {
    u32::try_from(bytes.div_ceil(unit.max(1)).max(1)).unwrap_or(u32::MAX)
}

/// Refuses an SWF request naming a domain its tenant may not use. `input` has passed the
/// schema check. Operations on a task token name no domain: the token holds the one its task
/// was polled in, and is good only in its tenant's scope.
pub(crate) fn authorize(ctx: &Ctx, operation: Operation, input: &Value) -> Result<(), Fault> {
    let text = |member: &str| input.get(member).and_then(Value::as_str);
    let domain = match operation {
        Operation::RegisterDomain
        | Operation::DescribeDomain
        | Operation::DeprecateDomain
        | Operation::UndeprecateDomain => text("name").map(str::to_owned),
        Operation::TagResource | Operation::UntagResource | Operation::ListTagsForResource => {
            // An ARN of another scope is unknown to the operation; only the name matters here.
            text("resourceArn")
                .and_then(DomainArn::parse)
                .map(|arn| arn.name)
        }
        Operation::ListDomains
        | Operation::RespondDecisionTaskCompleted
        | Operation::RespondActivityTaskCompleted
        | Operation::RespondActivityTaskFailed
        | Operation::RespondActivityTaskCanceled
        | Operation::RecordActivityTaskHeartbeat => None,
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
        match api.admit(&parts, body, limit).await {
            Ok((ctx, body)) => Ok(Admitted { ctx, body }),
            Err(fault) => Err(response::respond(
                Face::Extension,
                &request_id(),
                Err(fault),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::Scope;

    /// Every operation but ListDomains and those on a task token names a domain, and each is
    /// refused one the tenant may not use: no operation slips past the allow-list.
    #[test]
    fn every_operation_naming_a_domain_is_checked() {
        let tenants = crate::tenancy::one_tenant_with_domains(&["mine"]);
        let tenant = tenants.by_account("111111111111").unwrap().clone();
        let ctx = Ctx {
            scope: Scope {
                account: tenant.account.clone(),
                region: "us-east-1".into(),
            },
            tenant,
            stop: None,
        };
        let input = |domain: &str| {
            json!({
                "domain": domain,
                "name": domain,
                "resourceArn": format!("arn:aws:swf:us-east-1:111111111111:/domain/{domain}"),
            })
        };
        for &operation in Operation::ALL {
            let theirs = authorize(&ctx, operation, &input("theirs"));
            let named = operation.name();
            if named == "ListDomains" || named.starts_with("Respond") || named.starts_with("Record")
            {
                assert!(theirs.is_ok(), "{named}");
                continue;
            }
            assert!(
                matches!(theirs, Err(Fault::AccessDenied(_))),
                "{}: {theirs:?}",
                operation.name()
            );
            assert!(authorize(&ctx, operation, &input("mine")).is_ok());
        }
    }
}
