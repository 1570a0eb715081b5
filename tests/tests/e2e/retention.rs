//! Retention: how long a closed run and its history stay visible, from its domain's retention
//! period or the server's test override (spec §8.15).

use std::time::Duration;

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{CloseStatus, ExecutionStatus};

use crate::common::{expect_fault, fault, register_domain};
use crate::flow::{
    D, DECIDERS, complete_workflow, decision_task, describe, execution, history, register_workflow,
    respond, since_ever, start, start_on,
};

/// Starts a server on a manual clock with 1 s empty polls after `configure`, with no domain.
async fn server_with(
    configure: impl Fn(&mut weft_host::Config) + Send + Sync + 'static,
) -> (TestServer, Client) {
    let server = TestServer::start_manual_with(move |config| {
        config.poll_timeout = Duration::from_secs(1);
        configure(config);
    })
    .await;
    let client = server.client();
    (server, client)
}

/// The workflowIds ListClosedWorkflowExecutions returns, by start time since the epoch.
async fn listed_closed(c: &Client) -> Vec<String> {
    c.list_closed_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .send()
        .await
        .unwrap()
        .execution_infos()
        .iter()
        .map(|i| i.execution().unwrap().workflow_id().to_owned())
        .collect()
}

/// CountClosedWorkflowExecutions by start time since the epoch.
async fn counted_closed(c: &Client) -> i32 {
    c.count_closed_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .send()
        .await
        .unwrap()
        .count()
}

/// The workflowIds ListOpenWorkflowExecutions returns.
async fn listed_open(c: &Client) -> Vec<String> {
    c.list_open_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .send()
        .await
        .unwrap()
        .execution_infos()
        .iter()
        .map(|i| i.execution().unwrap().workflow_id().to_owned())
        .collect()
}

/// Whether DescribeWorkflowExecution of the run still answers; any fault but
/// UnknownResourceFault fails the test.
async fn describable(c: &Client, workflow_id: &str, run_id: &str) -> bool {
    let result = c
        .describe_workflow_execution()
        .domain(D)
        .execution(execution(workflow_id, run_id))
        .send()
        .await;
    match result {
        Ok(_) => true,
        Err(e) => {
            let (code, message) = fault(Err::<(), _>(e));
            assert_eq!(code, "UnknownResourceFault", "{message}");
            false
        }
    }
}

/// Asserts that the closed run is gone from every visibility call.
async fn assert_purged(c: &Client, workflow_id: &str, run_id: &str) {
    expect_fault(
        c.describe_workflow_execution()
            .domain(D)
            .execution(execution(workflow_id, run_id))
            .send()
            .await,
        "UnknownResourceFault",
    );
    expect_fault(
        c.get_workflow_execution_history()
            .domain(D)
            .execution(execution(workflow_id, run_id))
            .send()
            .await,
        "UnknownResourceFault",
    );
    assert!(
        !listed_closed(c).await.iter().any(|id| id == workflow_id),
        "{workflow_id} is still listed"
    );
    assert_eq!(counted_closed(c).await, 0);
}

/// Asserts that run `workflow_id` is open with its two first events and listed as open.
async fn assert_still_open(c: &Client, workflow_id: &str, run_id: &str) {
    let detail = describe(c, workflow_id, run_id).await;
    assert_eq!(
        detail.execution_info().unwrap().execution_status(),
        &ExecutionStatus::Open
    );
    assert_eq!(history(c, workflow_id, run_id).await.len(), 2);
    assert!(listed_open(c).await.iter().any(|id| id == workflow_id));
}

#[tokio::test]
async fn a_closed_run_is_purged_once_the_retention_override_passes() {
    let (server, c) = server_with(|config| {
        config.retention_override = Some(Duration::from_secs(1));
    })
    .await;
    // The domain keeps runs a day; the override replaces that.
    register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    let closed = start(&c, "closed", "w").await;
    let open = start(&c, "open", "w").await;
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("closed")
        .send()
        .await
        .unwrap();

    // Right after the close everything is there.
    let detail = describe(&c, "closed", &closed).await;
    let info = detail.execution_info().unwrap();
    assert_eq!(info.close_status(), Some(&CloseStatus::Terminated));
    let closed_at = (info.close_timestamp().unwrap().as_secs_f64() * 1e3).round() as i64;
    assert_eq!(history(&c, "closed", &closed).await.len(), 3);
    assert_eq!(listed_closed(&c).await, ["closed"]);
    assert_eq!(counted_closed(&c).await, 1);

    // It is kept to the millisecond of the retention's end, and gone then.
    server.advance_to(closed_at + 999).await;
    assert!(describable(&c, "closed", &closed).await);
    assert_eq!(listed_closed(&c).await, ["closed"]);
    server.advance_to(closed_at + 1000).await;
    assert_purged(&c, "closed", &closed).await;

    // The open run, older than the retention by now, stays.
    assert_still_open(&c, "open", &open).await;
}

#[tokio::test]
async fn with_no_retention_a_run_is_purged_as_soon_as_it_closes() {
    for retention in ["NONE", "0"] {
        let (server, c) = server_with(|_| {}).await;
        c.register_domain()
            .name(D)
            .workflow_execution_retention_period_in_days(retention)
            .send()
            .await
            .unwrap();
        register_workflow(&c, "w").await;
        let closed = start(&c, "closed", "w").await;
        let open = start_on(&c, "open", "w", "elsewhere").await;
        let task = decision_task(&c, DECIDERS).await;
        respond(&c, task.task_token(), vec![complete_workflow(None)]).await;

        // Its purge is due as it closes: the timer loop acts on it without the clock moving.
        server.advance(Duration::ZERO).await;
        assert_purged(&c, "closed", &closed).await;
        assert_still_open(&c, "open", &open).await;
    }
}

#[tokio::test]
async fn with_a_day_of_retention_a_closed_run_stays() {
    let (server, c) = server_with(|_| {}).await;
    register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    let run = start(&c, "closed", "w").await;
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("closed")
        .send()
        .await
        .unwrap();
    let detail = describe(&c, "closed", &run).await;
    let closed_at = (detail
        .execution_info()
        .unwrap()
        .close_timestamp()
        .unwrap()
        .as_secs_f64()
        * 1e3)
        .round() as i64;
    // A day less a millisecond later, it is all still there.
    server.advance_to(closed_at + DAY_MS - 1).await;
    let detail = describe(&c, "closed", &run).await;
    assert_eq!(
        detail.execution_info().unwrap().close_status(),
        Some(&CloseStatus::Terminated)
    );
    let events = history(&c, "closed", &run).await;
    assert_eq!(
        events.last().map(|e| e.event_type().as_str()),
        Some("WorkflowExecutionTerminated")
    );
    assert_eq!(listed_closed(&c).await, ["closed"]);
    assert_eq!(counted_closed(&c).await, 1);
    // At the day's end it goes.
    server.advance_to(closed_at + DAY_MS).await;
    assert_purged(&c, "closed", &run).await;
}

/// A day, in milliseconds.
const DAY_MS: i64 = 24 * 3600 * 1000;
