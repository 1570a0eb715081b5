//! Polls cost nothing once they are over: the real `weft serve`'s memory after 30,000 abandoned
//! polls on fresh task-list names (a typo, a client making names up, a tenant flooding) stays
//! within a few MB of where it was, and what a burst of waiting polls held is given back to the
//! system once their connections close.

use std::time::{Duration, Instant};

use weft_tests::polls;
use weft_tests::process::Weft;

/// Polls waiting at once, each on its own connection: below the open tenant's 1,000 long
/// polls and an address's 1,024 connections.
const POLLERS: usize = 900;
/// Rounds of [`POLLERS`] polls before the measure, to warm up: the allocator's arenas and the
/// server's buffers grow to what this load needs, whatever the names.
const WARM_UP_ROUNDS: usize = 6;
/// Rounds measured: 30,600 polls.
const ROUNDS: usize = 34;
/// How much the resident set may grow over those polls.
const SLACK_BYTES: u64 = 4 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandoned_polls_on_fresh_task_list_names_leave_no_memory_behind() {
    // The waiting polls are the same on both stores: run once, on redb.
    if weft_tests::test_postgres().is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let weft = serving_domain_d(dir.path()).await;

    for round in 0..WARM_UP_ROUNDS {
        abandon_polls(&weft.addr, round).await;
    }
    let start = settled(&weft).await;
    for round in WARM_UP_ROUNDS..WARM_UP_ROUNDS + ROUNDS {
        abandon_polls(&weft.addr, round).await;
    }
    let end = settled(&weft).await;
    assert!(
        end <= start + SLACK_BYTES,
        "{} abandoned polls on fresh names took the resident set from {} to {} KiB",
        POLLERS * ROUNDS,
        start >> 10,
        end >> 10
    );
}

/// `weft serve` on redb in `dir`, with 60-second polls and domain `d` registered.
async fn serving_domain_d(dir: &std::path::Path) -> Weft {
    let (data, log) = (dir.join("data"), dir.join("weft.log"));
    let weft = tokio::task::spawn_blocking(move || {
        Weft::start_with(&data, &log, None, &["--poll-timeout", "60"], "warn")
    })
    .await
    .unwrap();
    let register = br#"{"name":"d","workflowExecutionRetentionPeriodInDays":"1"}"#;
    let target = Some("SimpleWorkflowService.RegisterDomain");
    let registered = weft_tests::raw_request(&weft.addr, target, register).await;
    assert_eq!(registered.status, 200, "{registered:?}");
    weft
}

/// The server's resident set once what the polls freed has been given back: the least seen
/// over a while longer than the server takes to look (`api/edge/trim.rs`, every 5 s).
async fn settled(weft: &Weft) -> u64 {
    let began = Instant::now();
    let mut least = weft.resident_bytes();
    while began.elapsed() < Duration::from_secs(7) {
        tokio::time::sleep(Duration::from_millis(200)).await;
        least = least.min(weft.resident_bytes());
    }
    least
}

/// What a burst of polls may leave resident once closed: each held about 23 KiB, which
/// glibc's allocator kept until the server began to give it back.
const KEPT_AFTER_BURST: u64 = 6 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_closed_polls_held_is_given_back() {
    if weft_tests::test_postgres().is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let weft = serving_domain_d(dir.path()).await;
    let before = weft.resident_bytes();
    abandon_polls(&weft.addr, 0).await;
    // The server looks every few seconds whether enough connections closed to give back.
    let began = Instant::now();
    let mut now = weft.resident_bytes();
    while now > before + KEPT_AFTER_BURST && began.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(200)).await;
        now = weft.resident_bytes();
    }
    assert!(
        now <= before + KEPT_AFTER_BURST,
        "{POLLERS} closed polls left the resident set at {} KiB, from {} KiB",
        now >> 10,
        before >> 10
    );
}

/// Sends [`POLLERS`] `PollForActivityTask`s in domain `d`, each on a list of its own and a
/// connection of its own; once the server shows them all waiting, closes the connections and
/// waits until it shows none.
async fn abandon_polls(addr: &str, round: usize) {
    let list = |i| format!("list-{round}-{i}");
    let connections = polls::open_polls(addr, "d", POLLERS, list).await;
    drop(connections);
    polls::until_waiting(addr, "d", 0).await;
}
