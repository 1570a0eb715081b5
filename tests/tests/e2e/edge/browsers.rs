//! What a web page the developer visits can make their browser send to a Weft running open on
//! their machine: a "simple" cross-site POST (`text/plain`, a form), a request from another
//! origin, or any request at all after rebinding a DNS name of its own to the server (a Host
//! that is not the server's). Each is refused before it does anything; what real clients send
//! (every SDK's AWS JSON, boto 2's `application/json`, the console's own requests) is served.

use weft_tests::guests::guest;
use weft_tests::{RawResponse, TestServer, raw_http};

use super::{LIST_DOMAINS, addr};

const LIST_BODY: &[u8] = br#"{"registrationStatus": "REGISTERED"}"#;

/// `POST path` with `headers` (the Host is the server's address unless one is given).
async fn post(
    server: &TestServer,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> RawResponse {
    raw_http(&addr(server), "POST", path, headers, body).await
}

async fn modules(server: &TestServer) -> usize {
    let listed = server.http("GET", "/v1/modules", b"").await;
    listed.json()["modules"].as_array().unwrap().len()
}

#[tokio::test]
async fn a_cross_site_upload_stores_nothing() {
    let server = TestServer::start().await;
    let code = guest("one-activity-decider");
    // A page's form or fetch(no-cors) may send text/plain (or nothing at all) anywhere.
    for content_type in ["text/plain", "application/x-www-form-urlencoded", ""] {
        let headers: Vec<_> = match content_type {
            "" => vec![],
            given => vec![("Content-Type", given)],
        };
        let refused = post(&server, "/v1/modules", &headers, &code).await;
        assert_eq!(refused.status, 415, "{content_type}: {refused:?}");
        assert_eq!(refused.error_code(), "UnsupportedMediaTypeException");
        assert!(
            refused.message().contains("application/wasm"),
            "{refused:?}"
        );
    }
    // A page elsewhere that sends the right type still carries its own Origin.
    let wasm = ("Content-Type", "application/wasm");
    let cross = post(
        &server,
        "/v1/modules",
        &[wasm, ("Origin", "http://evil.example")],
        &code,
    )
    .await;
    assert_eq!(cross.status, 403, "{cross:?}");
    assert_eq!(cross.error_code(), "AccessDeniedException");
    assert!(cross.message().contains("Cross-origin"), "{cross:?}");
    assert_eq!(modules(&server).await, 0);

    // The server's own pages (the console) send its own origin.
    let own = format!("http://{}", addr(&server));
    let uploaded = post(&server, "/v1/modules", &[wasm, ("Origin", &own)], &code).await;
    assert_eq!(uploaded.status, 200, "{uploaded:?}");
    assert_eq!(modules(&server).await, 1);
}

#[tokio::test]
async fn an_open_server_answers_only_to_its_own_names() {
    let server = TestServer::start_with(|c| c.allowed_hosts = vec!["weft.internal".into()]).await;
    let port = addr(&server).rsplit_once(':').unwrap().1.to_owned();
    let json = ("Content-Type", "application/x-amz-json-1.0");
    let target = ("X-Amz-Target", LIST_DOMAINS);
    // After DNS rebinding, the page's requests name the page's own host.
    let rebound = format!("evil.example:{port}");
    let refused = post(&server, "/", &[("Host", &rebound), json, target], LIST_BODY).await;
    assert_eq!(refused.status, 400, "{refused:?}");
    assert_eq!(refused.error_code(), "AccessDeniedException");
    assert!(refused.message().contains("allowed_hosts"), "{refused:?}");
    for path in ["/v1/modules", "/metrics", "/console/"] {
        let read = raw_http(&addr(&server), "GET", path, &[("Host", &rebound)], b"").await;
        assert_eq!(read.status, 403, "{path}: {read:?}");
    }
    // Loopback names, addresses and the names configured are the server's.
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("weft.internal:{port}"),
    ] {
        let served = post(&server, "/", &[("Host", &host), json, target], LIST_BODY).await;
        assert_eq!(served.status, 200, "{host}: {served:?}");
    }
}

#[tokio::test]
async fn swf_requests_must_be_aws_json_as_every_client_sends() {
    let server = TestServer::start().await;
    let target = ("X-Amz-Target", LIST_DOMAINS);
    for content_type in ["text/plain", "application/x-amz-json-1.1", ""] {
        let mut headers = vec![target];
        if !content_type.is_empty() {
            headers.push(("Content-Type", content_type));
        }
        let refused = post(&server, "/", &headers, LIST_BODY).await;
        assert_eq!(refused.status, 400, "{content_type}: {refused:?}");
        assert_eq!(refused.error_code(), "UnknownOperationException");
        assert!(
            refused.message().contains("application/x-amz-json-1.0"),
            "{refused:?}"
        );
    }
    // boto 2: JSON with a charset, its own Content-Encoding, and SWF's long target.
    let boto2 = [
        ("Content-Type", "application/json; charset=UTF-8"),
        ("Content-Encoding", "amz-1.0"),
        (
            "X-Amz-Target",
            "com.amazonaws.swf.service.model.SimpleWorkflowService.ListDomains",
        ),
    ];
    let served = post(&server, "/", &boto2, LIST_BODY).await;
    assert_eq!(served.status, 200, "{served:?}");
}
