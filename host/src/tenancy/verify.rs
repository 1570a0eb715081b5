//! Who sent a request: its SigV4 signature checked against the tenants' keys (spec §2), with
//! the errors AWS's JSON services answer.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::http::request::Parts;
use axum::http::{HeaderMap, header};

use super::sigv4::{self, Authorization, Form, Incomplete};
use super::{Tenant, Tenants};
use crate::fault::Fault;

/// The region of requests that carry no SigV4 credential scope (open mode only).
const DEFAULT_REGION: &str = "us-east-1";

/// The tenant a request acts for, in the region its credential scope names.
#[derive(Clone)]
pub(crate) struct Caller {
    pub(crate) tenant: Arc<Tenant>,
    pub(crate) region: String,
}

const BAD_SIGNATURE: &str = "The request signature we calculated does not match the signature \
     you provided. Check your AWS Secret Access Key and signing method. Consult the service \
     documentation for details.";

/// A request whose credentials name a known tenant, within the clock skew: all that is left is
/// to check its signature over the body. Checking this much before reading the body spares
/// the server the bodies of clients that hold no key.
pub(crate) struct Claimed<'a> {
    caller: Caller,
    /// What the signature is checked with; none in open mode.
    pending: Option<Pending<'a>>,
}

struct Pending<'a> {
    secret: &'a str,
    amz_date: String,
    scope: String,
    signed_headers: String,
    signature: String,
}

impl Tenants {
    /// The caller of the request with `parts` and `body`, at wall-clock time `now`: [`claim`]
    /// then [`Claimed::verify`].
    ///
    /// [`claim`]: Tenants::claim
    pub(crate) fn authenticate(
        &self,
        parts: &Parts,
        body: &[u8],
        now: SystemTime,
    ) -> Result<Caller, Fault> {
        self.claim(parts, now)?.verify(parts, body)
    }

    /// Whom the request with `parts` claims to come from, at wall-clock time `now`, checked as
    /// far as it can be without its body. In open mode every request is the open tenant's, in
    /// the region of its credential scope if it has one.
    pub(crate) fn claim(&self, parts: &Parts, now: SystemTime) -> Result<Claimed<'_>, Fault> {
        if self.open {
            return Ok(Claimed {
                caller: Caller {
                    tenant: self.the_open_one().clone(),
                    region: open_region(&parts.headers).to_owned(),
                },
                pending: None,
            });
        }
        let Some(header) = parts.headers.get(header::AUTHORIZATION) else {
            return Err(Fault::MissingAuthenticationToken(
                "Request is missing Authentication Token".into(),
            ));
        };
        let header = header.to_str().map_err(|_| {
            Fault::IncompleteSignature("The Authorization header is not text".into())
        })?;
        let auth =
            Authorization::parse(header).map_err(|Incomplete(m)| Fault::IncompleteSignature(m))?;
        check_scope(&auth)?;
        if !auth.signed_headers.split(';').any(|h| h == "host") {
            return Err(Fault::IncompleteSignature(
                "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.".into(),
            ));
        }
        let (amz_date, signed_at) = request_time(&parts.headers, header)?;
        let Some((tenant, secret)) = self.by_key.get(auth.access_key) else {
            return Err(Fault::UnrecognizedClient(
                "The security token included in the request is invalid.".into(),
            ));
        };
        if amz_date.get(..8) != Some(auth.date) {
            return Err(Fault::InvalidSignature(format!(
                "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date \
                 from HTTP: '{}' != '{}', from '{amz_date}'.",
                auth.date,
                amz_date.get(..8).unwrap_or_default()
            )));
        }
        check_skew(signed_at, now, self.max_skew)?;
        Ok(Claimed {
            caller: Caller {
                tenant: tenant.clone(),
                region: auth.region.to_owned(),
            },
            pending: Some(Pending {
                secret,
                scope: auth.scope(),
                amz_date,
                signed_headers: auth.signed_headers.to_owned(),
                signature: auth.signature.to_owned(),
            }),
        })
    }
}

/// Where a request stands once its headers are checked: who it is, or what is still to check.
pub(crate) enum Checked<'a> {
    /// The caller is known (open mode, or a signature over the declared body hash held). The
    /// body, once read, must still hash to the declared value, if any ([`check_declared`]).
    Caller {
        /// Whom the request acts for.
        caller: Caller,
        /// The `x-amz-content-sha256` the signature covered.
        declared: Option<String>,
    },
    /// The signature covers a body hash the request does not declare: it can be checked only
    /// over the body ([`Claimed::verify`]).
    NeedsBody(Claimed<'a>),
}

impl<'a> Claimed<'a> {
    /// Checks what can be checked before the body: in open mode, nothing; when the request
    /// declares its body's hash in `x-amz-content-sha256`, the signature itself, over that
    /// hash, since the hash is all the signature covers of the body. A bad signature is then
    /// refused before a byte of the body is read.
    pub(crate) fn check_headers(self, parts: &Parts) -> Result<Checked<'a>, Fault> {
        let Some(pending) = &self.pending else {
            return Ok(Checked::Caller {
                caller: self.caller,
                declared: None,
            });
        };
        let Some(declared) = parts.headers.get(CONTENT_SHA256) else {
            return Ok(Checked::NeedsBody(self));
        };
        // Only a SHA-256 in lowercase hex can match a body: anything else (UNSIGNED-PAYLOAD,
        // a typo) would fail once the body is in, so it fails now.
        let declared = declared
            .to_str()
            .ok()
            .filter(|h| h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .ok_or_else(payload_mismatch)?
            .to_owned();
        if !pending.holds(parts, &declared) {
            return Err(Fault::InvalidSignature(BAD_SIGNATURE.into()));
        }
        Ok(Checked::Caller {
            caller: self.caller,
            declared: Some(declared),
        })
    }

    /// The caller, if the request's signature over `body` holds.
    pub(crate) fn verify(self, parts: &Parts, body: &[u8]) -> Result<Caller, Fault> {
        let Some(pending) = self.pending else {
            return Ok(self.caller);
        };
        let body_hash = sigv4::sha256_hex(body);
        if let Some(declared) = parts.headers.get(CONTENT_SHA256)
            && declared.as_bytes() != body_hash.as_bytes()
        {
            return Err(payload_mismatch());
        }
        if !pending.holds(parts, &body_hash) {
            return Err(Fault::InvalidSignature(BAD_SIGNATURE.into()));
        }
        Ok(self.caller)
    }
}

/// Refuses a body that does not hash to the `x-amz-content-sha256` its signature covered.
pub(crate) fn check_declared(declared: &str, body: &[u8]) -> Result<(), Fault> {
    if sigv4::sha256_hex(body) == declared {
        Ok(())
    } else {
        Err(payload_mismatch())
    }
}

/// The header that carries the body's hash.
const CONTENT_SHA256: &str = "x-amz-content-sha256";

fn payload_mismatch() -> Fault {
    Fault::InvalidSignature(
        "The provided 'x-amz-content-sha256' header does not match what was computed.".into(),
    )
}

impl Pending<'_> {
    /// Whether the signature holds for the request with `parts` and a body hashing to
    /// `payload_hash`.
    fn holds(&self, parts: &Parts, payload_hash: &str) -> bool {
        let request = sigv4::Request {
            method: parts.method.as_str(),
            path: parts.uri.path(),
            query: parts.uri.query().unwrap_or_default(),
            headers: &parts.headers,
            payload_hash,
        };
        let signed_in = |form| {
            let canonical = request.canonical_with(&self.signed_headers, form);
            sigv4::verify(
                self.secret,
                &self.amz_date,
                &self.scope,
                &canonical,
                &self.signature,
            )
        };
        // Both forms cover the same bytes of the request, so accepting either lets nothing
        // unsigned through; the second is tried only where they differ.
        signed_in(Form::Spec)
            || (Form::differ(request.path, request.query) && signed_in(Form::AsSent))
    }
}

/// Refuses a credential scope that is not `<date>/<region>/swf/aws4_request`.
fn check_scope(auth: &Authorization<'_>) -> Result<(), Fault> {
    let problem = if auth.terminator != "aws4_request" {
        format!(
            "Credential should be scoped with a valid terminator: 'aws4_request', not '{}'.",
            auth.terminator
        )
    } else if auth.service != sigv4::SERVICE {
        format!(
            "Credential should be scoped to correct service: '{}'. ",
            sigv4::SERVICE
        )
    } else if !sigv4::is_region(auth.region) {
        format!(
            "Credential should be scoped to a valid region, not '{}'. ",
            auth.region
        )
    } else if auth.date.len() != 8 || !auth.date.bytes().all(|b| b.is_ascii_digit()) {
        format!(
            "Credential should be scoped to a valid date, not '{}'.",
            auth.date
        )
    } else {
        return Ok(());
    };
    Err(Fault::IncompleteSignature(problem))
}

/// When the request was signed: `X-Amz-Date`, or else `Date` (RFC 1123), as the timestamp the
/// string to sign holds, and as a time.
fn request_time(headers: &HeaderMap, authorization: &str) -> Result<(String, SystemTime), Fault> {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(amz) = text("x-amz-date") {
        let at = sigv4::parse_amz_date(amz).ok_or_else(|| {
            Fault::IncompleteSignature(format!(
                "Date must be in ISO-8601 'basic format'. Got '{amz}'. See \
                 http://en.wikipedia.org/wiki/ISO_8601"
            ))
        })?;
        return Ok((amz.to_owned(), at));
    }
    if let Some(date) = text("date") {
        let at = httpdate::parse_http_date(date).map_err(|_| {
            Fault::IncompleteSignature(format!("Date must be in RFC 1123 format. Got '{date}'."))
        })?;
        return Ok((sigv4::amz_date(at), at));
    }
    Err(Fault::IncompleteSignature(format!(
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. \
         Authorization={authorization}"
    )))
}

/// Refuses a signature made more than `max` away from `now`.
fn check_skew(signed_at: SystemTime, now: SystemTime, max: Duration) -> Result<(), Fault> {
    let minutes = max.as_secs() / 60;
    let stamp = |t| sigv4::amz_date(t);
    if signed_at + max < now {
        return Err(Fault::InvalidSignature(format!(
            "Signature expired: {} is now earlier than {} ({} - {minutes} min.)",
            stamp(signed_at),
            stamp(now - max),
            stamp(now)
        )));
    }
    if signed_at > now + max {
        return Err(Fault::InvalidSignature(format!(
            "Signature not yet current: {} is still later than {} ({} + {minutes} min.)",
            stamp(signed_at),
            stamp(now + max),
            stamp(now)
        )));
    }
    Ok(())
}

/// In open mode, the region of the request's credential scope if it has a usable one
/// (`Authorization: AWS4-HMAC-SHA256 Credential=AKID/DATE/REGION/swf/aws4_request, ...`).
fn open_region(headers: &HeaderMap) -> &str {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|auth| auth.split("Credential=").nth(1))
        .and_then(|credential| credential.split([',', ' ']).next())
        .and_then(|scope| scope.split('/').nth(2))
        .filter(|r| sigv4::is_region(r))
        .unwrap_or(DEFAULT_REGION)
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderValue, Request};

    use super::*;

    const SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

    fn tenants() -> Tenants {
        crate::tenancy::one_tenant("AKIDACME", SECRET)
    }

    /// A request signed as botocore signs one, at `at`, with `secret`.
    fn signed(at: SystemTime, secret: &str, body: &[u8]) -> Parts {
        signed_dated(at, secret, body, "x-amz-date")
    }

    /// Like [`signed`], with the time in header `date_header`: `x-amz-date`, or `date` in
    /// RFC 1123 form.
    fn signed_dated(at: SystemTime, secret: &str, body: &[u8], date_header: &str) -> Parts {
        signed_with(at, secret, body, date_header, None)
    }

    /// Like [`signed_dated`], declaring `declared` as the body's hash in `x-amz-content-sha256`
    /// (signed with the other headers) if given.
    fn signed_with(
        at: SystemTime,
        secret: &str,
        body: &[u8],
        date_header: &str,
        declared: Option<&str>,
    ) -> Parts {
        let amz = sigv4::amz_date(at);
        let date = match date_header {
            "date" => httpdate::fmt_http_date(at),
            _ => amz.clone(),
        };
        let mut request = Request::post("/")
            .header("host", "localhost:8080")
            .header("content-type", "application/x-amz-json-1.0")
            .header(date_header, &date)
            .header("x-amz-target", "SimpleWorkflowService.ListDomains")
            .body(())
            .unwrap();
        if let Some(declared) = declared {
            request
                .headers_mut()
                .insert(CONTENT_SHA256, HeaderValue::from_str(declared).unwrap());
        }
        let signer = sigv4::Signer {
            key: "AKIDACME",
            secret,
            region: "eu-west-1",
        };
        let value = signer.authorization("POST", request.uri(), request.headers(), body, &amz);
        request
            .headers_mut()
            .insert("authorization", HeaderValue::from_str(&value).unwrap());
        request.into_parts().0
    }

    fn code(result: Result<Caller, Fault>) -> &'static str {
        result.err().map_or("ok", |f| f.code())
    }

    #[test]
    fn accepts_a_good_signature_and_refuses_a_bad_one() {
        let tenants = tenants();
        let now = SystemTime::now();
        let body = br#"{"registrationStatus":"REGISTERED"}"#;
        let caller = tenants
            .authenticate(&signed(now, SECRET, body), body, now)
            .ok()
            .unwrap();
        assert_eq!(caller.tenant.name, "acme");
        assert_eq!(caller.region, "eu-west-1");

        let wrong_key = signed(now, "not the secret at all", body);
        assert_eq!(
            code(tenants.authenticate(&wrong_key, body, now)),
            "InvalidSignatureException"
        );
        let tampered = br#"{"registrationStatus":"DEPRECATED"}"#;
        assert_eq!(
            code(tenants.authenticate(&signed(now, SECRET, body), tampered, now)),
            "InvalidSignatureException"
        );
    }

    /// A request that declares its body's hash has its signature checked before its body: a
    /// forgery fails at once, and the body must then match the hash.
    #[test]
    fn a_declared_body_hash_lets_the_signature_be_checked_first() {
        let tenants = tenants();
        let now = SystemTime::now();
        let body = br#"{"registrationStatus":"REGISTERED"}"#;
        let hash = sigv4::sha256_hex(body);
        let early = |parts: &Parts| tenants.claim(parts, now)?.check_headers(parts);

        let parts = signed_with(now, SECRET, body, "x-amz-date", Some(&hash));
        let Ok(Checked::Caller {
            caller,
            declared: Some(declared),
        }) = early(&parts)
        else {
            panic!("a good signature over a declared hash is checked before the body");
        };
        assert_eq!(caller.tenant.name, "acme");
        assert!(check_declared(&declared, body).is_ok());
        let tampered = br#"{"registrationStatus":"DEPRECATED"}"#;
        assert_eq!(
            check_declared(&declared, tampered).err().map(|f| f.code()),
            Some("InvalidSignatureException")
        );

        let forged = signed_with(
            now,
            "not the secret at all",
            body,
            "x-amz-date",
            Some(&hash),
        );
        assert_eq!(
            early(&forged).err().map(|f| f.code()),
            Some("InvalidSignatureException")
        );
        let unsigned_payload =
            signed_with(now, SECRET, body, "x-amz-date", Some("UNSIGNED-PAYLOAD"));
        let refused = early(&unsigned_payload).err().unwrap();
        assert!(
            refused.to_string().contains("x-amz-content-sha256"),
            "{refused}"
        );
        // Without a declared hash, the signature waits for the body.
        let parts = signed(now, SECRET, body);
        assert!(matches!(early(&parts), Ok(Checked::NeedsBody(_))));
    }

    /// botocore signs with the `Date` header's time when a request has `Date` and no
    /// `X-Amz-Date`.
    #[test]
    fn accepts_the_time_in_a_date_header() {
        let tenants = tenants();
        let now = SystemTime::now();
        let parts = signed_dated(now, SECRET, b"{}", "date");
        assert!(parts.headers.get("x-amz-date").is_none());
        assert_eq!(code(tenants.authenticate(&parts, b"{}", now)), "ok");
        let stale = signed_dated(now - Duration::from_secs(3600), SECRET, b"{}", "date");
        assert_eq!(
            code(tenants.authenticate(&stale, b"{}", now)),
            "InvalidSignatureException"
        );
    }

    #[test]
    fn refuses_signatures_far_from_now() {
        let tenants = tenants();
        let now = SystemTime::now();
        let minutes = |m: u64| Duration::from_secs(m * 60);
        for at in [now - minutes(14), now + minutes(14)] {
            assert_eq!(
                code(tenants.authenticate(&signed(at, SECRET, b""), b"", now)),
                "ok"
            );
        }
        for at in [now - minutes(16), now + minutes(16)] {
            let err = tenants
                .authenticate(&signed(at, SECRET, b""), b"", now)
                .err()
                .unwrap();
            assert_eq!(err.code(), "InvalidSignatureException");
            assert!(err.to_string().starts_with("Signature "), "{err}");
        }
    }

    #[test]
    fn names_what_is_wrong_with_the_header() {
        let tenants = tenants();
        let now = SystemTime::now();
        let with = |auth: &str| {
            let mut parts = signed(now, SECRET, b"");
            parts
                .headers
                .insert("authorization", HeaderValue::from_str(auth).unwrap());
            code(tenants.authenticate(&parts, b"", now))
        };
        let mut parts = signed(now, SECRET, b"");
        parts.headers.remove("authorization");
        assert_eq!(
            code(tenants.authenticate(&parts, b"", now)),
            "MissingAuthenticationTokenException"
        );
        assert_eq!(
            with("AWS4-HMAC-SHA256 Credential=AKIDACME/x"),
            "IncompleteSignatureException"
        );
        let date = &sigv4::amz_date(now)[..8];
        let auth = |key: &str, service: &str, headers: &str| {
            format!(
                "AWS4-HMAC-SHA256 Credential={key}/{date}/us-east-1/{service}/aws4_request, \
                 SignedHeaders={headers}, Signature=00"
            )
        };
        assert_eq!(
            with(&auth("AKIDACME", "s3", "host;x-amz-date")),
            "IncompleteSignatureException"
        );
        assert_eq!(
            with(&auth("AKIDACME", "swf", "x-amz-date")),
            "IncompleteSignatureException"
        );
        assert_eq!(
            with(&auth("AKIDOTHER", "swf", "host;x-amz-date")),
            "UnrecognizedClientException"
        );
        assert_eq!(
            with(&auth("AKIDACME", "swf", "host;x-amz-date")),
            "InvalidSignatureException"
        );
    }

    #[test]
    fn open_mode_takes_the_region_from_the_credential_scope() {
        let mut headers = HeaderMap::new();
        assert_eq!(open_region(&headers), "us-east-1");
        headers.insert(
            "authorization",
            HeaderValue::from_static(
                "AWS4-HMAC-SHA256 Credential=AKID/20240115/eu-west-2/swf/aws4_request, \
                 SignedHeaders=host, Signature=00",
            ),
        );
        assert_eq!(open_region(&headers), "eu-west-2");
        headers.insert(
            "authorization",
            HeaderValue::from_static("AWS4-HMAC-SHA256 Credential=AKID/20240115/EU:bad/swf/x"),
        );
        assert_eq!(open_region(&headers), "us-east-1");
    }
}
