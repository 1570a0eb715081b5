//! The contract's rules for task lists a node may know empty (on PostgreSQL, `pg/lists.rs`):
//! a pop still finds every task that is there, whoever queued it and whatever a node
//! learned of the list before.

use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use std::collections::BTreeSet;

use super::nodes::{backends, concurrently, scope};
use crate::model::{Slot, TaskKind};
use crate::store::{About, Reads, Store, StoreError};

/// How long a task queued through another node may take to be found.
const PATIENCE: Duration = Duration::from_secs(10);

fn slot(order: u64) -> Slot {
    Slot {
        list: "l".into(),
        rank: 0,
        order,
    }
}

/// What a poll of list `l` says ahead, and its check, which has nothing to check.
fn poll_of_l() -> (
    About,
    impl FnOnce(&dyn Reads) -> Result<(), StoreError> + Clone,
) {
    let about = About::Poll {
        scope: scope(),
        domain: "d".into(),
        kind: TaskKind::Activity,
        list: "l".into(),
    };
    (about, |_: &dyn Reads| Ok(()))
}

/// Pops list `l` through `store`.
async fn pop(store: &Store) -> Option<(u64, u64)> {
    let popped = store.apply(|tx| tx.pop_task(1, TaskKind::Activity, "l"));
    popped.await.expect("popped")
}

/// Queues task `n` (run `n`, scheduled `n`) on list `l` through `store`.
async fn queue(store: &Store, n: u64) {
    let push = store.apply(move |tx| tx.push_task(1, TaskKind::Activity, &slot(n), (n, n)));
    push.await.expect("queued");
}

/// The tasks left on list `l`.
async fn left(store: &Store) -> u64 {
    let count = store.read(|tx| tx.pending_tasks(1, TaskKind::Activity, "l"));
    count.await.expect("counted")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_list_found_empty_gives_what_either_node_queues_there_next() {
    for nodes in backends().await {
        let backend = nodes.backend;
        assert_eq!(pop(nodes.node(0)).await, None, "{backend}");
        // Left by the node that found the list empty.
        queue(nodes.node(0), 1).await;
        assert_eq!(pop(nodes.node(0)).await, Some((1, 1)), "{backend}");
        assert_eq!(pop(nodes.node(0)).await, None, "{backend}");
        // Queued through the other node: found once the node hears of it.
        queue(nodes.node(1), 2).await;
        let began = Instant::now();
        let found = loop {
            match pop(nodes.node(0)).await {
                Some(task) => break task,
                None if began.elapsed() < PATIENCE => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                None => panic!("{backend}: a task queued through node 1 is never found"),
            }
        };
        assert_eq!(found, (2, 2), "{backend}");
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_task_queued_and_claimed_in_one_transaction_leaves_nothing() {
    for nodes in backends().await {
        let backend = nodes.backend;
        assert_eq!(pop(nodes.node(0)).await, None, "{backend}");
        let claimed = nodes.node(0).apply(|tx| {
            for n in [3, 1, 2] {
                tx.push_task(1, TaskKind::Activity, &slot(n), (n, n))?;
            }
            tx.remove_task(1, TaskKind::Activity, &slot(1))?;
            Ok::<_, StoreError>((
                tx.pop_task(1, TaskKind::Activity, "l")?,
                tx.pop_task(1, TaskKind::Activity, "l")?,
            ))
        });
        let claimed = claimed.await.expect("claimed");
        assert_eq!(claimed, (Some((2, 2)), Some((3, 3))), "{backend}: in order");
        assert_eq!(left(nodes.node(1)).await, 0, "{backend}");
        assert_eq!(pop(nodes.node(1)).await, None, "{backend}");
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_task_another_node_held_and_gave_back_is_found() {
    for nodes in backends().await {
        if nodes.opened.len() < 2 {
            // One writer: a transaction cannot see another's held task.
            nodes.close().await;
            continue;
        }
        let backend = nodes.backend;
        queue(nodes.node(1), 1).await;
        // Node 1 claims the task and holds it until node 0 has looked, then rolls back.
        let (held, holding) = mpsc::channel();
        let (looked, look) = mpsc::channel::<()>();
        let look = Arc::new(Mutex::new(look));
        let giving_back = nodes.node(1).apply(move |tx| {
            let popped = tx.pop_task(1, TaskKind::Activity, "l")?;
            // A second attempt, if any, has no one to wait for.
            if held.send(popped).is_ok() {
                let _ = look.lock().expect("one holder").recv();
            }
            Err::<(), _>(StoreError::Aborted)
        });
        let node_0_looks = async {
            let holding = tokio::task::spawn_blocking(move || holding.recv().expect("held"));
            assert_eq!(holding.await.unwrap(), Some((1, 1)), "{backend}");
            assert_eq!(pop(nodes.node(0)).await, None, "{backend}: held by node 1");
            looked.send(()).expect("node 1 waits");
        };
        let (given_back, ()) = tokio::join!(giving_back, node_0_looks);
        assert!(given_back.is_err(), "{backend}");
        assert_eq!(
            pop(nodes.node(0)).await,
            Some((1, 1)),
            "{backend}: given back"
        );
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn tasks_taken_ahead_for_polls_are_claimed_once_and_the_rest_stay_queued() {
    for nodes in backends().await {
        let backend = nodes.backend;
        nodes.add_domain().await;
        let queue_all = |tx: &mut dyn crate::store::Writes| {
            (1..=60).try_for_each(|n| tx.push_task(1, TaskKind::Activity, &slot(n), (n, n)))
        };
        nodes.node(0).apply(queue_all).await.expect("queued");
        // Polls in batches, as a busy node gets them: every other one claims nothing (its
        // poller went away, or it failed), and leaves its task taken ahead unclaimed.
        let claimed = concurrently(&nodes, 16, 5, |store, w, _| async move {
            let (about, check) = poll_of_l();
            let claim = store.write_if_waited(Some(about), check, move |tx, ()| match w % 2 {
                0 => tx.pop_task(1, TaskKind::Activity, "l"),
                _ => Ok(None),
            });
            claim.await.expect("claimed")
        })
        .await;
        let claimed: BTreeSet<u64> = claimed.into_iter().flatten().map(|(seq, _)| seq).collect();
        assert_eq!(
            claimed.len(),
            40,
            "{backend}: each claim took a task of its own"
        );
        // The rest are still queued, in their order.
        let mut rest = Vec::new();
        while let Some((seq, _)) = pop(nodes.node(1)).await {
            rest.push(seq);
        }
        let unclaimed: Vec<u64> = (1..=60).filter(|n| !claimed.contains(n)).collect();
        assert_eq!(rest, unclaimed, "{backend}");
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_claim_reads_the_event_that_scheduled_its_task_whoever_queued_it() {
    const TASKS: u64 = 40;
    for nodes in backends().await {
        let backend = nodes.backend;
        nodes.add_domain().await;
        let json = |seq: u64, id: u64| format!("{{\"run\":{seq},\"event\":{id}}}").into_bytes();
        // Every run holds events 1 to 3; task n was scheduled by one of them.
        let scheduled = |n: u64| n % 3 + 1;
        nodes
            .node(0)
            .apply(move |tx| {
                for (seq, id) in (1..=TASKS).flat_map(|seq| (1..=3).map(move |id| (seq, id))) {
                    tx.put_event(seq, id, &json(seq, id))?;
                }
                (1..=TASKS).try_for_each(|n| {
                    tx.push_task(1, TaskKind::Activity, &slot(n), (n, scheduled(n)))
                })
            })
            .await
            .expect("queued");
        let claim_and_read = |tx: &mut dyn crate::store::Writes| {
            let Some((seq, scheduled)) = tx.pop_task(1, TaskKind::Activity, "l")? else {
                return Ok(None);
            };
            Ok(Some((seq, scheduled, tx.event(seq, scheduled)?)))
        };
        // Claimed alone, then by polls that come together, whose tasks a batch takes ahead.
        let alone = nodes.node(1).apply(claim_and_read).await.expect("claimed");
        assert_eq!(alone, Some((1, 2, Some(json(1, 2)))), "{backend}");
        let claimed = concurrently(&nodes, 13, 3, move |store, _, _| async move {
            let (about, check) = poll_of_l();
            let claim = store.write_if_waited(Some(about), check, move |tx, ()| claim_and_read(tx));
            claim.await.expect("claimed")
        })
        .await;
        let claimed: Vec<_> = claimed.into_iter().flatten().collect();
        assert_eq!(claimed.len() as u64, TASKS - 1, "{backend}");
        for (seq, id, event) in claimed {
            assert_eq!(id, scheduled(seq), "{backend}");
            assert_eq!(event, Some(json(seq, id)), "{backend}: run {seq}");
        }
        nodes.close().await;
    }
}
