//! Credentials: with tenants configured, every request must be signed by a tenant's key, and
//! each kind of bad credential gets the error AWS's JSON services send.

use std::time::{Duration, SystemTime};

use weft_tests::aws_sdk_swf::types::RegistrationStatus;
use weft_tests::tenants::{ACME, GLOBEX};
use weft_tests::{TestServer, raw_http};

use super::server_with;
use crate::common::{expect_fault, register_domain};

/// ListDomains as `c` sends it.
async fn list(c: &weft_tests::aws_sdk_swf::Client) -> Result<(), String> {
    c.list_domains()
        .registration_status(RegistrationStatus::Registered)
        .send()
        .await
        .map(drop)
        .map_err(|e| {
            use weft_tests::aws_sdk_swf::error::ProvideErrorMetadata as _;
            format!("{}: {}", e.code().unwrap_or("?"), e.message().unwrap_or(""))
        })
}

#[tokio::test]
async fn bad_credentials_get_the_errors_aws_sends() {
    let server = server_with(|_| {}).await;
    list(&ACME.client(&server)).await.unwrap();

    let unknown = server.client_as("AKIANOBODY0000000", ACME.secret, "us-east-1");
    let err = list(&unknown).await.unwrap_err();
    assert_eq!(
        err,
        "UnrecognizedClientException: The security token included in the request is invalid."
    );

    let wrong_secret = server.client_as(ACME.key, GLOBEX.secret, "us-east-1");
    let err = list(&wrong_secret).await.unwrap_err();
    assert!(
        err.starts_with(
            "InvalidSignatureException: The request signature we calculated does not match"
        ),
        "{err}"
    );

    let minutes = |m: u64| Duration::from_secs(m * 60);
    let stale = server.client_signing_at(ACME.key, ACME.secret, SystemTime::now() - minutes(16));
    let err = list(&stale).await.unwrap_err();
    assert!(
        err.starts_with("InvalidSignatureException: Signature expired: "),
        "{err}"
    );
    let early = server.client_signing_at(ACME.key, ACME.secret, SystemTime::now() + minutes(16));
    let err = list(&early).await.unwrap_err();
    assert!(
        err.starts_with("InvalidSignatureException: Signature not yet current: "),
        "{err}"
    );
    let skewed = server.client_signing_at(ACME.key, ACME.secret, SystemTime::now() - minutes(10));
    list(&skewed).await.unwrap();
}

/// Requests no SDK would send: unsigned, or with a malformed `Authorization`.
#[tokio::test]
async fn unsigned_and_malformed_requests_are_refused() {
    let server = server_with(|_| {}).await;
    let addr = server.endpoint().trim_start_matches("http://").to_owned();
    let target = ("X-Amz-Target", "SimpleWorkflowService.ListDomains");
    let json = ("Content-Type", "application/x-amz-json-1.0");
    let body = br#"{"registrationStatus":"REGISTERED"}"#;

    let answer = raw_http(&addr, "POST", "/", &[target, json], body).await;
    assert_eq!(answer.status, 400);
    assert_eq!(
        answer.json()["__type"],
        "com.amazon.coral.service#MissingAuthenticationTokenException"
    );

    for (authorization, message) in [
        (
            "AWS4-HMAC-SHA256 Credential=AKIAACMETEST00001/20260101/us-east-1/swf/aws4_request",
            "Authorization header requires 'Signature' parameter.",
        ),
        (
            "Basic YWRtaW46YWRtaW4=",
            "Unsupported AWS 'algorithm': 'Basic'",
        ),
        (
            "AWS4-HMAC-SHA256 Credential=AKIAACMETEST00001/20260101/us-east-1/s3/aws4_request, \
             SignedHeaders=host;x-amz-date, Signature=00",
            "Credential should be scoped to correct service: 'swf'.",
        ),
    ] {
        let headers = [target, json, ("Authorization", authorization)];
        let answer = raw_http(&addr, "POST", "/", &headers, body).await;
        assert_eq!(answer.status, 400, "{authorization}");
        let json = answer.json();
        assert_eq!(
            json["__type"], "com.amazon.coral.service#IncompleteSignatureException",
            "{authorization}"
        );
        assert!(
            json["message"].as_str().unwrap().starts_with(message),
            "{authorization}: {json}"
        );
    }

    // The /v1 API is refused the same way, with REST's 403.
    let answer = raw_http(&addr, "GET", "/v1/modules", &[], b"").await;
    assert_eq!(answer.status, 403);
    assert_eq!(
        answer.json()["__type"],
        "com.amazon.coral.service#MissingAuthenticationTokenException"
    );
}

#[tokio::test]
async fn weft_cli_client_signs_and_is_refused_with_a_wrong_secret() {
    let server = server_with(|_| {}).await;
    let client = weft_tests::guests::weft_client(&server);
    // Without credentials the client sends only a credential scope, with no key of a tenant.
    let unsigned = client.list_modules().await.unwrap_err();
    assert!(
        unsigned.to_string().contains("UnrecognizedClientException"),
        "{unsigned}"
    );
    let signed = client.clone().with_credentials(ACME.key, ACME.secret);
    signed.list_modules().await.unwrap();
    let wrong = client.with_credentials(ACME.key, GLOBEX.secret);
    let refused = wrong.list_modules().await.unwrap_err();
    assert!(
        refused.to_string().contains("InvalidSignatureException"),
        "{refused}"
    );
}

#[tokio::test]
async fn a_tenant_may_use_only_its_domains() {
    let server = server_with(|config| {
        config.tenants[0].domains = vec!["acme-*".into(), "orders".into()];
    })
    .await;
    let acme = ACME.client(&server);
    register_domain(&acme, "acme-billing").await;
    register_domain(&acme, "orders").await;
    let message = expect_fault(
        acme.register_domain()
            .name("billing")
            .workflow_execution_retention_period_in_days("1")
            .send()
            .await,
        "AccessDeniedException",
    );
    assert_eq!(
        message,
        "User: arn:aws:iam::111111111111:user/acme is not authorized to perform: \
         swf:RegisterDomain on resource: arn:aws:swf:us-east-1:111111111111:/domain/billing"
    );
    // GLOBEX may use any name, "billing" included; ACME still may not describe it.
    register_domain(&GLOBEX.client(&server), "billing").await;
    expect_fault(
        acme.describe_domain().name("billing").send().await,
        "AccessDeniedException",
    );
    let weft = super::weft(&server, &ACME);
    let refused = weft.list_bindings("billing").await.unwrap_err();
    assert!(
        refused.to_string().contains("AccessDeniedException"),
        "{refused}"
    );
}

/// Without tenants the server is open: unsigned requests are served, as before.
#[tokio::test]
async fn without_tenants_requests_need_no_signature() {
    let server = TestServer::start().await;
    let answer = server
        .raw(
            Some("SimpleWorkflowService.ListDomains"),
            br#"{"registrationStatus":"REGISTERED"}"#,
        )
        .await;
    assert_eq!(answer.status, 200);
}

/// A client holding no key is refused on its headers: the server does not wait for (or hold)
/// the body it announces.
#[tokio::test]
async fn unsigned_requests_are_refused_before_their_bodies() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    let server = server_with(|config| config.http.body_timeout = Duration::from_secs(120)).await;
    let addr = server.endpoint().trim_start_matches("http://").to_owned();
    for path in ["/", "/v1/modules"] {
        let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let content_type = match path {
            "/" => "application/x-amz-json-1.0",
            _ => "application/wasm",
        };
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\n\
             X-Amz-Target: SimpleWorkflowService.ListDomains\r\nContent-Length: 1000000\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut answer = vec![0; 4096];
        // Well within the body timeout: the answer comes without the body.
        let n = tokio::time::timeout(Duration::from_secs(30), stream.read(&mut answer))
            .await
            .expect("answered before the body came")
            .unwrap();
        let answer = String::from_utf8_lossy(&answer[..n]);
        assert!(
            answer.contains("MissingAuthenticationTokenException"),
            "{path}: {answer}"
        );
    }
}
