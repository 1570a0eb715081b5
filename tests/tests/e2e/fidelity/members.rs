//! Optional members: AWS leaves out what nobody set (a task priority above all), and always
//! sends some members the model calls optional (resolved timeouts, `parentInitiatedEventId` 0,
//! `externalInitiatedEventId` 0, `truncated` false). Checked on the wire JSON itself.

use serde_json::{Value, json};
use weft_tests::TestServer;

use crate::flow::{
    D, DECIDERS, WORKERS, activity_task, decision_task, describe, manual_server, register_activity,
    register_workflow, respond, schedule_activity, server, start, start_with,
};

use super::{attributes, members, raw_history};

#[tokio::test]
async fn events_carry_what_aws_records_and_nothing_nobody_set() {
    let (server, c) = server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![schedule_activity("a1", "a")]).await;
    c.signal_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .signal_name("s")
        .send()
        .await
        .unwrap();
    c.request_cancel_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .send()
        .await
        .unwrap();
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .reason("done")
        .send()
        .await
        .unwrap();
    let events = raw_history(&server, "job", &run).await;

    let started = attributes(&events, "WorkflowExecutionStarted");
    assert_eq!(
        members(started),
        [
            "childPolicy",
            "executionStartToCloseTimeout",
            "parentInitiatedEventId",
            "taskList",
            "taskStartToCloseTimeout",
            "workflowType",
        ]
    );
    assert_eq!(started["parentInitiatedEventId"], 0);
    let scheduled = attributes(&events, "DecisionTaskScheduled");
    assert_eq!(
        scheduled,
        &json!({"scheduleToStartTimeout": "NONE", "startToCloseTimeout": "60",
                "taskList": {"name": DECIDERS}})
    );
    // The four timeouts and the task list resolved from the type's defaults; no priority.
    let activity = attributes(&events, "ActivityTaskScheduled");
    assert_eq!(
        members(activity),
        [
            "activityId",
            "activityType",
            "decisionTaskCompletedEventId",
            "heartbeatTimeout",
            "scheduleToCloseTimeout",
            "scheduleToStartTimeout",
            "startToCloseTimeout",
            "taskList",
        ]
    );
    assert_eq!(
        attributes(&events, "WorkflowExecutionSignaled"),
        &json!({"externalInitiatedEventId": 0, "signalName": "s"})
    );
    assert_eq!(
        attributes(&events, "WorkflowExecutionCancelRequested"),
        &json!({"externalInitiatedEventId": 0})
    );
    assert_eq!(
        attributes(&events, "WorkflowExecutionTerminated"),
        &json!({"cause": "OPERATOR_INITIATED", "childPolicy": "TERMINATE", "reason": "done"})
    );
}

#[tokio::test]
async fn a_priority_is_recorded_only_where_one_was_given() {
    let (server, c) = server().await;
    register_workflow(&c, "w").await;
    let plain = start(&c, "plain", "w").await;
    let ranked = start_with(&c, "ranked", "w", |s| s.task_priority("5")).await;
    let events = raw_history(&server, "plain", &plain).await;
    for event_type in ["WorkflowExecutionStarted", "DecisionTaskScheduled"] {
        assert_eq!(attributes(&events, event_type).get("taskPriority"), None);
    }
    let events = raw_history(&server, "ranked", &ranked).await;
    for event_type in ["WorkflowExecutionStarted", "DecisionTaskScheduled"] {
        assert_eq!(attributes(&events, event_type)["taskPriority"], "5");
    }
    let config = describe(&c, "plain", &plain).await;
    assert_eq!(
        config.execution_configuration().unwrap().task_priority(),
        None
    );
    let config = describe(&c, "ranked", &ranked).await;
    assert_eq!(
        config.execution_configuration().unwrap().task_priority(),
        Some("5")
    );
}

/// A raw SWF call on `server`, answered 200; its body as JSON.
async fn call(server: &TestServer, operation: &str, body: Value) -> Value {
    let target = format!("SimpleWorkflowService.{operation}");
    let response = server.raw(Some(&target), body.to_string().as_bytes()).await;
    assert_eq!(response.status, 200, "{operation}: {}", response.body);
    response.json()
}

#[tokio::test]
async fn counts_say_they_are_not_truncated() {
    let (server, c) = server().await;
    register_workflow(&c, "w").await;
    start(&c, "job", "w").await;
    let list = json!({"domain": "d", "taskList": {"name": DECIDERS}});
    let since = json!({"domain": "d", "startTimeFilter": {"oldestDate": 0}});
    assert_eq!(
        call(&server, "CountPendingDecisionTasks", list).await,
        json!({"count": 1, "truncated": false})
    );
    assert_eq!(
        call(&server, "CountOpenWorkflowExecutions", since.clone()).await,
        json!({"count": 1, "truncated": false})
    );
    assert_eq!(
        call(&server, "CountClosedWorkflowExecutions", since).await,
        json!({"count": 0, "truncated": false})
    );
}

/// AWS's `latestActivityTaskTimestamp` is the time of the latest activity task event (recorded
/// 2017: a start, a completion, a failure), not only of the latest scheduling.
#[tokio::test]
async fn the_latest_activity_task_time_follows_every_activity_event() {
    let (server, c) = manual_server().await;
    // The wire's timestamp `steps` seconds after the start: seconds since the epoch.
    let t0 = server.now_millis();
    let second = |steps: i64| json!((t0 + steps * 1000) as f64 / 1000.0);
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = start(&c, "job", "w").await;
    let latest = || async {
        let body = json!({"domain": "d", "execution": {"workflowId": "job", "runId": run}});
        call(&server, "DescribeWorkflowExecution", body).await["latestActivityTaskTimestamp"]
            .clone()
    };
    assert_eq!(latest().await, Value::Null, "absent before any activity");
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![schedule_activity("a1", "a")]).await;
    let at = |event_type: &'static str| {
        let server = &server;
        let run = run.clone();
        async move {
            let events = raw_history(server, "job", &run).await;
            events
                .iter()
                .find(|e| e["eventType"] == event_type)
                .unwrap()["eventTimestamp"]
                .clone()
        }
    };
    assert_eq!(latest().await, at("ActivityTaskScheduled").await);
    assert_eq!(latest().await, second(0));
    // Events a second apart, so that the timestamps tell them apart.
    server.advance(std::time::Duration::from_secs(1)).await;
    let work = activity_task(&c, WORKERS).await;
    assert_eq!(at("ActivityTaskStarted").await, second(1));
    assert_eq!(latest().await, at("ActivityTaskStarted").await);
    server.advance(std::time::Duration::from_secs(1)).await;
    c.respond_activity_task_completed()
        .task_token(work.task_token())
        .send()
        .await
        .unwrap();
    assert_eq!(at("ActivityTaskCompleted").await, second(2));
    assert_eq!(latest().await, at("ActivityTaskCompleted").await);
}
