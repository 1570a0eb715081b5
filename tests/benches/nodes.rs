//! Several nodes on one PostgreSQL database (issues 16 and 31): one-activity workflows per
//! second, and starts alone, with 1, 2 and 3 nodes sharing a fresh schema, against one node on
//! redb on the same machine; the database round trips per workflow and per request, and the
//! CPU each workflow cost the bench process (the nodes and their clients) and the database;
//! and what an idle node sends the database: with no work, and with 500 polls waiting.
//!
//! Every node is a real server in this process, as in `workflows.rs`; the starters, deciders and
//! workers (external, over HTTP) are spread across the nodes round the list, as a load balancer
//! would spread them. It prints figures and asserts nothing about time.
//!
//! `WEFT_TEST_POSTGRES=postgres://USER@HOST:PORT/DB cargo bench -p weft-tests --bench nodes`;
//! without the variable only redb runs. `WEFT_BENCH_WORKFLOWS` sets the workflows per run
//! (default 500). One node runs again with 1 ms and 5 ms added to every round trip between it
//! and the database, through a delaying proxy (`latency/mod.rs`), as if on separate machines.
//! `WEFT_BENCH_NODES=N` measures only N PostgreSQL nodes, for a quick look at one change.

mod latency;
mod one_activity;

use std::time::{Duration, Instant};

use weft_host::StoreUrl;
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::types::TaskList;

/// The most nodes measured.
const MAX_NODES: usize = 3;

/// The round-trip delays added between a node and the database.
const DELAYS: [Duration; 2] = [Duration::from_millis(1), Duration::from_millis(5)];

/// How long an idle node is watched.
const IDLE_FOR: Duration = Duration::from_secs(10);

/// The polls left waiting on an idle node.
const WAITING_POLLS: usize = 500;

fn main() {
    weft_tests::bench::run(async {
        let total = one_activity::workflows();
        let only = std::env::var("WEFT_BENCH_NODES").ok();
        if let (Some(count), Some(url)) = (only, weft_tests::test_postgres()) {
            let count: usize = count
                .parse()
                .expect("WEFT_BENCH_NODES is a number of nodes");
            println!("PostgreSQL, {count} node(s):");
            measure(nodes(&url, count).await, nodes(&url, count).await, total).await;
            return;
        }
        println!("redb, 1 node:");
        let node = || one_activity::start_node(None);
        measure(vec![node().await], vec![node().await], total).await;

        let Some(url) = weft_tests::test_postgres() else {
            println!(
                "PostgreSQL: set WEFT_TEST_POSTGRES=postgres://USER@HOST:PORT/DB to measure it"
            );
            return;
        };
        for count in 1..=MAX_NODES {
            println!(
                "PostgreSQL, {count} node{}:",
                if count == 1 { "" } else { "s" }
            );
            measure(nodes(&url, count).await, nodes(&url, count).await, total).await;
        }
        idle(&url).await;
        for delay in DELAYS {
            let link = match latency::Delayed::start(&url, delay).await {
                Ok(link) => link,
                Err(error) => {
                    println!("latency: cannot add {delay:?}: {error}");
                    return;
                }
            };
            println!(
                "PostgreSQL, 1 node, {delay:?} added to each round trip (measured {:.2} ms):",
                link.measured().await.as_secs_f64() * 1e3
            );
            measure(
                nodes(link.url(), 1).await,
                nodes(link.url(), 1).await,
                total,
            )
            .await;
        }
    });
}

/// `count` nodes sharing a fresh schema of the database `url` names.
async fn nodes(url: &str, count: usize) -> Vec<TestServer> {
    let store: StoreUrl = weft_tests::fresh_schema(url);
    let mut nodes = Vec::new();
    for _ in 0..count {
        nodes.push(one_activity::start_node(Some(store.clone())).await);
    }
    nodes
}

/// Runs `total` one-activity workflows on `workflows` and `total` starts alone on `starts`
/// (fresh nodes each, set up through their first), prints the figures and stops the nodes.
async fn measure(workflows: Vec<TestServer>, starts: Vec<TestServer>, total: usize) {
    one_activity::setup(&workflows[0].client()).await;
    one_activity::run_http(&workflows, total).await.print();
    stop(workflows).await;

    one_activity::setup(&starts[0].client()).await;
    let meter = one_activity::Meter::start(&starts);
    one_activity::start_named(&starts, total, "start").await;
    let mut figures = meter.figures(total, Instant::now());
    figures.requests = total;
    println!(
        "{total} starts alone: {:.0} starts/s, {:.0} µs of CPU per start",
        figures.per_second(),
        figures.cpu_per_workflow()
    );
    figures.print_database();
    stop(starts).await;
}

/// Prints the round trips per second of a node on PostgreSQL (with the usual 60-second long
/// polls) that has no work, then of one with [`WAITING_POLLS`] polls waiting on a list.
async fn idle(url: &str) {
    let store = weft_tests::fresh_schema(url);
    let node = TestServer::start_in(None, move |config| config.store = Some(store.clone())).await;
    one_activity::setup(&node.client()).await;
    let stats = node.writer_stats().clone();
    let watch = || async {
        // Settled first: start-up and setup are not idleness.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let before = stats.round_trips();
        tokio::time::sleep(IDLE_FOR).await;
        (stats.round_trips() - before) as f64 / IDLE_FOR.as_secs_f64()
    };
    let quiet = watch().await;
    let polls: Vec<_> = (0..WAITING_POLLS)
        .map(|_| {
            let client = node.client();
            tokio::spawn(async move {
                let list = TaskList::builder().name("idle").build().expect("list");
                let _ = client
                    .poll_for_activity_task()
                    .domain(one_activity::DOMAIN)
                    .task_list(list)
                    .send()
                    .await;
            })
        })
        .collect();
    let waiting = watch().await;
    println!(
        "PostgreSQL, an idle node: {quiet:.1} round trips/s with no work, {waiting:.1} with \
         {WAITING_POLLS} polls waiting"
    );
    for poll in polls {
        poll.abort();
    }
    node.stop().await;
}

async fn stop(nodes: Vec<TestServer>) {
    for node in nodes {
        node.stop().await;
    }
}
