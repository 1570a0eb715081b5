//! Requests that never reach Weft's handlers, because hyper cannot parse them, are answered
//! like any other fault: AWS's JSON error body, `x-amzn-errortype`, `x-amzn-RequestId`, and the
//! JSON 1.0 content type; 431 for headers too large, 400 for the rest. Then the connection
//! closes.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use weft_tests::{RawResponse, TestServer};

use super::{LOCAL, PATIENCE, addr, connect_from, list_domains_on};

/// Sends `request` on a fresh connection, reading while writing (the server may answer and
/// close before it has read everything), and answers what came back before the close.
async fn send(server: &TestServer, request: Vec<u8>) -> RawResponse {
    let stream = connect_from(LOCAL, &addr(server)).await;
    let (mut reader, mut writer) = stream.into_split();
    let read = tokio::spawn(async move {
        let mut read = Vec::new();
        let _ = reader.read_to_end(&mut read).await;
        read
    });
    let _ = writer.write_all(&request).await;
    let read = tokio::time::timeout(PATIENCE, read)
        .await
        .unwrap_or_else(|_| panic!("no answer after {PATIENCE:?}"))
        .unwrap();
    RawResponse::parse(&read)
}

/// Asserts that `response` is the AWS JSON fault `code` with `status`.
#[track_caller]
fn assert_fault(response: &RawResponse, status: u16, code: &str) {
    assert_eq!(response.status, status, "{code}: {}", response.body);
    assert_eq!(
        response.json()["__type"],
        format!("com.amazon.coral.service#{code}")
    );
    assert!(!response.message().is_empty());
    assert_eq!(response.header("x-amzn-errortype"), Some(code));
    assert_eq!(
        response.header("content-type"),
        Some("application/x-amz-json-1.0")
    );
    assert_eq!(response.header("x-amzn-requestid").map(str::len), Some(36));
    assert_eq!(response.header("connection"), Some("close"));
}

fn request(headers: &str, body: &str) -> Vec<u8> {
    format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: SimpleWorkflowService.ListDomains\r\n{headers}\r\n{body}"
    )
    .into_bytes()
}

#[tokio::test]
async fn headers_too_large_are_a_431_fault() {
    let server = TestServer::start_with(|c| c.http.max_header_bytes = 16 << 10).await;
    let big = format!("X-Big: {}\r\n", "a".repeat(20 << 10));
    let response = send(&server, request(&big, "")).await;
    assert_fault(&response, 431, "RequestHeaderSectionTooLarge");
    // Within the limit, the same header is fine. (`Connection: close` lets `send` see the end
    // of the answer without waiting out the keep-alive.)
    let fits = format!(
        "X-Big: {}\r\nContent-Length: 2\r\nConnection: close\r\n",
        "a".repeat(8 << 10)
    );
    let response = send(&server, request(&fits, "{}")).await;
    assert_eq!(response.status, 400, "{}", response.body);
    assert_eq!(response.error_code(), "ValidationException");
}

#[tokio::test]
async fn malformed_heads_are_a_400_fault() {
    let server = TestServer::start().await;
    for (what, headers) in [
        (
            "two Content-Lengths",
            "Content-Length: 2\r\nContent-Length: 3\r\n",
        ),
        ("a negative Content-Length", "Content-Length: -2\r\n"),
        (
            "a Content-Length that is no number",
            "Content-Length: 2x\r\n",
        ),
        (
            "a control byte in a header",
            "X-Bad: a\x01b\r\nContent-Length: 2\r\n",
        ),
        (
            "a space in a header name",
            "X Bad: a\r\nContent-Length: 2\r\n",
        ),
    ] {
        let response = send(&server, request(headers, "{}")).await;
        assert_fault(&response, 400, "BadRequestException");
        assert!(
            response.message().contains("not valid HTTP/1.1"),
            "{what}: {}",
            response.message()
        );
    }
    let response = send(&server, b"NOT HTTP AT ALL\r\n\r\n".to_vec()).await;
    assert_fault(&response, 400, "BadRequestException");
}

#[tokio::test]
async fn a_malformed_request_after_a_good_one_on_the_same_connection_is_a_fault_too() {
    let server = TestServer::start().await;
    let mut stream = connect_from(LOCAL, &addr(&server)).await;
    let response = list_domains_on(&mut stream, false).await;
    assert_eq!(response.status, 200, "{}", response.body);
    stream
        .write_all(&request("Content-Length: -1\r\n", ""))
        .await
        .unwrap();
    let mut read = Vec::new();
    let _ = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut read)).await;
    assert_fault(&RawResponse::parse(&read), 400, "BadRequestException");
}

#[tokio::test]
async fn http2_with_prior_knowledge_is_told_to_speak_http_1_1() {
    let server = TestServer::start().await;
    // HTTP/2's preface, then a SETTINGS frame, as `curl --http2-prior-knowledge` sends them.
    let mut preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    preface.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    let response = send(&server, preface).await;
    assert_fault(&response, 400, "BadRequestException");
    assert!(response.message().contains("HTTP/1.1"), "{}", response.body);
    // The server goes on serving HTTP/1.1.
    let mut stream = connect_from(LOCAL, &addr(&server)).await;
    assert_eq!(list_domains_on(&mut stream, true).await.status, 200);
}
