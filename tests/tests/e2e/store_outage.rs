//! The database out of reach: a node answers `ServiceUnavailableException` (HTTP 503), which
//! SDKs retry, keeps running, and serves again once the database is back. The node reaches the
//! suite's PostgreSQL server (`WEFT_TEST_POSTGRES`, at 127.0.0.1:5432) through a proxy that the
//! test cuts and restores. On redb, which is in-process, it passes at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;
use weft_host::StoreUrl;
use weft_tests::TestServer;

use crate::common::register_domain;
use crate::flow::D;

/// Where the suite's server listens.
const DATABASE: &str = "127.0.0.1:5432";

/// A TCP proxy to [`DATABASE`] that can be cut: then it drops its connections and every new one.
struct Proxy {
    addr: String,
    up: Arc<AtomicBool>,
    links: Arc<Mutex<Vec<AbortHandle>>>,
}

impl Proxy {
    async fn start() -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let up = Arc::new(AtomicBool::new(true));
        let links = Arc::new(Mutex::new(Vec::new()));
        let (accepting, linked) = (up.clone(), links.clone());
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !accepting.load(Ordering::SeqCst) {
                    continue;
                }
                let link = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(DATABASE).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                linked.lock().unwrap().push(link.abort_handle());
            }
        });
        Proxy { addr, up, links }
    }

    /// The database goes away: every connection to it ends, and new ones are refused.
    fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
    }

    /// The database is back.
    fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_answers_503_while_the_database_is_away_and_serves_again_after() {
    let Some(base) = weft_tests::test_postgres() else {
        return;
    };
    let proxy = Proxy::start().await;
    let schema = weft_tests::fresh_schema(&base);
    let url = schema
        .expose()
        .replacen(&format!("@{DATABASE}/"), &format!("@{}/", proxy.addr), 1);
    assert_ne!(
        url,
        schema.expose(),
        "WEFT_TEST_POSTGRES must name {DATABASE}"
    );
    let server = TestServer::start_with(move |c| c.store = Some(StoreUrl::new(url.clone()))).await;
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
