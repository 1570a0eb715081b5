//! A task list's rate across nodes: with a limit of `WEFT_BENCH_RATE` (default 20) decision
//! tasks a second on one list, two nodes on one PostgreSQL database and eight pollers (four at
//! each, over HTTP) polling a backlog of 400 tasks for `WEFT_BENCH_SECONDS` (default 10): how
//! many tasks are handed out, per second overall and in the busiest second.
//!
//! `WEFT_TEST_POSTGRES=postgres://USER@HOST:PORT/DB cargo bench -p weft-tests --bench
//! list_rate`; without the variable one node on redb is measured. It prints figures and asserts
//! nothing about time.

#[allow(
    dead_code,
    reason = "this bench takes the set-up and the starts; the rest serves the other benches"
)]
mod one_activity;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use one_activity::{DECIDERS, DOMAIN, setup, start_named, start_node, task_list};
use weft_host::client::BindingKind;
use weft_tests::TestServer;
use weft_tests::guests::weft_client;

const BACKLOG: usize = 400;
const POLLERS: usize = 8;

fn main() {
    weft_tests::bench::run(run());
}

async fn run() {
    let rate: f64 = weft_tests::bench::setting("WEFT_BENCH_RATE", 20.0);
    let seconds: u64 = weft_tests::bench::setting("WEFT_BENCH_SECONDS", 10);
    let nodes = match weft_tests::test_postgres() {
        Some(url) => {
            let store = weft_tests::fresh_schema(&url);
            vec![
                start_node(Some(store.clone())).await,
                start_node(Some(store)).await,
            ]
        }
        None => {
            println!("(WEFT_TEST_POSTGRES unset: one node on redb)");
            vec![start_node(None).await]
        }
    };
    setup(&nodes[0].client()).await;
    start_named(&nodes, BACKLOG, "limited").await;
    let deciders = (BindingKind::Decision, DECIDERS);
    let weft = weft_client(&nodes[0]);
    let request = weft_host::client::ListLimitRequest {
        rate: Some(Some(rate)),
        concurrency: None,
    };
    let limited = weft.limit_task_list(DOMAIN, deciders, &request).await;
    limited.expect("the list is limited");
    for node in &nodes {
        until_limited(node).await;
    }

    let handed: Arc<Mutex<Vec<Duration>>> = Arc::default();
    let began = Instant::now();
    let until = began + Duration::from_secs(seconds);
    let pollers: Vec<_> = (0..POLLERS)
        .map(|p| {
            let (client, handed) = (nodes[p % nodes.len()].client(), handed.clone());
            tokio::spawn(async move {
                while Instant::now() < until {
                    let task = client
                        .poll_for_decision_task()
                        .domain(DOMAIN)
                        .task_list(task_list(DECIDERS))
                        .send()
                        .await
                        .expect("poll");
                    if !task.task_token().is_empty() && Instant::now() < until {
                        handed.lock().unwrap().push(began.elapsed());
                    }
                }
            })
        })
        .collect();
    for poller in pollers {
        poller.await.expect("a poller");
    }
    let handed = handed.lock().unwrap().clone();
    let mut per_second = vec![0usize; seconds as usize + 1];
    for at in &handed {
        per_second[at.as_secs() as usize] += 1;
    }
    println!(
        "Rate {rate}/s on one decision list, {} node(s), {POLLERS} pollers, {seconds} s:",
        nodes.len()
    );
    println!(
        "  {} tasks handed out: {:.1}/s overall; busiest second {}; each second: {:?}",
        handed.len(),
        handed.len() as f64 / seconds as f64,
        per_second.iter().max().copied().unwrap_or(0),
        &per_second[..seconds as usize]
    );
    for node in nodes {
        node.stop().await;
    }
}

/// Waits until `node` knows the list's rate.
async fn until_limited(node: &TestServer) {
    let weft = weft_client(node);
    let began = Instant::now();
    loop {
        let lists = weft.task_lists(DOMAIN).await.expect("the lists");
        if lists.iter().any(|l| l.name == DECIDERS && l.rate.is_some()) {
            return;
        }
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "the node never heard of the rate"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
