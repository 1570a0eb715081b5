//! The partition test's network: each node in a network namespace of its own, reaching the
//! database through a proxy on its link and reached by its clients through another, its link
//! shaped (`tc`), its clock skewed; and the faults the test brings on them.
//!
//! The development machines' kernel has no `netem`, so the links are shaped with `tbf`: a rate
//! and a queue that drops what waits too long, which makes a link slow and lossy.

use std::path::Path;
use std::time::Duration;

use weft_tests::netns::Netns;
use weft_tests::process::{Launch, Weft, binary};
use weft_tests::proxy::Proxy;

use super::XorShift;

/// Where the suite's PostgreSQL server listens, in the host's namespace.
const DATABASE: &str = "127.0.0.1:5432";
/// Every link's everyday weather: fast, with a queue long enough to drop nothing.
const WEATHER: &str = "tbf rate 200mbit burst 256kbit latency 50ms";
/// A bad spell on one link: slow, and dropping what waits more than 20 ms.
const STORM: &str = "tbf rate 400kbit burst 8kbit latency 20ms";
/// How far each node's clock is off, in ms: node 1 ahead, node 2 behind.
const SKEWS_MS: [i64; 3] = [0, 2000, -1000];

/// One node's network.
pub(super) struct Wiring {
    netns: Netns,
    /// Between the node and the database.
    database: Proxy,
    /// Between the node and its clients: where they connect.
    clients: Proxy,
    skew_ms: i64,
}

impl Wiring {
    /// Node `node`'s namespace and proxies, with the everyday weather on its link.
    pub(super) async fn new(node: usize) -> Wiring {
        let netns = Netns::create(node as u8).expect("a network namespace");
        netns.shape(WEATHER).expect("the link shaped");
        let database = Proxy::start(&format!("{}:0", netns.host_ip), DATABASE).await;
        let clients = Proxy::start("127.0.0.1:0", &format!("{}:1", netns.ns_ip)).await;
        Wiring {
            netns,
            database,
            clients,
            skew_ms: SKEWS_MS[node % SKEWS_MS.len()],
        }
    }

    /// Where the node's clients connect.
    pub(super) fn endpoint(&self) -> String {
        format!("http://{}", self.clients.addr)
    }

    /// What starts the node: `weft serve` inside the namespace, its clock skewed, reaching the
    /// database `store` (a URL naming [`DATABASE`]) through its proxy.
    pub(super) fn launch(
        &self,
        data: &Path,
        log: &Path,
        store: &str,
    ) -> impl FnOnce() -> Weft + use<> {
        let mut command = self.netns.command(&binary());
        command.env("WEFT_TEST_CLOCK_SKEW_MS", self.skew_ms.to_string());
        let listen = format!("{}:0", self.netns.ns_ip);
        let store = store.replace(DATABASE, &self.database.addr);
        let (data, log) = (data.to_owned(), log.to_owned());
        move || {
            let at = Launch {
                command,
                listen: &listen,
            };
            Weft::start_command(at, &data, &log, Some(&store), &[], "warn")
        }
    }

    /// Checks that `weft`'s clock is off by the node's skew: a binary built without the
    /// `test-switches` feature (`cargo build -p weft-host` alone) ignores the switch.
    pub(super) async fn check_skew(&self, weft: &Weft) {
        let answer = weft_tests::raw_http(&weft.addr, "GET", "/v1/clock", &[], b"").await;
        let server = answer.json()["now"].as_f64().expect("the server's clock");
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after the epoch")
            .as_secs_f64();
        let off_ms = (server - now) * 1000.0;
        assert!(
            (off_ms - self.skew_ms as f64).abs() < 1000.0,
            "the node's clock is off by {off_ms:.0} ms, not {} ms: build the binary with the \
             test-switches feature (cargo build at the top, which builds the tests crate too)",
            self.skew_ms
        );
    }

    /// Points the clients' proxy at `weft`, just started.
    pub(super) fn serve(&self, weft: &Weft) {
        self.clients.retarget(&weft.addr);
    }
}

/// A fault the partition test brings on one node for a while.
#[derive(Clone, Copy, Debug)]
pub(super) enum Fault {
    /// SIGKILL, and a restart.
    Kill,
    /// The node cannot reach the database.
    DatabaseCut,
    /// The node's clients cannot reach it.
    ClientsCut,
    /// The node's link is down: it reaches nothing and nothing reaches it.
    Partition,
    /// The node's link is slow and drops packets.
    Storm,
}

impl Fault {
    /// A fault drawn from `rng`.
    pub(super) fn draw(rng: &mut XorShift) -> Fault {
        [
            Fault::Kill,
            Fault::DatabaseCut,
            Fault::ClientsCut,
            Fault::Partition,
            Fault::Storm,
        ][rng.below(5) as usize]
    }

    /// Brings the fault (but a kill, which the cluster brings) on `wiring`'s node.
    pub(super) fn begin(self, wiring: &Wiring) {
        match self {
            Fault::Kill => {}
            Fault::DatabaseCut => wiring.database.cut(),
            Fault::ClientsCut => wiring.clients.cut(),
            Fault::Partition => wiring.netns.link(false).expect("the link goes down"),
            Fault::Storm => wiring.netns.shape(STORM).expect("the link shaped"),
        }
    }

    /// Ends the fault.
    pub(super) fn end(self, wiring: &Wiring) {
        match self {
            Fault::Kill => {}
            Fault::DatabaseCut => wiring.database.restore(),
            Fault::ClientsCut => wiring.clients.restore(),
            Fault::Partition => wiring.netns.link(true).expect("the link comes up"),
            Fault::Storm => wiring.netns.shape(WEATHER).expect("the link shaped"),
        }
    }

    /// How long it lasts.
    pub(super) fn length(self, rng: &mut XorShift) -> Duration {
        match self {
            Fault::Kill => rng.millis(0, 400),
            _ => rng.millis(500, 3000),
        }
    }
}
