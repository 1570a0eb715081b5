//! The contract's rules for operator records: task lists' controls (kept per list, an empty one
//! keeps no record) and batch jobs (read by seq, listed by domain newest first, deleted, and
//! locked when read in a write transaction, so that a node's step and another's cancel take
//! turns).

use super::nodes::{backends, concurrently};
use crate::clock::Timestamp;
use crate::model::{
    Batch, BatchAction, BatchJob, BatchJobState, BatchRecord, ListControl, Pause, RunFilter,
    TaskKind,
};

/// Batch job `seq` of domain `domain`, running.
fn batch(seq: u64, domain: u64) -> BatchRecord {
    let Batch { filter, action } = Batch {
        filter: RunFilter::default(),
        action: BatchAction::RequestCancel,
    };
    BatchRecord {
        seq,
        domain,
        account: "123456789012".into(),
        region: "us-east-1".into(),
        domain_name: "d".into(),
        job: BatchJob {
            id: seq.to_string(),
            action,
            filter,
            rate: 10,
            state: BatchJobState::Running,
            by: "me".into(),
            created_at: Timestamp::from_millis(0),
            finished_at: None,
            matched: 0,
            done: 0,
            failed: 0,
            failures: Vec::new(),
        },
        cursor: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn list_controls_are_kept_per_list_and_an_empty_one_keeps_nothing() {
    for nodes in backends().await {
        let backend = nodes.backend;
        let paused = ListControl {
            paused: Some(Pause {
                at: Timestamp::from_millis(5),
                by: "me".into(),
                reason: Some("why".into()),
            }),
            rate: Some(2.5),
            ..ListControl::default()
        };
        let key = (1, TaskKind::Activity, "workers".to_owned());
        let other = (1, TaskKind::Decision, "workers".to_owned());
        let (k, control) = (key.clone(), paused.clone());
        let put = nodes
            .node(0)
            .apply(move |tx| tx.put_list_control(&k, &control, false));
        put.await.unwrap();
        let read = nodes.node(1).read(|tx| tx.list_controls()).await.unwrap();
        assert_eq!(
            read,
            [(key.clone(), paused)],
            "{backend}: the activity list only"
        );
        assert!(!read.iter().any(|(k, _)| *k == other), "{backend}");

        let k = key.clone();
        let cleared = nodes.node(1).apply(move |tx| {
            tx.put_list_control(&k, &ListControl::default(), false)?;
            tx.list_controls()
        });
        assert_eq!(cleared.await.unwrap(), [], "{backend}: no record left");
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn batch_jobs_are_listed_newest_first_and_their_changes_take_turns() {
    for nodes in backends().await {
        let backend = nodes.backend;
        let made = nodes.node(0).apply(|tx| {
            let mut seqs = Vec::new();
            for domain in [1, 2, 1] {
                let seq = tx.next_id()?;
                tx.put_batch(&batch(seq, domain))?;
                seqs.push(seq);
            }
            Ok(seqs)
        });
        let seqs = made.await.unwrap();
        let listed = nodes.node(1).read(|tx| tx.batches(1, 10)).await.unwrap();
        let listed: Vec<u64> = listed.iter().map(|b| b.seq).collect();
        assert_eq!(
            listed,
            [seqs[2], seqs[0]],
            "{backend}: domain 1's, newest first"
        );
        let newest_seq = seqs[2];
        let newest = nodes.node(0).apply(move |tx| {
            let newest = tx.batch(newest_seq)?.expect("the newest");
            tx.delete_batch(&newest)?;
            tx.batch(newest_seq)
        });
        assert!(newest.await.unwrap().is_none(), "{backend}: deleted");
        let listed = nodes.node(1).read(|tx| tx.batches(1, 10)).await.unwrap();
        let listed: Vec<u64> = listed.iter().map(|b| b.seq).collect();
        assert_eq!(listed, [seqs[0]], "{backend}: deleted, unlisted");

        let seq = seqs[0];
        concurrently(&nodes, 8, 10, move |store, _, _| async move {
            store
                .apply(move |tx| {
                    let mut b = tx.batch(seq)?.expect("the job");
                    b.job.done += 1;
                    tx.put_batch(&b)
                })
                .await
                .unwrap();
        })
        .await;
        let job = nodes.node(0).read(move |tx| tx.batch(seq)).await.unwrap();
        assert_eq!(
            job.map(|b| b.job.done),
            Some(80),
            "{backend}: no change lost"
        );
        nodes.close().await;
    }
}
