//! The contract suite's harness: each backend this build can test, opened fresh as two nodes
//! (or one redb or memory store twice), and the records the tests store.

use std::sync::Arc;

use crate::clock::{Clock, SystemClock};
use crate::model::{Domain, Run, Scope};
use crate::store::{Opened, Place, Store, StoreError, Writes};

/// Two handles of one store: two nodes of a shared database, or one embedded store twice.
pub(super) struct Nodes {
    pub(super) backend: &'static str,
    pub(super) opened: Vec<Opened>,
    at: Where,
}

/// Where a test's store is.
pub(super) enum Where {
    /// In this process's memory, gone when the store is closed.
    Memory,
    /// redb's directory, removed when the test ends.
    Dir(tempfile::TempDir),
    /// A PostgreSQL URL whose connections use the test's own schema.
    Postgres(String),
}

impl Where {
    /// Opens (another handle of) the store here.
    pub(super) async fn open(&self) -> Result<Opened, StoreError> {
        let place = match self {
            Where::Memory => return open_memory(),
            Where::Dir(dir) => return Store::open_dir(dir.path(), Arc::new(SystemClock)),
            Where::Postgres(url) => url.clone(),
        };
        let opened = tokio::task::spawn_blocking(move || {
            let dir = std::env::temp_dir();
            let place = Place {
                location: Some(&place),
                dir: &dir,
                cache: 0,
                ephemeral: false,
            };
            Store::open(place, Arc::new(SystemClock))
        });
        opened.await.expect("opened")
    }
}

/// A new ephemeral store.
fn open_memory() -> Result<Opened, StoreError> {
    let dir = std::env::temp_dir();
    let place = Place {
        location: None,
        dir: &dir,
        cache: 0,
        ephemeral: true,
    };
    Store::open(place, Arc::new(SystemClock))
}

impl Nodes {
    pub(super) fn node(&self, i: usize) -> &Store {
        &self.opened[i % self.opened.len()].store
    }

    /// Whether the store opens again as it was once closed: all but the memory store.
    pub(super) fn keeps_state(&self) -> bool {
        !matches!(self.at, Where::Memory)
    }

    /// Awaits `requests`, a future that makes requests of the first node, as one batch
    /// ([`in_one_batch`]) where the backend makes batches: the memory store applies each
    /// change alone, at once.
    pub(super) async fn in_one_batch<F: std::future::Future>(&self, requests: F) -> F::Output {
        match self.at {
            Where::Memory => requests.await,
            _ => in_one_batch(self.node(0), requests).await,
        }
    }

    /// Registers domain 1, "d", through the first node.
    pub(super) async fn add_domain(&self) {
        let add = |tx: &mut dyn Writes| tx.add_domain(&scope(), &domain(1, "d"));
        self.node(0).apply(add).await.expect("domain d registered");
    }

    /// Closes the stores and waits for their writers; answers where they were.
    pub(super) async fn close(self) -> Where {
        for opened in self.opened {
            close(opened).await;
        }
        self.at
    }
}

/// Closes `opened` and waits for its writer.
pub(super) async fn close(opened: Opened) {
    let Opened { store, writer, .. } = opened;
    drop(store);
    tokio::task::spawn_blocking(move || writer.join())
        .await
        .expect("writer joined");
}

/// Every backend this build can test here, freshly made.
pub(super) async fn backends() -> Vec<Nodes> {
    let dir = Where::Dir(tempfile::tempdir().expect("temporary directory"));
    let mut all = vec![
        Nodes {
            backend: "redb",
            opened: vec![dir.open().await.expect("redb opens")],
            at: dir,
        },
        Nodes {
            backend: "memory",
            opened: vec![open_memory().expect("the memory store opens")],
            at: Where::Memory,
        },
    ];
    if let Some(url) = postgres_url() {
        let at = Where::Postgres(fresh_schema(&url).await);
        let mut opened = Vec::new();
        for _ in 0..2 {
            opened.push(at.open().await.expect("PostgreSQL opens"));
        }
        all.push(Nodes {
            backend: "postgres",
            opened,
            at,
        });
    }
    all
}

/// The database `WEFT_TEST_POSTGRES` names, if it names one.
pub(super) fn postgres_url() -> Option<String> {
    std::env::var("WEFT_TEST_POSTGRES")
        .ok()
        .filter(|url| !url.is_empty())
}

/// A new schema in the database `url` names as a build of PostgreSQL schema 1 left it, with
/// `rows` added (SQL), where no store is open yet.
pub(super) async fn postgres_schema_1(url: &str, rows: &str) -> Where {
    let url = fresh_schema(url).await;
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .expect("WEFT_TEST_POSTGRES answers");
    let driver = tokio::spawn(connection);
    let made = format!(
        "CREATE TABLE weft_schema (version integer NOT NULL); \
         INSERT INTO weft_schema VALUES (1); {} {rows}",
        crate::store::pg::SCHEMA_1
    );
    client.batch_execute(&made).await.expect("schema 1 is made");
    drop(client);
    let _ = driver.await;
    Where::Postgres(url)
}

/// A new schema in the database `url` names, as a URL whose connections use it.
async fn fresh_schema(url: &str) -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let schema = format!(
        "weft_c{}_{}_{n}",
        SystemClock.now().as_millis(),
        std::process::id()
    );
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("WEFT_TEST_POSTGRES answers");
    let driver = tokio::spawn(connection);
    client
        .batch_execute(&format!("CREATE SCHEMA {schema}"))
        .await
        .expect("a schema is made");
    drop(client);
    let _ = driver.await;
    let join = if url.contains('?') { '&' } else { '?' };
    format!("{url}{join}options=-c%20search_path%3D{schema}")
}

/// The account and region the tests' records are in.
pub(crate) fn scope() -> Scope {
    Scope {
        account: "000000000000".into(),
        region: "us-east-1".into(),
    }
}

/// A registered domain `name` with id `id`.
pub(crate) fn domain(id: u64, name: &str) -> Domain {
    Domain {
        id,
        name: name.into(),
        description: None,
        retention: "1".into(),
        deprecated_at: None,
        tags: vec![],
    }
}

/// An open run `seq` of domain 1, as the engine stores one.
pub(crate) fn run(seq: u64) -> Run {
    serde_json::from_value(serde_json::json!({
        "seq": seq, "domain": 1, "account": "000000000000", "domain_name": "d",
        "execution": {"workflowId": format!("w{seq}"), "runId": format!("r{seq}")},
        "workflow_type": {"name": "t", "version": "1"},
        "config": {"taskStartToCloseTimeout": "60", "executionStartToCloseTimeout": "3600",
                   "taskList": {"name": "deciders"}, "childPolicy": "TERMINATE"},
        "tags": [], "started_at": 1_795_769_748.101, "timeout_at": null, "retention_days": 1,
        "closed": null, "parent": null, "cancel_requested": false, "next_event_id": 1,
        "decision": "Idle", "previous_started_event_id": 0, "decision_task_list": "deciders",
        "decision_schedule_to_start": null, "latest_execution_context": null,
        "latest_activity_task_at": null, "last_event_at": null,
        "open": {"activities": 0, "timers": 0, "children": 0, "lambdas": 0}
    }))
    .expect("a run's record")
}

/// Runs `jobs` write jobs from each of `workers` tasks spread over the nodes, each job being
/// `job(node, worker, n)`'s answer; answers every job's output.
pub(super) async fn concurrently<T, F, Fut>(
    nodes: &Nodes,
    workers: usize,
    jobs: usize,
    job: F,
) -> Vec<T>
where
    T: Send + 'static,
    F: Fn(Store, usize, usize) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = T> + Send,
{
    let tasks: Vec<_> = (0..workers)
        .map(|w| {
            let (store, job) = (nodes.node(w).clone(), job.clone());
            tokio::spawn(async move {
                let mut out = Vec::new();
                for n in 0..jobs {
                    out.push(job(store.clone(), w, n).await);
                }
                out
            })
        })
        .collect();
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.expect("worker"));
    }
    all
}

/// Awaits `requests`, a future that makes requests of `store` (the writes of a `join!`), with
/// each of them queued while `store`'s writer is held inside another change: they reach the
/// writer together, as one batch.
async fn in_one_batch<F: std::future::Future>(store: &Store, requests: F) -> F::Output {
    let (entered, mut inside) = tokio::sync::mpsc::unbounded_channel();
    let (release, held) = std::sync::mpsc::channel::<()>();
    let held = Arc::new(std::sync::Mutex::new(held));
    let hold = move |_: &mut dyn Writes| {
        let _ = entered.send(());
        let _ = held.lock().expect("the hold").recv();
        Ok(())
    };
    let holder = store.clone();
    let holding = tokio::spawn(async move { holder.apply(hold).await });
    inside
        .recv()
        .await
        .expect("the writer took the holding change");
    let mut requests = std::pin::pin!(requests);
    // Polled once, each request is queued (a write is submitted when first polled).
    std::future::poll_fn(|cx| {
        let _ = requests.as_mut().poll(cx);
        std::task::Poll::Ready(())
    })
    .await;
    release.send(()).expect("the holding change waits");
    holding.await.expect("held").expect("the holding change");
    requests.await
}

/// Marks the store at `at` as a build one version newer would have left it.
pub(super) async fn as_if_newer(at: &Where) {
    match at {
        Where::Memory => unreachable!("a store in memory is not opened again"),
        Where::Dir(dir) => crate::store::redb::as_if_newer(dir.path()),
        Where::Postgres(url) => {
            let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                .await
                .expect("WEFT_TEST_POSTGRES answers");
            let driver = tokio::spawn(connection);
            let newer = "INSERT INTO weft_schema SELECT max(version) + 1 FROM weft_schema";
            client.batch_execute(newer).await.expect("marked newer");
            drop(client);
            let _ = driver.await;
        }
    }
}
