//! The database out of reach, or a node cut off in the middle of a transaction: a node answers
//! `ServiceUnavailableException` (HTTP 503), which SDKs retry, within a few seconds instead of
//! hanging or failing with 500; `/metrics` answers throughout; and everything serves again by
//! itself once the database is back. A node reaches the suite's PostgreSQL server
//! (`WEFT_TEST_POSTGRES`, at 127.0.0.1:5432) through a proxy the test controls. On redb, which
//! is in-process, these pass at once.

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;
use weft_host::StoreUrl;
use weft_tests::aws_sdk_swf::error::ProvideErrorMetadata;
use weft_tests::{RawResponse, TestServer};

use crate::common::register_domain;
use crate::flow::*;

/// Where the suite's server listens.
const DATABASE: &str = "127.0.0.1:5432";

/// How long any one request may take here before the test calls it hung: the node's own
/// bound on a database call is 5 s, and a request makes at most two in a row that time out.
const ANSWERED_WITHIN: Duration = Duration::from_secs(20);

/// What the proxy does with the bytes of its links.
const UP: u8 = 0;
/// Refuses: drops every link, and every new connection.
const CUT: u8 = 1;
/// Black-holes: keeps every connection open, and forwards nothing either way.
const SILENT: u8 = 2;

/// A TCP proxy to [`DATABASE`] that can be cut, black-holed, or made to swallow the next
/// `COMMIT` a client sends (and everything after it on that link), as a network partition
/// would in the middle of a transaction.
struct Proxy {
    addr: String,
    mode: Arc<AtomicU8>,
    links: Arc<Mutex<Vec<AbortHandle>>>,
    /// 1 once armed for the next `COMMIT`; 2 once a link swallowed one.
    stall: Arc<AtomicU8>,
    /// Links made to the database, and those of them that sent a message while it was silent.
    counts: Arc<[AtomicUsize; 2]>,
}

impl Proxy {
    async fn start() -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let proxy = Proxy {
            addr,
            mode: Arc::default(),
            links: Arc::default(),
            stall: Arc::default(),
            counts: Arc::default(),
        };
        let (mode, links, stall) = (proxy.mode.clone(), proxy.links.clone(), proxy.stall.clone());
        let counts = proxy.counts.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let (mode, stall, counts) = (mode.clone(), stall.clone(), counts.clone());
                let link = tokio::spawn(async move {
                    if mode.load(Ordering::SeqCst) != UP {
                        // Cut: closed at once. Silent: held open, unanswered.
                        if mode.load(Ordering::SeqCst) == SILENT {
                            std::future::pending::<()>().await;
                        }
                        return;
                    }
                    let Ok(server) = TcpStream::connect(DATABASE).await else {
                        return;
                    };
                    counts[0].fetch_add(1, Ordering::SeqCst);
                    let (client_in, client_out) = client.into_split();
                    let (server_in, server_out) = server.into_split();
                    let up = forward_messages(client_in, server_out, &mode, &stall, &counts[1]);
                    let down = forward_bytes(server_in, client_out, &mode);
                    tokio::join!(up, down);
                });
                links.lock().unwrap().push(link.abort_handle());
            }
        });
        proxy
    }

    /// The database goes away: every connection to it ends, and new ones are refused.
    fn cut(&self) {
        self.mode.store(CUT, Ordering::SeqCst);
        self.drop_links();
    }

    /// The database stops answering: connections stay open, and nothing gets through.
    fn black_hole(&self) {
        self.mode.store(SILENT, Ordering::SeqCst);
    }

    /// The database is back. Links held silent are dropped, as both ends gave up on them.
    fn restore(&self) {
        self.drop_links();
        self.mode.store(UP, Ordering::SeqCst);
    }

    /// The next `COMMIT` sent through the proxy, and whatever follows it on its link, never
    /// arrives; nothing comes back on that link either, and it stays open.
    fn stall_next_commit(&self) {
        self.stall.store(1, Ordering::SeqCst);
    }

    /// Whether a link has swallowed a `COMMIT`.
    fn stalled(&self) -> bool {
        self.stall.load(Ordering::SeqCst) == 2
    }

    /// How many links to the database were made, and how many of them sent a message while
    /// it was silent (each a call that then waited out its deadline).
    fn counts(&self) -> (usize, usize) {
        let [made, silenced] = &*self.counts;
        (made.load(Ordering::SeqCst), silenced.load(Ordering::SeqCst))
    }

    fn drop_links(&self) {
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
    }
}

/// Holds the link open, forwarding nothing more, until the proxy drops it.
async fn hold() {
    std::future::pending::<()>().await
}

/// Copies the server's bytes to the client while the proxy is up.
async fn forward_bytes(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, mode: &AtomicU8) {
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let Ok(n @ 1..) = from.read(&mut buffer).await else {
            return;
        };
        if mode.load(Ordering::SeqCst) != UP {
            return hold().await;
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}

/// Copies the client's messages to the server while the proxy is up, one protocol message at
/// a time, swallowing a `COMMIT` when armed to.
async fn forward_messages(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    mode: &AtomicU8,
    stall: &AtomicU8,
    silenced: &AtomicUsize,
) {
    // Untyped messages (SSL or GSS requests, then the startup message) until the startup.
    let mut typed = false;
    loop {
        let mut head = vec![0; if typed { 5 } else { 4 }];
        if from.read_exact(&mut head).await.is_err() {
            return;
        }
        let length = u32::from_be_bytes(head[head.len() - 4..].try_into().unwrap()) as usize;
        let mut body = vec![0; length.saturating_sub(4)];
        if from.read_exact(&mut body).await.is_err() {
            return;
        }
        if !typed {
            // SSLRequest and GSSENCRequest are followed by another untyped message.
            let code = body
                .get(..4)
                .map(|c| u32::from_be_bytes(c.try_into().unwrap()));
            typed = !matches!(code, Some(80877103 | 80877104));
        } else if head[0] == b'Q'
            && body.starts_with(b"COMMIT")
            && stall
                .compare_exchange(1, 2, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        {
            return hold().await;
        }
        if mode.load(Ordering::SeqCst) != UP {
            silenced.fetch_add(1, Ordering::SeqCst);
            return hold().await;
        }
        if to.write_all(&head).await.is_err() || to.write_all(&body).await.is_err() {
            return;
        }
    }
}

/// A node whose database connections all go through a new proxy; `None` on redb.
async fn node_behind_proxy(
    base: &str,
    schema: &StoreUrl,
    configure: impl Fn(&mut weft_host::Config) + Send + Sync + 'static,
) -> (TestServer, Proxy) {
    let proxy = Proxy::start().await;
    let url = schema
        .expose()
        .replacen(&format!("@{DATABASE}/"), &format!("@{}/", proxy.addr), 1);
    assert_ne!(url, base, "WEFT_TEST_POSTGRES must name {DATABASE}");
    let server = TestServer::start_with(move |c| {
        configure(c);
        c.store = Some(StoreUrl::new(url.clone()));
    })
    .await;
    (server, proxy)
}

/// `request`, which must be answered within [`ANSWERED_WITHIN`].
async fn answered<T>(what: &str, request: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(ANSWERED_WITHIN, request)
        .await
        .unwrap_or_else(|_| panic!("{what} hung for {ANSWERED_WITHIN:?}"))
}

/// `GET /metrics`, and the value of `weft_store_up` in it.
async fn store_up(server: &TestServer) -> (RawResponse, Option<String>) {
    let response = server.http("GET", "/metrics", b"").await;
    let up = response
        .body
        .lines()
        .find_map(|line| line.strip_prefix("weft_store_up ").map(str::to_owned));
    (response, up)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_answers_503_while_the_database_is_away_and_serves_again_after() {
    let Some(base) = weft_tests::test_postgres() else {
        return;
    };
    let schema = weft_tests::fresh_schema(&base);
    let (server, proxy) = node_behind_proxy(&base, &schema, |_| {}).await;
    register_domain(&server.client(), D).await;

    proxy.cut();
    let describe = format!(r#"{{"name":"{D}"}}"#);
    let read = server
        .raw(
            Some("SimpleWorkflowService.DescribeDomain"),
            describe.as_bytes(),
        )
        .await;
    let register = br#"{"name":"later","workflowExecutionRetentionPeriodInDays":"1"}"#;
    let write = server
        .raw(Some("SimpleWorkflowService.RegisterDomain"), register)
        .await;
    for (what, answer) in [("a read", &read), ("a write", &write)] {
        assert_eq!(answer.status, 503, "{what}: {answer:?}");
        assert_eq!(answer.error_code(), "ServiceUnavailableException", "{what}");
    }

    proxy.restore();
    // The SDK retries what is unavailable; the node reconnects on its own.
    register_domain(&server.client(), "later").await;
    let read = server
        .raw(
            Some("SimpleWorkflowService.DescribeDomain"),
            describe.as_bytes(),
        )
        .await;
    assert_eq!(read.status, 200, "{read:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_stops_answering_is_answered_503_and_metrics_still_answer() {
    let Some(base) = weft_tests::test_postgres() else {
        return;
    };
    let schema = weft_tests::fresh_schema(&base);
    let (server, proxy) = node_behind_proxy(&base, &schema, |_| {}).await;
    let client = server.client();
    register_domain(&client, D).await;
    let (_, up) = store_up(&server).await;
    assert_eq!(up.as_deref(), Some("1"));

    proxy.black_hole();
    let describe = format!(r#"{{"name":"{D}"}}"#);
    let register = br#"{"name":"later","workflowExecutionRetentionPeriodInDays":"1"}"#;
    let poll = format!(r#"{{"domain":"{D}","taskList":{{"name":"{DECIDERS}"}}}}"#);
    let [describe_target, register_target, poll_target] =
        ["DescribeDomain", "RegisterDomain", "PollForDecisionTask"]
            .map(|op| format!("SimpleWorkflowService.{op}"));
    let (read, write, polled, modules, metrics) = tokio::join!(
        answered(
            "DescribeDomain",
            server.raw(Some(&describe_target), describe.as_bytes())
        ),
        answered(
            "RegisterDomain",
            server.raw(Some(&register_target), register)
        ),
        answered(
            "PollForDecisionTask",
            server.raw(Some(&poll_target), poll.as_bytes())
        ),
        answered("GET /v1/modules", server.http("GET", "/v1/modules", b"")),
        answered("GET /metrics", store_up(&server)),
    );
    for (what, answer) in [
        ("a read", &read),
        ("a write", &write),
        ("a poll", &polled),
        ("/v1", &modules),
    ] {
        assert_eq!(answer.status, 503, "{what}: {answer:?}");
        assert_eq!(answer.error_code(), "ServiceUnavailableException", "{what}");
    }
    let (metrics, up) = metrics;
    assert_eq!(metrics.status, 200, "{metrics:?}");
    assert_eq!(up.as_deref(), Some("0"), "the store is down while silent");

    proxy.restore();
    let began = Instant::now();
    loop {
        let described = client.describe_domain().name(D).send().await;
        match described {
            Ok(_) => break,
            Err(e) => assert_eq!(e.code(), Some("ServiceUnavailableException"), "{e:?}"),
        }
        assert!(
            began.elapsed() < ANSWERED_WITHIN,
            "the node did not recover"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    register_domain(&client, "later").await;
    let (_, up) = store_up(&server).await;
    assert_eq!(up.as_deref(), Some("1"));
}

/// A pool that tried each connection it held in turn would make a lone request wait out one
/// deadline per connection (8 here: longer than the test lets it take).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lone_request_waits_out_one_dead_connection_not_each_the_node_holds() {
    let Some(base) = weft_tests::test_postgres() else {
        return;
    };
    let schema = weft_tests::fresh_schema(&base);
    let (server, proxy) = node_behind_proxy(&base, &schema, |_| {}).await;
    let client = server.client();
    register_domain(&client, D).await;
    // Reads at once until the pool holds many connections (the writer and the listener have
    // theirs): at least 8 of its own.
    for round in 0.. {
        if proxy.counts().0 >= 10 {
            break;
        }
        assert!(round < 200, "the pool never grew: {:?}", proxy.counts());
        let reads = (0..16).map(|_| {
            client
                .list_domains()
                .registration_status(weft_tests::aws_sdk_swf::types::RegistrationStatus::Registered)
                .send()
        });
        for read in futures_util::future::join_all(reads).await {
            read.unwrap();
        }
    }
    // Idle for longer than a connection is handed out untested (1 s): each would be tested.
    tokio::time::sleep(Duration::from_millis(1_200)).await;

    proxy.black_hole();
    let describe = format!(r#"{{"name":"{D}"}}"#);
    let target = "SimpleWorkflowService.DescribeDomain";
    let read = answered(
        "DescribeDomain",
        server.raw(Some(target), describe.as_bytes()),
    )
    .await;
    assert_eq!(read.status, 503, "{read:?}");
    let (made, silenced) = proxy.counts();
    // The request's test of one connection, and at most what the node's own loops sent.
    assert!(
        silenced <= 4,
        "{silenced} of {made} connections were waited on"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_stalled_mid_transaction_holds_a_run_only_for_a_bounded_time() {
    let Some(base) = weft_tests::test_postgres() else {
        return;
    };
    let schema = weft_tests::fresh_schema(&base);
    let (a, proxy) = node_behind_proxy(&base, &schema, |_| {}).await;
    let direct = schema.clone();
    let b = TestServer::start_with(move |c| c.store = Some(direct.clone())).await;
    let (ca, cb) = (a.client(), b.client());
    register_domain(&cb, D).await;
    register_workflow(&cb, "w").await;
    let run = start(&cb, "w1", "w").await;
    let signal = |client: &weft_tests::aws_sdk_swf::Client, name: &str| {
        client
            .signal_workflow_execution()
            .domain(D)
            .workflow_id("w1")
            .signal_name(name)
            .send()
    };

    // Node A's signal takes the run's lock, and its COMMIT never arrives: A is cut off in the
    // middle of the transaction, and the database hears nothing more from it.
    proxy.stall_next_commit();
    let stalled = tokio::spawn(signal(&ca, "from-a"));
    let began = Instant::now();
    while !proxy.stalled() {
        assert!(began.elapsed() < ANSWERED_WITHIN, "A's COMMIT never came");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let stalled_at = Instant::now();

    // B cannot change the run while A's transaction holds it: a retryable fault, soon.
    let refused = answered("B's signal", signal(&cb, "refused"))
        .await
        .unwrap_err();
    assert_eq!(
        refused.code(),
        Some("ServiceUnavailableException"),
        "{refused:?}"
    );

    // The database ends A's idle transaction after its bound (5 s): then B writes again.
    loop {
        match answered("B's signal", signal(&cb, "from-b")).await {
            Ok(_) => break,
            Err(e) => assert_eq!(e.code(), Some("ServiceUnavailableException"), "{e:?}"),
        }
        assert!(
            stalled_at.elapsed() < Duration::from_secs(15),
            "the run stayed locked for {:?}",
            stalled_at.elapsed()
        );
    }
    // A's signal was never acknowledged: its outcome was unknown to A, and it did not happen.
    let from_a = answered("A's signal", stalled).await.unwrap();
    assert_eq!(
        from_a.unwrap_err().code(),
        Some("ServiceUnavailableException")
    );
    let events = history(&cb, "w1", &run).await;
    let signals: Vec<_> = events
        .iter()
        .filter_map(|e| e.workflow_execution_signaled_event_attributes())
        .map(|s| s.signal_name().to_owned())
        .collect();
    assert_eq!(signals, ["from-b"]);
}
