//! What AWS accepts beyond the letter of its documentation, which third-party SWF libraries
//! rely on: close decisions without their attributes, `:` (and `/`, `+`) in the ids deciders
//! choose, and history pages of 100 events that clients follow with `nextPageToken`.

use weft_tests::aws_sdk_swf::types::{
    ActivityType, CloseStatus, Decision, DecisionType, ScheduleActivityTaskDecisionAttributes,
};

use crate::flow::{
    D, DECIDERS, WORKERS, activity_task, child_attributes, complete_workflow, decision_task,
    describe, register_activity, register_workflow, respond, server, signal, start, start_child,
    start_timer, task_list, types, wait_for_event,
};

use super::{assert_consistent, raw_history};

/// A decision of `kind` with no attributes member at all.
fn bare(kind: DecisionType) -> Decision {
    Decision::builder().decision_type(kind).build().unwrap()
}

#[tokio::test]
async fn close_decisions_need_no_attributes() {
    let (server, c) = server().await;
    register_workflow(&c, "w").await;
    for (workflow_id, kind, status) in [
        (
            "complete",
            DecisionType::CompleteWorkflowExecution,
            CloseStatus::Completed,
        ),
        (
            "fail",
            DecisionType::FailWorkflowExecution,
            CloseStatus::Failed,
        ),
        (
            "cancel",
            DecisionType::CancelWorkflowExecution,
            CloseStatus::Canceled,
        ),
        (
            "continue",
            DecisionType::ContinueAsNewWorkflowExecution,
            CloseStatus::ContinuedAsNew,
        ),
    ] {
        let run = start(&c, workflow_id, "w").await;
        let task = decision_task(&c, DECIDERS).await;
        respond(&c, task.task_token(), vec![bare(kind)]).await;
        let detail = describe(&c, workflow_id, &run).await;
        assert_eq!(
            detail.execution_info().unwrap().close_status(),
            Some(&status),
            "{workflow_id}"
        );
        assert_consistent(&raw_history(&server, workflow_id, &run).await);
        if workflow_id == "continue" {
            // The new run is the type's, with its defaults.
            let next = decision_task(&c, DECIDERS).await;
            respond(&c, next.task_token(), vec![complete_workflow(None)]).await;
        }
    }
}

/// Recorded AWS traffic (2016) starts a timer `delayed_task-0-0:t` and children such as
/// `fakeuuid-0-:task-0-0`; AWS's Flow Framework for Java names children `<runId>:<n>`.
#[tokio::test]
async fn ids_with_colons_and_slashes_are_accepted() {
    let (server, c) = server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = start(&c, "fakeuuid-0-", "w").await;
    let child_id = format!("22{}:1", "ab+cd/ef=");
    let activity = ScheduleActivityTaskDecisionAttributes::builder()
        .activity_id("task-0-0:a/1")
        .activity_type(
            ActivityType::builder()
                .name("a")
                .version("1")
                .build()
                .unwrap(),
        )
        .build()
        .unwrap();
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![
            start_timer("delayed_task-0-0:t", "0"),
            Decision::builder()
                .decision_type(DecisionType::ScheduleActivityTask)
                .schedule_activity_task_decision_attributes(activity)
                .build()
                .unwrap(),
            start_child(child_attributes(&child_id, "w").task_list(task_list("children"))),
        ],
    )
    .await;
    wait_for_event(&c, "fakeuuid-0-", &run, "TimerFired").await;
    let work = activity_task(&c, WORKERS).await;
    assert_eq!(work.activity_id(), "task-0-0:a/1");
    let child = decision_task(&c, "children").await;
    assert_eq!(child.workflow_execution().unwrap().workflow_id(), child_id);
    respond(&c, child.task_token(), vec![complete_workflow(None)]).await;
    let events = wait_for_event(&c, "fakeuuid-0-", &run, "ChildWorkflowExecutionCompleted").await;
    assert!(
        types(&events).contains(&"TimerFired"),
        "{:?}",
        types(&events)
    );
    assert_consistent(&raw_history(&server, "fakeuuid-0-", &run).await);
}

/// AWS serves a decision task's history in pages of 100 events even when asked for 1000
/// (recorded 2015 and 2016); clients follow `nextPageToken` for the rest.
#[tokio::test]
async fn decision_task_histories_come_in_pages_of_100() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    start(&c, "job", "w").await;
    for n in 0..120 {
        signal(&c, "job", &format!("s{n}")).await;
    }
    let pages: Vec<_> = c
        .poll_for_decision_task()
        .domain(D)
        .task_list(task_list(DECIDERS))
        .maximum_page_size(1000)
        .into_paginator()
        .send()
        .collect::<Result<_, _>>()
        .await
        .unwrap();
    let sizes: Vec<usize> = pages.iter().map(|p| p.events().len()).collect();
    // Started, scheduled, 120 signals, started.
    assert_eq!(sizes, [100, 23]);
    assert!(pages[0].next_page_token().is_some());
    assert_eq!(pages[1].next_page_token(), None);
    let ids: Vec<i64> = pages
        .iter()
        .flat_map(|p| p.events())
        .map(|e| e.event_id())
        .collect();
    assert_eq!(ids, (1..=123).collect::<Vec<_>>());
    assert_eq!(pages[1].started_event_id(), 123);

    let history: Vec<_> = c
        .get_workflow_execution_history()
        .domain(D)
        .execution(crate::flow::execution(
            "job",
            pages[0].workflow_execution().unwrap().run_id(),
        ))
        .maximum_page_size(1000)
        .into_paginator()
        .send()
        .collect::<Result<_, _>>()
        .await
        .unwrap();
    let sizes: Vec<usize> = history.iter().map(|p| p.events().len()).collect();
    assert_eq!(sizes, [100, 23]);
}
