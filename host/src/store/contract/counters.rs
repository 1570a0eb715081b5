//! The contract's rules for counters: atomic, and a limit checked against one holds exactly;
//! and the PostgreSQL schema that kept them in one row upgraded.

use super::nodes::{self, backends, concurrently};
use crate::model::Kind;
use crate::store::{Counter, Reads, StoreError, Writes};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn counters_are_atomic() {
    for nodes in backends().await {
        nodes.add_domain().await;
        concurrently(&nodes, 8, 25, |store, _, _| async move {
            let add = store.apply(|tx| tx.add_count(1, Counter::OpenRuns, 1));
            add.await.unwrap();
        })
        .await;
        let count = nodes.node(1).read(|tx| tx.count(1, Counter::OpenRuns));
        assert_eq!(count.await.unwrap(), 200, "{}", nodes.backend);
        nodes.close().await;
    }
}

/// A check's refusal of a change that would pass a limit, as an operation's fault would be,
/// or the store's failure (near a limit, PostgreSQL's transactions may deadlock, and run again).
#[derive(Debug)]
enum Full {
    Full,
    Store(StoreError),
}

impl From<StoreError> for Full {
    fn from(error: StoreError) -> Self {
        Full::Store(error)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_limit_checked_before_adding_holds_exactly() {
    // A small limit, and one far enough above zero that a backend which checks cheaply far
    // from a limit (PostgreSQL's shards) does so for the first adds, and exactly for the last.
    fill_to(1, 1, 3).await;
    fill_to(2_100, 150, 300).await;
}

/// Has 8 workers on two nodes each make `attempts` checked adds up to `limit`, mostly of one,
/// as starts add, now and then of `big`, as an import may; asserts that they stop within
/// `big` of the limit without passing it.
async fn fill_to(limit: u64, big: u64, attempts: usize) {
    for nodes in backends().await {
        nodes.add_domain().await;
        let added = concurrently(&nodes, 8, attempts, move |store, w, n| async move {
            let delta: u64 = if (w + n) % 97 == 0 { big } else { 1 };
            let check =
                move |tx: &dyn Reads| match tx.reaches(1, Counter::OpenRuns, limit + 1 - delta)? {
                    true => Err(Full::Full),
                    false => Ok(()),
                };
            let apply =
                move |tx: &mut dyn Writes, ()| tx.add_count(1, Counter::OpenRuns, delta as i64);
            match store.write(check, apply).await {
                Ok(()) => delta,
                Err(Full::Full) => 0,
                Err(Full::Store(error)) => panic!("the store failed: {error}"),
            }
        })
        .await;
        let count = nodes.node(1).read(|tx| tx.count(1, Counter::OpenRuns));
        let count = count.await.unwrap();
        let backend = nodes.backend;
        assert_eq!(count, added.iter().sum::<u64>(), "{backend}");
        assert!(count <= limit, "{backend}: {count} passed {limit}");
        assert!(
            count > limit - big,
            "{backend}: stopped at {count} of {limit}"
        );
        nodes.close().await;
    }
}

/// PostgreSQL's schema 1 kept each counter in one row; schema 2 keeps it in shards
/// (`pg/counters.rs`), the first holding what the row held.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_postgres_schema_1_is_upgraded_with_its_counts() {
    let Some(url) = nodes::postgres_url() else {
        return;
    };
    let rows = "INSERT INTO counters VALUES (1, 2, 42), (1, 0, 3), (2, 2, 7)";
    let opened = nodes::postgres_schema_1(&url, rows).await.open().await;
    let store = opened.expect("schema 1 opens, upgraded").store;
    let count = |domain, counter| store.read(move |tx| tx.count(domain, counter));
    assert_eq!(count(1, Counter::OpenRuns).await.unwrap(), 42);
    assert_eq!(count(1, Counter::Types(Kind::Workflow)).await.unwrap(), 3);
    assert_eq!(count(2, Counter::OpenRuns).await.unwrap(), 7);
    let closed = store.apply(|tx| tx.add_count(1, Counter::OpenRuns, -2));
    closed.await.unwrap();
    let full = store.read(|tx| tx.reaches(1, Counter::OpenRuns, 40));
    assert!(full.await.unwrap(), "40 open runs reach a limit of 40");
    assert_eq!(count(1, Counter::OpenRuns).await.unwrap(), 40);
}
