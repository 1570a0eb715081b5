//! The contract's rule for signals, where a backend has them: a node hears what the other
//! nodes committed, never its own commits (it acts on those as it makes them).

use std::time::Duration;

use tokio::sync::mpsc::UnboundedReceiver;

use super::nodes::{Nodes, backends};
use crate::clock::Timestamp;
use crate::model::{Slot, TaskKind};
use crate::store::{Deadline, Signal, Store};

/// How long a signal may take to come.
const PATIENCE: Duration = Duration::from_secs(10);

/// Queues a task on list `list` through `store`.
async fn queue(store: &Store, list: &str) {
    let slot = Slot {
        list: list.into(),
        rank: 0,
        order: 1,
    };
    let push = store.apply(move |tx| tx.push_task(1, TaskKind::Activity, &slot, (1, 1)));
    push.await.expect("task queued");
}

/// The list of the next `Queued` signal, waiting at most `wait`.
async fn next_queued(signals: &mut UnboundedReceiver<Signal>, wait: Duration) -> Option<String> {
    let next = async {
        loop {
            match signals.recv().await? {
                Signal::Queued { list, .. } => return Some(list),
                _ => continue,
            }
        }
    };
    tokio::time::timeout(wait, next).await.ok().flatten()
}

/// What node 0 hears, once it hears node 1 (until then, node 1's notices may go unheard), in
/// a domain both serve; `None` if the backend has no signals.
async fn hearing(nodes: &mut Nodes) -> Option<UnboundedReceiver<Signal>> {
    let mut heard = nodes.opened[0].signals.take()?;
    nodes.add_domain().await;
    let mut warming = 0;
    while next_queued(&mut heard, Duration::from_millis(100))
        .await
        .is_none()
    {
        assert!(
            warming < 100,
            "{}: node 0 never hears node 1",
            nodes.backend
        );
        queue(nodes.node(1), &format!("warm {warming}")).await;
        warming += 1;
    }
    Some(heard)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_node_hears_the_other_nodes_commits_and_not_its_own() {
    for mut nodes in backends().await {
        let Some(mut heard) = hearing(&mut nodes).await else {
            nodes.close().await;
            continue;
        };
        queue(nodes.node(0), "own").await;
        queue(nodes.node(1), "other").await;
        // Signals come in commit order: node 0's own would come first.
        let first = loop {
            let list = next_queued(&mut heard, PATIENCE).await;
            let list = list.expect("node 1's queued task is heard");
            if !list.starts_with("warm") {
                break list;
            }
        };
        assert_eq!(first, "other", "{}", nodes.backend);
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_node_hears_when_the_earliest_deadline_another_node_set_comes() {
    for mut nodes in backends().await {
        let Some(mut heard) = hearing(&mut nodes).await else {
            nodes.close().await;
            continue;
        };
        let at = Timestamp::from_millis;
        nodes
            .node(1)
            .apply(move |tx| {
                tx.set_deadline(at(7_000), 1, 1, Deadline::Purge)?;
                tx.set_deadline(at(5_000), 2, 1, Deadline::Purge)
            })
            .await
            .expect("deadlines set");
        // Told the time, a timer loop need not read the store to learn it.
        let told = async {
            loop {
                if let Signal::Deadline(told) = heard.recv().await? {
                    return Some(told);
                }
            }
        };
        let told = tokio::time::timeout(PATIENCE, told).await.ok().flatten();
        assert_eq!(told, Some(Some(at(5_000))), "{}", nodes.backend);
        nodes.close().await;
    }
}
