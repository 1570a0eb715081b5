//! Several nodes on one PostgreSQL database (issue 16): one-activity workflows per second with
//! 1, 2 and 3 nodes sharing a fresh schema, against one node on redb on the same machine, with
//! the database round trips each workflow cost.
//!
//! Every node is a real server in this process, as in `workflows.rs`; the starters, deciders and
//! workers (external, over HTTP) are spread across the nodes round the list, as a load balancer
//! would spread them. It prints figures and asserts nothing about time.
//!
//! `WEFT_TEST_POSTGRES=postgres://USER@HOST:PORT/DB cargo bench -p weft-tests --bench nodes`;
//! without the variable only redb runs. `WEFT_BENCH_WORKFLOWS` sets the workflows per run
//! (default 500).

mod one_activity;

use weft_tests::TestServer;

/// The most nodes measured.
const MAX_NODES: usize = 3;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let total = one_activity::workflows();
        println!("redb, 1 node:");
        measure(vec![one_activity::start_node(None).await], total).await;

        let Some(url) = weft_tests::test_postgres() else {
            println!(
                "PostgreSQL: set WEFT_TEST_POSTGRES=postgres://USER@HOST:PORT/DB to measure it"
            );
            return;
        };
        for count in 1..=MAX_NODES {
            let store = weft_tests::fresh_schema(&url);
            let mut nodes = Vec::new();
            for _ in 0..count {
                nodes.push(one_activity::start_node(Some(store.clone())).await);
            }
            println!(
                "PostgreSQL, {count} node{}:",
                if count == 1 { "" } else { "s" }
            );
            measure(nodes, total).await;
        }
    });
}

/// Sets up the domain and types through the first node, runs `total` workflows across all of
/// them, prints the figures and stops the nodes.
async fn measure(nodes: Vec<TestServer>, total: usize) {
    one_activity::setup(&nodes[0].client()).await;
    one_activity::run_http(&nodes, total).await.print();
    for node in nodes {
        node.stop().await;
    }
}
