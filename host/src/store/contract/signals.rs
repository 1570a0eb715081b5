//! The contract's rule for signals, where a backend has them: a node hears what the other
//! nodes committed, never its own commits (it acts on those as it makes them).

use std::time::Duration;

use tokio::sync::mpsc::UnboundedReceiver;

use super::nodes::backends;
use crate::model::{Slot, TaskKind};
use crate::store::{Signal, Store};

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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_node_hears_the_other_nodes_commits_and_not_its_own() {
    for mut nodes in backends().await {
        let Some(mut heard) = nodes.opened[0].signals.take() else {
            nodes.close().await;
            continue;
        };
        nodes.add_domain().await;
        // Node 0 listens once it hears node 1: until then, node 1's notices may go unheard.
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
