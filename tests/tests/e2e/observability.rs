//! What operators watch: `/metrics` after a known workload (counts and times on a manual
//! clock, so every duration is exact), who may scrape it, the task lists the console shows, and
//! JSON logs whose request ids match the `x-amzn-RequestId` each answer carried.

use std::time::Duration;

use weft_tests::tenants::{self, ACME, GLOBEX};
use weft_tests::{RawResponse, TestServer};

use crate::common::register_domain;
use crate::flow::{
    D, DECIDERS, WORKERS, activity_task, complete_workflow, decision_task, fail_workflow,
    manual_server, register_activity, register_workflow, respond, schedule_activity, start,
};
use weft_tests::process::Weft;

/// The scrape, as text; panics unless it answers 200 in the OpenMetrics format.
pub(crate) async fn scrape(server: &TestServer, token: Option<&str>) -> String {
    let auth = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
    let response = get_metrics(server, &headers).await;
    assert_eq!(response.status, 200, "{response:?}");
    let content_type = response.header("content-type").unwrap_or_default();
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    response.body
}

/// `GET /metrics` with `headers`, as sent.
async fn get_metrics(server: &TestServer, headers: &[(&str, &str)]) -> RawResponse {
    let addr = server.endpoint().trim_start_matches("http://").to_owned();
    weft_tests::raw_http(&addr, "GET", "/metrics", headers, b"").await
}

/// The value of the sample `series` (name and labels, exactly as written) in `text`.
pub(crate) fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// Asserts the sample `series` is `value`.
#[track_caller]
pub(crate) fn expect(text: &str, series: &str, value: f64) {
    assert_eq!(sample(text, series), Some(value), "{series} in\n{text}");
}

#[tokio::test]
async fn metrics_count_a_known_workload_per_type_from_zero() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "wf").await;
    register_activity(&c, "act").await;
    register_workflow(&c, "idle-wf").await;
    register_activity(&c, "idle-act").await;
    // Before anything runs, every registered type has its series, at zero.
    let text = scrape(&server, None).await;
    for ty in ["wf", "idle-wf"] {
        let run = format!(r#"{{domain="d",workflow_type="{ty}",workflow_version="1"}}"#);
        expect(&text, &format!("swf_workflows_started_total{run}"), 0.0);
        expect(&text, &format!("swf_workflows_completed_total{run}"), 0.0);
        expect(
            &text,
            &format!("swf_decision_tasks_completed_total{run}"),
            0.0,
        );
    }
    for ty in ["act", "idle-act"] {
        let act = format!(r#"{{domain="d",activity_type="{ty}",activity_version="1"}}"#);
        expect(&text, &format!("swf_activity_tasks_failed_total{act}"), 0.0);
        let timed_out = format!("swf_scheduled_activity_tasks_timed_out_on_start_total{act}");
        expect(&text, &timed_out, 0.0);
    }
    let runs = ["completes", "fails", "is-terminated"];
    for id in runs {
        start(&c, id, "wf").await;
    }
    // Each decision task waits 2 s in its list, each activity task 1 s, and the two activity
    // tasks that close run 3 s.
    server.advance(Duration::from_secs(2)).await;
    for _ in runs {
        let task = decision_task(&c, DECIDERS).await;
        respond(&c, task.task_token(), vec![schedule_activity("a", "act")]).await;
    }
    server.advance(Duration::from_secs(1)).await;
    let mut tokens = std::collections::HashMap::new();
    for _ in runs {
        let task = activity_task(&c, WORKERS).await;
        let id = task.workflow_execution().unwrap().workflow_id().to_owned();
        tokens.insert(id, task.task_token().to_owned());
    }
    server.advance(Duration::from_secs(3)).await;
    c.respond_activity_task_completed()
        .task_token(&tokens["completes"])
        .send()
        .await
        .unwrap();
    c.respond_activity_task_failed()
        .task_token(&tokens["fails"])
        .send()
        .await
        .unwrap();
    for _ in 0..2 {
        let task = decision_task(&c, DECIDERS).await;
        let id = task.workflow_execution().unwrap().workflow_id();
        let close = match id {
            "completes" => complete_workflow(None),
            _ => fail_workflow("it failed", ""),
        };
        respond(&c, task.task_token(), vec![close]).await;
    }
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("is-terminated")
        .send()
        .await
        .unwrap();
    // One more run, whose first decision task nobody takes.
    start(&c, "waits", "wf").await;

    let text = scrape(&server, None).await;
    let d = r#"{domain="d",workflow_type="wf",workflow_version="1"}"#;
    expect(&text, &format!("swf_workflows_started_total{d}"), 4.0);
    expect(&text, &format!("swf_workflows_completed_total{d}"), 1.0);
    expect(&text, &format!("swf_workflows_failed_total{d}"), 1.0);
    expect(&text, &format!("swf_workflows_terminated_total{d}"), 1.0);
    expect(
        &text,
        &format!("swf_workflow_start_to_close_time_seconds_count{d}"),
        3.0,
    );
    expect(
        &text,
        &format!("swf_decision_tasks_completed_total{d}"),
        5.0,
    );
    let decision_wait = format!("swf_decision_task_schedule_to_start_time_seconds_sum{d}");
    expect(&text, &decision_wait, 6.0);
    let idle = r#"{domain="d",workflow_type="idle-wf",workflow_version="1"}"#;
    expect(&text, &format!("swf_workflows_started_total{idle}"), 0.0);
    let d = r#"{domain="d",activity_type="act",activity_version="1"}"#;
    expect(
        &text,
        &format!("swf_activity_tasks_completed_total{d}"),
        1.0,
    );
    expect(&text, &format!("swf_activity_tasks_failed_total{d}"), 1.0);
    let activity_wait = format!("swf_activity_task_schedule_to_start_time_seconds_sum{d}");
    expect(&text, &activity_wait, 3.0);
    let activity_run = format!("swf_activity_task_start_to_close_time_seconds_sum{d}");
    expect(&text, &activity_run, 6.0);
    let activity_whole = format!("swf_activity_task_schedule_to_close_time_seconds_sum{d}");
    expect(&text, &activity_whole, 8.0);
    // A histogram's buckets are cumulative: both 3 s runs are within 5 s, neither within 2.5.
    let bucket = |le: &str| {
        let on = r#"domain="d",activity_type="act",activity_version="1""#;
        format!(r#"swf_activity_task_start_to_close_time_seconds_bucket{{le="{le}",{on}}}"#)
    };
    expect(&text, &bucket("2.5"), 0.0);
    expect(&text, &bucket("5.0"), 2.0);
    let idle = r#"{domain="d",activity_type="idle-act",activity_version="1"}"#;
    expect(
        &text,
        &format!("swf_activity_tasks_completed_total{idle}"),
        0.0,
    );
    let pending = r#"swf_pending_tasks{domain="d",kind="decision",task_list="deciders"}"#;
    expect(&text, pending, 1.0);
    // The store's own: its writer's counters and histograms.
    for name in [
        "weft_commits_total",
        "weft_commit_seconds_count",
        "weft_commit_batch_size_count",
    ] {
        assert!(
            sample(&text, name).is_some_and(|n| n > 0.0),
            "{name}: {text}"
        );
    }
    assert!(text.ends_with("# EOF\n"));
}

#[tokio::test]
async fn task_lists_show_what_waits_and_who_polls() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "wf").await;
    start(&c, "one", "wf").await;
    start(&c, "two", "wf").await;
    let poller = c.clone();
    let poll = tokio::spawn(async move {
        poller
            .poll_for_activity_task()
            .domain(D)
            .task_list(crate::flow::task_list("idle"))
            .send()
            .await
    });
    server.until_polls_wait(1).await;
    let text = scrape(&server, None).await;
    // An open server has no tenants to label it by.
    expect(&text, "weft_long_polls_open{}", 1.0);

    let weft = weft_tests::guests::weft_client(&server);
    let lists = weft.task_lists(D).await.unwrap();
    let seen: Vec<_> = lists
        .iter()
        .map(|l| {
            (
                l.kind.name(),
                l.name.as_str(),
                l.pending,
                l.pollers,
                l.bound,
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("decision", DECIDERS, 2, 0, false),
            ("activity", "idle", 0, 1, false),
        ]
    );
    server.advance(Duration::from_secs(1)).await;
    poll.await.unwrap().unwrap();
    let unknown = weft.task_lists("no-such-domain").await.unwrap_err();
    assert!(
        unknown.to_string().contains("UnknownResourceFault"),
        "{unknown}"
    );
}

#[tokio::test]
async fn with_tenants_only_the_operators_token_may_scrape() {
    let server = TestServer::start_with(|config| {
        tenants::both(config);
        config.metrics_token = Some("operator-token-0123456789".into());
    })
    .await;
    register_domain(&ACME.client(&server), "acme-orders").await;
    register_domain(&GLOBEX.client(&server), "globex-orders").await;
    for (headers, code) in [
        (vec![], "MissingAuthenticationTokenException"),
        (
            vec![("Authorization", "Bearer not-the-token")],
            "AccessDeniedException",
        ),
    ] {
        let refused = get_metrics(&server, &headers).await;
        assert_eq!((refused.status, refused.error_code().as_str()), (403, code));
    }
    let text = scrape(&server, Some("operator-token-0123456789")).await;
    // Commits are counted for everyone; domains' metrics carry their tenant.
    assert!(
        sample(&text, "weft_commits_total").is_some_and(|n| n >= 2.0),
        "{text}"
    );

    // Without a token configured, a server with tenants lets nobody scrape.
    let closed = TestServer::start_with(tenants::both).await;
    let refused = get_metrics(&closed, &[]).await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.error_code(), "AccessDeniedException");
}

#[tokio::test]
async fn throttled_requests_are_counted_per_tenant() {
    let server = TestServer::start_with(|config| {
        let mut acme = ACME.config();
        acme.quotas.requests_per_second = Some(0.001);
        acme.quotas.request_burst = Some(2);
        config.tenants = vec![acme, GLOBEX.config()];
        config.metrics_token = Some("operator-token-0123456789".into());
    })
    .await;
    let acme = ACME.client(&server);
    let mut throttled = 0;
    for _ in 0..5 {
        let listed = acme
            .list_domains()
            .registration_status(weft_tests::aws_sdk_swf::types::RegistrationStatus::Registered)
            .send()
            .await;
        if let Err(e) = listed {
            let (code, _) = crate::common::fault(Err::<(), _>(e));
            assert_eq!(code, "ThrottlingException");
            throttled += 1;
        }
    }
    assert_eq!(throttled, 3, "a burst of 2, then nothing for 1000 s");
    let text = scrape(&server, Some("operator-token-0123456789")).await;
    expect(
        &text,
        r#"weft_throttled_requests_total{tenant="acme"}"#,
        3.0,
    );
    assert_eq!(
        sample(&text, r#"weft_throttled_requests_total{tenant="globex"}"#),
        None
    );
}

#[tokio::test]
async fn json_logs_carry_the_request_id_each_answer_names() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("weft.log");
    let data = dir.path().join("data");
    let weft = tokio::task::spawn_blocking({
        let (data, log) = (data.clone(), log.clone());
        move || {
            Weft::start_with(
                &data,
                &log,
                None,
                &["--log-format", "json"],
                "weft_host=debug",
            )
        }
    })
    .await
    .unwrap();
    let body = br#"{"name": "no-such-domain"}"#;
    let answer = weft_tests::raw_request(
        &weft.addr,
        Some("SimpleWorkflowService.DescribeDomain"),
        body,
    )
    .await;
    assert_eq!(answer.error_code(), "UnknownResourceFault");
    let id = answer
        .header("x-amzn-requestid")
        .expect("a request id")
        .to_owned();
    drop(weft);

    let log = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: not JSON: {l}")))
        .collect();
    let of_request: Vec<_> = lines
        .iter()
        .filter(|l| {
            l["spans"]
                .as_array()
                .is_some_and(|spans| spans.iter().any(|s| s["request_id"] == id.as_str()))
        })
        .collect();
    let messages: Vec<_> = of_request
        .iter()
        .map(|l| l["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages, ["fault", "answered"], "{log}");
    let fault = of_request[0];
    assert_eq!(fault["code"], "UnknownResourceFault");
    assert_eq!(fault["level"], "DEBUG");
    let span = &fault["spans"][0];
    assert_eq!(span["operation"], "DescribeDomain");
    assert_eq!(of_request[1]["status"], 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guests_log_lines_name_the_run_they_were_written_for() {
    let dir = tempfile::tempdir().unwrap();
    let (data, log) = (dir.path().join("data"), dir.path().join("weft.log"));
    let weft = tokio::task::spawn_blocking({
        let (data, log) = (data.clone(), log.clone());
        move || Weft::start_with(&data, &log, None, &["--log-format", "json"], "info")
    })
    .await
    .unwrap();
    let endpoint = format!("http://{}", weft.addr);
    let timeouts = weft_tests::aws_sdk_swf::config::timeout::TimeoutConfig::disabled();
    let c = weft_tests::client_at(&endpoint, timeouts);
    register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    let client = weft_tests::guests::WeftClient::new(&endpoint, "us-east-1").unwrap();
    let digest = client
        .upload_module(weft_tests::guests::guest("hostile-decider"))
        .await
        .unwrap()
        .digest;
    let bind = weft_tests::guests::Bind {
        module: digest,
        ..Default::default()
    };
    let kind = weft_tests::guests::BindingKind::Decision;
    client.bind(D, kind, DECIDERS, &bind).await.unwrap();
    // The hostile decider panics on this run: the SDK's panic hook logs where and why.
    let run = start_input(&c, "p", "panic").await;

    // The worker runs the decider on the task again after a second: a second panic line.
    let began = std::time::Instant::now();
    let lines = loop {
        let text = std::fs::read_to_string(&log).unwrap();
        let found: Vec<serde_json::Value> = text
            .lines()
            .filter_map(|l| {
                let line: serde_json::Value = serde_json::from_str(l).ok()?;
                let message = line["message"].as_str()?;
                (line["target"] == "weft::guest" && message.starts_with("panicked at "))
                    .then_some(line)
            })
            .collect();
        if found.len() >= 2 {
            break found;
        }
        assert!(
            began.elapsed().as_secs() < 30,
            "no second panic line in\n{text}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    for (number, line) in lines.iter().take(2).enumerate() {
        let task = line["spans"]
            .as_array()
            .and_then(|spans| spans.iter().find(|s| s["name"] == "task"))
            .unwrap_or_else(|| panic!("no task span: {line}"));
        assert_eq!(task["domain"], D, "{line}");
        assert_eq!(task["workflow_id"], "p", "{line}");
        assert_eq!(task["run_id"], run.as_str(), "{line}");
        assert_eq!(task["attempt"], number + 1, "{line}");
        assert_eq!(line["level"], "ERROR", "{line}");
    }
}

/// Starts workflow `workflow_id` of type `w` with `input`; its run id.
async fn start_input(
    c: &weft_tests::aws_sdk_swf::Client,
    workflow_id: &str,
    input: &str,
) -> String {
    c.start_workflow_execution()
        .domain(D)
        .workflow_id(workflow_id)
        .workflow_type(crate::flow::wf_type("w", "1"))
        .input(input)
        .send()
        .await
        .unwrap()
        .run_id
        .unwrap()
}
