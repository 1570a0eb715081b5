//! The contract's rules for a transaction's own writes: what it wrote last to a key is what
//! stays, and a history page read with the commit holds its events, however a backend sends
//! its writes (PostgreSQL keeps its single-row writes by key and sends each table's together,
//! `pg/grouped.rs`, and reads history pages asked for at the commit in its round trip).

use super::nodes::{backends, run};
use crate::clock::Timestamp;
use crate::model::{CloseStatus, Closed, ItemKind, WorkflowId};
use crate::store::{Cursor, Deadline, Filter, HistoryCell, Listing, StoreError};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_last_write_to_a_deadline_or_a_run_in_a_transaction_stays() {
    for nodes in backends().await {
        let backend = nodes.backend;
        let at = |n: u64| Timestamp::from_millis(1_000 + n as i64);
        nodes
            .node(0)
            .apply(move |tx| {
                // Set and left; set then cleared; cleared then set; set, cleared, set.
                for n in 1..=4 {
                    tx.set_deadline(at(n), n, 1, Deadline::Timer)?;
                }
                tx.clear_deadline(at(2), 2, 1, Deadline::Timer)?;
                tx.clear_deadline(at(5), 5, 1, Deadline::Timer)?;
                tx.set_deadline(at(5), 5, 1, Deadline::Timer)?;
                tx.clear_deadline(at(4), 4, 1, Deadline::Timer)?;
                tx.set_deadline(at(4), 4, 1, Deadline::Timer)?;
                for version in 1..=3 {
                    let mut record = run(7);
                    record.next_event_id = version;
                    tx.put_run(&record)?;
                }
                Ok(())
            })
            .await
            .unwrap();
        let due = nodes.node(1).apply(|tx| tx.take_due(10)).await.unwrap();
        let runs: Vec<u64> = due.iter().map(|due| due.run).collect();
        assert_eq!(runs, [1, 3, 4, 5], "{backend}");
        let stored = nodes.node(1).read(|tx| tx.run(7)).await.unwrap();
        assert_eq!(stored.map(|run| run.next_event_id), Some(3), "{backend}");
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_run_closed_and_its_successor_opened_in_one_transaction_leave_the_successor_open() {
    for nodes in backends().await {
        let backend = nodes.backend;
        let (first, mut next) = (run(1), run(2));
        next.execution.workflow_id = first.execution.workflow_id.clone();
        let id = first.execution.workflow_id.clone();
        let records = (first.clone(), next);
        nodes
            .node(0)
            .apply(move |tx| {
                tx.put_run(&first)?;
                tx.name_run(&first)?;
                tx.list_run(&first, Listing::Open, first.started_at)
            })
            .await
            .unwrap();
        // Continued as new: the first run leaves the open runs and its listing, its item
        // goes, and its successor takes its name; in this order, in one transaction.
        nodes
            .node(0)
            .apply(move |tx| {
                let (first, next) = &records;
                tx.put_item(1, ItemKind::Activity, 5, Some("a"), b"{}")?;
                tx.unname_open_run(first)?;
                tx.unlist_run(first, Listing::Open, first.started_at)?;
                tx.remove_item(1, ItemKind::Activity, 5, Some("a"))?;
                tx.put_run(next)?;
                tx.name_run(next)?;
                tx.list_run(next, Listing::Open, next.started_at)?;
                tx.unlist_run(next, Listing::Open, next.started_at)?;
                tx.list_run(next, Listing::Open, next.started_at)
            })
            .await
            .unwrap();
        let (open, listed, item, named) = nodes
            .node(1)
            .read(move |tx| {
                let range = (Timestamp::from_millis(0), Timestamp::from_millis(i64::MAX));
                let page = Cursor {
                    after: None,
                    reverse: false,
                    limit: 10,
                };
                let listed = tx.listed_runs(1, Listing::Open, &Filter::All, range, page)?;
                Ok::<_, StoreError>((
                    tx.open_run(1, &id)?.map(|run| run.seq),
                    listed.items.iter().map(|run| run.seq).collect::<Vec<_>>(),
                    tx.item(1, ItemKind::Activity, 5)?,
                    tx.item_named(1, ItemKind::Activity, "a")?,
                ))
            })
            .await
            .unwrap();
        assert_eq!(open, Some(2), "{backend}");
        assert_eq!(listed, [2], "{backend}");
        assert_eq!((item, named), (None, None), "{backend}");
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_history_page_read_at_commit_holds_the_transaction_s_events() {
    for nodes in backends().await {
        let backend = nodes.backend;
        let (forward, backward) = (HistoryCell::default(), HistoryCell::default());
        let cells = (forward.clone(), backward.clone());
        nodes
            .node(0)
            .apply(move |tx| {
                tx.put_run(&run(7))?;
                for id in 1..=3 {
                    tx.put_event(7, id, format!("{{\"eventId\":{id}}}").as_bytes())?;
                }
                let page = |reverse, limit| Cursor {
                    after: None,
                    reverse,
                    limit,
                };
                tx.history_at_commit(7, (1, 3), page(false, 10), cells.0.clone())?;
                tx.history_at_commit(7, (2, 3), page(true, 1), cells.1.clone())
            })
            .await
            .unwrap();
        let ids = |cell: &HistoryCell| {
            let page = cell.take().expect("read with the commit");
            let ids: Vec<u64> = page.items.iter().map(|(id, _)| *id).collect();
            (ids, page.more)
        };
        assert_eq!(ids(&forward), (vec![1, 2, 3], false), "{backend}");
        assert_eq!(ids(&backward), (vec![3], true), "{backend}");
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_closed_run_named_leaves_its_workflow_s_open_run_open() {
    for nodes in backends().await {
        nodes.add_domain().await;
        nodes
            .node(0)
            .apply(|tx| {
                let open = run(7);
                tx.put_run(&open)?;
                tx.name_run(&open)?;
                // An imported run of the same workflow id, closed.
                let mut closed = run(8);
                closed.execution.workflow_id = open.execution.workflow_id.clone();
                closed.closed = Some(Closed {
                    at: Timestamp::from_millis(1_000),
                    status: CloseStatus::Completed,
                    open_counts: None,
                });
                tx.put_run(&closed)?;
                tx.name_run(&closed)
            })
            .await
            .unwrap();
        let w7 = WorkflowId::from("w7".to_owned());
        let open = nodes.node(1).read(move |tx| tx.open_run(1, &w7));
        let open = open.await.unwrap().map(|run| run.seq);
        assert_eq!(open, Some(7), "{}", nodes.backend);
        nodes.close().await;
    }
}
