//! The one place that turns an outcome into HTTP (spec §1.2, §1.4).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::fault::Fault;

const CONTENT_TYPE: HeaderValue = HeaderValue::from_static("application/x-amz-json-1.0");

/// The response to a request: its output, or its fault as `{"__type", "message"}`.
pub(super) fn respond(request_id: &str, outcome: Result<Vec<u8>, Fault>) -> Response {
    let (status, body, error_type) = match outcome {
        Ok(body) => (StatusCode::OK, body, None),
        Err(fault) => {
            log(request_id, &fault);
            let body = json!({
                "__type": format!("{}#{}", fault.namespace(), fault.code()),
                "message": fault.client_message(),
            });
            (
                status(&fault),
                body.to_string().into_bytes(),
                Some(fault.code()),
            )
        }
    };
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, CONTENT_TYPE);
    if let Ok(id) = HeaderValue::from_str(request_id) {
        headers.insert("x-amzn-requestid", id);
    }
    // Smithy-based SDKs read the code from this header when present.
    if let Some(code) = error_type {
        headers.insert("x-amzn-errortype", HeaderValue::from_static(code));
    }
    response
}

fn status(fault: &Fault) -> StatusCode {
    match fault {
        Fault::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        Fault::RequestTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
        Fault::InUse(_) => StatusCode::CONFLICT,
        _ => StatusCode::BAD_REQUEST,
    }
}

fn log(request_id: &str, fault: &Fault) {
    match fault {
        Fault::Internal(detail) => tracing::error!(request_id, %detail, "internal failure"),
        other => tracing::debug!(request_id, code = other.code(), message = %other, "fault"),
    }
}
