//! A delay between a node and the database, as a network between two machines adds: a proxy on
//! the loopback that holds every chunk the database sends for a while before passing it on.
//! (`tc netem` would do this in the kernel; this machine's kernel has no `netem`.) Tokio's
//! timers tick in whole milliseconds, so the delay added is measured, not assumed: see
//! [`Delayed::measured`].

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// A proxy to the database whose answers arrive `delay` late.
pub(crate) struct Delayed {
    url: String,
    direct: String,
}

impl Delayed {
    /// A proxy to the database `url` names (`postgres://USER@HOST:PORT/DB`) adding `delay` to
    /// each round trip; answers why not if the URL cannot be read.
    pub(crate) async fn start(url: &str, delay: Duration) -> Result<Delayed, String> {
        let (head, rest) = url.split_once('@').ok_or("the URL names no host")?;
        let (authority, tail) = rest.split_once('/').ok_or("the URL names no database")?;
        let database = authority.to_owned();
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| e.to_string())?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let database = database.clone();
                tokio::spawn(async move {
                    if let Ok(server) = TcpStream::connect(&database).await {
                        let _ = client.set_nodelay(true);
                        let _ = server.set_nodelay(true);
                        let (from_client, to_client) = client.into_split();
                        let (from_server, to_server) = server.into_split();
                        let up = forward(from_client, to_server, Duration::ZERO);
                        let down = forward(from_server, to_client, delay);
                        tokio::join!(up, down);
                    }
                });
            }
        });
        Ok(Delayed {
            url: format!("{head}@127.0.0.1:{port}/{tail}"),
            direct: url.to_owned(),
        })
    }

    /// The database's URL through the proxy.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// The round trip the proxy adds, measured: the median of 50 `SELECT 1` through it, less
    /// the median of 50 straight to the database.
    pub(crate) async fn measured(&self) -> Duration {
        let (through, direct) = (median_rtt(&self.url).await, median_rtt(&self.direct).await);
        through.saturating_sub(direct)
    }
}

async fn median_rtt(url: &str) -> Duration {
    let url = url.to_owned();
    let timed = tokio::task::spawn_blocking(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).ok()?;
        let mut times = Vec::new();
        for _ in 0..50 {
            let began = Instant::now();
            client.simple_query("SELECT 1").ok()?;
            times.push(began.elapsed());
        }
        times.sort();
        Some(times[times.len() / 2])
    });
    timed.await.ok().flatten().unwrap_or_default()
}

/// Passes what `from` reads to `to`, each chunk `delay` after it was read, in order.
async fn forward(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    delay: Duration,
) {
    let (chunks, mut due) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let reading = async move {
        let mut buf = vec![0; 64 * 1024];
        while let Ok(n @ 1..) = from.read(&mut buf).await {
            if chunks
                .send((Instant::now() + delay, buf[..n].to_vec()))
                .is_err()
            {
                return;
            }
        }
    };
    let writing = async move {
        let mut queue: VecDeque<(Instant, Vec<u8>)> = VecDeque::new();
        loop {
            if queue.is_empty() {
                match due.recv().await {
                    Some(chunk) => queue.push_back(chunk),
                    None => return,
                }
            }
            while let Ok(chunk) = due.try_recv() {
                queue.push_back(chunk);
            }
            let at = queue.front().map_or_else(Instant::now, |(at, _)| *at);
            tokio::time::sleep_until(at.into()).await;
            let now = Instant::now();
            while let Some((_, chunk)) = queue.pop_front_if(|(at, _)| *at <= now) {
                if to.write_all(&chunk).await.is_err() {
                    return;
                }
            }
        }
    };
    tokio::join!(reading, writing);
}
