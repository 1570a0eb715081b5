//! The contract's rules for schedules: a schedule id is made once however many nodes try at
//! once (the database's constraint repeats the check), and a schedule read in a write
//! transaction is locked, so that changes of it from several nodes take turns and none is lost
//! (a node firing it, another pausing it).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::nodes::{backends, concurrently};
use crate::clock::Timestamp;
use crate::model::{
    Overlap, Schedule, ScheduleDefinition, ScheduleSpec, ScheduleState, StartAction, TypeRef,
};

/// Schedule `id` of domain 1, as stored, with the seq `seq`.
fn schedule(seq: u64, id: &str) -> Schedule {
    Schedule {
        seq,
        domain: 1,
        account: "123456789012".into(),
        region: "us-east-1".into(),
        domain_name: "d".into(),
        id: id.into(),
        definition: ScheduleDefinition {
            spec: ScheduleSpec {
                every: Some(60),
                ..ScheduleSpec::default()
            },
            action: StartAction {
                workflow_type: TypeRef {
                    name: "w".into(),
                    version: "1".into(),
                },
                task_list: None,
                task_priority: None,
                input: None,
                execution_start_to_close_timeout: None,
                tag_list: Vec::new(),
                task_start_to_close_timeout: None,
                child_policy: None,
                lambda_role: None,
            },
            overlap: Overlap::Skip,
            catchup_window: None,
            limit: None,
        },
        state: ScheduleState::default(),
        cursor: Timestamp::from_millis(0),
        armed: None,
        max_open_runs: 100,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_schedule_is_made_once_and_changes_of_it_take_turns() {
    for nodes in backends().await {
        let backend = nodes.backend;
        let made = Arc::new(AtomicUsize::new(0));
        let made_by = made.clone();
        concurrently(&nodes, 8, 3, move |store, _, _| {
            let made = made_by.clone();
            async move {
                let new = store.apply(|tx| {
                    if tx.schedule_named(1, "s")?.is_some() {
                        return Ok(false);
                    }
                    let seq = tx.next_id()?;
                    tx.put_schedule(&schedule(seq, "s"))?;
                    Ok(true)
                });
                if new.await.unwrap() {
                    made.fetch_add(1, Ordering::SeqCst);
                }
            }
        })
        .await;
        assert_eq!(made.load(Ordering::SeqCst), 1, "{backend}: made once");

        concurrently(&nodes, 8, 10, |store, _, _| async move {
            store
                .apply(|tx| {
                    let mut s = tx.schedule_named(1, "s")?.expect("the schedule");
                    s.state.actions += 1;
                    tx.put_schedule(&s)
                })
                .await
                .unwrap();
        })
        .await;
        let listed = nodes
            .node(1)
            .read(|tx| tx.schedules(1, None, 10))
            .await
            .unwrap();
        assert_eq!(listed.len(), 1, "{backend}");
        assert_eq!(listed[0].state.actions, 80, "{backend}: no change lost");
        let by_seq = nodes.node(0).read(move |tx| tx.schedule(listed[0].seq));
        assert_eq!(
            by_seq.await.unwrap().map(|s| s.id),
            Some("s".into()),
            "{backend}"
        );

        nodes
            .node(0)
            .apply(|tx| {
                for id in ["a", "b"] {
                    let seq = tx.next_id()?;
                    tx.put_schedule(&schedule(seq, id))?;
                }
                Ok(())
            })
            .await
            .unwrap();
        let page =
            |after: Option<&'static str>| nodes.node(1).read(move |tx| tx.schedules(1, after, 2));
        let ids = |page: Vec<Schedule>| page.into_iter().map(|s| s.id).collect::<Vec<_>>();
        assert_eq!(ids(page(None).await.unwrap()), ["a", "b"], "{backend}");
        assert_eq!(ids(page(Some("b")).await.unwrap()), ["s"], "{backend}");
        let gone = nodes.node(0).apply(|tx| {
            let s = tx.schedule_named(1, "a")?.expect("a");
            tx.delete_schedule(&s)?;
            tx.schedule_named(1, "a")
        });
        assert!(gone.await.unwrap().is_none(), "{backend}");
        nodes.close().await;
    }
}
