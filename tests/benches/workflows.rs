//! Workflows per second, and how long a scheduled task takes to reach a waiting poller.
//!
//! Runs N workflows of one activity each (default 500; `WEFT_BENCH_WORKFLOWS` to change) against
//! the real server in this process, with external deciders and activity workers over HTTP (see
//! `one_activity` for what they do and how the hand-off is measured). It prints figures and
//! asserts nothing about time.
//!
//! On redb it runs twice: durably, then with the state in memory only (`weft serve
//! --ephemeral`), so that the CPU a durable commit costs shows.
//!
//! `cargo bench -p weft-tests --bench workflows`. `WEFT_BENCH_DIR` picks the disk the data goes
//! to (default: the system's temporary directory).

mod one_activity;

fn main() {
    weft_tests::bench::run(async {
        let total = one_activity::workflows();
        let store = weft_tests::test_store();
        let durable = one_activity::start_node(store.clone()).await;
        one_activity::setup(&durable.client()).await;
        let run = one_activity::run_http(std::slice::from_ref(&durable), total).await;
        run.print();
        durable.stop().await;
        if store.is_none() {
            let ephemeral = one_activity::start_node_with(None, true).await;
            one_activity::setup(&ephemeral.client()).await;
            let run = one_activity::run_http(std::slice::from_ref(&ephemeral), total).await;
            run.print_kept("the state in memory only (--ephemeral)");
            ephemeral.stop().await;
        }
    });
}
