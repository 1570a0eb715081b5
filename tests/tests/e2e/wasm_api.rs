//! Weft's `/v1` API for modules and bindings, over HTTP: what it refuses, and that a refusal
//! stores nothing. (Tests with real guests are in `wasm/`.)

use weft_tests::{RawResponse, TestServer};

use crate::common::register_domain;

/// Asserts that `response` is the fault `code` with `status`, in the shape SWF's faults have,
/// and returns its message.
#[track_caller]
fn expect_error(response: &RawResponse, status: u16, code: &str) -> String {
    assert_eq!(response.status, status, "{}", response.body);
    assert_eq!(response.error_code(), code, "{}", response.body);
    assert_eq!(response.header("x-amzn-errortype"), Some(code));
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert!(response.header("x-amzn-requestid").is_some());
    response.message()
}

/// Bytes that look like nothing in particular (a fixed xorshift sequence).
fn noise(len: usize) -> Vec<u8> {
    let mut x: u32 = 0x9e37_79b9;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

#[tokio::test]
async fn invalid_modules_are_refused_with_a_clear_message_and_not_stored() {
    let server = TestServer::start().await;
    let core_module = b"\0asm\x01\0\0\0".to_vec();
    let empty_component = b"\0asm\x0d\0\x01\0".to_vec();
    for (what, body, needles) in [
        ("an empty body", Vec::new(), &["empty"][..]),
        (
            "random bytes",
            noise(4096),
            &["not a WebAssembly component"][..],
        ),
        (
            "a core module",
            core_module,
            &["not a WebAssembly component", "wasm32-wasip2"][..],
        ),
        (
            "an empty component",
            empty_component,
            &["decider", "activity-worker", "function"][..],
        ),
    ] {
        let response = server.http("POST", "/v1/modules", &body).await;
        let message = expect_error(&response, 400, "ValidationException");
        assert!(message.starts_with("Invalid module: "), "{what}: {message}");
        for needle in needles {
            assert!(message.contains(needle), "{what}: {message}");
        }
    }

    let listed = server.http("GET", "/v1/modules", b"").await;
    assert_eq!(listed.status, 200);
    assert_eq!(listed.json(), serde_json::json!({"modules": []}));
    let compiled = std::fs::read_dir(server.data_dir().join("compiled"))
        .unwrap()
        .count();
    assert_eq!(compiled, 0, "no compiled code kept for refused modules");
}

#[tokio::test]
async fn deleting_an_unknown_module_is_404() {
    let server = TestServer::start().await;
    let digest = "0".repeat(64);
    let response = server
        .http("DELETE", &format!("/v1/modules/{digest}"), b"")
        .await;
    let message = expect_error(&response, 404, "UnknownResourceFault");
    assert_eq!(message, format!("Unknown module: {digest}"));
}

#[tokio::test]
async fn a_path_longer_than_any_name_is_refused_without_quoting_it_whole() {
    let server = TestServer::start().await;
    let long = "a".repeat(60_000);
    for path in [
        format!("/v1/domains/{long}/bindings"),
        format!("/v1/domains/d/bindings/activity/{long}/failures"),
        format!("/v1/modules/{long}"),
    ] {
        let method = if path.starts_with("/v1/modules") {
            "DELETE"
        } else {
            "GET"
        };
        let response = server.http(method, &path, b"").await;
        let message = expect_error(&response, 400, "ValidationException");
        assert!(
            message.contains("60000 characters long; at most 256"),
            "{message}"
        );
        assert!(response.body.len() < 1024, "{} bytes", response.body.len());
    }
}

#[tokio::test]
async fn binding_needs_a_known_domain_and_module() {
    let server = TestServer::start().await;
    let client = server.client();
    let body = format!(r#"{{"module": "{}"}}"#, "a".repeat(64));

    let response = server
        .http(
            "PUT",
            "/v1/domains/nope/bindings/decision/deciders",
            body.as_bytes(),
        )
        .await;
    let message = expect_error(&response, 404, "UnknownResourceFault");
    assert_eq!(message, "Unknown domain: nope");

    register_domain(&client, "d").await;
    let response = server
        .http(
            "PUT",
            "/v1/domains/d/bindings/decision/deciders",
            body.as_bytes(),
        )
        .await;
    let message = expect_error(&response, 404, "UnknownResourceFault");
    assert_eq!(message, format!("Unknown module: {}", "a".repeat(64)));

    // A name with a control character, as SWF's names and ids may not hold.
    let response = server
        .http(
            "PUT",
            "/v1/domains/d/bindings/decision/a%00b",
            body.as_bytes(),
        )
        .await;
    let message = expect_error(&response, 400, "ValidationException");
    assert!(
        message.contains("none of them control characters"),
        "{message}"
    );

    client.deprecate_domain().name("d").send().await.unwrap();
    let response = server
        .http(
            "PUT",
            "/v1/domains/d/bindings/decision/deciders",
            body.as_bytes(),
        )
        .await;
    expect_error(&response, 400, "DomainDeprecatedFault");

    // Nothing was bound on the way.
    register_domain(&client, "e").await;
    let listed = server.http("GET", "/v1/domains/e/bindings", b"").await;
    assert_eq!(listed.status, 200);
    assert_eq!(listed.json(), serde_json::json!({"bindings": []}));
}

#[tokio::test]
async fn unknown_kinds_are_400() {
    let server = TestServer::start().await;
    register_domain(&server.client(), "d").await;
    for (method, path) in [
        ("PUT", "/v1/domains/d/bindings/workflow/x"),
        ("DELETE", "/v1/domains/d/bindings/decisions/x"),
        ("GET", "/v1/domains/d/bindings/Activity/x/failures"),
    ] {
        let response = server.http(method, path, br#"{"module": "m"}"#).await;
        let message = expect_error(&response, 400, "ValidationException");
        assert!(
            message.contains("must be decision, activity or function"),
            "{method} {path}: {message}"
        );
    }
}

#[tokio::test]
async fn unknown_bindings_have_no_failures_and_cannot_be_removed() {
    let server = TestServer::start().await;
    register_domain(&server.client(), "d").await;
    let response = server
        .http("GET", "/v1/domains/d/bindings/activity/work/failures", b"")
        .await;
    let message = expect_error(&response, 404, "UnknownResourceFault");
    assert_eq!(message, "No activity binding: work");

    let response = server
        .http("DELETE", "/v1/domains/d/bindings/function/f%2Fg", b"")
        .await;
    let message = expect_error(&response, 404, "UnknownResourceFault");
    assert_eq!(message, "No function binding: f/g");

    let response = server
        .http(
            "GET",
            "/v1/domains/nope/bindings/activity/work/failures",
            b"",
        )
        .await;
    let message = expect_error(&response, 404, "UnknownResourceFault");
    assert_eq!(message, "Unknown domain: nope");
}
