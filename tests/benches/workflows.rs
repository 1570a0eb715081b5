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
        let ephemeral = [false].into_iter().chain(store.is_none().then_some(true));
        for ephemeral in ephemeral {
            let server = one_activity::start_node_with(store.clone(), ephemeral).await;
            one_activity::setup(&server.client()).await;
            let run = one_activity::run_http(std::slice::from_ref(&server), total).await;
            run.print_kept(match ephemeral {
                false => "every change durably committed",
                true => "the state in memory only (--ephemeral)",
            });
            server.stop().await;
        }
    });
}
