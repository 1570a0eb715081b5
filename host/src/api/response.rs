//! The one place that turns an outcome into HTTP (spec §1.2, §1.4).

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
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
    let (status, headers, body) = render(face, request_id, outcome);
    let mut response = (status, body).into_response();
    response.headers_mut().extend(headers);
    response
}

/// The whole HTTP/1.1 response answering `fault` on a connection that closes after it, as
/// bytes: for the edge to write itself where hyper would answer without a body (a request
/// hyper could not parse).
pub(super) fn raw(face: Face, request_id: &str, fault: Fault) -> Vec<u8> {
    let (status, headers, body) = render(face, request_id, Err(fault));
    let mut raw = format!(
        "HTTP/1.1 {} {}\r\n",
        status.as_str(),
        status.canonical_reason().unwrap_or_default()
    )
    .into_bytes();
    let date = httpdate::fmt_http_date(std::time::SystemTime::now());
    let length = body.len().to_string();
    let framing = [
        ("connection", "close"),
        ("content-length", length.as_str()),
        ("date", date.as_str()),
    ];
    let headers = headers.iter().map(|(k, v)| (k.as_str(), v.as_bytes()));
    for (name, value) in headers.chain(framing.map(|(k, v)| (k, v.as_bytes()))) {
        raw.extend_from_slice(name.as_bytes());
        raw.extend_from_slice(b": ");
        raw.extend_from_slice(value);
        raw.extend_from_slice(b"\r\n");
    }
    raw.extend_from_slice(b"\r\n");
    raw.extend_from_slice(&body);
    raw
}

/// The status, headers (but the framing ones) and body that answer `outcome`.
fn render(
    face: Face,
    request_id: &str,
    outcome: Result<Vec<u8>, Fault>,
) -> (StatusCode, HeaderMap, Vec<u8>) {
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
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, face.content_type());
    if let Ok(id) = HeaderValue::from_str(request_id) {
        headers.insert("x-amzn-requestid", id);
    }
    // Smithy-based SDKs read the code from this header when present.
    if let Some(code) = error_type {
        headers.insert("x-amzn-errortype", HeaderValue::from_static(code));
    }
    (status, headers, body)
}

fn status(face: Face, fault: &Fault) -> StatusCode {
    match (face, fault) {
        (_, Fault::Internal(_)) => StatusCode::INTERNAL_SERVER_ERROR,
        (_, Fault::Unavailable(_)) => StatusCode::SERVICE_UNAVAILABLE,
        (_, Fault::RequestTooLarge(_)) => StatusCode::PAYLOAD_TOO_LARGE,
        (_, Fault::RequestTimeout(_)) => StatusCode::REQUEST_TIMEOUT,
        (_, Fault::HeaderTooLarge(_)) => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        (_, Fault::InUse(_)) => StatusCode::CONFLICT,
        (Face::Extension, Fault::UnsupportedMediaType(_)) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
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
        other => tracing::debug!(request_id, code = other.code(), reason = %other, "fault"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raw_answer_is_a_whole_response_that_closes() {
        let raw = raw(Face::Swf, "id-1", Fault::HeaderTooLarge("too much".into()));
        let text = String::from_utf8(raw).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(
            head.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"),
            "{head}"
        );
        for line in [
            "content-type: application/x-amz-json-1.0",
            "x-amzn-requestid: id-1",
            "x-amzn-errortype: RequestHeaderSectionTooLarge",
            "connection: close",
            &format!("content-length: {}", body.len()),
        ] {
            assert!(
                head.contains(&format!("\r\n{line}\r\n")),
                "{line} in {head}"
            );
        }
        assert_eq!(
            body,
            r#"{"__type":"com.amazon.coral.service#RequestHeaderSectionTooLarge","message":"too much"}"#
        );
    }
}
