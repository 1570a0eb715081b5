//! What an import (`POST /v1/domains/{domain}/imports`) may not do: break what SWF's own calls
//! keep (one open run per workflow id, the open-run limit, names and ids free of control
//! characters, SWF's limits on events and their members), take more memory than its limit,
//! or fail requests made beside it.

use futures_util::future::join_all;
use serde_json::Value;
use weft_tests::imports::{import_body, signalled_history};
use weft_tests::{RawResponse, TestServer, history_json};

use crate::common::expect_fault;
use crate::flow::*;

/// Imports `events` into [`D`] as `workflow_id`/`run_id`.
async fn import(
    server: &TestServer,
    workflow_id: &str,
    run_id: &str,
    events: Vec<Value>,
) -> RawResponse {
    let body = import_body(workflow_id, run_id, events);
    server
        .http("POST", &format!("/v1/domains/{D}/imports"), &body)
        .await
}

/// How many runs of [`D`] are open.
async fn open_runs(c: &weft_tests::aws_sdk_swf::Client) -> i32 {
    let count = c.count_open_workflow_executions().domain(D);
    count
        .start_time_filter(since_ever())
        .send()
        .await
        .unwrap()
        .count()
}

#[tokio::test]
async fn a_closed_run_imported_under_an_open_workflow_id_leaves_that_run_open() {
    let (server, c) = server().await;
    register_workflow(&c, "w").await;
    start(&c, "open", "w").await;
    let imported = import(&server, "open", "imported", signalled_history(1, "x")).await;
    assert_eq!(imported.status, 200, "{}", imported.body);

    signal(&c, "open", "still-there").await;
    let again = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id("open")
        .workflow_type(wf_type("w", "1"))
        .send()
        .await;
    expect_fault(again, "WorkflowExecutionAlreadyStartedFault");
    assert_eq!(open_runs(&c).await, 1);
}

#[tokio::test]
async fn an_open_run_is_not_imported_into_a_full_domain() {
    let server = TestServer::start_with(|config| config.limits.max_open_runs = 1).await;
    let c = server.client();
    crate::common::register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    let run = start(&c, "open", "w").await;
    // An open run's history, imported as another workflow's.
    let events = history_json(&server.addr().to_string(), D, "open", &run).await;
    let refused = import(&server, "another", "imported", events).await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert_eq!(refused.error_code(), "LimitExceededFault");
    assert_eq!(open_runs(&c).await, 1);
}

/// On PostgreSQL a NUL in a `text` key fails its statement, which must fail no request made
/// beside it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_with_a_control_character_in_an_id_is_refused_and_fails_nothing_beside_it() {
    let (server, c) = server().await;
    register_workflow(&c, "w").await;
    start(&c, "target", "w").await;
    for round in 0..10 {
        let imports = ["nul\u{0}", "bell\u{7}", "c1\u{85}"].map(|id| {
            let events = signalled_history(1, "x");
            let server = &server;
            async move { import(server, id, &format!("r{round}"), events).await }
        });
        let signals = (0..8).map(|_| async {
            let sent = c
                .signal_workflow_execution()
                .domain(D)
                .workflow_id("target");
            sent.signal_name("s")
                .send()
                .await
                .map_err(|e| format!("{e:?}"))
        });
        let (imports, signals) = tokio::join!(join_all(imports), join_all(signals));
        for refused in imports {
            assert_eq!(refused.status, 400, "round {round}: {}", refused.body);
            assert!(
                refused.body.contains("at 'workflowId'") && refused.body.contains("control"),
                "round {round}: {}",
                refused.body
            );
        }
        assert!(
            signals.iter().all(Result::is_ok),
            "round {round}: {signals:?}"
        );
    }
    // The same in an event (a type's name), and in SWF's own calls.
    let mut events = signalled_history(1, "x");
    events[0]["workflowExecutionStartedEventAttributes"]["workflowType"]["name"] = "w\u{0}".into();
    let refused = import(&server, "w", "r", events).await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(
        refused.body.contains("workflowType.name"),
        "{}",
        refused.body
    );
    let start = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id("nul\u{0}")
        .workflow_type(wf_type("w", "1"))
        .send()
        .await;
    expect_fault(start, "ValidationException");
}

#[tokio::test]
async fn imported_events_keep_swf_s_limits() {
    let (server, c) = server().await;
    let refused = |response: RawResponse, what: &str| {
        assert_eq!(response.status, 400, "{what}: {}", response.body);
        response.body
    };
    // 25,001 events: a run holds 25,000.
    let body = refused(
        import(&server, "long", "r", signalled_history(24_998, "")).await,
        "too many events",
    );
    assert!(
        body.contains("has 25001 events; a run holds at most 25000"),
        "{body}"
    );
    // A signal's input one character over the model's 32,768, and one of 5 MB.
    for input in ["x".repeat(32_769), "x".repeat(5 << 20)] {
        let body = refused(
            import(&server, "big", "r", signalled_history(1, &input)).await,
            "a long input",
        );
        assert!(
            body.contains("'events.3.member.workflowExecutionSignaledEventAttributes.input'")
                && body.contains("less than or equal to 32768"),
            "{body}"
        );
    }
    // At the limits, it is stored.
    let stored = import(
        &server,
        "full",
        "r",
        signalled_history(1, &"x".repeat(32_768)),
    )
    .await;
    assert_eq!(stored.status, 200, "{}", stored.body);
    let events = history(&c, "full", "r").await;
    assert_eq!(events.len(), 4);
}

#[tokio::test]
async fn an_import_over_the_import_limit_is_refused() {
    let server = TestServer::start_with(|config| config.limits.max_import_bytes = 1 << 20).await;
    let c = server.client();
    crate::common::register_domain(&c, D).await;
    // 40 signals of 30,000 characters: 1.2 MB.
    let refused = import(
        &server,
        "big",
        "r",
        signalled_history(40, &"x".repeat(30_000)),
    )
    .await;
    assert_eq!(refused.status, 413, "{}", refused.body);
    assert!(
        refused.body.contains("exceeds 1048576 bytes"),
        "{}",
        refused.body
    );
    let fits = import(
        &server,
        "fits",
        "r",
        signalled_history(30, &"x".repeat(30_000)),
    )
    .await;
    assert_eq!(fits.status, 200, "{}", fits.body);
}
