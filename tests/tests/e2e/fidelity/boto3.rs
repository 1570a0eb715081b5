//! The fidelity scenarios through boto3 (`tests/clients/fidelity.py`), which parses answers as
//! botocore does: what it reports is what a Python SWF library sees. Run when
//! `WEFT_CLIENT_TESTS` is set (`.ci/run` sets it), as they need Python and PyPI.

use std::time::Duration;

use serde_json::{Value, json};
use weft_tests::TestServer;
use weft_tests::clients;

/// Runs scenario `name` of `fidelity.py` against a fresh server whose polls wait 5 s; what it
/// printed, as JSON. `None` when the client tests are not enabled.
async fn scenario(name: &str) -> Option<Value> {
    scenario_with(name, |_| {}).await
}

/// Like [`scenario`], with the server's configuration adjusted by `configure`.
async fn scenario_with(
    name: &str,
    configure: impl Fn(&mut weft_host::Config) + Send + Sync + 'static,
) -> Option<Value> {
    if !clients::enabled() {
        return None;
    }
    let server = TestServer::start_with(move |config| {
        config.poll_timeout = Duration::from_secs(5);
        configure(config);
    })
    .await;
    let env = clients::pyenv().await;
    let mut python = env.script("fidelity.py", &[&server.endpoint(), name]);
    clients::with_credentials(&mut python, "weft", "weft-secret-0000");
    let out = clients::run(python).await;
    assert_eq!(out.code, Some(0), "{name}: {out:?}");
    Some(serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {out:?}")))
}

#[tokio::test]
async fn boto3_sees_the_next_decision_task_scheduled_while_one_is_started() {
    let Some(seen) = scenario("scheduling").await else {
        return;
    };
    assert_eq!(
        seen["held"],
        json!({
            "types": ["WorkflowExecutionStarted", "DecisionTaskScheduled", "DecisionTaskStarted",
                      "WorkflowExecutionSignaled", "DecisionTaskScheduled",
                      "WorkflowExecutionSignaled"],
            "pending": 0,
            "openDecisionTasks": 1,
        })
    );
    // The close fails: the decider had not seen the signals.
    assert_eq!(
        seen["after"],
        json!([
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "WorkflowExecutionSignaled",
            "DecisionTaskScheduled",
            "WorkflowExecutionSignaled",
            "DecisionTaskCompleted",
            "CompleteWorkflowExecutionFailed"
        ])
    );
    assert_eq!(
        seen["next"],
        json!({"startedEventId": 9, "scheduledEventId": 5, "previousStartedEventId": 3})
    );
}

#[tokio::test]
async fn boto3_sees_only_the_members_aws_sends() {
    let Some(seen) = scenario("members").await else {
        return;
    };
    assert_eq!(
        seen["started"],
        json!({"childPolicy": "TERMINATE", "executionStartToCloseTimeout": "3600",
               "parentInitiatedEventId": 0, "taskList": {"name": "deciders"},
               "taskStartToCloseTimeout": "60", "workflowType": {"name": "w", "version": "1"}})
    );
    assert_eq!(
        seen["decisionScheduled"],
        json!({"scheduleToStartTimeout": "NONE", "startToCloseTimeout": "60",
               "taskList": {"name": "deciders"}})
    );
    assert_eq!(
        seen["activityScheduled"],
        json!({"activityId": "a1", "activityType": {"name": "a", "version": "1"},
               "decisionTaskCompletedEventId": 4, "heartbeatTimeout": "10",
               "scheduleToCloseTimeout": "60", "scheduleToStartTimeout": "30",
               "startToCloseTimeout": "15", "taskList": {"name": "workers"}})
    );
    assert_eq!(
        seen["signaled"],
        json!({"externalInitiatedEventId": 0, "signalName": "s"})
    );
    assert_eq!(
        seen["cancelRequested"],
        json!({"externalInitiatedEventId": 0})
    );
    assert_eq!(
        seen["terminated"],
        json!({"cause": "OPERATOR_INITIATED", "childPolicy": "TERMINATE", "reason": "done"})
    );
    assert_eq!(
        seen["pendingActivities"],
        json!({"count": 1, "truncated": false})
    );
    assert_eq!(seen["openCount"], json!({"count": 1, "truncated": false}));
    assert_eq!(seen["configuration"].get("taskPriority"), None);
}

#[tokio::test]
async fn boto3_sees_faults_in_aws_words() {
    let Some(seen) = scenario("faults").await else {
        return;
    };
    let run = seen["runId"].as_str().unwrap();
    let expected = [
        (
            "staleDecision",
            "UnknownResourceFault",
            "Unknown decision task, scheduledEventId = 2".to_owned(),
        ),
        (
            "staleActivity",
            "UnknownResourceFault",
            "Unknown activity, scheduledEventId = 5".to_owned(),
        ),
        (
            "notAToken",
            "ValidationException",
            "Invalid token".to_owned(),
        ),
        (
            "invalidName",
            "ValidationException",
            "Invalid name: Test::HelloWorldWorkflow.hello_workflow".to_owned(),
        ),
        (
            "typeExists",
            "TypeAlreadyExistsFault",
            "ActivityType=[name=a, version=1]".to_owned(),
        ),
        (
            "closedRun",
            "UnknownResourceFault",
            format!("Unknown execution: WorkflowExecution=[workflowId=job, runId={run}]"),
        ),
    ];
    for (case, code, message) in expected {
        assert_eq!(
            seen[case],
            json!({"code": code, "message": message}),
            "{case}"
        );
    }
}

#[tokio::test]
async fn boto3_gets_what_aws_accepts_accepted() {
    let Some(seen) = scenario("acceptance").await else {
        return;
    };
    assert_eq!(seen["timerId"], "delayed_task-0-0:t");
    assert_eq!(seen["activityId"], "task:0/1");
    assert!(seen["child"].as_str().unwrap().ends_with(":1"), "{seen}");
    let types = seen["types"].as_array().unwrap();
    for event_type in [
        "TimerFired",
        "ChildWorkflowExecutionCompleted",
        "ActivityTaskScheduled",
    ] {
        assert!(types.contains(&json!(event_type)), "{event_type}: {seen}");
    }
}

#[tokio::test]
async fn boto3_pages_a_decision_task_by_100() {
    let Some(seen) = scenario("pages").await else {
        return;
    };
    assert_eq!(
        seen,
        json!({"pageSizes": [100, 23], "lastType": "DecisionTaskStarted", "openDecisionTasks": 0})
    );
}

#[tokio::test]
async fn boto3_polls_on_impossible_task_lists_are_refused() {
    let Some(seen) = scenario("refusals").await else {
        return;
    };
    // A fault, not an empty poll after the wait.
    for name in ["a:b", " lead", "arn", "tab\there", "activity"] {
        assert_eq!(seen[name]["code"], "ValidationException", "{name}: {seen}");
    }
}

/// The edge's long-poll cap (per region in open mode) answers as SWF answers too many pollers.
#[tokio::test]
async fn boto3_polls_beyond_the_long_poll_cap_are_refused() {
    let Some(seen) = scenario_with("long_polls", |config| config.limits.max_long_polls = 1).await
    else {
        return;
    };
    assert_eq!(seen["answers"], json!(["LimitExceededFault", "empty"]));
}

#[tokio::test]
async fn boto3_reads_closed_runs_as_aws_reports_them() {
    let Some(seen) = scenario("closing").await else {
        return;
    };
    assert_eq!(seen["cancelRequestedOpen"], true);
    assert_eq!(seen["cancelRequestedClosed"], false);
    assert_eq!(seen["closeStatus"], "CANCELED");
    assert_eq!(
        seen["canceled"],
        json!({"decisionTaskCompletedEventId": 8, "details": "bye"})
    );
    assert_eq!(
        seen["terminated"],
        json!({"cause": "OPERATOR_INITIATED", "childPolicy": "TERMINATE",
               "details": "how", "reason": "why"})
    );
}
