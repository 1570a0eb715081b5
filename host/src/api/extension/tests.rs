//! The `/v1` routes through the router, without a socket.

use axum::http::{Request, StatusCode};
use tower::ServiceExt as _;

use axum::body::Body;

use super::*;
use crate::{Config, Weft};

/// A router on a fresh store, and the directory it lives in.
struct Harness {
    router: Router,
    dir: tempfile::TempDir,
    _weft: Weft,
}

struct Answer {
    status: StatusCode,
    error_type: Option<String>,
    content_type: String,
    json: Value,
}

impl Answer {
    fn code(&self) -> &str {
        let kind = self.json["__type"].as_str().unwrap_or_default();
        kind.rsplit('#').next().unwrap_or(kind)
    }

    fn message(&self) -> &str {
        self.json["message"].as_str().unwrap_or_default()
    }
}

fn harness() -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let weft = Weft::open(Config::new(dir.path())).unwrap();
    Harness {
        router: super::super::router(weft.api.clone()),
        dir,
        _weft: weft,
    }
}

impl Harness {
    async fn call(&self, method: &str, uri: &str, body: impl Into<Body>) -> Answer {
        self.call_in("us-east-1", method, uri, vec![], body).await
    }

    async fn call_in(
        &self,
        region: &str,
        method: &str,
        uri: &str,
        headers: Vec<(&str, &str)>,
        body: impl Into<Body>,
    ) -> Answer {
        let auth = format!(
            "AWS4-HMAC-SHA256 Credential=weft/20260101/{region}/swf/aws4_request, \
             SignedHeaders=host, Signature=0"
        );
        let mut request = Request::builder()
            .method(method)
            .uri(uri)
            .header("authorization", auth);
        // A body says what it is, as clients' do, unless the test says otherwise.
        let typed = headers.iter().any(|(name, _)| *name == "content-type");
        if !typed && (method == "POST" || method == "PUT") {
            let content_type = match uri {
                "/" => "application/x-amz-json-1.0",
                "/v1/modules" => "application/wasm",
                _ => "application/json",
            };
            request = request.header("content-type", content_type);
        }
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let response = self
            .router
            .clone()
            .oneshot(request.body(body.into()).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .map(|v| v.to_str().unwrap().to_owned())
        };
        let error_type = header("x-amzn-errortype");
        let content_type = header("content-type").unwrap_or_default();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        // SWF's operations without output answer an empty body.
        let json = if bytes.is_empty() {
            Value::Object(Default::default())
        } else {
            serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                panic!("{method} {uri}: {e}: {:?}", String::from_utf8_lossy(&bytes))
            })
        };
        Answer {
            status,
            error_type,
            content_type,
            json,
        }
    }

    async fn register_domain(&self, region: &str, name: &str) {
        let body = json!({"name": name, "workflowExecutionRetentionPeriodInDays": "1"});
        let target = ("x-amz-target", "SimpleWorkflowService.RegisterDomain");
        let answer = self
            .call_in(region, "POST", "/", vec![target], body.to_string())
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.json);
    }
}

#[tokio::test]
async fn refused_uploads_leave_nothing_behind() {
    let h = harness();
    let empty_component = b"\0asm\x0d\0\x01\0".to_vec();
    let answer = h.call("POST", "/v1/modules", empty_component).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.error_type.as_deref(), Some("ValidationException"));
    assert!(
        answer.message().contains("world decider"),
        "{}",
        answer.json
    );

    let listed = h.call("GET", "/v1/modules", Body::empty()).await;
    assert_eq!(listed.status, StatusCode::OK);
    assert_eq!(listed.content_type, "application/json");
    assert_eq!(listed.json, json!({"modules": []}));
    // It compiled, but its code was not cached: only modules that pass are.
    let compiled = h.dir.path().join("compiled");
    let cached: Vec<_> = std::fs::read_dir(&compiled).unwrap().collect();
    assert!(cached.is_empty(), "{cached:?}");
}

#[tokio::test]
async fn modules_over_the_size_limit_are_refused_with_413() {
    let h = harness();
    let answer = h
        .call("POST", "/v1/modules", vec![0u8; MAX_MODULE_BYTES + 1])
        .await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(answer.code(), "RequestEntityTooLargeException");
    // The limit is the module's, not SWF's 1 MiB: a 2 MiB body is read and judged.
    let answer = h.call("POST", "/v1/modules", vec![0u8; 2 << 20]).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(
        answer.message().contains("not a WebAssembly component"),
        "{}",
        answer.json
    );
}

#[tokio::test]
async fn bind_bodies_are_checked_before_anything_is_looked_up() {
    let h = harness();
    h.register_domain("us-east-1", "d").await;
    let uri = "/v1/domains/d/bindings/activity/work";
    for (body, code, needle) in [
        ("{", "SerializationException", "not valid JSON"),
        ("", "SerializationException", "not valid JSON"),
        ("[]", "ValidationException", "expected a JSON object"),
        (r#"{"modul": "x"}"#, "ValidationException", "unknown field"),
        (
            r#"{"module": "x", "concurrency": -1}"#,
            "ValidationException",
            "expected an integer from 0 to 4294967295",
        ),
        (
            r#"{"module": "x", "limits": {"cpu_ms": 5}}"#,
            "ValidationException",
            "unknown field",
        ),
        (
            r#"{"module": "x", "limits": {"memoryBytes": 0}}"#,
            "ValidationException",
            "memoryBytes is 0",
        ),
        (
            r#"{"module": "x", "concurrency": 65}"#,
            "ValidationException",
            "concurrency must be 1 to 64",
        ),
        (
            r#"{"module": "x", "limits": 5}"#,
            "ValidationException",
            "expected a JSON object",
        ),
        (
            r#"{"module": "x", "limits": {"cpuMs": "5"}}"#,
            "ValidationException",
            "expected an integer from 0 to 18446744073709551615",
        ),
    ] {
        let answer = h.call("PUT", uri, body).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(answer.code(), code, "{body}: {}", answer.json);
        assert!(answer.message().contains(needle), "{body}: {}", answer.json);
        // The client wrote JSON: Rust's names for its types are no business of theirs.
        for rust in ["u32", "u64", "struct", "BindLimits", "GuestLimits"] {
            assert!(!answer.message().contains(rust), "{body}: {}", answer.json);
        }
    }
    let grant = r#"{"module": "x", "httpHosts": ["127.0.0.1:8080"]}"#;
    for (uri, body, message) in [
        (
            uri,
            r#"{"module": "x", "httpHosts": ["https://example.com"]}"#,
            "Invalid httpHosts: \"https://example.com\": expected a host name, IPv4 \
             address or [IPv6] address, with an optional :port (no scheme, path or \
             wildcard)",
        ),
        (
            uri,
            r#"{"module": "x", "httpHosts": ["a.com", "*.example.com"]}"#,
            "Invalid httpHosts: \"*.example.com\": expected a host name, IPv4 address or \
             [IPv6] address, with an optional :port (no scheme, path or wildcard)",
        ),
        (
            "/v1/domains/d/bindings/decision/deciders",
            grant,
            "httpHosts is for activity bindings only: a decision binding cannot send HTTP \
             requests",
        ),
        (
            "/v1/domains/d/bindings/function/f",
            grant,
            "httpHosts is for activity bindings only: a function binding cannot send HTTP \
             requests",
        ),
    ] {
        let answer = h.call("PUT", uri, body).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(answer.code(), "ValidationException", "{body}");
        assert_eq!(answer.message(), message);
    }
    // A well-formed grant on an activity binding gets as far as the module.
    let answer = h.call("PUT", uri, grant).await;
    assert_eq!(answer.message(), "Unknown module: x");
}

#[tokio::test]
async fn path_segments_are_percent_decoded() {
    let h = harness();
    h.register_domain("us-east-1", "d 1").await;
    let answer = h
        .call(
            "DELETE",
            "/v1/domains/d%201/bindings/activity/a%20b%2Fc%3F",
            Body::empty(),
        )
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "{}", answer.json);
    assert_eq!(answer.message(), "No activity binding: a b/c?");

    // Not UTF-8 once decoded: the client's error, not the server's.
    let answer = h
        .call("GET", "/v1/domains/%FF/bindings", Body::empty())
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.json);
    assert_eq!(answer.code(), "ValidationException");
    assert_eq!(
        answer.message(),
        "Invalid path: its domain is not UTF-8 once percent-decoded"
    );
}

#[tokio::test]
async fn unknown_routes_and_kinds() {
    let h = harness();
    // Unknown paths, and known paths with a method they do not serve, inside /v1 or not.
    for (method, uri) in [
        ("GET", "/v1/nothing"),
        ("GET", "/v1"),
        ("PATCH", "/v1/modules/abc/more"),
        ("PATCH", "/v1/modules"),
        ("POST", "/v1/domains/d/bindings"),
        ("GET", "/v1/modules/abc"),
        ("GET", "/nothing"),
        ("POST", "/index.html"),
    ] {
        let answer = h.call(method, uri, Body::empty()).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{method} {uri}");
        assert_eq!(answer.code(), "UnknownOperationException");
        assert_eq!(answer.message(), format!("No route for {method} {uri}"));
        assert_eq!(answer.content_type, "application/json");
    }
    // SWF's path answers as SWF does, whatever the method; but a browser's GET goes to the
    // console.
    let root = h.call("GET", "/", Body::empty()).await;
    assert_eq!(root.status, StatusCode::TEMPORARY_REDIRECT);
    for method in ["PUT", "DELETE"] {
        let answer = h.call(method, "/", Body::empty()).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{method}");
        assert_eq!(answer.code(), "UnknownOperationException");
        assert_eq!(answer.content_type, "application/x-amz-json-1.0");
    }
    let answer = h
        .call(
            "GET",
            "/v1/domains/d/bindings/workflow/x/failures",
            Body::empty(),
        )
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(answer.message().contains("Unknown binding kind: workflow"));
}

#[tokio::test]
async fn scope_comes_from_the_credential_scope_as_for_swf() {
    let h = harness();
    h.register_domain("eu-west-2", "d").await;
    let uri = "/v1/domains/d/bindings";
    let there = h
        .call_in("eu-west-2", "GET", uri, vec![], Body::empty())
        .await;
    assert_eq!(there.status, StatusCode::OK);
    assert_eq!(there.json, json!({"bindings": []}));
    let elsewhere = h.call("GET", uri, Body::empty()).await;
    assert_eq!(elsewhere.status, StatusCode::NOT_FOUND);
    assert_eq!(elsewhere.message(), "Unknown domain: d");
}

#[tokio::test]
async fn swf_keeps_its_own_statuses() {
    let h = harness();
    let target = ("x-amz-target", "SimpleWorkflowService.DescribeDomain");
    let answer = h
        .call_in(
            "us-east-1",
            "POST",
            "/",
            vec![target],
            r#"{"name": "nope"}"#,
        )
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.code(), "UnknownResourceFault");
    assert_eq!(answer.content_type, "application/x-amz-json-1.0");
}

#[tokio::test]
async fn the_server_routes_every_path_the_client_fills() {
    let h = harness();
    for template in crate::model::routes::ALL {
        let placeholders = template.matches('{').count();
        let segments: Vec<&str> = (0..placeholders)
            .map(|n| ["d", "decision", "x"][n.min(2)])
            .collect();
        let uri = crate::model::routes::fill(template, &segments);
        let mut routed = false;
        for method in ["GET", "POST", "PUT", "DELETE"] {
            let answer = h.call(method, &uri, Body::from("{}")).await;
            routed |= answer.code() != "UnknownOperationException";
        }
        assert!(routed, "no method of {uri} is routed");
    }
}
