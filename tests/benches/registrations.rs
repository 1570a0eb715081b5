//! Registrations per second with 1, 16 and 64 concurrent clients: the effect of group commit.
//!
//! Each client registers activity types one after another against the real server (in this
//! process, over loopback); every registration is acknowledged only after a durable commit.
//! Two kinds of client run: aws-sdk-swf (what applications use; its signing and middleware cost
//! more CPU per call than the server spends) and a minimal HTTP/1.1 keep-alive client, which
//! leaves the machine's cores to the server. Alongside the rates it prints how many requests
//! each durable commit carried: that is group commit at work.
//!
//! `cargo bench -p weft-tests --bench registrations`. `WEFT_BENCH_DIR` picks the disk the data
//! goes to (default: the system's temporary directory); `WEFT_BENCH_SECS` the length of each run
//! (default 5).

use std::future::Future;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;

const CONCURRENCY: [usize; 3] = [1, 16, 64];

fn main() {
    weft_tests::bench::run(run());
}

/// Something that registers activity types, one at a time.
trait Registrar: Send + 'static {
    fn register(&mut self, name: String) -> impl Future<Output = ()> + Send;
}

impl Registrar for Client {
    async fn register(&mut self, name: String) {
        self.register_activity_type()
            .domain("bench")
            .name(name)
            .version("1")
            .send()
            .await
            .expect("registration succeeds");
    }
}

/// One keep-alive HTTP/1.1 connection sending prepared requests.
struct RawClient {
    stream: BufReader<TcpStream>,
}

impl RawClient {
    async fn connect(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).await.expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        RawClient {
            stream: BufReader::new(stream),
        }
    }
}

impl Registrar for RawClient {
    async fn register(&mut self, name: String) {
        let body = format!(r#"{{"domain":"bench","name":"{name}","version":"1"}}"#);
        let request = format!(
            "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n\
             X-Amz-Target: SimpleWorkflowService.RegisterActivityType\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        self.stream
            .get_mut()
            .write_all(request.as_bytes())
            .await
            .expect("send");
        let (mut status, mut length, mut line) = (String::new(), 0, String::new());
        self.stream.read_line(&mut status).await.expect("status");
        loop {
            line.clear();
            self.stream.read_line(&mut line).await.expect("header");
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().expect("length");
            }
        }
        let mut body = vec![0; length];
        self.stream.read_exact(&mut body).await.expect("body");
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    }
}

async fn run() {
    let secs: u64 = weft_tests::bench::setting("WEFT_BENCH_SECS", 5);
    let dir = std::env::var_os("WEFT_BENCH_DIR");
    let server = TestServer::start_in(dir.as_deref(), |config| {
        config.limits.max_types_per_kind = usize::MAX;
    })
    .await;
    let client = server.client();
    client
        .register_domain()
        .name("bench")
        .workflow_execution_retention_period_in_days("1")
        .send()
        .await
        .expect("register the domain");
    let addr: SocketAddr = server.endpoint()["http://".len()..]
        .parse()
        .expect("address");
    let length = Duration::from_secs(secs);

    println!(
        "registrations per second, {secs} s per run, each acknowledged after a durable commit"
    );
    println!("\naws-sdk-swf clients:");
    let mut single = None;
    for clients in CONCURRENCY {
        let registrars = vec![client.clone(); clients];
        report(&server, clients, &mut single, measure(registrars, length)).await;
    }
    println!("\nminimal HTTP/1.1 keep-alive clients:");
    let mut single = None;
    for clients in CONCURRENCY {
        let mut registrars = Vec::new();
        for _ in 0..clients {
            registrars.push(RawClient::connect(addr).await);
        }
        report(&server, clients, &mut single, measure(registrars, length)).await;
    }
    server.stop().await;
}

async fn report(
    server: &TestServer,
    clients: usize,
    single: &mut Option<f64>,
    run: impl Future<Output = (f64, Vec<Duration>)>,
) {
    let stats = server.writer_stats();
    let (commits, requests) = (stats.commits(), stats.requests());
    let (rate, mut latencies) = run.await;
    let per_commit =
        (stats.requests() - requests) as f64 / (stats.commits() - commits).max(1) as f64;
    latencies.sort_unstable();
    let pct = |p: usize| latencies[(latencies.len() - 1) * p / 100].as_secs_f64() * 1e3;
    let speedup = single.map_or(String::new(), |s| {
        format!("  {:>4.1}x one client", rate / s)
    });
    println!(
        "{clients:>3} clients: {rate:>7.0}/s  {per_commit:>5.1} per commit  \
         latency p50 {:>5.2} ms  p99 {:>5.2} ms{speedup}",
        pct(50),
        pct(99),
    );
    single.get_or_insert(rate);
}

/// Runs every registrar in its own task for `length`; returns the rate and the latencies.
async fn measure<R: Registrar>(registrars: Vec<R>, length: Duration) -> (f64, Vec<Duration>) {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let start = Instant::now();
    let deadline = start + length;
    let tasks: Vec<_> = registrars
        .into_iter()
        .enumerate()
        .map(|(worker, mut registrar)| {
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                while Instant::now() < deadline {
                    let began = Instant::now();
                    let name = format!("r{run}-w{worker}-{}", latencies.len());
                    registrar.register(name).await;
                    latencies.push(began.elapsed());
                }
                latencies
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.expect("client task"));
    }
    (
        latencies.len() as f64 / start.elapsed().as_secs_f64(),
        latencies,
    )
}
