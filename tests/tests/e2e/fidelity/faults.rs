//! Fault codes and messages in AWS's words: frameworks match on some of them ("Unknown
//! execution", "Unknown activity"). Each message here is the one `host/src/fault/messages.rs`
//! documents with its evidence.

use weft_tests::aws_sdk_swf::types::ActivityType;

use crate::common::{expect_fault, fault};
use crate::flow::{
    D, DECIDERS, WORKERS, activity_task, complete_workflow, decision_task, first, history,
    manual_server, marker, millis, register_activity, register_workflow, respond,
    schedule_activity, schedule_activity_with, server, start,
};

#[tokio::test]
async fn tokens_of_tasks_that_are_gone_name_what_is_gone() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![schedule_activity("a1", "a")]).await;
    // The decision task's token, once it is completed.
    let (code, message) = fault(
        c.respond_decision_task_completed()
            .task_token(task.task_token())
            .send()
            .await,
    );
    assert_eq!(
        (code.as_str(), message.as_str()),
        (
            "UnknownResourceFault",
            "Unknown decision task, scheduledEventId = 2"
        )
    );
    // An activity's token, once it is completed: as recorded from AWS in 2015.
    let work = activity_task(&c, WORKERS).await;
    c.respond_activity_task_completed()
        .task_token(work.task_token())
        .send()
        .await
        .unwrap();
    let message = expect_fault(
        c.respond_activity_task_completed()
            .task_token(work.task_token())
            .send()
            .await,
        "UnknownResourceFault",
    );
    assert_eq!(message, "Unknown activity, scheduledEventId = 5");
    // A task of a run that has closed since: the run is what is gone.
    let task = decision_task(&c, DECIDERS).await;
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .send()
        .await
        .unwrap();
    let message = expect_fault(
        c.respond_decision_task_completed()
            .task_token(task.task_token())
            .send()
            .await,
        "UnknownResourceFault",
    );
    assert_eq!(
        message,
        format!("Unknown execution: WorkflowExecution=[workflowId=job, runId={run}]")
    );
}

#[tokio::test]
async fn an_activity_answered_after_its_timeout_is_unknown() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    let decision = schedule_activity_with(
        weft_tests::aws_sdk_swf::types::ScheduleActivityTaskDecisionAttributes::builder()
            .activity_id("a1")
            .activity_type(
                ActivityType::builder()
                    .name("a")
                    .version("1")
                    .build()
                    .unwrap(),
            )
            .start_to_close_timeout("1"),
    );
    respond(&c, task.task_token(), vec![decision]).await;
    let work = activity_task(&c, WORKERS).await;
    server.advance(std::time::Duration::from_secs(1)).await;
    let events = history(&c, "job", &run).await;
    assert_eq!(
        millis(first(&events, "ActivityTaskTimedOut")),
        millis(first(&events, "ActivityTaskStarted")) + 1000
    );
    let message = expect_fault(
        c.respond_activity_task_completed()
            .task_token(work.task_token())
            .send()
            .await,
        "UnknownResourceFault",
    );
    assert_eq!(message, "Unknown activity, scheduledEventId = 5");
}

#[tokio::test]
async fn a_token_weft_never_issued_is_invalid_input() {
    let (_server, c) = server().await;
    for token in ["x", "AAAAKgAAAAIAAAAAAAAAAlrb", &"A".repeat(1024)] {
        let message = expect_fault(
            c.record_activity_task_heartbeat()
                .task_token(token)
                .send()
                .await,
            "ValidationException",
        );
        assert_eq!(message, "Invalid token");
    }
}

#[tokio::test]
async fn names_types_and_runs_read_as_aws_writes_them() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    // Quoted from AWS (2014): a type name against the name rule.
    let message = expect_fault(
        c.register_workflow_type()
            .domain(D)
            .name("Test::HelloWorldWorkflow.hello_workflow")
            .version("1")
            .send()
            .await,
        "ValidationException",
    );
    assert_eq!(
        message,
        "Invalid name: Test::HelloWorldWorkflow.hello_workflow"
    );
    // Recorded from AWS (2016).
    let message = expect_fault(
        c.register_workflow_type()
            .domain(D)
            .name("w")
            .version("1")
            .send()
            .await,
        "TypeAlreadyExistsFault",
    );
    assert_eq!(message, "WorkflowType=[name=w, version=1]");
    let message = expect_fault(
        c.start_workflow_execution()
            .domain(D)
            .workflow_id("job")
            .workflow_type(crate::flow::wf_type("nope", "1"))
            .send()
            .await,
        "UnknownResourceFault",
    );
    assert_eq!(message, "Unknown type: WorkflowType=[name=nope, version=1]");
    let message = expect_fault(
        c.signal_workflow_execution()
            .domain(D)
            .workflow_id("nobody")
            .signal_name("s")
            .send()
            .await,
        "UnknownResourceFault",
    );
    assert_eq!(
        message,
        "Unknown execution: WorkflowExecution=[workflowId=nobody, runId=null]"
    );
    let message = expect_fault(
        c.describe_domain().name("nowhere").send().await,
        "UnknownResourceFault",
    );
    assert_eq!(message, "Unknown domain: nowhere");
    start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    let message = expect_fault(
        c.respond_decision_task_completed()
            .task_token(task.task_token())
            .decisions(complete_workflow(None))
            .decisions(marker("m", ""))
            .send()
            .await,
        "ValidationException",
    );
    assert_eq!(message, "Close must be last decision in list");
}
