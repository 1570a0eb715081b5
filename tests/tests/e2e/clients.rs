//! Clients other than aws-sdk-swf against a server with tenants: `curl --aws-sigv4`, boto3 and
//! the AWS CLI, run as subprocesses (see `weft_tests::clients`) when `WEFT_CLIENT_TESTS` is set.
//! Each must pass with a tenant's key, see only that tenant's domains, and fail with the error
//! code AWS gives for a wrong secret, an unknown key and no signature.

use std::process::Command;

use serde_json::Value;
use weft_tests::TestServer;
use weft_tests::clients::{self, Output};
use weft_tests::tenants::{self, ACME, GLOBEX, Tenant};

use crate::common::register_domain;

/// A secret that is no tenant's.
const WRONG_SECRET: &str = "not-the-secret-0123456789";

/// A key no tenant has.
const UNKNOWN_KEY: &str = "AKIANOBODY0000001";

/// A server with ACME and GLOBEX, each with one domain registered through aws-sdk-swf.
async fn server() -> TestServer {
    let server = TestServer::start_with(tenants::both).await;
    register_domain(&ACME.client(&server), "acme-orders").await;
    register_domain(&GLOBEX.client(&server), "globex-orders").await;
    server
}

/// The names in a `ListDomains` answer.
fn domain_names(answer: &Value) -> Vec<String> {
    let infos = answer["domainInfos"].as_array().expect("domainInfos");
    infos
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_owned())
        .collect()
}

/// `curl` posting ListDomains to `server`, signed with `user` (`KEY:SECRET`) unless `None`;
/// answers the status and the body as JSON.
async fn curl_list_domains(server: &TestServer, user: Option<(&str, &str)>) -> (u16, Value) {
    let mut curl = clients::curl();
    if let Some((key, secret)) = user {
        curl.args(["--aws-sigv4", "aws:amz:us-east-1:swf", "--user"])
            .arg(format!("{key}:{secret}"));
    }
    curl.args([
        "-H",
        "Content-Type: application/x-amz-json-1.0",
        "-H",
        "X-Amz-Target: SimpleWorkflowService.ListDomains",
        "-d",
        r#"{"registrationStatus":"REGISTERED"}"#,
    ]);
    curl_json(curl, &format!("{}/", server.endpoint())).await
}

/// Runs `curl` on `url`, and answers the status and the body as JSON.
async fn curl_json(mut curl: Command, url: &str) -> (u16, Value) {
    curl.args(["--write-out", "\n%{http_code}"]).arg(url);
    let out = clients::run(curl).await;
    assert_eq!(out.code, Some(0), "curl failed: {out:?}");
    let (body, status) = out.stdout.rsplit_once('\n').expect("a status line");
    let json = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    (status.parse().expect("a status"), json)
}

/// The error code in an error body: `__type` after its `#`.
fn code(body: &Value) -> &str {
    let kind = body["__type"].as_str().expect("__type");
    kind.rsplit('#').next().unwrap_or(kind)
}

#[tokio::test]
async fn curl_aws_sigv4_passes_with_a_tenants_key_only() {
    if !clients::enabled() {
        return;
    }
    let server = server().await;

    let (status, body) = curl_list_domains(&server, Some((ACME.key, ACME.secret))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(domain_names(&body), ["acme-orders"]);
    let (status, body) = curl_list_domains(&server, Some((GLOBEX.key, GLOBEX.secret))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(domain_names(&body), ["globex-orders"]);

    let (status, body) = curl_list_domains(&server, Some((ACME.key, WRONG_SECRET))).await;
    assert_eq!((status, code(&body)), (400, "InvalidSignatureException"));
    let (status, body) = curl_list_domains(&server, Some((UNKNOWN_KEY, ACME.secret))).await;
    assert_eq!((status, code(&body)), (400, "UnrecognizedClientException"));
    let (status, body) = curl_list_domains(&server, None).await;
    assert_eq!(
        (status, code(&body)),
        (400, "MissingAuthenticationTokenException")
    );

    // A GET with no body, on Weft's own API.
    let modules = format!("{}/v1/modules", server.endpoint());
    let signed = |secret: &str| {
        let mut curl = clients::curl();
        curl.args(["--aws-sigv4", "aws:amz:us-east-1:swf", "--user"])
            .arg(format!("{}:{secret}", ACME.key));
        curl
    };
    let (status, body) = curl_json(signed(ACME.secret), &modules).await;
    assert_eq!((status, &body), (200, &serde_json::json!({"modules": []})));
    let (status, body) = curl_json(signed(WRONG_SECRET), &modules).await;
    assert_eq!((status, code(&body)), (403, "InvalidSignatureException"));

    // curl signs a path with characters to encode as sent, where SigV4 encodes it again: Weft
    // takes either (the domain is unknown, so the signature held).
    let spaced = format!("{}/v1/domains/a%20b/bindings", server.endpoint());
    let (status, body) = curl_json(signed(ACME.secret), &spaced).await;
    assert_eq!(
        (status, code(&body)),
        (404, "UnknownResourceFault"),
        "{body}"
    );
    let (status, body) = curl_json(signed(WRONG_SECRET), &spaced).await;
    assert_eq!((status, code(&body)), (403, "InvalidSignatureException"));
}

/// `swf_client.py` (boto3) registering `domain` and listing domains as `key` and `secret`.
async fn boto3(server: &TestServer, key: &str, secret: &str, domain: &str) -> Output {
    let pyenv = clients::pyenv().await;
    let mut python = pyenv.swf_client(&[&server.endpoint(), domain]);
    clients::with_credentials(&mut python, key, secret);
    clients::run(python).await
}

/// What `swf_client.py` printed on success: the domains it saw.
fn boto3_domains(out: &Output) -> Vec<String> {
    assert_eq!(out.code, Some(0), "boto3 failed: {out:?}");
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

/// Asserts that `swf_client.py` failed with the error code `code`.
#[track_caller]
fn assert_boto3_error(out: &Output, code: &str) {
    assert_eq!((out.code, out.stdout.trim()), (Some(1), code), "{out:?}");
}

#[tokio::test]
async fn boto3_passes_with_a_tenants_key_only() {
    if !clients::enabled() {
        return;
    }
    let server = server().await;

    let out = boto3(&server, ACME.key, ACME.secret, "acme-boto3").await;
    assert_eq!(boto3_domains(&out), ["acme-boto3", "acme-orders"]);
    let out = boto3(&server, GLOBEX.key, GLOBEX.secret, "globex-boto3").await;
    assert_eq!(boto3_domains(&out), ["globex-boto3", "globex-orders"]);

    let out = boto3(&server, ACME.key, WRONG_SECRET, "acme-wrong").await;
    assert_boto3_error(&out, "InvalidSignatureException");
    let out = boto3(&server, UNKNOWN_KEY, ACME.secret, "nobody").await;
    assert_boto3_error(&out, "UnrecognizedClientException");

    // Neither failure registered anything.
    let out = boto3(&server, ACME.key, ACME.secret, "acme-boto3-2").await;
    assert_eq!(
        boto3_domains(&out),
        ["acme-boto3", "acme-boto3-2", "acme-orders"]
    );
}

/// `aws swf list-domains` against `server`, signed with `key` and `secret` (unsigned,
/// `--no-sign-request`, if `None`).
async fn aws_list_domains(server: &TestServer, key: &str, secret: Option<&str>) -> Output {
    let pyenv = clients::pyenv().await;
    let mut aws = Command::new(&pyenv.aws);
    clients::with_credentials(&mut aws, key, secret.unwrap_or(WRONG_SECRET));
    aws.arg("--endpoint-url").arg(server.endpoint()).args([
        "swf",
        "list-domains",
        "--registration-status",
        "REGISTERED",
    ]);
    if secret.is_none() {
        aws.arg("--no-sign-request");
    }
    clients::run(aws).await
}

/// The domains `aws swf list-domains` printed.
fn aws_domains(out: &Output) -> Vec<String> {
    assert_eq!(out.code, Some(0), "aws failed: {out:?}");
    let answer = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    domain_names(&answer)
}

/// Asserts that the AWS CLI failed with the error code `code` on ListDomains.
#[track_caller]
fn assert_aws_error(out: &Output, code: &str) {
    let expected = format!("An error occurred ({code}) when calling the ListDomains operation");
    assert!(
        out.code == Some(255) && out.stderr.contains(&expected),
        "expected {expected:?}: {out:?}"
    );
}

#[tokio::test]
async fn aws_cli_passes_with_a_tenants_key_only() {
    if !clients::enabled() {
        return;
    }
    let server = server().await;
    let Tenant { key, secret, .. } = ACME;

    let out = aws_list_domains(&server, key, Some(secret)).await;
    assert_eq!(aws_domains(&out), ["acme-orders"]);
    let out = aws_list_domains(&server, GLOBEX.key, Some(GLOBEX.secret)).await;
    assert_eq!(aws_domains(&out), ["globex-orders"]);

    let out = aws_list_domains(&server, key, Some(WRONG_SECRET)).await;
    assert_aws_error(&out, "InvalidSignatureException");
    let out = aws_list_domains(&server, UNKNOWN_KEY, Some(secret)).await;
    assert_aws_error(&out, "UnrecognizedClientException");
    let out = aws_list_domains(&server, key, None).await;
    assert_aws_error(&out, "MissingAuthenticationTokenException");
}
