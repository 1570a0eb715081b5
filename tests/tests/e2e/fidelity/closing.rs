//! How a closed run reads: AWS reports `cancelRequested` false for closed runs (recorded 2017,
//! a run canceled by its decider and one completed despite the request), keeps the open counts
//! the run closed with, and records exactly these members in the close events.

use serde_json::json;
use weft_tests::aws_sdk_swf::types::CloseStatus;

use crate::flow::{
    D, DECIDERS, WORKERS, activity_task, cancel_workflow, child_attributes, complete_workflow,
    decision_task, describe, register_activity, register_workflow, respond, schedule_activity,
    server, start, start_child, wait_for_event,
};

use super::{attributes, raw_history};

#[tokio::test]
async fn a_run_its_decider_canceled_reads_as_aws_reports_it() {
    let (server, c) = server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![schedule_activity("a1", "a")]).await;
    activity_task(&c, WORKERS).await;
    c.request_cancel_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .send()
        .await
        .unwrap();
    let open = describe(&c, "job", &run).await;
    assert!(open.execution_info().unwrap().cancel_requested());

    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![cancel_workflow("bye")]).await;
    let closed = describe(&c, "job", &run).await;
    let info = closed.execution_info().unwrap();
    assert_eq!(info.close_status(), Some(&CloseStatus::Canceled));
    assert!(!info.cancel_requested(), "AWS reports false once closed");
    // The activity was still started when the run closed: AWS keeps counting it.
    let counts = closed.open_counts().unwrap();
    assert_eq!(
        (counts.open_activity_tasks(), counts.open_decision_tasks()),
        (1, 0)
    );
    let events = raw_history(&server, "job", &run).await;
    let completed = events.len() - 1;
    assert_eq!(
        attributes(&events, "WorkflowExecutionCanceled"),
        &json!({"decisionTaskCompletedEventId": completed, "details": "bye"})
    );
}

#[tokio::test]
async fn a_run_that_completes_despite_a_cancel_request_reads_false_too() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    c.request_cancel_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .send()
        .await
        .unwrap();
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    let closed = describe(&c, "job", &run).await;
    let info = closed.execution_info().unwrap();
    assert_eq!(info.close_status(), Some(&CloseStatus::Completed));
    assert!(!info.cancel_requested());
}

#[tokio::test]
async fn terminations_record_their_cause() {
    let (server, c) = server().await;
    register_workflow(&c, "w").await;
    let parent = start(&c, "parent", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![start_child(child_attributes("child", "w"))],
    )
    .await;
    let started = wait_for_event(&c, "parent", &parent, "ChildWorkflowExecutionStarted").await;
    let child = started
        .iter()
        .find_map(|e| e.child_workflow_execution_started_event_attributes())
        .unwrap()
        .workflow_execution()
        .unwrap()
        .run_id()
        .to_owned();
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("parent")
        .reason("why")
        .details("how")
        .send()
        .await
        .unwrap();
    let events = raw_history(&server, "parent", &parent).await;
    assert_eq!(
        attributes(&events, "WorkflowExecutionTerminated"),
        &json!({"cause": "OPERATOR_INITIATED", "childPolicy": "TERMINATE",
                "details": "how", "reason": "why"})
    );
    let events = raw_history(&server, "child", &child).await;
    assert_eq!(
        attributes(&events, "WorkflowExecutionTerminated"),
        &json!({"cause": "CHILD_POLICY_APPLIED", "childPolicy": "TERMINATE"})
    );
}
