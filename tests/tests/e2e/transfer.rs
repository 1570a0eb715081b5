//! `weft import` and `weft export` (issue 32): runs read out of another Weft (standing in for
//! AWS's SWF: the import reads it through SWF's own listings, describe and history) are stored
//! exactly as they were recorded, listed as closed or open, replayable with no divergence, and
//! never given tasks; a second import adds nothing; an export imported into a fresh server
//! serves byte-identical histories.

use std::time::Duration;

use serde_json::{Value, json};
use weft_host::client::{Replay, RunQuery, TypeRef};
use weft_tests::aws_sdk_swf::Client;
use weft_tests::guests::{self, order};
use weft_tests::{TestServer, raw_request};

use crate::cli::Weft;
use crate::flow::{
    D, decision_task, register_activity, register_workflow, respond, schedule_activity, since_ever,
    start, start_on, start_timer,
};

/// Orders run by the order example's guests, runs terminated at once, and runs left open.
const ORDERS: usize = 5;
const TERMINATED: usize = 195;
const OPEN: usize = 5;

/// How many runs of `D` are closed and open.
async fn counts(c: &Client) -> (i32, i32) {
    let closed = c
        .count_closed_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .send()
        .await
        .unwrap()
        .count();
    let open = c
        .count_open_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .send()
        .await
        .unwrap()
        .count();
    (closed, open)
}

/// The source: a server on which order runs completed, runs were terminated and runs are open.
async fn source() -> TestServer {
    let server = TestServer::start_with(|c| c.poll_timeout = Duration::from_secs(1)).await;
    let c = server.client();
    guests::register_examples(&c, D).await;
    guests::deploy_order(&guests::weft_client(&server), D).await;
    register_workflow(&c, "w").await;
    for n in 0..ORDERS {
        let mut input: Value = serde_json::from_str(order::SAMPLE_ORDER).unwrap();
        input["order_id"] = json!(format!("order-{n}"));
        c.start_workflow_execution()
            .domain(D)
            .workflow_id(format!("order-{n}"))
            .workflow_type(guests::workflow_type(order::WORKFLOW))
            .input(input.to_string())
            .send()
            .await
            .unwrap();
    }
    for n in 0..TERMINATED {
        let id = format!("t-{n}");
        let run_id = start(&c, &id, "w").await;
        c.terminate_workflow_execution()
            .domain(D)
            .workflow_id(&id)
            .run_id(run_id)
            .send()
            .await
            .unwrap();
    }
    for n in 0..OPEN {
        start_on(&c, &format!("open-{n}"), "w", "nobody-polls-here").await;
    }
    // One open run is waiting on an activity and a timer.
    register_activity(&c, "work").await;
    let task = decision_task(&c, "nobody-polls-here").await;
    let waiting = vec![schedule_activity("a", "work"), start_timer("t", "3600")];
    respond(&c, task.task_token(), waiting).await;
    let began = std::time::Instant::now();
    while counts(&c).await != ((ORDERS + TERMINATED) as i32, OPEN as i32) {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "{:?}",
            counts(&c).await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    server
}

/// `weft ARGS` against `server`; its stdout.
async fn weft(server: &TestServer, args: &[&str]) -> String {
    Weft::at(server).run(args).await.out().to_owned()
}

/// The run ids of the closed runs of `D`, by workflow id.
async fn closed_runs(c: &Client) -> Vec<(String, String)> {
    let page = c
        .list_closed_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever())
        .maximum_page_size(1000)
        .send()
        .await
        .unwrap();
    let mut runs: Vec<_> = (page.execution_infos().iter())
        .map(|i| {
            (
                i.execution().unwrap().workflow_id().to_owned(),
                i.execution().unwrap().run_id().to_owned(),
            )
        })
        .collect();
    runs.sort();
    runs
}

/// GetWorkflowExecutionHistory's answer for the run, as the bytes it sent (one page).
pub(crate) async fn history_bytes(
    server: &TestServer,
    (workflow_id, run_id): &(String, String),
) -> String {
    let request = json!({
        "domain": D,
        "execution": {"workflowId": workflow_id, "runId": run_id},
        "maximumPageSize": 1000,
    });
    let target = Some("SimpleWorkflowService.GetWorkflowExecutionHistory");
    let addr = server.addr().to_string();
    let answer = raw_request(&addr, target, request.to_string().as_bytes()).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.body
}

#[tokio::test]
async fn runs_move_between_wefts_exactly_once_and_replay_without_divergence() {
    let source = source().await;
    let here = TestServer::start_with(|c| c.poll_timeout = Duration::from_secs(1)).await;
    let from = source.endpoint();
    let import = ["import", "--from", &from, "--domain", D];
    let first = weft(&here, &import).await;
    let all = ORDERS + TERMINATED + OPEN;
    assert!(
        first.contains(&format!("imported {all} of {all} runs")),
        "{first}"
    );
    let c = here.client();
    assert_eq!(
        counts(&c).await,
        ((ORDERS + TERMINATED) as i32, OPEN as i32)
    );
    let again = weft(&here, &import).await;
    assert!(
        again.contains(&format!("imported 0 of {all} runs")),
        "{again}"
    );

    // The histories are the source's, byte for byte, and the order decider replays them.
    let runs = closed_runs(&c).await;
    assert_eq!(runs, closed_runs(&source.client()).await);
    for run in &runs {
        assert_eq!(
            history_bytes(&here, run).await,
            history_bytes(&source, run).await
        );
    }
    let weft_here = guests::weft_client(&here);
    let decider = weft_here
        .upload_module(guests::guest("order-decider"))
        .await
        .unwrap();
    let replay = Replay {
        module: decider.digest.clone(),
        last: Some(1000),
        workflow_type: Some(TypeRef {
            name: order::WORKFLOW.name.into(),
            version: order::WORKFLOW.version.into(),
        }),
        ..Default::default()
    };
    let listed = weft_here.list_runs(D, &RunQuery::default()).await.unwrap();
    assert!(!listed.runs.is_empty() && listed.runs.iter().all(|run| run.imported));
    let there = guests::weft_client(&source);
    let listed = there.list_runs(D, &RunQuery::default()).await.unwrap();
    assert!(listed.runs.iter().all(|run| !run.imported));
    let report = weft_here.replay(D, &replay).await.unwrap();
    assert_eq!(report.runs.len(), ORDERS, "{report:?}");
    assert!(
        report
            .runs
            .iter()
            .all(|run| run.decision_tasks > 0 && run.divergence.is_none()),
        "{report:?}"
    );

    // An open imported run counts what its history left open.
    let waiting = (c
        .list_open_workflow_executions()
        .domain(D)
        .start_time_filter(since_ever()))
    .send()
    .await
    .unwrap();
    let mut open_counts = Vec::new();
    for info in waiting.execution_infos() {
        let described = c
            .describe_workflow_execution()
            .domain(D)
            .execution(info.execution().unwrap().clone())
            .send()
            .await
            .unwrap();
        let counts = described.open_counts().unwrap();
        open_counts.push((counts.open_activity_tasks(), counts.open_timers()));
    }
    open_counts.sort();
    assert_eq!(open_counts, [(0, 0), (0, 0), (0, 0), (0, 0), (1, 1)]);

    // Open imported runs are never given a task.
    let poll = c
        .poll_for_decision_task()
        .domain(D)
        .task_list(crate::flow::task_list("nobody-polls-here"))
        .send()
        .await
        .unwrap();
    assert!(poll.task_token().is_empty(), "{poll:?}");

    // An export, imported into a fresh server, serves the same bytes.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let exported = weft(&here, &["export", "--domain", D, "--out", out]).await;
    assert!(
        exported.contains(&format!("exported {} runs", ORDERS + TERMINATED)),
        "{exported}"
    );
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names.len(), ORDERS + TERMINATED + 1, "{names:?}");
    assert!(names.contains(&"domain.json".to_owned()), "{names:?}");
    // Ids are written as they are: hyphens and base64url run ids need no encoding.
    assert!(names.iter().all(|n| !n.contains('%')), "{names:?}");
    let fresh = TestServer::start().await;
    // The export names its domain; a --domain that is not it is refused, and nothing is made.
    let typo = ["import", "--from", out, "--domain", "typo"];
    let refused = Weft::at(&fresh).run(&typo).await;
    assert!(
        refused
            .err()
            .contains(&format!("holds the runs of domain {D}; --domain names")),
        "{refused:?}"
    );
    let typo = fresh.client().describe_domain().name("typo").send().await;
    assert!(typo.is_err(), "a refused import registered a domain");
    weft(&fresh, &["import", "--from", out]).await;
    assert_eq!(closed_runs(&fresh.client()).await, runs);
    // The source's retention (1 day), not a default.
    let described = fresh.client().describe_domain().name(D).send().await;
    let configuration = described.unwrap().configuration.unwrap();
    assert_eq!(
        configuration.workflow_execution_retention_period_in_days,
        "1"
    );
    for run in &runs {
        assert_eq!(
            history_bytes(&fresh, run).await,
            history_bytes(&source, run).await
        );
    }
}

/// The types a server has registered in `D`: workflow types, then activity types, as
/// `name:version`.
async fn registered_types(c: &Client) -> (Vec<String>, Vec<String>) {
    let status = weft_tests::aws_sdk_swf::types::RegistrationStatus::Registered;
    let workflows = c
        .list_workflow_types()
        .domain(D)
        .registration_status(status.clone());
    let activities = c
        .list_activity_types()
        .domain(D)
        .registration_status(status);
    let workflows = workflows.send().await.unwrap();
    let activities = activities.send().await.unwrap();
    let named = |name: &str, version: &str| format!("{name}:{version}");
    (
        (workflows.type_infos().iter())
            .map(|t| {
                named(
                    t.workflow_type().unwrap().name(),
                    t.workflow_type().unwrap().version(),
                )
            })
            .collect(),
        (activities.type_infos().iter())
            .map(|t| {
                named(
                    t.activity_type().unwrap().name(),
                    t.activity_type().unwrap().version(),
                )
            })
            .collect(),
    )
}

#[tokio::test]
async fn an_import_registers_the_types_its_history_runs_and_nothing_for_a_refused_run() {
    let source = TestServer::start_with(|c| c.poll_timeout = Duration::from_secs(1)).await;
    let c = source.client();
    crate::common::register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    register_activity(&c, "act").await;
    let run = start(&c, "ran", "w").await;
    let task = decision_task(&c, crate::flow::DECIDERS).await;
    respond(&c, task.task_token(), vec![schedule_activity("a1", "act")]).await;
    let terminate = c
        .terminate_workflow_execution()
        .domain(D)
        .workflow_id("ran");
    terminate.send().await.unwrap();
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    weft(&source, &["export", "--domain", D, "--out", dir]).await;
    let file = out
        .path()
        .join(weft_host::client::export_file_name("ran", &run));
    let mut exported: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();

    // The file's describe names another type than its history runs: the history's count.
    exported["describe"]["executionInfo"]["workflowType"] =
        json!({"name": "described", "version": "9"});
    std::fs::write(&file, exported.to_string()).unwrap();
    let here = TestServer::start().await;
    weft(&here, &["import", "--from", dir, "--domain", D]).await;
    let (workflows, activities) = registered_types(&here.client()).await;
    assert_eq!(
        (workflows, activities),
        (vec!["w:1".to_owned()], vec!["act:1".to_owned()])
    );

    // A run the server would refuse (its second event's id is not 2): nothing registered.
    exported["history"]["events"][1]["eventId"] = json!(7);
    std::fs::write(&file, exported.to_string()).unwrap();
    let fresh = TestServer::start().await;
    let refused = Weft::at(&fresh)
        .run(&["import", "--from", dir, "--domain", D])
        .await;
    let err = refused.err();
    assert!(
        err.contains("cannot be imported") && err.contains("eventId 7"),
        "{err}"
    );
    let unknown = fresh.client().describe_domain().name(D).send().await;
    assert!(
        unknown.is_err(),
        "the domain was registered for a refused run"
    );
}
