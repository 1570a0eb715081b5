//! The HTTP edge's defences (`HttpLimits`): slow clients are cut off, connections are capped,
//! and whatever a client sends, the answer is a JSON fault without internal detail. Raw TCP,
//! since no HTTP client sends this badly on purpose.
//!
//! Waits are generous and only order matters: a limit is shown to act by what happens before
//! and after, never by how fast.
//!
//! | file | what |
//! | --- | --- |
//! | `mod.rs` | deadlines, the connection cap, unknown routes, shutdown |
//! | `limits.rs` | one address's share of connections, the reserve, long polls per tenant, unverified bodies |
//! | `malformed.rs` | requests hyper cannot parse, answered with AWS JSON faults |
//! | `browsers.rs` | what web pages can send: cross-site requests, DNS rebinding |
//! | `https.rs` | HTTPS: a self-signed certificate, plain HTTP beside it, renewed certificates |

mod browsers;
mod https;
mod limits;
mod malformed;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::timeout;
use weft_tests::{RawResponse, TestServer, raw_http, raw_request};

const LIST_DOMAINS: &str = "SimpleWorkflowService.ListDomains";

/// Long enough for anything the server does promptly, short enough for a failing test to end.
const PATIENCE: Duration = Duration::from_secs(20);

fn addr(server: &TestServer) -> String {
    server.endpoint().trim_start_matches("http://").to_owned()
}

/// Reads until the server closes the connection (or resets it), and answers what was read.
async fn read_until_closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut read = Vec::new();
    let _ = stream.read_to_end(&mut read).await;
    read
}

/// The client address the tests use by default.
const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));

/// Another client address: Linux routes all of 127/8 over loopback.
fn loopback(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))
}

/// A connection to the server from the client address `from`.
async fn connect_from(from: IpAddr, addr: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(from, 0)).unwrap();
    socket.connect(addr.parse().unwrap()).await.unwrap()
}

/// The content type a client sends to `path`: a module to `/v1/modules`, AWS JSON to SWF.
fn content_type(path: &str) -> &'static str {
    match path {
        "/v1/modules" => "application/wasm",
        _ => "application/x-amz-json-1.0",
    }
}

/// Sends a ListDomains on `stream` (kept alive unless `close`) and reads its answer.
async fn list_domains_on(stream: &mut TcpStream, close: bool) -> RawResponse {
    let body = br#"{"registrationStatus": "REGISTERED"}"#;
    let head = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: {LIST_DOMAINS}\r\n\
         Content-Type: application/x-amz-json-1.0\r\nContent-Length: {}\r\n{}\r\n",
        body.len(),
        if close { "Connection: close\r\n" } else { "" }
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    timeout(PATIENCE, read_response(stream))
        .await
        .unwrap_or_else(|_| panic!("no answer after {PATIENCE:?}"))
}

/// Reads one response (with a `Content-Length`) from `stream`, leaving the connection open.
async fn read_response(stream: &mut TcpStream) -> RawResponse {
    let mut read = Vec::new();
    let mut byte = [0u8; 1];
    while !read.ends_with(b"\r\n\r\n") {
        let n = stream.read(&mut byte).await.unwrap();
        assert_eq!(
            n,
            1,
            "closed mid-head: {:?}",
            String::from_utf8_lossy(&read)
        );
        read.push(byte[0]);
    }
    let head = RawResponse::parse(&read);
    let length: usize = head
        .header("content-length")
        .expect("a content-length")
        .parse()
        .unwrap();
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.unwrap();
    read.extend_from_slice(&body);
    RawResponse::parse(&read)
}

/// A connection from `from` that the server has served (so it is counted), left open.
async fn served_from(from: IpAddr, addr: &str) -> TcpStream {
    let mut stream = connect_from(from, addr).await;
    let response = list_domains_on(&mut stream, false).await;
    assert_eq!(response.status, 200, "{}", response.body);
    stream
}

#[tokio::test]
async fn a_client_trickling_its_headers_is_disconnected() {
    let server = TestServer::start_with(|c| c.http.header_timeout = Duration::from_secs(1)).await;
    let stream = TcpStream::connect(addr(&server)).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let closed = tokio::spawn(async move {
        let mut read = Vec::new();
        let _ = reader.read_to_end(&mut read).await;
        read
    });
    writer
        .write_all(b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
        .await
        .unwrap();
    // A byte every 100 ms keeps the connection busy, never idle, for as long as it is allowed.
    let trickling = async {
        loop {
            if writer.write_all(b"a").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let read = tokio::select! {
        read = closed => read.unwrap(),
        () = trickling => panic!("the write side failed before the read side saw the close"),
        () = tokio::time::sleep(PATIENCE) => panic!("still connected after {PATIENCE:?}"),
    };
    // Closed without an answer: there was no request to answer.
    assert!(read.is_empty(), "{:?}", String::from_utf8_lossy(&read));

    // The server serves on.
    let response = server.raw(
        Some(LIST_DOMAINS),
        br#"{"registrationStatus": "REGISTERED"}"#,
    );
    assert_eq!(response.await.status, 200);
}

#[tokio::test]
async fn a_client_that_stops_mid_body_is_answered_408_and_disconnected() {
    let server = TestServer::start_with(|c| c.http.body_timeout = Duration::from_secs(1)).await;
    for (path, target) in [("/", Some(LIST_DOMAINS)), ("/v1/modules", None)] {
        let mut stream = TcpStream::connect(addr(&server)).await.unwrap();
        let mut head = format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\
             Content-Type: {}\r\n",
            content_type(path)
        );
        if let Some(target) = target {
            head.push_str(&format!("X-Amz-Target: {target}\r\n"));
        }
        head.push_str("\r\n{\"registrationStatus\": ");
        stream.write_all(head.as_bytes()).await.unwrap();
        // ...and nothing more. The answer comes, then the close, with the connection kept open
        // on this side: the server is the one that ends it.
        let read = timeout(PATIENCE, read_until_closed(&mut stream))
            .await
            .unwrap_or_else(|_| panic!("{path}: no answer after {PATIENCE:?}"));
        let response = RawResponse::parse(&read);
        assert_eq!(response.status, 408, "{path}: {}", response.body);
        assert_eq!(response.error_code(), "RequestTimeoutException", "{path}");
        assert_eq!(
            response.header("x-amzn-errortype"),
            Some("RequestTimeoutException")
        );
        assert!(response.message().contains("did not arrive"), "{path}");
    }
}

#[tokio::test]
async fn a_long_poll_is_not_cut_off_by_the_header_timeout() {
    // The header timeout also closes idle kept-alive connections; a long poll is a request in
    // progress, not an idle connection.
    let server = TestServer::start_with(|c| {
        c.http.header_timeout = Duration::from_secs(1);
        c.poll_timeout = Duration::from_secs(3);
    })
    .await;
    let register = br#"{"name": "d", "workflowExecutionRetentionPeriodInDays": "1"}"#;
    let response = server
        .raw(Some("SimpleWorkflowService.RegisterDomain"), register)
        .await;
    assert_eq!(response.status, 200);
    let poll = br#"{"domain": "d", "taskList": {"name": "l"}}"#;
    let response = server
        .raw(Some("SimpleWorkflowService.PollForActivityTask"), poll)
        .await;
    assert_eq!(response.status, 200, "{}", response.body);
    assert_eq!(response.json().get("taskToken"), None);
}

#[tokio::test]
async fn connections_over_the_cap_wait_until_one_closes() {
    let server = TestServer::start_with(|c| {
        c.http.max_connections = 2;
        // The cap on all connections, not one address's share of them, is what acts here.
        c.http.max_connections_per_address = Some(2);
        // Idle connections must stay open for as long as the test holds them.
        c.http.header_timeout = Duration::from_secs(300);
    })
    .await;
    let addr = addr(&server);
    let first = TcpStream::connect(&addr).await.unwrap();
    let _second = TcpStream::connect(&addr).await.unwrap();
    // The third connects (the backlog completes the handshake), but nothing serves it yet.
    let third = tokio::spawn({
        let addr = addr.clone();
        async move {
            let body = br#"{"registrationStatus": "REGISTERED"}"#;
            raw_request(&addr, Some(LIST_DOMAINS), body).await
        }
    });
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        !third.is_finished(),
        "a third connection was served while two were open"
    );
    // One closes: the third is served.
    drop(first);
    let response = timeout(PATIENCE, third)
        .await
        .expect("the third connection is served once one closes")
        .unwrap();
    assert_eq!(response.status, 200, "{}", response.body);
}

#[tokio::test]
async fn a_content_length_over_the_limit_is_refused_before_the_body_is_sent() {
    // The whole body is refused elsewhere (protocol::bodies_over_a_megabyte_are_refused); this
    // client only says how much it would send, and the server does not wait to see it.
    let server = TestServer::start_with(|c| c.http.body_timeout = Duration::from_secs(300)).await;
    for path in ["/", "/v1/modules"] {
        let mut stream = TcpStream::connect(addr(&server)).await.unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\n\
             Content-Type: {}\r\nX-Amz-Target: {LIST_DOMAINS}\r\n\r\n",
            64 << 20,
            content_type(path)
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let read = timeout(PATIENCE, read_until_closed(&mut stream))
            .await
            .unwrap_or_else(|_| panic!("{path}: no answer after {PATIENCE:?}"));
        let response = RawResponse::parse(&read);
        assert_eq!(response.status, 413, "{path}: {}", response.body);
        assert_eq!(response.error_code(), "RequestEntityTooLargeException");
    }
}

#[tokio::test]
async fn unknown_paths_and_methods_are_json_faults_and_the_root_leads_to_the_console() {
    let server = TestServer::start().await;
    let addr = addr(&server);
    for (method, path, status, content_type) in [
        ("DELETE", "/", 400, "application/x-amz-json-1.0"),
        ("GET", "/favicon.ico", 404, "application/json"),
        ("POST", "/v2/anything", 404, "application/json"),
        ("PATCH", "/v1/modules", 404, "application/json"),
        ("OPTIONS", "/v1/modules", 404, "application/json"),
    ] {
        let response = raw_http(&addr, method, path, &[], b"").await;
        assert_eq!(
            response.status, status,
            "{method} {path}: {}",
            response.body
        );
        assert_eq!(response.header("content-type"), Some(content_type));
        assert_eq!(response.error_code(), "UnknownOperationException");
        assert_eq!(response.message(), format!("No route for {method} {path}"));
        assert!(response.header("x-amzn-requestid").is_some());
    }
    // A browser pointed at the server's address is sent to the console.
    let root = raw_http(&addr, "GET", "/", &[], b"").await;
    assert_eq!(root.status, 307, "{}", root.body);
    assert_eq!(root.header("location"), Some("/console/"));
}

#[tokio::test]
async fn stopping_answers_long_polls_and_closes_idle_connections() {
    let server = TestServer::start_with(|c| {
        c.http.header_timeout = Duration::from_secs(300);
        c.poll_timeout = Duration::from_secs(300);
    })
    .await;
    let addr = addr(&server);
    let register = br#"{"name": "d", "workflowExecutionRetentionPeriodInDays": "1"}"#;
    let response = server
        .raw(Some("SimpleWorkflowService.RegisterDomain"), register)
        .await;
    assert_eq!(response.status, 200);
    let poll = tokio::spawn({
        let addr = addr.clone();
        async move {
            let poll = br#"{"domain": "d", "taskList": {"name": "l"}}"#;
            raw_request(
                &addr,
                Some("SimpleWorkflowService.PollForDecisionTask"),
                poll,
            )
            .await
        }
    });
    let mut idle = TcpStream::connect(&addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!poll.is_finished());

    timeout(PATIENCE, server.stop())
        .await
        .expect("the server stops with a long poll and an idle connection open");
    let response = poll.await.unwrap();
    assert_eq!(response.status, 200, "{}", response.body);
    assert_eq!(response.json().get("taskToken"), None);
    assert!(read_until_closed(&mut idle).await.is_empty());
}
