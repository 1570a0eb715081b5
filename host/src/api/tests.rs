//! In-process calls (`api::call`) are refused what HTTP requests are, with the same faults.

use axum::body::Body;
use axum::http::Request;
use serde_json::{Value, json};
use tower::ServiceExt as _;

use super::{call, op, parse_body, router};
use crate::fault::Fault;
use crate::ops::Ctx;
use crate::ops::activity_tasks::FailedInput;
use crate::ops::domains::RegisterDomainInput;
use crate::tenancy::{Caller, one_tenant_with_domains, open_tenant};
use crate::{Config, Weft};

fn ctx(tenant: std::sync::Arc<crate::tenancy::Tenant>) -> Ctx {
    Ctx::new(Caller {
        tenant,
        region: "us-east-1".into(),
    })
}

/// The fault code and message an open server answers to `body` for `operation`.
async fn over_http(weft: &Weft, operation: &str, body: &Value) -> (String, String) {
    let request = Request::post("/")
        .header("content-type", "application/x-amz-json-1.0")
        .header("x-amz-target", format!("SimpleWorkflowService.{operation}"))
        .header(
            "authorization",
            "AWS4-HMAC-SHA256 Credential=weft/20260101/us-east-1/swf/aws4_request, \
             SignedHeaders=host, Signature=0",
        )
        .body(Body::from(body.to_string()))
        .unwrap();
    let response = router(weft.api.clone()).oneshot(request).await.unwrap();
    assert_eq!(response.status(), 400);
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    let fault: Value = serde_json::from_slice(&bytes).unwrap();
    let code = fault["__type"]
        .as_str()
        .unwrap()
        .rsplit('#')
        .next()
        .unwrap();
    (
        code.to_owned(),
        fault["message"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test]
async fn an_invalid_input_is_refused_with_the_fault_http_answers() {
    let dir = tempfile::tempdir().unwrap();
    let weft = Weft::open(Config::new(dir.path())).unwrap();
    let reason = "r".repeat(257);
    let input = FailedInput {
        task_token: "token".into(),
        reason: Some(reason.clone()),
        details: None,
    };
    let refused =
        call::<op::RespondActivityTaskFailed>(&weft.service(), &ctx(open_tenant()), input)
            .await
            .err()
            .unwrap();
    assert!(matches!(refused, Fault::Validation(_)), "{refused:?}");
    assert!(refused.client_message().contains("'reason'"), "{refused}");
    let body = json!({"taskToken": "token", "reason": reason});
    let http = over_http(&weft, "RespondActivityTaskFailed", &body).await;
    assert_eq!((refused.code().to_owned(), refused.client_message()), http);
}

#[tokio::test]
async fn a_domain_the_tenant_may_not_use_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let weft = Weft::open(Config::new(dir.path())).unwrap();
    let tenants = one_tenant_with_domains(&["billing"]);
    let tenant = tenants.by_account("111111111111").unwrap().clone();
    let input = RegisterDomainInput {
        name: "orders".into(),
        description: None,
        workflow_execution_retention_period_in_days: "1".into(),
        tags: Vec::new(),
    };
    let refused = call::<op::RegisterDomain>(&weft.service(), &ctx(tenant), input)
        .await
        .err()
        .unwrap();
    assert_eq!(refused.code(), "AccessDeniedException", "{refused}");
    assert!(
        refused.client_message().contains("swf:RegisterDomain"),
        "{refused}"
    );
}

#[test]
fn empty_bodies_read_as_empty_objects() {
    assert_eq!(parse_body(b"").unwrap(), serde_json::json!({}));
    assert_eq!(parse_body(b" \n").unwrap(), serde_json::json!({}));
    assert!(matches!(parse_body(b"{"), Err(Fault::Serialization(_))));
}
