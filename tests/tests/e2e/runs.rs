//! Weft's run listing and batch actions (`/v1/domains/{domain}/runs`): open and closed runs
//! together, newest first, paged; each failing run marked with why; and one action applied to
//! every open run a filter picks, as the SWF call would apply it.

use std::time::Duration;

use weft_host::client::{Batch, BatchAction, RunFilter, RunQuery, RunState, RunSummary};
use weft_tests::TestServer;
use weft_tests::guests::{self, WeftClient};

use crate::common::register_domain;
use crate::flow::{
    D, WORKERS, activity_task, complete_workflow, decision_task, history, last, register_activity,
    register_workflow, respond, schedule_activity, start_on, start_with,
};

/// Every run `filter` picks, read a page of `limit` at a time.
async fn all_runs(weft: &WeftClient, filter: RunFilter, limit: u32) -> Vec<RunSummary> {
    let mut query = RunQuery {
        filter,
        limit: Some(limit),
        ..RunQuery::default()
    };
    let mut runs = Vec::new();
    loop {
        let page = weft.list_runs(D, &query).await.unwrap();
        assert!(page.runs.len() <= limit as usize);
        runs.extend(page.runs);
        match page.next_page_token {
            Some(token) => query.next_page_token = Some(token),
            None => return runs,
        }
    }
}

fn ids(runs: &[RunSummary]) -> Vec<&str> {
    runs.iter().map(|r| r.workflow_id.as_str()).collect()
}

fn tagged(tag: &str) -> RunFilter {
    RunFilter {
        tag: Some(tag.into()),
        ..RunFilter::default()
    }
}

/// Starts `workflow_id` on decision list `list` with `tags`, a second after the previous start.
async fn start(server: &TestServer, workflow_id: &str, list: &str, tags: &[&str]) -> String {
    server.advance(Duration::from_secs(1)).await;
    let c = server.client();
    if tags.is_empty() {
        return start_on(&c, workflow_id, "w", list).await;
    }
    let tags = tags.iter().map(|t| t.to_string()).collect();
    start_with(&c, workflow_id, "w", |s| {
        s.task_list(crate::flow::task_list(list))
            .set_tag_list(Some(tags))
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_list_open_and_closed_newest_first_and_say_which_are_failing() {
    let server = TestServer::start_manual().await;
    let (c, weft) = (server.client(), guests::weft_client(&server));
    register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    register_activity(&c, "work").await;
    start(&server, "alpha", "idle", &["batch"]).await;
    let done = start(&server, "done", "finish", &[]).await;
    start(&server, "slow", "slow", &[]).await;
    start(&server, "act", "acts", &[]).await;
    start(&server, "beta", "idle", &["batch", "keep"]).await;

    // "done" completes; "slow"'s decider takes its task and never answers.
    let task = decision_task(&c, "finish").await;
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    decision_task(&c, "slow").await;
    // "act"'s activity fails, and its decider schedules it again: its last attempt failed.
    let task = decision_task(&c, "acts").await;
    respond(&c, task.task_token(), vec![schedule_activity("a1", "work")]).await;
    let work = activity_task(&c, WORKERS).await;
    c.respond_activity_task_failed()
        .task_token(work.task_token())
        .reason("card declined")
        .send()
        .await
        .unwrap();
    let task = decision_task(&c, "acts").await;
    respond(&c, task.task_token(), vec![schedule_activity("a2", "work")]).await;
    server.advance(Duration::from_secs(61)).await;

    let runs = all_runs(&weft, RunFilter::default(), 100).await;
    assert_eq!(ids(&runs), ["beta", "act", "slow", "done", "alpha"]);
    let by_id = |id: &str| runs.iter().find(|r| r.workflow_id == id).unwrap().clone();
    let finished = by_id("done");
    assert_eq!(
        (finished.status.as_str(), finished.run_id),
        ("COMPLETED", done)
    );
    assert!(finished.closed_at.is_some() && finished.failing.is_none());
    assert_eq!(by_id("beta").tags, ["batch", "keep"]);
    assert_eq!(by_id("beta").workflow_type.name, "w");
    assert_eq!(
        by_id("alpha").failing,
        None,
        "a run nobody has polled is not failing"
    );
    let slow = by_id("slow").failing.expect("slow is failing");
    assert_eq!(slow.reason, "a decision task timed out (START_TO_CLOSE)");
    let act = by_id("act").failing.expect("act is failing");
    assert_eq!(act.reason, "activity a1 (work:1) failed: card declined");

    // Pages of two read the same runs in the same order.
    assert_eq!(
        ids(&all_runs(&weft, RunFilter::default(), 2).await),
        ids(&runs)
    );
    let oldest_first = RunQuery {
        oldest_first: true,
        ..RunQuery::default()
    };
    let page = weft.list_runs(D, &oldest_first).await.unwrap();
    assert_eq!(ids(&page.runs), ["alpha", "done", "slow", "act", "beta"]);

    let closed = RunFilter {
        status: Some(RunState::Closed),
        ..RunFilter::default()
    };
    assert_eq!(ids(&all_runs(&weft, closed.clone(), 10).await), ["done"]);
    assert_eq!(weft.count_runs(D, &closed).await.unwrap(), 1);
    let by_close = RunFilter {
        closed_after: Some(finished.closed_at.unwrap()),
        ..RunFilter::default()
    };
    assert_eq!(ids(&all_runs(&weft, by_close, 10).await), ["done"]);
    assert_eq!(weft.count_runs(D, &RunFilter::default()).await.unwrap(), 5);
    assert_eq!(
        ids(&all_runs(&weft, tagged("batch"), 10).await),
        ["beta", "alpha"]
    );
    let of_type = RunFilter {
        type_name: Some("w".into()),
        version: Some("1".into()),
        ..RunFilter::default()
    };
    assert_eq!(weft.count_runs(D, &of_type).await.unwrap(), 5);
    let by_workflow_id = RunFilter {
        workflow_id: Some("slow".into()),
        ..RunFilter::default()
    };
    assert_eq!(ids(&all_runs(&weft, by_workflow_id, 10).await), ["slow"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_acts_on_every_open_run_its_filter_picks_as_the_swf_call_would() {
    let server = TestServer::start_manual().await;
    let (c, weft) = (server.client(), guests::weft_client(&server));
    register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    let mut started = Vec::new();
    for id in ["one", "two", "three"] {
        started.push((id, start(&server, id, "idle", &["nightly"]).await));
    }
    start(&server, "other", "idle", &["daily"]).await;
    let nightly = tagged("nightly");

    // A member the SWF call refuses is refused before any run is touched.
    let too_long = Batch {
        filter: nightly.clone(),
        action: BatchAction::Terminate {
            reason: Some("x".repeat(257)),
            details: None,
        },
    };
    let refused = weft.batch(D, &too_long).await.unwrap_err().to_string();
    assert!(refused.contains("ValidationException"), "{refused}");
    let open = RunFilter {
        status: Some(RunState::Open),
        ..nightly.clone()
    };
    assert_eq!(weft.count_runs(D, &open).await.unwrap(), 3);

    let signal = Batch {
        filter: tagged("daily"),
        action: BatchAction::Signal {
            signal_name: "wake".into(),
            input: Some("now".into()),
        },
    };
    let outcome = weft.batch(D, &signal).await.unwrap();
    assert_eq!((outcome.matched, outcome.done), (1, 1));

    let terminate = Batch {
        filter: nightly.clone(),
        action: BatchAction::Terminate {
            reason: Some("cleanup".into()),
            details: None,
        },
    };
    let outcome = weft.batch(D, &terminate).await.unwrap();
    assert_eq!((outcome.matched, outcome.done), (3, 3), "{outcome:?}");
    assert!(outcome.failures.is_empty());
    let runs = all_runs(&weft, nightly.clone(), 10).await;
    assert!(runs.iter().all(|r| r.status == "TERMINATED"), "{runs:?}");
    for (id, run) in &started {
        let events = history(&c, id, run).await;
        let terminated = last(&events, "WorkflowExecutionTerminated");
        let attributes = terminated
            .workflow_execution_terminated_event_attributes()
            .unwrap();
        assert_eq!(attributes.reason(), Some("cleanup"));
        assert_eq!(
            attributes.cause().map(|c| c.as_str()),
            Some("OPERATOR_INITIATED")
        );
    }
    let again = weft.batch(D, &terminate).await.unwrap();
    assert_eq!(
        (again.matched, again.done),
        (0, 0),
        "closed runs are not picked"
    );
    let other = all_runs(&weft, tagged("daily"), 10).await;
    assert_eq!(other[0].status, "OPEN");
    let signaled = history(&c, "other", &other[0].run_id).await;
    last(&signaled, "WorkflowExecutionSignaled");
}

#[tokio::test]
async fn a_run_listing_names_what_is_wrong_with_its_query() {
    let server = TestServer::start_manual().await;
    register_domain(&server.client(), D).await;
    let closed_module = format!("module={}&status=closed", "0".repeat(64));
    for (query, says) in [
        (
            "tag=a&workflowId=b",
            "at most one of workflowId, tag, type, closeStatus and module",
        ),
        ("module=xyz", "Invalid module 'xyz'"),
        (
            closed_module.as_str(),
            "module picks the open runs pinned to a decider",
        ),
        ("closeStatus=DONE", "Unknown closeStatus 'DONE'"),
        (
            "status=open&closeStatus=FAILED",
            "cannot go with status=open",
        ),
        ("version=1", "version needs type"),
        (
            "status=open&closedAfter=1",
            "they cannot go with status=open",
        ),
        ("startedAfter=1&closedBefore=2", "not both"),
        ("startedAfter=2&startedBefore=1", "ends before it starts"),
        ("colour=blue", "unknown parameter 'colour'"),
        ("limit=0", "limit is 0; it must be from 1 to 1000"),
        ("status=ajar", "unknown variant `ajar`"),
        ("nextPageToken=forged", "Invalid token"),
    ] {
        let answer = server
            .http("GET", &format!("/v1/domains/{D}/runs?{query}"), b"")
            .await;
        assert_eq!(answer.status, 400, "{query}: {}", answer.body);
        assert!(answer.body.contains(says), "{query}: {}", answer.body);
    }
    let unknown = server.http("GET", "/v1/domains/nope/runs", b"").await;
    assert_eq!(unknown.status, 404, "{}", unknown.body);
    // A digest's start must name one of the account's modules.
    let path = format!("/v1/domains/{D}/runs?module=0123abcd");
    let unknown = server.http("GET", &path, b"").await;
    assert_eq!(unknown.status, 404, "{}", unknown.body);
    assert!(
        unknown.body.contains("Unknown module: 0123abcd"),
        "{}",
        unknown.body
    );
    let closed_batch = server
        .http(
            "POST",
            &format!("/v1/domains/{D}/runs/batch"),
            br#"{"filter": {"status": "closed"}, "action": "requestCancel"}"#,
        )
        .await;
    assert_eq!(closed_batch.status, 400, "{}", closed_batch.body);
    assert!(
        closed_batch.body.contains("acts on open runs"),
        "{}",
        closed_batch.body
    );
    let no_action = server
        .http(
            "POST",
            &format!("/v1/domains/{D}/runs/batch"),
            br#"{"filter": {}}"#,
        )
        .await;
    assert_eq!(no_action.status, 400, "{}", no_action.body);
}
