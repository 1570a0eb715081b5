//! `weft domain`, `type` and `workflow`: everything a run needs, from registering its domain to
//! reading its result, through the real binary; a decider written with the AWS SDK answers.

use std::time::Duration;

use serde_json::Value;
use weft_tests::TestServer;

use super::{Weft, weft, write};
use crate::flow::{D, DECIDERS, complete_workflow, decision_task, respond};

async fn server() -> TestServer {
    TestServer::start_with(|config| config.poll_timeout = Duration::from_secs(1)).await
}

/// The event types of a `weft workflow history --json`.
fn event_types(history: &Value) -> Vec<&str> {
    let events = history["events"].as_array().expect("events");
    events
        .iter()
        .map(|e| e["eventType"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_run_goes_from_registration_to_result_with_the_cli_alone() {
    let server = server().await;
    let registered = weft(&server, &["domain", "register", D, "--retention-days", "2"]).await;
    assert_eq!(registered.out(), "registered domain d\n");
    let again = weft(&server, &["domain", "register", D]).await;
    assert!(
        again.err().contains("domain d is already registered"),
        "{again:?}"
    );
    let domains = weft(&server, &["domain", "list", "--json"]).await.json();
    assert_eq!(domains["domainInfos"][0]["name"], D);
    let described = weft(&server, &["domain", "describe", D, "--json"])
        .await
        .json();
    assert_eq!(
        described["configuration"]["workflowExecutionRetentionPeriodInDays"],
        "2"
    );

    let workflow = [
        "type",
        "register",
        "workflow",
        "Hello:1",
        "--domain",
        D,
        "--task-list",
        DECIDERS,
        "--execution-timeout",
        "1h",
        "--task-timeout",
        "30s",
    ];
    assert!(
        weft(&server, &workflow)
            .await
            .out()
            .contains("registered workflow Hello:1")
    );
    let activity = [
        "type",
        "register",
        "activity",
        "Greet:1",
        "--domain",
        D,
        "--start-to-close",
        "5m",
    ];
    weft(&server, &activity).await.out();
    let twice = weft(&server, &workflow).await;
    assert!(
        twice
            .err()
            .contains("workflow type Hello:1 in d is already registered")
    );
    let types = weft(&server, &["type", "list", "--domain", D, "--json"])
        .await
        .json();
    assert_eq!(types["workflowTypes"][0]["workflowType"]["name"], "Hello");
    assert_eq!(types["activityTypes"][0]["activityType"]["name"], "Greet");
    let c = server.client();
    let config = c
        .describe_workflow_type()
        .domain(D)
        .workflow_type(crate::flow::wf_type("Hello", "1"))
        .send()
        .await
        .unwrap();
    let config = config.configuration.unwrap();
    assert_eq!(
        (
            config.default_execution_start_to_close_timeout(),
            config.default_task_start_to_close_timeout(),
            config.default_child_policy().map(|p| p.as_str()),
        ),
        (Some("3600"), Some("30"), Some("TERMINATE"))
    );

    // Started and waited for, while a decider completes it with a result made of its input.
    let start = [
        "workflow", "start", "--domain", D, "--type", "Hello:1", "--id", "hello-1", "--input",
        "Ada", "--tag", "cli", "--wait",
    ];
    let waiting = tokio::spawn(Weft::at(&server).run(&start));
    let task = decision_task(&c, DECIDERS).await;
    let input = task.events()[0]
        .workflow_execution_started_event_attributes()
        .and_then(|a| a.input())
        .unwrap()
        .to_owned();
    let result = format!("Hello, {input}!");
    respond(
        &c,
        task.task_token(),
        vec![complete_workflow(Some(&result))],
    )
    .await;
    let started = waiting.await.unwrap();
    assert_eq!(started.out(), "Hello, Ada!\n");
    assert!(started.stderr.contains("started hello-1 "), "{started:?}");

    let on_d = |args: &[&str]| {
        let mut args = args.to_vec();
        args.extend(["--domain", D, "--json"]);
        let server = &server;
        let args: Vec<String> = args.into_iter().map(str::to_owned).collect();
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            weft(server, &args).await
        }
    };
    let result = on_d(&["workflow", "result", "hello-1"]).await.json();
    assert_eq!(
        (&result["closeStatus"], &result["result"]),
        (&Value::from("COMPLETED"), &Value::from("Hello, Ada!"))
    );
    let described = on_d(&["workflow", "describe", "hello-1"]).await.json();
    assert_eq!(described["executionInfo"]["closeStatus"], "COMPLETED");
    assert_eq!(described["executionInfo"]["tagList"][0], "cli");
    let history = on_d(&["workflow", "history", "hello-1"]).await.json();
    assert_eq!(
        event_types(&history),
        [
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "WorkflowExecutionCompleted"
        ]
    );
    let lines = weft(&server, &["workflow", "history", "hello-1", "--domain", D]).await;
    let last = lines.out().lines().last().unwrap();
    assert!(
        last.starts_with("   5  ")
            && last.ends_with(
                "WorkflowExecutionCompleted  decisionTaskCompletedEventId=4  result=\"Hello, Ada!\""
            ),
        "{last}"
    );
    let listed = on_d(&["workflow", "list"]).await.json();
    assert_eq!(
        listed["executionInfos"][0]["execution"]["workflowId"],
        "hello-1"
    );
    let open = on_d(&["workflow", "list", "--open"]).await.json();
    assert_eq!(open["executionInfos"], Value::Array(vec![]));
    let by_tag = on_d(&["workflow", "list", "--tag", "nope"]).await.json();
    assert_eq!(by_tag["executionInfos"], Value::Array(vec![]));
}

#[tokio::test]
async fn open_runs_are_signaled_canceled_terminated_and_followed() {
    let server = server().await;
    let c = server.client();
    crate::common::register_domain(&c, D).await;
    crate::flow::register_workflow(&c, "wf").await;
    let start = |id: &'static str| {
        let server = &server;
        async move {
            let args = [
                "workflow", "start", "--domain", D, "--type", "wf:1", "--id", id,
            ];
            let started = weft(server, &args).await;
            let line = started.out().trim().to_owned();
            assert!(line.starts_with(&format!("started {id} ")), "{line}");
            line.rsplit(' ').next().unwrap().to_owned()
        }
    };
    let run = start("w").await;
    let signal = [
        "workflow", "signal", "w", "--name", "go", "--input", "now", "--domain", D,
    ];
    assert_eq!(weft(&server, &signal).await.out(), "signaled w: go\n");
    let cancel = ["workflow", "cancel", "w", "--run", &run, "--domain", D];
    assert_eq!(weft(&server, &cancel).await.out(), "asked w to cancel\n");
    // A run id may begin with `-` (base64url): it is still the option's value.
    let dashed = [
        "workflow",
        "cancel",
        "w",
        "--run",
        "-yNoSuchRun",
        "--domain",
        D,
    ];
    let dashed = weft(&server, &dashed).await;
    assert!(
        !dashed.ok && !dashed.stderr.contains("unexpected argument"),
        "{dashed:?}"
    );
    let open = weft(&server, &["workflow", "result", "w", "--domain", D]).await;
    assert!(
        open.err().contains("w is still open (--wait waits"),
        "{open:?}"
    );
    let terminate = [
        "workflow",
        "terminate",
        "w",
        "--domain",
        D,
        "--reason",
        "enough",
        "--details",
        "done",
    ];
    assert_eq!(weft(&server, &terminate).await.out(), "terminated w\n");
    let history = weft(
        &server,
        &["workflow", "history", "w", "--domain", D, "--json"],
    )
    .await;
    assert_eq!(
        event_types(&history.json()),
        [
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "WorkflowExecutionSignaled",
            "WorkflowExecutionCancelRequested",
            "WorkflowExecutionTerminated"
        ]
    );
    let result = weft(&server, &["workflow", "result", "w", "--domain", D]).await;
    assert!(
        result.err().contains("w closed TERMINATED: enough: done"),
        "{result:?}"
    );
    // SWF's describe says false once a run is closed; weft's says what was asked of it.
    let described = ["workflow", "describe", "w", "--domain", D];
    let json = weft(&server, &[&described[..], &["--json"]].concat()).await;
    assert_eq!(json.json()["executionInfo"]["cancelRequested"], true);
    let text = weft(&server, &described).await;
    assert!(
        text.out().contains("cancellation was requested"),
        "{text:?}"
    );
    // A reader that stops reading (`| head -1`) ends the command quietly, not with a panic.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let history = ["workflow", "history", "w", "--domain", D];
    let piped = Weft::at(&server).stdout(writer).run(&history).await;
    assert!(piped.ok && piped.stderr.is_empty(), "{piped:?}");
    let closed = [
        "workflow",
        "list",
        "--domain",
        D,
        "--status",
        "TERMINATED",
        "--json",
    ];
    let closed = weft(&server, &closed).await.json();
    assert_eq!(
        closed["executionInfos"][0]["execution"]["runId"],
        run.as_str()
    );

    // --follow prints events as they come, and stops once the run closes.
    start("f").await;
    let follow = [
        "workflow", "history", "f", "--domain", D, "--follow", "--json",
    ];
    let following = tokio::spawn(Weft::at(&server).run(&follow));
    let task = decision_task(&c, DECIDERS).await;
    respond(&c, task.task_token(), vec![complete_workflow(Some("ok"))]).await;
    let followed = following.await.unwrap();
    let events: Vec<Value> = (followed.out().lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), 5, "{followed:?}");
    assert_eq!(events[4]["eventType"], "WorkflowExecutionCompleted");

    let unknown = weft(&server, &["workflow", "describe", "nope", "--domain", D]).await;
    assert!(
        unknown
            .err()
            .contains("no run of workflow \"nope\" in domain \"d\""),
        "{unknown:?}"
    );
}

#[tokio::test]
async fn inside_a_project_the_domain_and_type_come_from_its_manifest() {
    let server = server().await;
    let project = tempfile::tempdir().unwrap();
    let manifest = "[domain]\nname = \"d\"\n\n[[workflow]]\nname = \"wf\"\nversion = \"1\"\n";
    write(project.path(), "weft-app.toml", manifest);
    let c = server.client();
    crate::common::register_domain(&c, D).await;
    crate::flow::register_workflow(&c, "wf").await;
    let here = || Weft::at(&server).dir(project.path());
    let started = here()
        .run(&["workflow", "start", "--id", "p", "--json"])
        .await;
    assert_eq!(started.json()["workflowId"], "p");
    let listed = here().run(&["workflow", "list", "--json"]).await.json();
    assert_eq!(listed["executionInfos"][0]["workflowType"]["name"], "wf");

    // Outside it, the command says what to give.
    let elsewhere = tempfile::tempdir().unwrap();
    let lost = Weft::at(&server)
        .dir(elsewhere.path())
        .run(&["workflow", "list"])
        .await;
    assert!(
        lost.err()
            .contains("give --domain (or run this in a project with a weft-app.toml)"),
        "{lost:?}"
    );
    // A broken manifest is named, with what is wrong.
    write(project.path(), "weft-app.toml", "[domain]\nnam = \"d\"\n");
    let broken = here().run(&["workflow", "list"]).await;
    assert!(broken.err().contains("weft-app.toml"), "{broken:?}");
    assert!(broken.err().contains("nam"), "{broken:?}");
}
