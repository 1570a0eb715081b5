//! A raw HTTP client for requests no SDK would send: exactly the bytes given, over a fresh
//! connection, and the response as received.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends `body` to `POST /` of the server at `addr` (`HOST:PORT`) with `X-Amz-Target: target`
/// (none if `None`) over a fresh connection, exactly as given.
pub async fn raw_request(addr: &str, target: Option<&str>, body: &[u8]) -> RawResponse {
    let mut headers = vec![("Content-Type", "application/x-amz-json-1.0")];
    if let Some(target) = target {
        headers.push(("X-Amz-Target", target));
    }
    raw_http(addr, "POST", "/", &headers, body).await
}

/// Sends `method path` with `headers` and `body` to the server at `addr` (`HOST:PORT`) over a
/// fresh connection, exactly as given (`Content-Length`, `Connection: close`, and `Host` unless
/// given, added).
pub async fn raw_http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> RawResponse {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let stream = TcpStream::connect(addr).await.expect("connect");
    let (mut reader, mut writer) = stream.into_split();
    // Read while writing: the server may answer (and close) before the body is all sent.
    let read = tokio::spawn(async move {
        let mut response = Vec::new();
        let _ = reader.read_to_end(&mut response).await;
        response
    });
    let mut request = head.into_bytes();
    request.extend_from_slice(body);
    let _ = writer.write_all(&request).await;
    RawResponse::parse(&read.await.expect("reader task"))
}

/// The whole history of a run as the wire JSON of its events, read page by page from the server
/// at `addr` (`HOST:PORT`).
pub async fn history_json(
    addr: &str,
    domain: &str,
    workflow_id: &str,
    run_id: &str,
) -> Vec<serde_json::Value> {
    let mut events = Vec::new();
    let mut request = serde_json::json!({
        "domain": domain,
        "execution": {"workflowId": workflow_id, "runId": run_id},
    });
    loop {
        let response = raw_request(
            addr,
            Some("SimpleWorkflowService.GetWorkflowExecutionHistory"),
            request.to_string().as_bytes(),
        )
        .await;
        assert_eq!(
            response.status, 200,
            "history of {workflow_id}/{run_id}: {}",
            response.body
        );
        let mut page = response.json();
        if let Some(serde_json::Value::Array(more)) = page.get_mut("events").map(|e| e.take()) {
            events.extend(more);
        }
        match page.get("nextPageToken") {
            Some(token) => request["nextPageToken"] = token.clone(),
            None => return events,
        }
    }
}

/// An HTTP response as received.
#[derive(Debug)]
pub struct RawResponse {
    /// The status code.
    pub status: u16,
    /// Header names (lowercase) and values.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

impl RawResponse {
    /// Parses a response as read from the socket; panics if there is none.
    pub fn parse(bytes: &[u8]) -> Self {
        let text = String::from_utf8_lossy(bytes);
        let (head, body) = text
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no HTTP response in {text:?}"));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|s| s.parse().ok())
            .expect("status line");
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        RawResponse {
            status,
            headers,
            body: body.to_owned(),
        }
    }

    /// The value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {:?}", self.body))
    }

    /// The error code of an error response: `__type` after its `#`.
    pub fn error_code(&self) -> String {
        let json = self.json();
        let kind = json["__type"].as_str().expect("__type");
        kind.rsplit('#').next().unwrap_or(kind).to_owned()
    }

    /// The `message` of an error response.
    pub fn message(&self) -> String {
        self.json()["message"].as_str().expect("message").to_owned()
    }
}
