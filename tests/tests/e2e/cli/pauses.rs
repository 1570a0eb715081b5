//! `weft workflow pause|resume`, `weft tasklist list|describe|pause|resume|limit` (rate, cap
//! and fairness keys) and `[[task-list]]` in `weft apply`, through the real binary.

use weft_tests::TestServer;

use super::{Weft, weft, write};
use crate::common::register_domain;
use crate::flow::{
    D, DECIDERS, decision_task, no_decision_task, register_activity, register_workflow, respond,
    schedule_activity, start, start_with,
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
    fairness_from_the_command_line(&server, &swf).await;
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

/// `weft tasklist limit --fair-by-tag`: keys set and shown with their waiting tasks, refused
/// without a prefix, removed.
async fn fairness_from_the_command_line(
    server: &TestServer,
    swf: &weft_tests::aws_sdk_swf::Client,
) {
    let limit = |extra: &[&str]| {
        let mut args = vec!["tasklist", "limit", DECIDERS, "--kind", "decision"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--domain", D]);
        args.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let args = limit(&["--fair-by-tag", "tenant=", "--weight", "acme=3"]);
    let keyed = weft(server, &args.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert_eq!(
        keyed.out().trim(),
        format!("decision list {DECIDERS}: fair by tag tenant= (acme 3, others 1)")
    );
    start_with(swf, "cli-acme", "w", |s| s.tag_list("tenant=acme")).await;
    let described = weft(
        server,
        &[
            "tasklist", "describe", DECIDERS, "--kind", "decision", "--domain", D,
        ],
    )
    .await;
    assert_eq!(
        described.out().trim(),
        format!(
            "decision {DECIDERS}  1 waiting  0 polling  fair by tag tenant= (acme 3, others 1)\n  \
             key acme  1 waiting  weight 3"
        )
    );
    let task = decision_task(swf, DECIDERS).await;
    let id = task.workflow_execution().map(|e| e.workflow_id.as_str());
    assert_eq!(id, Some("cli-acme"));
    for bad in [
        vec!["--weight", "acme=3"],
        vec!["--fair-by-tag", "t=", "--weight", "acme"],
    ] {
        let args = limit(&bad);
        let refused = weft(server, &args.iter().map(String::as_str).collect::<Vec<_>>()).await;
        assert!(
            !refused.ok && refused.stderr.contains("--weight"),
            "{refused:?}"
        );
    }
    let args = limit(&["--fair-by-tag", "none"]);
    let removed = weft(server, &args.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert_eq!(
        removed.out().trim(),
        format!("decision list {DECIDERS}: no limit")
    );
}

#[tokio::test]
async fn apply_sets_a_declared_task_lists_limits_and_removes_what_it_leaves_out() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let manifest = |limits: &str| {
        format!(
            "[domain]\nname = \"{D}\"\n\n[[task-list]]\nname = \"work\"\nkind = \"activity\"\n\
             {limits}"
        )
    };
    let apply = || Weft::at(&server).dir(dir.path()).run(&["apply"]);
    let declared =
        "rate = 20\nconcurrency = 5\nfair-by-tag = \"tenant=\"\nweights = { acme = 3 }\n";
    write(dir.path(), "weft-app.toml", &manifest(declared));
    let first = apply().await;
    assert!(
        first.out().contains("limited  task list work (activity)"),
        "{first:?}"
    );
    let again = apply().await;
    assert!(
        again.out().contains("unchanged  task list work (activity)"),
        "{again:?}"
    );
    let weft = weft_tests::guests::weft_client(&server);
    let lists = weft.task_lists(D).await.expect("the lists");
    let work = lists.iter().find(|l| l.name == "work").expect("the list");
    assert_eq!((work.rate, work.concurrency), (Some(20.0), Some(5)));
    assert_eq!(work.fairness.as_ref().map(|f| f.weights["acme"]), Some(3));

    write(dir.path(), "weft-app.toml", &manifest("concurrency = 2\n"));
    let changed = apply().await;
    assert!(
        changed.out().contains("limited  task list work (activity)"),
        "{changed:?}"
    );
    let lists = weft.task_lists(D).await.expect("the lists");
    let work = lists.iter().find(|l| l.name == "work").expect("the list");
    assert_eq!((work.rate, work.concurrency), (None, Some(2)));
    assert!(work.fairness.is_none());
}
