//! `weft workflow batch` and `weft batch list|describe|cancel` through the real binary, on a
//! server whose clock the test moves.

use std::time::Duration;

use weft_tests::TestServer;

use super::weft;
use crate::common::register_domain;
use crate::flow::{D, register_workflow, start_with};

#[tokio::test]
async fn batch_jobs_are_made_followed_and_canceled_from_the_command_line() {
    let server = TestServer::start_manual().await;
    let swf = server.client();
    register_domain(&swf, D).await;
    register_workflow(&swf, "w").await;
    for n in 0..6 {
        start_with(&swf, &format!("cli-batch-{n}"), "w", |s| s.tag_list("old")).await;
    }

    let made = weft(
        &server,
        &[
            "workflow", "batch", "signal", "--tag", "old", "--signal", "wake", "--rate", "4",
            "--domain", D,
        ],
    );
    let made = made.await;
    assert!(made.ok, "{made:?}");
    let first = made.out().lines().next().unwrap_or_default().to_owned();
    let id = first
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(
        first.ends_with("signal  running  0 of 6 done  4/s"),
        "{made:?}"
    );
    let json = until_done(&server, &id, 4).await;
    assert_eq!(json["state"], "running");
    server.advance(Duration::from_secs(1)).await;
    let json = until_done(&server, &id, 6).await;
    assert_eq!(json["action"], "signal");
    let listed = weft(&server, &["batch", "list", "--domain", D]).await;
    assert!(
        listed
            .out()
            .starts_with(&format!("{id}  signal  done  6 of 6 done  4/s")),
        "{listed:?}"
    );

    let cancel = weft(
        &server,
        &[
            "workflow",
            "batch",
            "terminate",
            "--tag",
            "old",
            "--rate",
            "2",
            "--domain",
            D,
        ],
    );
    let cancel = cancel.await;
    let cancel_id = cancel
        .out()
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_owned();
    until_done(&server, &cancel_id, 2).await;
    let canceled = weft(&server, &["batch", "cancel", &cancel_id, "--domain", D]).await;
    assert!(
        canceled
            .out()
            .starts_with(&format!("{cancel_id}  terminate  canceled  2 of 6 done")),
        "{canceled:?}"
    );
    let refused = weft(
        &server,
        &["workflow", "batch", "signal", "--tag", "old", "--domain", D],
    )
    .await;
    assert!(
        !refused.ok && refused.stderr.contains("--signal NAME"),
        "{refused:?}"
    );
    let unpointed = weft(
        &server,
        &["workflow", "batch", "reset", "--tag", "old", "--domain", D],
    )
    .await;
    assert!(
        !unpointed.ok && unpointed.stderr.contains("--to first|last-good"),
        "{unpointed:?}"
    );
    // The runs left have no decision task started: each fails, with why.
    let reset = weft(
        &server,
        &[
            "workflow", "batch", "reset", "--tag", "old", "--to", "first", "--reason", "redo",
            "--domain", D,
        ],
    )
    .await;
    let id = reset
        .out()
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_owned();
    let json = until_done(&server, &id, 4).await;
    assert_eq!(
        (json["action"].as_str(), json["failed"].as_u64()),
        (Some("reset"), Some(4))
    );
}

/// `weft batch describe ID --json` once the job has acted on (or failed) `count` runs.
async fn until_done(server: &TestServer, id: &str, count: u64) -> serde_json::Value {
    let began = std::time::Instant::now();
    loop {
        let json = weft(server, &["batch", "describe", id, "--domain", D, "--json"])
            .await
            .json();
        let count_of = |member: &str| json[member].as_u64().unwrap_or(0);
        if count_of("done") + count_of("failed") >= count {
            return json;
        }
        assert!(began.elapsed() < Duration::from_secs(30), "{json}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
