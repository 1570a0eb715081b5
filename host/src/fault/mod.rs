//! The errors a client can see: every SWF fault of the model and the generic AWS JSON errors.
//!
//! Everything that fails a request ends up as a [`Fault`]; `api::response` is the one place that
//! turns a fault into HTTP. Messages follow what AWS sends (see spec §1.5), because people search
//! for them.

mod messages;

use std::fmt::{self, Write as _};

/// An error answered to the client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Fault {
    /// The named resource does not exist in the scope of the operation (or is no longer usable).
    #[error("{0}")]
    UnknownResource(String),
    /// A type with this name and version exists, or an undeprecated type was undeprecated.
    #[error("{0}")]
    TypeAlreadyExists(String),
    /// A domain with this name exists, or a registered domain was undeprecated.
    #[error("{0}")]
    DomainAlreadyExists(String),
    /// The domain is deprecated.
    #[error("{0}")]
    DomainDeprecated(String),
    /// The type is deprecated.
    #[error("{0}")]
    TypeDeprecated(String),
    /// Only a deprecated type can be deleted.
    #[error("{0}")]
    TypeNotDeprecated(String),
    /// An open execution with this workflow id already exists in the domain.
    #[error("{0}")]
    WorkflowExecutionAlreadyStarted(String),
    /// A required parameter was given neither in the request nor as a type default.
    #[error("{0}")]
    DefaultUndefined(String),
    /// A documented limit was reached.
    #[error("{0}")]
    LimitExceeded(String),
    /// The caller may not do this. SWF raises it for IAM denials; Weft has no IAM (spec §8.17).
    #[expect(
        dead_code,
        reason = "modeled for completeness; Weft has no IAM policies"
    )]
    #[error("{0}")]
    OperationNotPermitted(String),
    /// A domain would carry more tags than allowed.
    #[error("{0}")]
    TooManyTags(String),
    /// The input breaks a constraint of the model or an SWF rule checked before any change.
    #[error("{0}")]
    Validation(String),
    /// The body is not JSON, or a member has the wrong JSON type.
    #[error("{0}")]
    Serialization(String),
    /// `X-Amz-Target` names no SWF operation.
    #[error("{0}")]
    UnknownOperation(String),
    /// The request body is larger than the service accepts.
    #[error("{0}")]
    RequestTooLarge(String),
    /// The client took too long to send its request. SDKs retry this code.
    #[error("{0}")]
    RequestTimeout(String),
    /// The request's line and headers are larger than the server reads (HTTP 431). S3's
    /// code for it, as SWF documents none.
    #[error("{0}")]
    HeaderTooLarge(String),
    /// The request is not HTTP/1.1 the server can read: a malformed request line or header,
    /// bytes a header may not hold, a duplicate or negative `Content-Length`.
    #[error("{0}")]
    BadRequest(String),
    /// The request's body is not of a media type its route reads (or declares none): the
    /// `Content-Type` a web page may send cross-site without asking is never one.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The resource is in use and cannot be removed (Weft's extension API).
    #[error("{0}")]
    InUse(String),
    /// The request carries no `Authorization` header (and tenants are configured).
    #[error("{0}")]
    MissingAuthenticationToken(String),
    /// The `Authorization` header or its credential scope is malformed.
    #[error("{0}")]
    IncompleteSignature(String),
    /// The access key belongs to no tenant.
    #[error("{0}")]
    UnrecognizedClient(String),
    /// The signature does not match, or was made too far from now.
    #[error("{0}")]
    InvalidSignature(String),
    /// The tenant may not use this domain.
    #[error("{0}")]
    AccessDenied(String),
    /// The tenant's request rate is used up; SDKs retry.
    #[error("{0}")]
    Throttling(String),
    /// A bug or a storage failure. The detail is logged, never sent to the client.
    #[error("internal failure: {0}")]
    Internal(String),
    /// The shared database cannot be reached: SDKs retry (HTTP 503). The detail is logged,
    /// never sent to the client.
    #[error("service unavailable: {0}")]
    Unavailable(String),
}

impl Fault {
    /// The error code clients see (the part of `__type` after `#`).
    pub(crate) fn code(&self) -> &'static str {
        match self {
            Fault::UnknownResource(_) => "UnknownResourceFault",
            Fault::TypeAlreadyExists(_) => "TypeAlreadyExistsFault",
            Fault::DomainAlreadyExists(_) => "DomainAlreadyExistsFault",
            Fault::DomainDeprecated(_) => "DomainDeprecatedFault",
            Fault::TypeDeprecated(_) => "TypeDeprecatedFault",
            Fault::TypeNotDeprecated(_) => "TypeNotDeprecatedFault",
            Fault::WorkflowExecutionAlreadyStarted(_) => "WorkflowExecutionAlreadyStartedFault",
            Fault::DefaultUndefined(_) => "DefaultUndefinedFault",
            Fault::LimitExceeded(_) => "LimitExceededFault",
            Fault::OperationNotPermitted(_) => "OperationNotPermittedFault",
            Fault::TooManyTags(_) => "TooManyTagsFault",
            Fault::Validation(_) => "ValidationException",
            Fault::Serialization(_) => "SerializationException",
            Fault::UnknownOperation(_) => "UnknownOperationException",
            Fault::RequestTooLarge(_) => "RequestEntityTooLargeException",
            Fault::RequestTimeout(_) => "RequestTimeoutException",
            Fault::HeaderTooLarge(_) => "RequestHeaderSectionTooLarge",
            Fault::BadRequest(_) => "BadRequestException",
            Fault::UnsupportedMediaType(_) => "UnsupportedMediaTypeException",
            Fault::InUse(_) => "ResourceInUseException",
            Fault::MissingAuthenticationToken(_) => "MissingAuthenticationTokenException",
            Fault::IncompleteSignature(_) => "IncompleteSignatureException",
            Fault::UnrecognizedClient(_) => "UnrecognizedClientException",
            Fault::InvalidSignature(_) => "InvalidSignatureException",
            Fault::AccessDenied(_) => "AccessDeniedException",
            Fault::Throttling(_) => "ThrottlingException",
            Fault::Internal(_) => "InternalFailure",
            Fault::Unavailable(_) => "ServiceUnavailableException",
        }
    }

    /// The namespace that prefixes the code in `__type`, as the real service sends it.
    pub(crate) fn namespace(&self) -> &'static str {
        match self {
            Fault::Validation(_) => "com.amazon.coral.validate",
            Fault::Serialization(_)
            | Fault::UnknownOperation(_)
            | Fault::RequestTooLarge(_)
            | Fault::MissingAuthenticationToken(_)
            | Fault::IncompleteSignature(_)
            | Fault::UnrecognizedClient(_)
            | Fault::InvalidSignature(_)
            | Fault::AccessDenied(_)
            | Fault::RequestTimeout(_)
            | Fault::HeaderTooLarge(_)
            | Fault::BadRequest(_)
            | Fault::UnsupportedMediaType(_)
            | Fault::Internal(_) => "com.amazon.coral.service",
            Fault::Throttling(_) | Fault::Unavailable(_) => "com.amazon.coral.availability",
            _ => "com.amazonaws.swf.base.model",
        }
    }

    /// The message sent to the client. Internal detail stays in the log.
    pub(crate) fn client_message(&self) -> String {
        match self {
            Fault::Internal(_) => "The request processing has failed because of an unknown error, \
                                   exception or failure."
                .to_owned(),
            Fault::Unavailable(_) => "Service unavailable. Try again later.".to_owned(),
            other => other.to_string(),
        }
    }

    /// An internal failure carrying `detail` for the log.
    pub(crate) fn internal(detail: impl fmt::Display) -> Self {
        Fault::Internal(detail.to_string())
    }
}

/// Whatever the store fails with, a client sees an internal failure; but a database that
/// cannot be reached, or rows another node holds locked, is a service unavailable for now,
/// which SDKs retry.
impl From<crate::store::StoreError> for Fault {
    fn from(e: crate::store::StoreError) -> Self {
        match e {
            crate::store::StoreError::Unavailable(_) | crate::store::StoreError::Busy(_) => {
                Fault::Unavailable(e.to_string())
            }
            e => Fault::internal(e),
        }
    }
}

/// Collects constraint violations and renders them the way AWS's front end does:
/// `2 validation errors detected: Value 'x' at 'name' failed to satisfy constraint: ...; Value ...`.
#[derive(Debug, Default)]
pub(crate) struct Violations(Vec<String>);

/// How much of a client's input a message quotes; the rest is elided.
const QUOTED_VALUE_CHARS: usize = 128;

/// `value` read as `T`, such as a body as its operation's input; JSON of the wrong shape is a
/// `SerializationException`.
pub(crate) fn decode<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, Fault> {
    serde_json::from_value(value).map_err(|e| Fault::Serialization(echo(&e.to_string())))
}

/// `text` from the client (a value, a header, a path, a parser's complaint about the body) as
/// a message may quote it: at most [`QUOTED_VALUE_CHARS`] characters, then `...`. Messages
/// never echo more of what a client sent than that.
pub(crate) fn echo(text: &str) -> String {
    let mut quoted: String = text.chars().take(QUOTED_VALUE_CHARS).collect();
    if text.chars().nth(QUOTED_VALUE_CHARS).is_some() {
        quoted.push_str("...");
    }
    quoted
}

impl Violations {
    /// Records that the value at `path` breaks `constraint`. `value` is `None` for a missing member.
    pub(crate) fn add(&mut self, path: &str, value: Option<&str>, constraint: impl fmt::Display) {
        let mut line = String::from("Value ");
        match value {
            None => line.push_str("null"),
            Some(v) => {
                line.push('\'');
                line.push_str(&echo(v));
                line.push('\'');
            }
        }
        let _ = write!(
            line,
            " at '{path}' failed to satisfy constraint: {constraint}"
        );
        self.0.push(line);
    }

    /// How many violations were recorded.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// `Ok` if nothing was recorded, else the `ValidationException` listing every violation.
    pub(crate) fn finish(self) -> Result<(), Fault> {
        match self.0.len() {
            0 => Ok(()),
            n => Err(Fault::Validation(format!(
                "{n} validation error{} detected: {}",
                if n == 1 { "" } else { "s" },
                self.0.join("; ")
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn violations_render_like_coral() {
        let mut v = Violations::default();
        v.add("name", None, "Member must not be null");
        assert_eq!(
            v.finish().unwrap_err(),
            Fault::Validation(
                "1 validation error detected: Value null at 'name' failed to satisfy constraint: \
                 Member must not be null"
                    .into()
            )
        );

        let mut v = Violations::default();
        v.add("a", Some("x"), "c1");
        v.add("b.1.member", Some(&"y".repeat(200)), "c2");
        let Fault::Validation(msg) = v.finish().unwrap_err() else {
            panic!("not a validation fault")
        };
        assert!(msg.starts_with("2 validation errors detected: Value 'x' at 'a' failed"));
        assert!(msg.contains(&format!("; Value '{}...' at 'b.1.member'", "y".repeat(128))));
    }

    #[test]
    fn internal_detail_is_not_sent() {
        let f = Fault::internal("disk on fire");
        assert!(!f.client_message().contains("disk"));
        assert_eq!(f.code(), "InternalFailure");
    }
}
