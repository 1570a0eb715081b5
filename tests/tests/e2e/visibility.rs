//! GetWorkflowExecutionHistory paging, DescribeWorkflowExecution, CountPendingDecisionTasks and
//! CountPendingActivityTasks (spec §4.2, §8.13).

use std::time::Duration;

use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::primitives::DateTime;

use crate::common::expect_fault;
use crate::flow::{
    D, DECIDERS, WORKERS, activity_task, cancel_activity, cancel_timer, child_attributes,
    decision_task, describe, execution, history, manual_server, pending_activities,
    pending_decisions, register_activity, register_workflow, respond, schedule_activity, server,
    signal, start, start_child, start_on, start_timer, task_list,
};

/// One page of event ids, and the next page token.
async fn page(
    c: &Client,
    run: &str,
    size: i32,
    reverse: bool,
    token: Option<String>,
) -> (Vec<i64>, Option<String>) {
    let out = c
        .get_workflow_execution_history()
        .domain(D)
        .execution(execution("job", run))
        .maximum_page_size(size)
        .reverse_order(reverse)
        .set_next_page_token(token)
        .send()
        .await
        .unwrap();
    let ids = out.events().iter().map(|e| e.event_id()).collect();
    (ids, out.next_page_token().map(str::to_owned))
}

#[tokio::test]
async fn history_pages_forward_and_backward() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    // While the first decision task waits, signals add events but no decision task: 12 events.
    for n in 0..10 {
        signal(&c, "job", &format!("s{n}")).await;
    }
    assert_eq!(history(&c, "job", &run).await.len(), 12);

    let (ids, token) = page(&c, &run, 5, false, None).await;
    assert_eq!(ids, [1, 2, 3, 4, 5]);
    let (ids, token) = page(&c, &run, 5, false, token).await;
    assert_eq!(ids, [6, 7, 8, 9, 10]);
    let (ids, token) = page(&c, &run, 5, false, token).await;
    assert_eq!(ids, [11, 12]);
    assert_eq!(token, None);

    let (ids, token) = page(&c, &run, 5, true, None).await;
    assert_eq!(ids, [12, 11, 10, 9, 8]);
    let (ids, token) = page(&c, &run, 5, true, token).await;
    assert_eq!(ids, [7, 6, 5, 4, 3]);
    let (ids, token) = page(&c, &run, 5, true, token).await;
    assert_eq!(ids, [2, 1]);
    assert_eq!(token, None);

    // A page that ends exactly at the last event carries no token.
    let (ids, token) = page(&c, &run, 6, false, None).await;
    assert_eq!(ids, [1, 2, 3, 4, 5, 6]);
    let (ids, token) = page(&c, &run, 6, false, token).await;
    assert_eq!(ids, [7, 8, 9, 10, 11, 12]);
    assert_eq!(token, None);
    // Without a page size, everything comes in one page.
    let (ids, token) = page(&c, &run, 0, false, None).await;
    assert_eq!(ids, (1..=12).collect::<Vec<_>>());
    assert_eq!(token, None);

    // A token is only good for the query that issued it.
    let (_, token) = page(&c, &run, 5, false, None).await;
    expect_fault(
        c.get_workflow_execution_history()
            .domain(D)
            .execution(execution("job", &run))
            .maximum_page_size(5)
            .reverse_order(true)
            .set_next_page_token(token)
            .send()
            .await,
        "ValidationException",
    );
    expect_fault(
        c.get_workflow_execution_history()
            .domain(D)
            .execution(execution("job", "no-such-run"))
            .send()
            .await,
        "UnknownResourceFault",
    );
    expect_fault(
        c.get_workflow_execution_history()
            .domain("nope")
            .execution(execution("job", &run))
            .send()
            .await,
        "UnknownResourceFault",
    );
}

#[tokio::test]
async fn describe_reports_open_counts_context_and_cancel_requests() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    register_workflow(&c, "kid").await;
    register_activity(&c, "a").await;
    let run = start(&c, "job", "w").await;

    let detail = describe(&c, "job", &run).await;
    assert_eq!(detail.latest_execution_context(), None);
    assert_eq!(detail.latest_activity_task_timestamp(), None);
    assert!(!detail.execution_info().unwrap().cancel_requested());
    let counts = detail.open_counts().unwrap();
    assert_eq!(
        (
            counts.open_activity_tasks(),
            counts.open_decision_tasks(),
            counts.open_timers(),
            counts.open_child_workflow_executions()
        ),
        (0, 1, 0, 0)
    );

    // The activities are scheduled a second after the start, so the time tells them apart.
    server.advance(Duration::from_secs(1)).await;
    let scheduled = server.now_millis();
    let task = decision_task(&c, DECIDERS).await;
    c.respond_decision_task_completed()
        .task_token(task.task_token())
        .decisions(schedule_activity("a1", "a"))
        .decisions(schedule_activity("a2", "a"))
        .decisions(start_timer("t1", "3600"))
        .decisions(start_child(
            child_attributes("kid-1", "kid").task_list(task_list("kids")),
        ))
        .execution_context("ctx-1")
        .send()
        .await
        .unwrap();
    // The child's start gives the parent a decision task; take it. A started decision task
    // is not counted open, as AWS counts (only a scheduled one is).
    let task = decision_task(&c, DECIDERS).await;
    let detail = describe(&c, "job", &run).await;
    let counts = detail.open_counts().unwrap();
    assert_eq!(
        (
            counts.open_activity_tasks(),
            counts.open_decision_tasks(),
            counts.open_timers(),
            counts.open_child_workflow_executions()
        ),
        (2, 0, 1, 1)
    );
    assert_eq!(detail.latest_execution_context(), Some("ctx-1"));
    assert_eq!(
        detail.latest_activity_task_timestamp(),
        Some(&DateTime::from_millis(scheduled))
    );

    // One activity starts, the other is canceled before it starts; the timer is canceled.
    let work = activity_task(&c, WORKERS).await;
    let started = work.activity_id().to_owned();
    let waiting = if started == "a1" { "a2" } else { "a1" };
    c.respond_decision_task_completed()
        .task_token(task.task_token())
        .decisions(cancel_activity(waiting))
        .decisions(cancel_timer("t1"))
        .execution_context("ctx-2")
        .send()
        .await
        .unwrap();
    let detail = describe(&c, "job", &run).await;
    let counts = detail.open_counts().unwrap();
    assert_eq!(
        (
            counts.open_activity_tasks(),
            counts.open_decision_tasks(),
            counts.open_timers(),
            counts.open_child_workflow_executions()
        ),
        (1, 1, 0, 1)
    );
    assert_eq!(detail.latest_execution_context(), Some("ctx-2"));

    // A completion without a context keeps the latest one.
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![]).await;
    let detail = describe(&c, "job", &run).await;
    assert_eq!(detail.latest_execution_context(), Some("ctx-2"));
    assert_eq!(detail.open_counts().unwrap().open_decision_tasks(), 0);

    c.request_cancel_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .send()
        .await
        .unwrap();
    let detail = describe(&c, "job", &run).await;
    assert!(detail.execution_info().unwrap().cancel_requested());
    assert_eq!(detail.open_counts().unwrap().open_decision_tasks(), 1);

    expect_fault(
        c.describe_workflow_execution()
            .domain(D)
            .execution(execution("job", "no-such-run"))
            .send()
            .await,
        "UnknownResourceFault",
    );
    expect_fault(
        c.describe_workflow_execution()
            .domain("nope")
            .execution(execution("job", &run))
            .send()
            .await,
        "UnknownResourceFault",
    );
}

#[tokio::test]
async fn pending_task_counts() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    assert_eq!(pending_decisions(&c, "never-used").await, 0);
    assert_eq!(pending_activities(&c, "never-used").await, 0);

    for n in 0..3 {
        start_on(&c, &format!("w{n}"), "w", "list").await;
    }
    assert_eq!(pending_decisions(&c, "list").await, 3);
    // Decision and activity lists are separate namespaces.
    assert_eq!(pending_activities(&c, "list").await, 0);
    let task = decision_task(&c, "list").await;
    assert_eq!(pending_decisions(&c, "list").await, 2);

    respond(
        &c,
        task.task_token(),
        (0..4)
            .map(|n| schedule_activity(&format!("a{n}"), "a"))
            .collect(),
    )
    .await;
    assert_eq!(pending_activities(&c, WORKERS).await, 4);
    assert_eq!(pending_decisions(&c, WORKERS).await, 0);
    activity_task(&c, WORKERS).await;
    assert_eq!(pending_activities(&c, WORKERS).await, 3);

    expect_fault(
        c.count_pending_decision_tasks()
            .domain("nope")
            .task_list(task_list("list"))
            .send()
            .await,
        "UnknownResourceFault",
    );
    expect_fault(
        c.count_pending_activity_tasks()
            .domain("nope")
            .task_list(task_list("list"))
            .send()
            .await,
        "UnknownResourceFault",
    );
    // Still the same a second later (well within every task's timeouts): nothing was lost or
    // duplicated.
    server.advance(Duration::from_secs(1)).await;
    assert_eq!(pending_decisions(&c, "list").await, 2);
    assert_eq!(pending_activities(&c, WORKERS).await, 3);
}
