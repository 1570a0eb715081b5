//! What one flooding address does to everyone else: a second client's ListDomains latency
//! while one address floods the server, first with idle connections, then with long polls.
//!
//! The flood comes from 127.0.0.1 and the watched client from 127.0.0.2 (both route over
//! Linux's loopback), so the server sees two client addresses. The watched client opens a fresh
//! connection for every call, as a client starting up or one whose kept-alive connection was
//! closed would: a server whose connections are all taken cannot serve it however fast it is.
//! Each flooding connection is a misbehaving client of a fleet: an idle one holds its
//! connection until the server closes it and then connects again at once; a poller polls again
//! (on a task list of its own hundred, so SWF's limit per list does not stop it) as soon as its
//! poll is answered. Either waits about a second (0.5 to 1.5 s, jittered as SDKs jitter their
//! back-off) before trying again when the server refuses it (a fault, or a close within a
//! second), as a fleet backing off would: a flood that reconnects in a tight loop is a CPU
//! attack, which belongs to a firewall in front of the server. Prints latency percentiles of the
//! watched client with no flood, under each flood, and what the flood met.
//!
//! `cargo bench -p weft-tests --bench flood`. `WEFT_BENCH_FLOOD` sets the flood's connections
//! (default 5000: above the default connection cap), `WEFT_BENCH_SECS` each phase's length
//! (default 10).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::task::JoinSet;
use weft_tests::TestServer;

const FLOODER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
const WATCHER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

/// How long the watched client waits for one answer before counting the call as failed.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// A call slower than this counts as stuck.
const PROMPT: Duration = Duration::from_millis(100);

/// How long a flooding client waits, on average, after being refused or failing to connect;
/// a connection the server closes sooner than this was refused.
const BACK_OFF: Duration = Duration::from_secs(1);

/// A back-off around [`BACK_OFF`] (half to one and a half of it), from the flooder's `state`
/// (a xorshift generator, so that flooders refused together do not come back together).
fn jittered(state: &mut u64) -> Duration {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    BACK_OFF / 2 + BACK_OFF.mul_f64((*state % 1000) as f64 / 1000.0)
}

fn main() {
    weft_tests::bench::run(run());
}

async fn run() {
    let flood = weft_tests::bench::setting("WEFT_BENCH_FLOOD", 5000);
    let phase = Duration::from_secs(weft_tests::bench::setting("WEFT_BENCH_SECS", 10));
    // The server's defaults throughout, but for how long a poll waits: the flood's polls
    // outlast the phase either way.
    let server = TestServer::start_with(|c| c.poll_timeout = Duration::from_secs(20)).await;
    let addr: SocketAddr = server.endpoint()["http://".len()..]
        .parse()
        .expect("address");
    let register = br#"{"name": "flood", "workflowExecutionRetentionPeriodInDays": "1"}"#;
    let registered = server
        .raw(Some("SimpleWorkflowService.RegisterDomain"), register)
        .await;
    assert_eq!(registered.status, 200, "{}", registered.body);

    println!(
        "ListDomains from {WATCHER}, a fresh connection per call, while {FLOODER} floods with \
         {flood} connections; {} s per phase",
        phase.as_secs()
    );
    measure("no flood", addr, phase, None, flood).await;
    measure("idle connections", addr, phase, Some(Flood::Idle), flood).await;
    // Let the last flood's connections close before the next one.
    tokio::time::sleep(Duration::from_secs(2)).await;
    measure("long polls", addr, phase, Some(Flood::Polls), flood).await;
    drop(server);
}

#[derive(Clone, Copy, PartialEq)]
enum Flood {
    /// Connect and send nothing.
    Idle,
    /// Long-poll an empty task list, again and again.
    Polls,
}

/// What the flooding connections met.
#[derive(Default)]
struct FloodTally {
    /// Connections made (the kernel's backlog completes them whether or not the server serves
    /// them).
    connected: AtomicU64,
    /// Connections that failed or timed out before connecting.
    unconnected: AtomicU64,
    /// Polls answered 200 (empty, at the end of the wait).
    polled: AtomicU64,
    /// Answers that were faults.
    faults: AtomicU64,
    /// Connections the server closed without an answer.
    closed: AtomicU64,
}

async fn measure(label: &str, addr: SocketAddr, phase: Duration, flood: Option<Flood>, n: usize) {
    let tally = Arc::new(FloodTally::default());
    let mut flooders = JoinSet::new();
    if let Some(kind) = flood {
        for i in 0..n {
            flooders.spawn(flooder(addr, kind, i, tally.clone()));
        }
        // Let the flood build up before watching.
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    let overflows = listen_overflows();
    let deadline = Instant::now() + phase;
    let (mut latencies, mut failures) = (Vec::new(), 0);
    while Instant::now() < deadline {
        let began = Instant::now();
        match tokio::time::timeout(CALL_TIMEOUT, list_domains(addr)).await {
            Ok(Ok(())) => latencies.push(began.elapsed()),
            _ => failures += 1,
        }
    }
    let overflows = listen_overflows()
        .zip(overflows)
        .map_or("?".to_owned(), |(after, before)| {
            (after - before).to_string()
        });
    flooders.abort_all();
    while flooders.join_next().await.is_some() {}
    // The time the watched client spent stuck: in calls that were not prompt.
    let stuck =
        latencies.iter().filter(|d| **d >= PROMPT).sum::<Duration>() + CALL_TIMEOUT * failures;
    latencies.sort_unstable();
    let pct = |p: usize| match latencies.len() {
        0 => f64::NAN,
        len => latencies[(len - 1) * p / 100].as_secs_f64() * 1e3,
    };
    println!(
        "{label:>16}: {:>5} calls  p50 {:>8.2} ms  p90 {:>8.2} ms  p99 {:>8.2} ms  max {:>8.2} ms  \
         {failures} failed (no answer in {} s); stuck {:.1} s",
        latencies.len(),
        pct(50),
        pct(90),
        pct(99),
        latencies.last().map_or(f64::NAN, |d| d.as_secs_f64() * 1e3),
        CALL_TIMEOUT.as_secs(),
        stuck.as_secs_f64()
    );
    if flood.is_some() {
        let get = |n: &AtomicU64| n.load(Ordering::Relaxed);
        println!(
            "{:>16}  flood: {} connections made, {} not, {} polls answered, {} faults, \
             {} closed unanswered; {overflows} SYNs dropped on a full listen queue",
            "",
            get(&tally.connected),
            get(&tally.unconnected),
            get(&tally.polled),
            get(&tally.faults),
            get(&tally.closed)
        );
    }
}

/// Connections the kernel dropped because a listen queue was full, so far (Linux:
/// `ListenOverflows` in `/proc/net/netstat`); a dropped SYN is retried after a second.
fn listen_overflows() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/net/netstat").ok()?;
    let mut lines = text.lines();
    while let (Some(names), Some(values)) = (lines.next(), lines.next()) {
        let at = names
            .split_whitespace()
            .position(|n| n == "ListenOverflows");
        if let Some(at) = at {
            return values.split_whitespace().nth(at)?.parse().ok();
        }
    }
    None
}

/// A connection to `addr` from `from`.
async fn connect(from: IpAddr, addr: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(from, 0))?;
    let stream = socket.connect(addr).await?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// One ListDomains on a fresh connection from the watched address; an error unless answered 200.
async fn list_domains(addr: SocketAddr) -> std::io::Result<()> {
    let mut stream = connect(WATCHER, addr).await?;
    let response = exchange(
        &mut stream,
        "SimpleWorkflowService.ListDomains",
        br#"{"registrationStatus": "REGISTERED"}"#,
    )
    .await?;
    if response.starts_with(b"HTTP/1.1 200") {
        Ok(())
    } else {
        Err(std::io::Error::other(
            String::from_utf8_lossy(&response).into_owned(),
        ))
    }
}

/// Sends one request with `Connection: close` and reads the answer until the server closes.
async fn exchange(stream: &mut TcpStream, target: &str, body: &[u8]) -> std::io::Result<Vec<u8>> {
    let head = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: {target}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body).await?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await?;
    Ok(response)
}

/// Flooding client number `i`, until aborted. It polls (if it polls) on one of a hundred task
/// lists.
async fn flooder(addr: SocketAddr, kind: Flood, i: usize, tally: Arc<FloodTally>) {
    let list = i % 100;
    let poll = format!(r#"{{"domain": "flood", "taskList": {{"name": "l{list}"}}}}"#);
    let mut seed = 0x9e37_79b9_7f4a_7c15 ^ (i as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d);
    loop {
        let stream = tokio::time::timeout(CALL_TIMEOUT, connect(FLOODER, addr)).await;
        let Ok(Ok(mut stream)) = stream else {
            tally.unconnected.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(jittered(&mut seed)).await;
            continue;
        };
        tally.connected.fetch_add(1, Ordering::Relaxed);
        let began = Instant::now();
        let answered = match kind {
            Flood::Idle => {
                let mut read = Vec::new();
                let _ = stream.read_to_end(&mut read).await;
                read
            }
            Flood::Polls => {
                let target = "SimpleWorkflowService.PollForActivityTask";
                exchange(&mut stream, target, poll.as_bytes())
                    .await
                    .unwrap_or_default()
            }
        };
        if answered.starts_with(b"HTTP/1.1 200") {
            tally.polled.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        if !answered.is_empty() {
            tally.faults.fetch_add(1, Ordering::Relaxed);
        } else {
            tally.closed.fetch_add(1, Ordering::Relaxed);
            if began.elapsed() >= BACK_OFF {
                // Held until the server gave up on it: take another at once.
                continue;
            }
        }
        tokio::time::sleep(jittered(&mut seed)).await;
    }
}
