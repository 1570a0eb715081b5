//! The one place that turns an outcome into HTTP (spec §1.2, §1.4).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::fault::Fault;

/// Which API answers: SWF's own, or Weft's `/v1` extension beside it. Both send faults in the
/// same body; they differ in content type and in the statuses of some faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Face {
    /// `POST /`: AWS JSON 1.0, where every client error is a 400 as SWF answers it.
    Swf,
    /// `/v1/...`: plain JSON, with the statuses a REST client expects (404 for an unknown
    /// resource, 409 for one in use, 413 for a body too large).
    Extension,
}

impl Face {
    /// The face that answers requests for `path`, routed or not: SWF's at `/`, the
    /// extension's (plain JSON, REST statuses) anywhere else.
    pub(super) fn of_path(path: &str) -> Face {
        if path == "/" {
            Face::Swf
        } else {
            Face::Extension
        }
    }

    fn content_type(self) -> HeaderValue {
        match self {
            Face::Swf => HeaderValue::from_static("application/x-amz-json-1.0"),
            Face::Extension => HeaderValue::from_static("application/json"),
        }
    }
}

/// The response to a request: its output, or its fault as `{"__type", "message"}`.
pub(super) fn respond(face: Face, request_id: &str, outcome: Result<Vec<u8>, Fault>) -> Response {
    let (status, body, error_type) = match outcome {
        Ok(body) => (StatusCode::OK, body, None),
        Err(fault) => {
            log(request_id, &fault);
            let body = json!({
                "__type": format!("{}#{}", fault.namespace(), fault.code()),
                "message": fault.client_message(),
            });
            (
                status(face, &fault),
                body.to_string().into_bytes(),
                Some(fault.code()),
            )
        }
    };
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, face.content_type());
    if let Ok(id) = HeaderValue::from_str(request_id) {
        headers.insert("x-amzn-requestid", id);
    }
    // Smithy-based SDKs read the code from this header when present.
    if let Some(code) = error_type {
        headers.insert("x-amzn-errortype", HeaderValue::from_static(code));
    }
    response
}

fn status(face: Face, fault: &Fault) -> StatusCode {
    match (face, fault) {
        (_, Fault::Internal(_)) => StatusCode::INTERNAL_SERVER_ERROR,
        (_, Fault::RequestTooLarge(_)) => StatusCode::PAYLOAD_TOO_LARGE,
        (_, Fault::RequestTimeout(_)) => StatusCode::REQUEST_TIMEOUT,
        (_, Fault::InUse(_)) => StatusCode::CONFLICT,
        (Face::Extension, Fault::UnknownResource(_) | Fault::UnknownOperation(_)) => {
            StatusCode::NOT_FOUND
        }
        (Face::Extension, Fault::Throttling(_)) => StatusCode::TOO_MANY_REQUESTS,
        (
            Face::Extension,
            Fault::MissingAuthenticationToken(_)
            | Fault::IncompleteSignature(_)
            | Fault::UnrecognizedClient(_)
            | Fault::InvalidSignature(_)
            | Fault::AccessDenied(_),
        ) => StatusCode::FORBIDDEN,
        _ => StatusCode::BAD_REQUEST,
    }
}

fn log(request_id: &str, fault: &Fault) {
    match fault {
        Fault::Internal(detail) => tracing::error!(request_id, %detail, "internal failure"),
        other => tracing::debug!(request_id, code = other.code(), message = %other, "fault"),
    }
}
