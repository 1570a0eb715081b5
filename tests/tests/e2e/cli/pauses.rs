//! `weft workflow pause|resume` and `weft tasklist list|describe|pause|resume|limit` through the
//! real binary, on a server whose clock the test moves.

use weft_tests::TestServer;

use super::weft;
use crate::common::register_domain;
use crate::flow::{
    D, DECIDERS, decision_task, no_decision_task, register_activity, register_workflow, respond,
    schedule_activity, start,
};

#[tokio::test]
async fn runs_are_paused_and_resumed_from_the_command_line() {
    let (server, swf) = server().await;
    register_activity(&swf, "a").await;
    let run_id = start(&swf, "cli-held", "w").await;
    let task = decision_task(&swf, DECIDERS).await;
    respond(&swf, task.task_token(), vec![schedule_activity("a1", "a")]).await;

    let paused = weft(
        &server,
        &[
            "workflow",
            "pause",
            "cli-held",
            "--reason",
            "deploying a fix",
            "--domain",
            D,
        ],
    )
    .await;
    assert!(paused.ok, "{paused:?}");
    assert_eq!(
        paused.out().trim(),
        format!("paused cli-held (run {run_id}): 1 queued task held")
    );
    let described = weft(
        &server,
        &["workflow", "describe", "cli-held", "--domain", D],
    )
    .await;
    assert!(described.out().contains("deploying a fix"), "{described:?}");
    let json = weft(
        &server,
        &["workflow", "describe", "cli-held", "--domain", D, "--json"],
    );
    let json = json.await.json();
    assert_eq!(json["paused"]["reason"], "deploying a fix");
    let resumed = weft(
        &server,
        &["workflow", "resume", "cli-held", "--domain", D, "--json"],
    );
    let resumed = resumed.await.json();
    assert_eq!(
        (&resumed["changed"], &resumed["tasks"]),
        (&true.into(), &1.into())
    );
}

/// A server on the test's clock with domain `D` and workflow type `w`.
async fn server() -> (TestServer, weft_tests::aws_sdk_swf::Client) {
    let server = TestServer::start_manual().await;
    let swf = server.client();
    register_domain(&swf, D).await;
    register_workflow(&swf, "w").await;
    (server, swf)
}

#[tokio::test]
async fn task_lists_are_paused_and_resumed_from_the_command_line() {
    let (server, swf) = server().await;
    // Both kinds of the name unless --kind says one.
    let paused = weft(
        &server,
        &[
            "tasklist",
            "pause",
            DECIDERS,
            "--reason",
            "maintenance",
            "--domain",
            D,
        ],
    )
    .await;
    assert_eq!(
        paused.out().trim(),
        format!("paused decision list {DECIDERS}\npaused activity list {DECIDERS}")
    );
    start(&swf, "cli-queued", "w").await;
    no_decision_task(&server, &swf, DECIDERS).await;
    let listed = weft(&server, &["tasklist", "list", "--domain", D]).await;
    let line = listed
        .out()
        .lines()
        .find(|l| l.starts_with("decision "))
        .map(str::to_owned);
    let line = line.unwrap_or_else(|| panic!("{listed:?}"));
    assert!(
        line.starts_with(&format!(
            "decision {DECIDERS}  1 waiting  0 polling  paused by "
        )) && line.ends_with(": maintenance"),
        "{line}"
    );
    let resumed = weft(
        &server,
        &[
            "tasklist", "resume", DECIDERS, "--kind", "decision", "--domain", D,
        ],
    )
    .await;
    assert_eq!(
        resumed.out().trim(),
        format!("resumed decision list {DECIDERS}")
    );
    let task = decision_task(&swf, DECIDERS).await;
    assert_eq!(
        task.workflow_execution().map(|e| e.workflow_id.as_str()),
        Some("cli-queued")
    );
    let limited = weft(
        &server,
        &[
            "tasklist", "limit", DECIDERS, "--kind", "decision", "--rate", "2", "--domain", D,
        ],
    )
    .await;
    assert_eq!(
        limited.out().trim(),
        format!("decision list {DECIDERS}: at most 2/s")
    );
    let listed = weft(&server, &["tasklist", "list", "--domain", D, "--json"]).await;
    let lists = listed.json();
    let rated = lists["taskLists"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["rate"] == 2.0));
    assert!(rated.is_some(), "{listed:?}");
    let described = weft(
        &server,
        &[
            "tasklist", "describe", DECIDERS, "--kind", "decision", "--domain", D,
        ],
    )
    .await;
    assert_eq!(
        described.out().trim(),
        format!("decision {DECIDERS}  0 waiting  0 polling  at most 2/s")
    );
    // A cap given alone keeps the rate.
    let capped = weft(
        &server,
        &[
            "tasklist",
            "limit",
            DECIDERS,
            "--kind",
            "decision",
            "--concurrency",
            "3",
            "--domain",
            D,
        ],
    )
    .await;
    assert_eq!(
        capped.out().trim(),
        format!("decision list {DECIDERS}: at most 2/s, at most 3 started")
    );
    let described = weft(&server, &["tasklist", "describe", DECIDERS, "--domain", D]).await;
    let first = described.out().lines().next().map(str::to_owned);
    assert_eq!(
        first,
        Some(format!(
            "decision {DECIDERS}  0 waiting  0 polling  at most 2/s  at most 3 started"
        ))
    );
    let unlimited = weft(
        &server,
        &[
            "tasklist",
            "limit",
            DECIDERS,
            "--kind",
            "decision",
            "--rate",
            "none",
            "--concurrency",
            "none",
            "--domain",
            D,
        ],
    )
    .await;
    assert_eq!(
        unlimited.out().trim(),
        format!("decision list {DECIDERS}: no limit")
    );
    let nothing = weft(&server, &["tasklist", "limit", DECIDERS, "--domain", D]).await;
    assert!(
        !nothing.ok && nothing.stderr.contains("--rate"),
        "{nothing:?}"
    );
    let unknown = weft(
        &server,
        &[
            "tasklist", "pause", "x", "--kind", "sideways", "--domain", D,
        ],
    );
    let unknown = unknown.await;
    assert!(
        !unknown.ok && unknown.stderr.contains("sideways"),
        "{unknown:?}"
    );
}
