//! A store written by an earlier release opens, upgrades in place and answers the same.

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{
    CloseStatus, CloseStatusFilter, TagFilter, WorkflowExecutionFilter, WorkflowExecutionInfo,
    WorkflowTypeFilter,
};

use crate::flow::{D, DECIDERS, WORKERS, activity_task, decision_task, describe, since_ever};

/// A store written by the release before format 2, on a manual clock standing at
/// [`WRITTEN_AT`]: in domain [`D`], workflow types `w` and `v` and activity type `act`;
/// `open-1` (type `w`, tags `a` and `b`) with activity `act-1` scheduled, `done-1` (type `w`,
/// tag `a`) terminated, and `done-2` (type `v`, tag `c`) completed, each a second after the
/// one before.
const FORMAT_1: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/store-format-1.redb");

/// When the format-1 fixture was written, on its manual clock.
const WRITTEN_AT: i64 = 1_795_000_000_000;

fn ids(infos: &[WorkflowExecutionInfo]) -> Vec<&str> {
    infos
        .iter()
        .map(|i| i.execution().unwrap().workflow_id())
        .collect()
}

/// The workflow ids of the closed runs `filter` picks, newest start first.
async fn closed(
    c: &Client,
    filter: impl FnOnce(
        weft_tests::aws_sdk_swf::operation::list_closed_workflow_executions::builders::ListClosedWorkflowExecutionsFluentBuilder,
    ) -> weft_tests::aws_sdk_swf::operation::list_closed_workflow_executions::builders::ListClosedWorkflowExecutionsFluentBuilder,
) -> Vec<String> {
    let request = c
        .list_closed_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever());
    let page = filter(request).send().await.unwrap();
    ids(page.execution_infos())
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// Asserts that visibility answers for the fixture's runs what it answered when they were
/// written; answers the open run's runId.
async fn assert_visibility(c: &Client) -> String {
    let open = c
        .list_open_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .send()
        .await
        .unwrap();
    assert_eq!(ids(open.execution_infos()), ["open-1"]);
    let info = &open.execution_infos()[0];
    assert_eq!(info.tag_list(), ["a", "b"]);
    assert_eq!(info.workflow_type().unwrap().name(), "w");

    assert_eq!(closed(c, |r| r).await, ["done-2", "done-1"]);
    let tag = |t: &str| TagFilter::builder().tag(t).build().unwrap();
    assert_eq!(closed(c, |r| r.tag_filter(tag("a"))).await, ["done-1"]);
    assert_eq!(closed(c, |r| r.tag_filter(tag("c"))).await, ["done-2"]);
    assert!(closed(c, |r| r.tag_filter(tag("b"))).await.is_empty());
    let ty = WorkflowTypeFilter::builder().name("v").build().unwrap();
    assert_eq!(closed(c, |r| r.type_filter(ty)).await, ["done-2"]);
    let id = WorkflowExecutionFilter::builder()
        .workflow_id("done-1")
        .build()
        .unwrap();
    assert_eq!(closed(c, |r| r.execution_filter(id)).await, ["done-1"]);
    let status = |s| CloseStatusFilter::builder().status(s).build().unwrap();
    assert_eq!(
        closed(c, |r| r.close_status_filter(status(CloseStatus::Completed))).await,
        ["done-2"]
    );
    assert_eq!(
        closed(c, |r| r
            .close_status_filter(status(CloseStatus::Terminated)))
        .await,
        ["done-1"]
    );
    let by_close = c
        .list_closed_workflow_executions()
        .domain(D)
        .close_time_filter(since_ever())
        .send()
        .await
        .unwrap();
    assert_eq!(ids(by_close.execution_infos()), ["done-2", "done-1"]);

    let count = c
        .count_closed_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .tag_filter(tag("a"))
        .send()
        .await
        .unwrap();
    assert_eq!(count.count(), 1);
    let count = c
        .count_open_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .tag_filter(tag("b"))
        .send()
        .await
        .unwrap();
    assert_eq!(count.count(), 1);
    info.execution().unwrap().run_id().to_owned()
}

#[tokio::test]
async fn a_format_1_store_upgrades_in_place_and_answers_the_same() {
    let server = TestServer::start_manual_at(WRITTEN_AT + 10_000, Some(FORMAT_1.as_ref())).await;
    let c = server.client();
    let run_id = assert_visibility(&c).await;
    let run = describe(&c, "open-1", &run_id).await;
    assert_eq!(run.open_counts().unwrap().open_activity_tasks(), 1);

    // Reopened, the upgraded store answers the same, and its open run carries on.
    let server = server.restart().await;
    let c = server.client();
    assert_visibility(&c).await;
    let work = activity_task(&c, WORKERS).await;
    assert_eq!(work.activity_id(), "act-1");
    c.respond_activity_task_completed()
        .task_token(work.task_token())
        .send()
        .await
        .unwrap();
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(task.workflow_execution().unwrap().workflow_id(), "open-1");
}
