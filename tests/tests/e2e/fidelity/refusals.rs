//! What AWS refuses, refused at once and clearly: a poll on a task-list name that no task
//! could have (StartWorkflowExecution refuses it) is invalid, not an empty poll after a minute;
//! a message quotes only so much of what the client sent.

use weft_tests::TestServer;

use crate::common::expect_fault;
use crate::flow::{D, server, task_list};

#[tokio::test]
async fn polls_refuse_task_list_names_no_task_can_have() {
    let (_server, c) = server().await;
    for name in [
        "a:b",
        "a/b",
        "a|b",
        " lead",
        "trail ",
        "arn",
        "tab\there",
        "nul\u{0}",
    ] {
        let message = expect_fault(
            c.poll_for_decision_task()
                .domain(D)
                .task_list(task_list(name))
                .send()
                .await,
            "ValidationException",
        );
        assert!(
            message.contains("at 'taskList.name'"),
            "{name:?}: {message}"
        );
        expect_fault(
            c.poll_for_activity_task()
                .domain(D)
                .task_list(task_list(name))
                .send()
                .await,
            "ValidationException",
        );
    }
    // StartWorkflowExecution refuses the same names.
    expect_fault(
        c.start_workflow_execution()
            .domain(D)
            .workflow_id("job")
            .workflow_type(crate::flow::wf_type("w", "1"))
            .task_list(task_list("a:b"))
            .send()
            .await,
        "ValidationException",
    );
}

#[tokio::test]
async fn messages_echo_at_most_a_little_of_the_input() {
    let server = TestServer::start().await;
    let target = format!("SimpleWorkflowService.{}", "X".repeat(5000));
    let response = server.raw(Some(&target), b"{}").await;
    assert_eq!(response.error_code(), "UnknownOperationException");
    let message = response.message();
    assert!(message.len() < 200, "{} characters", message.len());
    assert!(message.ends_with("..."), "{message}");

    let body = format!(r#"{{"name": {}}}"#, "1".repeat(5000));
    let response = server
        .raw(
            Some("SimpleWorkflowService.DescribeDomain"),
            body.as_bytes(),
        )
        .await;
    assert_eq!(response.status, 400);
    assert!(response.message().len() < 400, "{}", response.message());

    let name = "n".repeat(300);
    let body = format!(r#"{{"name": "{name}"}}"#);
    let response = server
        .raw(
            Some("SimpleWorkflowService.DescribeDomain"),
            body.as_bytes(),
        )
        .await;
    assert_eq!(response.error_code(), "ValidationException");
    assert!(response.message().len() < 400, "{}", response.message());
}
