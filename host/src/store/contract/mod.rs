//! The rules of `seam.rs` as tests that every backend passes: redb always, and PostgreSQL when
//! `WEFT_TEST_POSTGRES` names a database (`tests/run` sets it), as two nodes sharing one fresh
//! schema, which is what two `weft serve` processes on one database are. A third backend adds
//! itself to [`nodes::backends`] and has its suite.
//!
//! Each test makes its requests from two store handles at once (on redb, two handles of the
//! one store), so that a rule that holds only by luck of timing has chances to fail.

use std::collections::BTreeSet;
use std::time::Duration;

mod batches;
mod controls;
mod counters;
mod lists;
mod nodes;
mod schedules;
mod signals;
mod writes;

use self::nodes::{Nodes, as_if_newer, backends, close, concurrently};
pub(super) use self::nodes::{domain, run, scope};
use super::{OpenError, Reads, Store, StoreError, Writes};
use crate::clock::Timestamp;
use crate::model::{ItemKind, Slot, TaskKind, WorkflowId};
use crate::store::{About, Deadline};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_task_is_claimed_once() {
    for nodes in backends().await {
        let slot = |n: u64| Slot {
            list: "l".into(),
            rank: 0,
            order: n,
        };
        nodes
            .node(0)
            .apply(move |tx| {
                (0..200).try_for_each(|n| tx.push_task(1, TaskKind::Activity, &slot(n), (n, n)))
            })
            .await
            .unwrap();
        let claimed = concurrently(&nodes, 8, 30, |store, _, _| async move {
            let popped = store.apply(|tx| tx.pop_task(1, TaskKind::Activity, "l"));
            popped.await.unwrap()
        })
        .await;
        let seqs: Vec<u64> = claimed.into_iter().flatten().map(|(seq, _)| seq).collect();
        let distinct: BTreeSet<u64> = seqs.iter().copied().collect();
        assert_eq!(seqs.len(), 200, "{}: every task claimed", nodes.backend);
        assert_eq!(distinct.len(), 200, "{}: none twice", nodes.backend);
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_deadline_fires_once() {
    for nodes in backends().await {
        nodes
            .node(0)
            .apply(|tx| {
                (0..200).try_for_each(|n| {
                    let at = Timestamp::from_millis(1_000 + n as i64);
                    tx.set_deadline(at, n, 1, Deadline::Timer)
                })
            })
            .await
            .unwrap();
        let fired = concurrently(&nodes, 8, 10, |store, _, _| async move {
            store.apply(|tx| tx.take_due(8)).await.unwrap()
        })
        .await;
        let runs: Vec<u64> = fired.into_iter().flatten().map(|due| due.run).collect();
        let distinct: BTreeSet<u64> = runs.iter().copied().collect();
        assert_eq!(runs.len(), 200, "{}: every deadline fired", nodes.backend);
        assert_eq!(distinct.len(), 200, "{}: none twice", nodes.backend);
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ids_are_never_given_twice_and_rise_on_each_node() {
    for nodes in backends().await {
        let ids = concurrently(&nodes, 6, 40, |store, w, _| async move {
            (w, store.apply(|tx| tx.next_id()).await.unwrap())
        })
        .await;
        let distinct: BTreeSet<u64> = ids.iter().map(|&(_, id)| id).collect();
        assert_eq!(distinct.len(), ids.len(), "{}: an id twice", nodes.backend);
        for w in 0..6 {
            let mine: Vec<u64> = ids.iter().filter(|i| i.0 == w).map(|i| i.1).collect();
            assert!(mine.is_sorted(), "{}: ids fell: {mine:?}", nodes.backend);
        }
        nodes.close().await;
    }
}

/// A check's refusal of a name that exists, as an operation's fault would be.
#[derive(Debug)]
struct Exists;

/// A store that fails a check here fails the test.
impl From<StoreError> for Exists {
    fn from(error: StoreError) -> Self {
        panic!("the store failed: {error}")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_name_is_created_once() {
    for nodes in backends().await {
        for round in 0..10u64 {
            let name = format!("d{round}");
            let created = concurrently(&nodes, 2, 1, move |store, w, _| {
                let name = name.clone();
                async move {
                    let id = round * 10 + w as u64;
                    let check = {
                        let name = name.clone();
                        move |tx: &dyn Reads| match tx.domain(&scope(), &name)? {
                            Some(_) => Err(Exists),
                            None => Ok(()),
                        }
                    };
                    let apply =
                        move |tx: &mut dyn Writes, ()| tx.add_domain(&scope(), &domain(id, &name));
                    store.write(check, apply).await.map(|()| id)
                }
            })
            .await;
            let winners: Vec<u64> = created
                .iter()
                .filter_map(|c| c.as_ref().ok())
                .copied()
                .collect();
            assert_eq!(winners.len(), 1, "{}: {created:?}", nodes.backend);
            let loser = created.iter().find_map(|c| c.as_ref().err());
            assert!(loser.is_some(), "{}: {created:?}", nodes.backend);
            let name = format!("d{round}");
            let kept = nodes.node(1).read(move |tx| tx.domain(&scope(), &name));
            assert_eq!(kept.await.unwrap().map(|d| d.id), Some(winners[0]));
        }
        nodes.close().await;
    }
}

/// A start's refusal of a workflow already open, or the store's failure (a start that lost
/// the race on PostgreSQL fails its batch, which runs again and then refuses).
#[derive(Debug)]
pub(super) enum Started {
    /// Refused: the workflow is open.
    Already,
    /// The store failed.
    Store(StoreError),
}

impl From<StoreError> for Started {
    fn from(error: StoreError) -> Self {
        Started::Store(error)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_workflow_is_started_once() {
    for nodes in backends().await {
        nodes.add_domain().await;
        for round in 0..10u64 {
            // Changes that say ahead which workflow they start, as StartWorkflowExecution
            // does: a backend may read together whether a batch's workflows are open.
            let started = concurrently(&nodes, 16, 1, move |store, w, _| async move {
                // Both on each node (node `w % 2`), so that a batch may start both.
                let half = (w / 2 % 2) as u64;
                let id = WorkflowId::from(format!("w{round}-{half}"));
                let about = About::Start {
                    scope: scope(),
                    domain: "d".into(),
                    workflow_id: id.to_string(),
                };
                let check = {
                    let id = id.clone();
                    move |tx: &dyn Reads| match tx.open_run(1, &id)? {
                        Some(_) => Err(Started::Already),
                        None => Ok(()),
                    }
                };
                let seq = 100 + round * 100 + w as u64;
                let apply = move |tx: &mut dyn Writes, ()| {
                    let mut new = run(seq);
                    new.execution.workflow_id = id;
                    tx.put_run(&new)?;
                    tx.name_run(&new)
                };
                match store.write_about(about, check, apply).await {
                    Ok(()) => Some((half, seq)),
                    Err(Started::Already) => None,
                    Err(Started::Store(error)) => panic!("the store failed: {error}"),
                }
            })
            .await;
            // Two workflows, each started by eight workers.
            for half in 0..2 {
                let winners: Vec<u64> = started
                    .iter()
                    .flatten()
                    .filter(|won| won.0 == half)
                    .map(|won| won.1)
                    .collect();
                assert_eq!(winners.len(), 1, "{}: {started:?}", nodes.backend);
                let id = WorkflowId::from(format!("w{round}-{half}"));
                let open = nodes.node(1).read(move |tx| tx.open_run(1, &id));
                let open = open.await.unwrap().map(|run| run.seq);
                assert_eq!(open, Some(winners[0]), "{}", nodes.backend);
            }
        }
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_run_is_changed_by_one_transaction_at_a_time() {
    for nodes in backends().await {
        nodes.node(0).apply(|tx| tx.put_run(&run(7))).await.unwrap();
        concurrently(&nodes, 8, 10, |store, _, _| async move {
            let change = store.apply(|tx| {
                let mut run = tx.run(7)?.expect("the run");
                run.next_event_id += 1;
                tx.put_run(&run)
            });
            change.await.unwrap();
        })
        .await;
        let run = nodes.node(1).read(|tx| tx.run(7)).await.unwrap();
        assert_eq!(run.map(|r| r.next_event_id), Some(81), "{}", nodes.backend);
        nodes.close().await;
    }
}

/// Reads run `seq` and adds a timer keyed one after its last: a change that read the items as
/// they were before the transaction it waited for would add one already there.
fn add_timer_after_last(tx: &mut dyn Writes, seq: u64) -> Result<(), StoreError> {
    tx.run(seq)?.expect("the run");
    let last = tx.item_keys(seq, ItemKind::Timer)?.last().copied();
    let key = last.unwrap_or(0) + 1;
    tx.put_item(seq, ItemKind::Timer, key, Some(&format!("t{key}")), b"{}")
}

/// Asserts that run `seq` holds timers 1 to `count`, read through the second node.
async fn assert_timers(nodes: &Nodes, seq: u64, count: u64) {
    let keys = nodes
        .node(1)
        .read(move |tx| tx.item_keys(seq, ItemKind::Timer));
    let keys = keys.await.unwrap();
    assert_eq!(keys, (1..=count).collect::<Vec<u64>>(), "{}", nodes.backend);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_locked_run_s_items_are_as_its_last_holder_left_them() {
    for nodes in backends().await {
        nodes.node(0).apply(|tx| tx.put_run(&run(8))).await.unwrap();
        // Each change adds the item after the last it finds: one that read the items as they
        // were before the transaction it waited for would add an item already there.
        concurrently(&nodes, 8, 10, |store, _, _| async move {
            let change = store.apply(|tx| add_timer_after_last(tx, 8));
            change.await.unwrap();
        })
        .await;
        assert_timers(&nodes, 8, 80).await;
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_claimed_task_s_run_is_as_its_last_holder_left_it() {
    for nodes in backends().await {
        nodes
            .node(0)
            .apply(|tx| {
                tx.put_run(&run(8))?;
                for order in 1..=80 {
                    let slot = Slot {
                        list: "l".into(),
                        rank: 0,
                        order,
                    };
                    tx.push_task(1, TaskKind::Activity, &slot, (8, order))?;
                }
                Ok(())
            })
            .await
            .unwrap();
        // As above, through claims: a backend that reads the claimed task's run as it claims
        // it must see what the transaction it waited for left.
        concurrently(&nodes, 8, 10, |store, _, _| async move {
            let change = store.apply(|tx| {
                let (seq, _) = tx.pop_task(1, TaskKind::Activity, "l")?.expect("a task");
                add_timer_after_last(tx, seq)
            });
            change.await.unwrap();
        })
        .await;
        assert_timers(&nodes, 8, 80).await;
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn runs_named_ahead_are_as_their_last_holders_left_them() {
    for nodes in backends().await {
        nodes
            .node(0)
            .apply(|tx| {
                tx.put_run(&run(8))?;
                tx.put_run(&run(9))
            })
            .await
            .unwrap();
        // As above, through changes that name their run ahead (as a task token does), which a
        // backend may lock and read together with the other runs of a batch.
        concurrently(&nodes, 8, 10, |store, w, n| async move {
            let seq = 8 + ((w + n) % 2) as u64;
            let check = |_: &dyn Reads| Ok::<_, StoreError>(());
            let change = store.write_about(About::Run(seq), check, move |tx, ()| {
                add_timer_after_last(tx, seq)
            });
            change.await.unwrap();
        })
        .await;
        assert_timers(&nodes, 8, 40).await;
        assert_timers(&nodes, 9, 40).await;
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_workflow_s_open_run_is_the_one_open_once_its_lock_is_had() {
    for nodes in backends().await {
        let first = run(20);
        let id = first.execution.workflow_id.clone();
        nodes
            .node(0)
            .apply(move |tx| {
                tx.put_run(&first)?;
                tx.name_run(&first)
            })
            .await
            .unwrap();
        // One node replaces the open run (a continue-as-new), holding its lock a while; a
        // read of the workflow's open run that waited for that lock finds the new run.
        let replace = {
            let (store, id) = (nodes.node(0).clone(), id.clone());
            tokio::spawn(async move {
                store
                    .apply(move |tx| {
                        let old = tx.open_run(1, &id)?.expect("the first run");
                        tx.unname_open_run(&old)?;
                        let mut next = run(21);
                        next.execution.workflow_id = id;
                        tx.put_run(&next)?;
                        tx.name_run(&next)?;
                        std::thread::sleep(Duration::from_millis(150));
                        Ok(())
                    })
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        let found = nodes
            .node(1)
            .apply(move |tx| Ok(tx.open_run(1, &id)?.map(|run| run.seq)))
            .await
            .unwrap();
        replace.await.unwrap().unwrap();
        assert_eq!(found, Some(21), "{}", nodes.backend);
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_transaction_reads_what_it_wrote() {
    for nodes in backends().await {
        nodes.node(0).apply(|tx| tx.put_run(&run(9))).await.unwrap();
        let seen = nodes.node(0).apply(|tx| {
            let mut run = tx.run(9)?.expect("the run");
            tx.put_item(9, ItemKind::Timer, 3, Some("t3"), b"{}")?;
            tx.put_item(9, ItemKind::Timer, 1, Some("t1"), b"[]")?;
            run.next_event_id = 5;
            tx.put_run(&run)?;
            tx.put_event(9, 1, b"{}")?;
            tx.put_event(9, 2, b"[]")?;
            let written = (
                tx.event(9, 2)?,
                tx.run(9)?.map(|r| r.next_event_id),
                tx.item_keys(9, ItemKind::Timer)?,
                tx.item_named(9, ItemKind::Timer, "t1")?,
                tx.item(9, ItemKind::Timer, 1)?,
            );
            tx.remove_item(9, ItemKind::Timer, 1, Some("t1"))?;
            let removed = (
                tx.item_keys(9, ItemKind::Timer)?,
                tx.item_named(9, ItemKind::Timer, "t1")?,
            );
            Ok((written, removed))
        });
        let (written, removed) = seen.await.unwrap();
        let json = Some(b"[]".to_vec());
        let expected = (json.clone(), Some(5), vec![1, 3], Some(1), json);
        assert_eq!(written, expected, "{}", nodes.backend);
        assert_eq!(removed, (vec![3], None), "{}", nodes.backend);
        // And a later transaction, on another node, reads what this one committed.
        let later = nodes.node(1).apply(|tx| {
            let run = tx.run(9)?.map(|r| r.next_event_id);
            Ok((run, tx.item_keys(9, ItemKind::Timer)?, tx.event(9, 1)?))
        });
        assert_eq!(
            later.await.unwrap(),
            (Some(5), vec![3], Some(b"{}".to_vec())),
            "{}",
            nodes.backend
        );
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_run_purged_in_a_transaction_has_no_events_left_in_it() {
    for nodes in backends().await {
        let seen = nodes.node(0).apply(|tx| {
            tx.put_run(&run(9))?;
            tx.put_event(9, 1, b"{}")?;
            let added = tx.event(9, 1)?;
            tx.purge_run(&run(9))?;
            Ok((added, tx.event(9, 1)?))
        });
        let expected = (Some(b"{}".to_vec()), None);
        assert_eq!(seen.await.unwrap(), expected, "{}", nodes.backend);
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_changed_domain_is_seen_by_every_node() {
    for nodes in backends().await {
        nodes.add_domain().await;
        let status = |store: Store| async move {
            let read = store.read(|tx| tx.domain(&scope(), "d"));
            read.await.unwrap().map(|d| d.deprecated_at.is_some())
        };
        // Read once on each node, so that a node keeping records has this one.
        assert_eq!(status(nodes.node(1).clone()).await, Some(false));
        assert_eq!(status(nodes.node(0).clone()).await, Some(false));
        nodes
            .node(0)
            .apply(|tx| {
                let mut d = tx.domain_to_change(&scope(), "d")?.expect("the domain");
                d.deprecated_at = Some(Timestamp::from_millis(1));
                tx.put_domain(&scope(), &d)
            })
            .await
            .unwrap();
        // The node that changed it sees the change at once; another, once told.
        assert_eq!(
            status(nodes.node(0).clone()).await,
            Some(true),
            "{}",
            nodes.backend
        );
        let told = async {
            while status(nodes.node(1).clone()).await != Some(true) {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        let within = tokio::time::timeout(Duration::from_secs(5), told).await;
        assert!(within.is_ok(), "{}: never told", nodes.backend);
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_last_change_to_a_deadline_in_a_transaction_stands() {
    for nodes in backends().await {
        let at = Timestamp::from_millis;
        nodes
            .node(0)
            .apply(move |tx| {
                tx.set_deadline(at(1), 1, 1, Deadline::Timer)?;
                tx.set_deadline(at(2), 2, 1, Deadline::Timer)
            })
            .await
            .unwrap();
        nodes
            .node(1)
            .apply(move |tx| {
                tx.clear_deadline(at(1), 1, 1, Deadline::Timer)?;
                tx.set_deadline(at(3), 3, 1, Deadline::Timer)?;
                tx.clear_deadline(at(3), 3, 1, Deadline::Timer)?;
                tx.clear_deadline(at(2), 2, 1, Deadline::Timer)?;
                tx.set_deadline(at(2), 2, 1, Deadline::Timer)?;
                tx.set_deadline(at(4), 4, 1, Deadline::Timer)
            })
            .await
            .unwrap();
        let due = nodes.node(0).apply(|tx| tx.take_due(10)).await.unwrap();
        let runs: Vec<u64> = due.iter().map(|due| due.run).collect();
        assert_eq!(runs, [2, 4], "{}", nodes.backend);
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_next_deadline_is_read_with_or_without_purges() {
    for nodes in backends().await {
        let at = Timestamp::from_millis;
        let next = |purges: bool| nodes.node(1).read(move |tx| tx.next_deadline(purges));
        assert_eq!(next(true).await.unwrap(), None, "{}", nodes.backend);
        nodes
            .node(0)
            .apply(move |tx| {
                tx.set_deadline(at(5), 1, 1, Deadline::Purge)?;
                tx.set_deadline(at(6), 2, 1, Deadline::Purge)
            })
            .await
            .unwrap();
        assert_eq!(next(true).await.unwrap(), Some(at(5)), "{}", nodes.backend);
        assert_eq!(next(false).await.unwrap(), None, "{}", nodes.backend);
        nodes
            .node(0)
            .apply(move |tx| tx.set_deadline(at(9), 3, 1, Deadline::Timer))
            .await
            .unwrap();
        assert_eq!(next(false).await.unwrap(), Some(at(9)), "{}", nodes.backend);
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_transaction_pops_what_it_pushed_after_emptying_a_list() {
    for nodes in backends().await {
        let slot = |n: u64| Slot {
            list: "l".into(),
            rank: 0,
            order: n,
        };
        let popped = nodes.node(0).apply(move |tx| {
            let mut popped = Vec::new();
            for n in 1..=2 {
                tx.push_task(1, TaskKind::Decision, &slot(n), (n, n))?;
            }
            for _ in 0..3 {
                popped.push(tx.pop_task(1, TaskKind::Decision, "l")?);
            }
            tx.push_task(1, TaskKind::Decision, &slot(3), (3, 3))?;
            popped.push(tx.pop_task(1, TaskKind::Decision, "l")?);
            popped.push(tx.pop_task(1, TaskKind::Decision, "l")?);
            Ok(popped)
        });
        let expected = [Some((1, 1)), Some((2, 2)), None, Some((3, 3)), None];
        assert_eq!(popped.await.unwrap(), expected, "{}", nodes.backend);
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_store_opens_again_as_it_was_and_refuses_what_a_newer_build_wrote() {
    for nodes in backends().await.into_iter().filter(Nodes::keeps_state) {
        let (backend, secret) = (nodes.backend, nodes.opened[0].secret);
        let kept = domain(7, "kept");
        nodes
            .node(0)
            .apply(move |tx| tx.add_domain(&scope(), &kept))
            .await
            .unwrap();
        let at = nodes.close().await;

        // Opened again (its upgrade finding nothing to do): the same records, the same key.
        let again = at.open().await.expect("opens again");
        assert_eq!(again.secret, secret, "{backend}: the token key is kept");
        let found = again
            .store
            .read(|tx| Ok::<_, StoreError>(tx.domain(&scope(), "kept")?.map(|d| d.id)))
            .await
            .unwrap();
        assert_eq!(found, Some(7), "{backend}");
        close(again).await;

        // A newer build's store: refused, naming both versions, and left as it was.
        as_if_newer(&at).await;
        match at.open().await {
            Err(StoreError::Open(OpenError::TooNew { found, known, .. })) => {
                assert_eq!(found, known + 1, "{backend}")
            }
            Err(other) => panic!("{backend}: refused for {other}"),
            Ok(_) => panic!("{backend}: a newer build's store opens"),
        }
    }
}
