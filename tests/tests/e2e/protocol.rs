//! The AWS JSON 1.0 protocol: headers, bodies, and the errors for requests that cannot be
//! served. Raw HTTP where an SDK would refuse to send the request.

use weft_tests::TestServer;

use crate::common::expect_fault;

const REGISTER: &str = "SimpleWorkflowService.RegisterDomain";

#[tokio::test]
async fn success_is_json_with_a_request_id() {
    let server = TestServer::start().await;
    let body = br#"{"name": "d", "workflowExecutionRetentionPeriodInDays": "1"}"#;
    let response = server.raw(Some(REGISTER), body).await;
    assert_eq!(response.status, 200);
    // An operation without output answers an empty body, as AWS does.
    assert_eq!(response.body, "");
    assert_eq!(response.header("content-length"), Some("0"));
    assert_eq!(
        response.header("content-type"),
        Some("application/x-amz-json-1.0")
    );
    assert_eq!(response.header("x-amzn-requestid").map(str::len), Some(36));

    let response = server
        .raw(
            Some("SimpleWorkflowService.DescribeDomain"),
            br#"{"name": "d"}"#,
        )
        .await;
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["domainInfo"]["status"], "REGISTERED");
    // Absent members are omitted, never null.
    assert!(!response.body.contains("null"));
    assert!(response.json()["domainInfo"].get("description").is_none());
}

#[tokio::test]
async fn errors_carry_type_message_and_request_id() {
    let server = TestServer::start().await;
    let response = server
        .raw(
            Some("SimpleWorkflowService.DescribeDomain"),
            br#"{"name": "nope"}"#,
        )
        .await;
    assert_eq!(response.status, 400);
    assert_eq!(
        response.json()["__type"],
        "com.amazonaws.swf.base.model#UnknownResourceFault"
    );
    assert_eq!(response.message(), "Unknown domain: nope");
    assert_eq!(
        response.header("x-amzn-errortype"),
        Some("UnknownResourceFault")
    );
    assert!(response.header("x-amzn-requestid").is_some());
}

#[tokio::test]
async fn malformed_json_is_a_serialization_error() {
    let server = TestServer::start().await;
    for body in [&b"{"[..], b"{\"name\": }", b"not json", b"\xff\xfe"] {
        let response = server.raw(Some(REGISTER), body).await;
        assert_eq!(response.status, 400);
        assert_eq!(response.error_code(), "SerializationException");
        assert_eq!(
            response.json()["__type"],
            "com.amazon.coral.service#SerializationException"
        );
    }
}

#[tokio::test]
async fn wrong_member_types_are_serialization_errors() {
    let server = TestServer::start().await;
    for (target, body) in [
        (
            REGISTER,
            r#"{"name": 7, "workflowExecutionRetentionPeriodInDays": "1"}"#,
        ),
        (
            REGISTER,
            r#"{"name": "d", "workflowExecutionRetentionPeriodInDays": 1}"#,
        ),
        (
            REGISTER,
            r#"{"name": "d", "workflowExecutionRetentionPeriodInDays": "1", "tags": {}}"#,
        ),
        (
            "SimpleWorkflowService.ListDomains",
            r#"{"registrationStatus": "REGISTERED", "maximumPageSize": "5"}"#,
        ),
        (
            "SimpleWorkflowService.ListDomains",
            r#"{"registrationStatus": "REGISTERED", "reverseOrder": 1}"#,
        ),
        (REGISTER, "[]"),
    ] {
        let response = server.raw(Some(target), body.as_bytes()).await;
        assert_eq!(response.status, 400, "{body}");
        assert_eq!(response.error_code(), "SerializationException", "{body}");
    }
}

#[tokio::test]
async fn unknown_or_missing_targets() {
    let server = TestServer::start().await;
    for target in [
        Some("SimpleWorkflowService.CreateDomain"),
        Some("AmazonSWF.RegisterDomain"),
        Some("registerdomain"),
        None,
    ] {
        let response = server.raw(target, b"{}").await;
        assert_eq!(response.status, 400, "{target:?}");
        assert_eq!(response.error_code(), "UnknownOperationException");
    }
    // The legacy target form of the Developer Guide's examples is understood.
    let legacy = "com.amazonaws.swf.service.model.SimpleWorkflowService.ListDomains";
    let response = server
        .raw(Some(legacy), br#"{"registrationStatus": "REGISTERED"}"#)
        .await;
    assert_eq!(response.status, 200);
}

#[tokio::test]
async fn missing_members_are_named() {
    let server = TestServer::start().await;
    for body in [&b""[..], b"{}", br#"{"name": null}"#] {
        let response = server.raw(Some(REGISTER), body).await;
        assert_eq!(response.error_code(), "ValidationException");
        assert_eq!(
            response.message(),
            "2 validation errors detected: \
             Value null at 'name' failed to satisfy constraint: Member must not be null; \
             Value null at 'workflowExecutionRetentionPeriodInDays' failed to satisfy \
             constraint: Member must not be null"
        );
    }
    let response = server
        .raw(
            Some("SimpleWorkflowService.DescribeWorkflowType"),
            br#"{"domain": "d", "workflowType": {"name": "w"}}"#,
        )
        .await;
    assert_eq!(response.error_code(), "ValidationException");
    assert!(
        response
            .message()
            .contains("Value null at 'workflowType.version'")
    );
}

#[tokio::test]
async fn nulls_and_unknown_members_are_ignored() {
    let server = TestServer::start().await;
    let body =
        br#"{"name": "d", "description": null, "workflowExecutionRetentionPeriodInDays": "1",
                    "tags": null, "somethingNew": {"x": 1}}"#;
    assert_eq!(server.raw(Some(REGISTER), body).await.status, 200);
}

#[tokio::test]
async fn oversized_members_are_validation_errors() {
    let server = TestServer::start().await;
    let client = server.client();
    let message = expect_fault(
        client
            .register_domain()
            .name("x".repeat(257))
            .description("y".repeat(1025))
            .workflow_execution_retention_period_in_days("123456789")
            .send()
            .await,
        "ValidationException",
    );
    assert!(
        message.starts_with("3 validation errors detected"),
        "{message}"
    );
    assert!(message.contains(
        "at 'name' failed to satisfy constraint: Member must have length less than or equal to 256"
    ));
    assert!(message.contains("at 'description' failed to satisfy constraint: Member must have length less than or equal to 1024"));
    assert!(message.contains("at 'workflowExecutionRetentionPeriodInDays' failed to satisfy constraint: Member must have length less than or equal to 8"));

    let message = expect_fault(
        client
            .list_domains()
            .registration_status("SOMETIMES".into())
            .maximum_page_size(1001)
            .send()
            .await,
        "ValidationException",
    );
    assert!(message.contains("Member must satisfy enum value set: [REGISTERED, DEPRECATED]"));
    assert!(message.contains("Member must have value less than or equal to 1000"));
}

#[tokio::test]
async fn bodies_over_a_megabyte_are_refused() {
    let server = TestServer::start().await;
    let description = "x".repeat(1024 * 1024);
    let body = format!(
        r#"{{"name": "d", "workflowExecutionRetentionPeriodInDays": "1", "description": "{description}"}}"#
    );
    let response = server.raw(Some(REGISTER), body.as_bytes()).await;
    assert_eq!(response.status, 413);
    assert_eq!(response.error_code(), "RequestEntityTooLargeException");
    // Nothing was registered, and the server serves on.
    let response = server
        .raw(
            Some("SimpleWorkflowService.DescribeDomain"),
            br#"{"name": "d"}"#,
        )
        .await;
    assert_eq!(response.error_code(), "UnknownResourceFault");
}
