//! The contract's rules for the requests a writer takes together in one batch: none changes
//! what another is answered. Each test makes its batch with `Nodes::in_one_batch`, which
//! holds the writer while the requests queue.

use super::Started;
use super::nodes::{backends, run, scope};
use crate::model::WorkflowId;
use crate::store::{About, Reads, StoreError};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_start_refused_never_hides_the_open_run_from_its_batch() {
    for nodes in backends().await {
        nodes.add_domain().await;
        let open = run(7);
        nodes
            .node(0)
            .apply(move |tx| {
                tx.put_run(&open)?;
                tx.name_run(&open)
            })
            .await
            .unwrap();
        let store = nodes.node(0);
        // A start of w7 that its check refuses before reading (its type deprecated, say), and
        // a request on w7's open run (a signal by workflow id), in one batch.
        let about = About::Start {
            scope: scope(),
            domain: "d".into(),
            workflow_id: "w7".into(),
        };
        let refused = |_: &dyn Reads| Err::<(), _>(Started::Already);
        let start = store.write_about(about, refused, |_, ()| Ok(()));
        let w7 = WorkflowId::from("w7".to_owned());
        let find = move |tx: &dyn Reads| tx.open_run(1, &w7).map(|run| run.map(|run| run.seq));
        let signal = store.write(find, |_, seq| Ok(seq));
        let (started, found) = nodes
            .in_one_batch(async { tokio::join!(start, signal) })
            .await;
        assert!(
            matches!(started, Err(Started::Already)),
            "{}",
            nodes.backend
        );
        assert_eq!(found.unwrap(), Some(7), "{}", nodes.backend);
        nodes.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_request_whose_change_fails_fails_alone() {
    for nodes in backends().await {
        nodes.add_domain().await;
        let store = nodes.node(0);
        let put = |seq| store.apply(move |tx| tx.put_run(&run(seq)));
        // Among good changes, one that fails, one that panics, and one whose write the
        // database may refuse (PostgreSQL's `text` holds no NUL).
        let fails = store.apply(|tx| {
            tx.put_run(&run(11))?;
            Err::<(), _>(StoreError::broken("on purpose"))
        });
        let panics = store.apply(|tx| -> Result<(), StoreError> {
            tx.put_run(&run(12))?;
            panic!("on purpose")
        });
        let nul = store.apply(|tx| {
            let mut bad = run(13);
            bad.execution.workflow_id = WorkflowId::from("w\0".to_owned());
            tx.put_run(&bad)?;
            tx.name_run(&bad)
        });
        let requests = async { tokio::join!(put(10), fails, panics, nul, put(14)) };
        let (first, fails, panics, nul, last) = nodes.in_one_batch(requests).await;
        let backend = nodes.backend;
        assert!(
            first.is_ok() && last.is_ok(),
            "{backend}: {first:?} {last:?}"
        );
        assert!(fails.is_err() && panics.is_err(), "{backend}");
        let stored = nodes.node(1).read(|tx| {
            (10..=14)
                .map(|seq| tx.run(seq).map(|run| run.is_some()))
                .collect::<Result<Vec<_>, _>>()
        });
        let stored = stored.await.unwrap();
        // The NUL's run is stored where the database takes it, and answered so.
        assert_eq!(stored, [true, false, false, nul.is_ok(), true], "{backend}");
        // Two that fail on their own first, and the one good change left after them.
        let fails = store.apply(|_| Err::<(), _>(StoreError::broken("on purpose")));
        let panics = store.apply(|_| -> Result<(), StoreError> { panic!("on purpose") });
        let requests = async { tokio::join!(fails, panics, put(15)) };
        let (fails, panics, good) = nodes.in_one_batch(requests).await;
        assert!(fails.is_err() && panics.is_err(), "{backend}");
        assert!(good.is_ok(), "{backend}: {good:?}");
        let stored = nodes.node(1).read(|tx| tx.run(15)).await.unwrap();
        assert!(stored.is_some(), "{backend}");
        nodes.close().await;
    }
}
