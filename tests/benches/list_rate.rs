//! A task list's rate and fairness keys across nodes: with a limit of `WEFT_BENCH_RATE` (default
//! 20) decision tasks a second on one list, two nodes on one PostgreSQL database and eight
//! pollers (four at each, over HTTP) polling a backlog of 400 tasks for `WEFT_BENCH_SECONDS`
//! (default 10): how many tasks are handed out, per second overall and in the busiest second.
//! Then, on another list keyed by tag with weights 3:1 and a backlog of 400 runs for each key
//! (the heavier key's queued first), the same pollers' first 400 tasks: each key's share.
//!
//! `WEFT_TEST_POSTGRES=postgres://USER@HOST:PORT/DB cargo bench -p weft-tests --bench
//! list_rate`; without the variable one node on redb is measured. It prints figures and asserts
//! nothing about time.

#[allow(
    dead_code,
    reason = "this bench takes the set-up and the starts; the rest serves the other benches"
)]
mod one_activity;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use one_activity::{DECIDERS, DOMAIN, setup, start_named, start_node, task_list};
use weft_host::client::{BindingKind, Fairness, ListLimitRequest, TaskListInfo};
use weft_tests::TestServer;
use weft_tests::guests::weft_client;

const BACKLOG: usize = 400;
const POLLERS: usize = 8;

fn main() {
    weft_tests::bench::run(run());
}

async fn run() {
    let rate: f64 = weft_tests::bench::setting("WEFT_BENCH_RATE", 20.0);
    let seconds: u64 = weft_tests::bench::setting("WEFT_BENCH_SECONDS", 10);
    let nodes = match weft_tests::test_postgres() {
        Some(url) => {
            let store = weft_tests::fresh_schema(&url);
            vec![
                start_node(Some(store.clone())).await,
                start_node(Some(store)).await,
            ]
        }
        None => {
            println!("(WEFT_TEST_POSTGRES unset: one node on redb)");
            vec![start_node(None).await]
        }
    };
    setup(&nodes[0].client()).await;
    start_named(&nodes, BACKLOG, "limited").await;
    let deciders = (BindingKind::Decision, DECIDERS);
    let weft = weft_client(&nodes[0]);
    let request = ListLimitRequest {
        rate: Some(Some(rate)),
        ..ListLimitRequest::default()
    };
    let limited = weft.limit_task_list(DOMAIN, deciders, &request).await;
    limited.expect("the list is limited");
    for node in &nodes {
        until_known(node, DECIDERS, |l| l.rate.is_some()).await;
    }

    let handed: Arc<Mutex<Vec<Duration>>> = Arc::default();
    let began = Instant::now();
    let until = began + Duration::from_secs(seconds);
    let pollers: Vec<_> = (0..POLLERS)
        .map(|p| {
            let (client, handed) = (nodes[p % nodes.len()].client(), handed.clone());
            tokio::spawn(async move {
                while Instant::now() < until {
                    let task = client
                        .poll_for_decision_task()
                        .domain(DOMAIN)
                        .task_list(task_list(DECIDERS))
                        .send()
                        .await
                        .expect("poll");
                    if !task.task_token().is_empty() && Instant::now() < until {
                        handed.lock().unwrap().push(began.elapsed());
                    }
                }
            })
        })
        .collect();
    for poller in pollers {
        poller.await.expect("a poller");
    }
    let handed = handed.lock().unwrap().clone();
    let mut per_second = vec![0usize; seconds as usize + 1];
    for at in &handed {
        per_second[at.as_secs() as usize] += 1;
    }
    println!(
        "Rate {rate}/s on one decision list, {} node(s), {POLLERS} pollers, {seconds} s:",
        nodes.len()
    );
    println!(
        "  {} tasks handed out: {:.1}/s overall; busiest second {}; each second: {:?}",
        handed.len(),
        handed.len() as f64 / seconds as f64,
        per_second.iter().max().copied().unwrap_or(0),
        &per_second[..seconds as usize]
    );
    fair_shares(&nodes).await;
    for node in nodes {
        node.stop().await;
    }
}

/// The list the fairness figures are taken on.
const FAIR: &str = "fair-deciders";

/// Keys runs on [`FAIR`] by their `tenant=` tag with weights 3:1, queues a backlog for each
/// key, and prints each key's share of the first [`BACKLOG`] tasks handed out.
async fn fair_shares(nodes: &[TestServer]) {
    let fairness = Fairness {
        tag_prefix: "tenant=".into(),
        weights: [("acme".to_owned(), 3)].into(),
        default_weight: 1,
    };
    let request = ListLimitRequest {
        fairness: Some(Some(fairness)),
        ..ListLimitRequest::default()
    };
    let weft = weft_client(&nodes[0]);
    let keyed = weft.limit_task_list(DOMAIN, (BindingKind::Decision, FAIR), &request);
    keyed.await.expect("the list is keyed");
    for node in nodes {
        until_known(node, FAIR, |l| l.fairness.is_some()).await;
    }
    for tenant in ["acme", "globex"] {
        start_tagged(nodes, tenant).await;
    }
    let handed: Arc<Mutex<Vec<String>>> = Arc::default();
    let pollers: Vec<_> = (0..POLLERS)
        .map(|p| {
            let (client, handed) = (nodes[p % nodes.len()].client(), handed.clone());
            tokio::spawn(async move {
                while handed.lock().unwrap().len() < BACKLOG {
                    let task = client
                        .poll_for_decision_task()
                        .domain(DOMAIN)
                        .task_list(task_list(FAIR))
                        .send()
                        .await
                        .expect("poll");
                    if let Some(run) = task.workflow_execution() {
                        let tenant = run.workflow_id().split('-').next().unwrap_or("");
                        handed.lock().unwrap().push(tenant.to_owned());
                    }
                }
            })
        })
        .collect();
    for poller in pollers {
        poller.await.expect("a poller");
    }
    let handed = handed.lock().unwrap();
    let first = &handed[..BACKLOG];
    let acme = first.iter().filter(|t| *t == "acme").count();
    println!(
        "Fairness keys 3:1 on one decision list, {} node(s), {POLLERS} pollers, {BACKLOG} runs \
         queued for each key:",
        nodes.len()
    );
    println!(
        "  of the first {BACKLOG} tasks handed out: acme {acme} ({:.1} %), globex {} ({:.1} %)",
        100.0 * acme as f64 / BACKLOG as f64,
        BACKLOG - acme,
        100.0 * (BACKLOG - acme) as f64 / BACKLOG as f64
    );
}

/// Starts [`BACKLOG`] runs on [`FAIR`] tagged `tenant=TENANT`, ids `TENANT-N`, from eight
/// starters across `nodes`.
async fn start_tagged(nodes: &[TestServer], tenant: &str) {
    let starters = 8;
    let starts: Vec<_> = (0..starters)
        .map(|s| {
            let (client, tenant) = (nodes[s % nodes.len()].client(), tenant.to_owned());
            tokio::spawn(async move {
                for n in (s..BACKLOG).step_by(starters) {
                    client
                        .start_workflow_execution()
                        .domain(DOMAIN)
                        .workflow_id(format!("{tenant}-{n}"))
                        .workflow_type(one_activity::workflow_type())
                        .task_list(task_list(FAIR))
                        .tag_list(format!("tenant={tenant}"))
                        .send()
                        .await
                        .expect("start a workflow");
                }
            })
        })
        .collect();
    for start in starts {
        start.await.expect("starter");
    }
}

/// Waits until `node` knows the controls of `list` that `known` looks for.
async fn until_known(node: &TestServer, list: &str, known: impl Fn(&TaskListInfo) -> bool) {
    let weft = weft_client(node);
    let began = Instant::now();
    loop {
        let lists = weft.task_lists(DOMAIN).await.expect("the lists");
        if lists.iter().any(|l| l.name == list && known(l)) {
            return;
        }
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "the node never heard of the list's controls"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
