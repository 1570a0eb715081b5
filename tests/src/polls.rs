//! Long polls held open on raw connections, as many clients waiting at once would hold them,
//! for the tests and benches that measure what waiting polls cost a server.

use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// How long [`until_waiting`] waits for the server to show the polls.
const SHOWN_WITHIN: Duration = Duration::from_secs(60);

/// Sends `n` `PollForActivityTask`s in `domain` to the server at `addr`, the `i`th on task
/// list `list(i)`, each on a connection of its own, and waits until the server shows them all
/// waiting. Dropping the connections ends the polls.
pub async fn open_polls(
    addr: &str,
    domain: &str,
    n: usize,
    list: impl Fn(usize) -> String,
) -> Vec<TcpStream> {
    let mut connections = Vec::with_capacity(n);
    for i in 0..n {
        let mut stream = TcpStream::connect(addr).await.expect("connects");
        let body = format!(
            r#"{{"domain":"{domain}","taskList":{{"name":"{}"}}}}"#,
            list(i)
        );
        let request = format!(
            "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-amz-json-1.0\r\n\
             X-Amz-Target: SimpleWorkflowService.PollForActivityTask\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.expect("sent");
        connections.push(stream);
    }
    until_waiting(addr, domain, n).await;
    connections
}

/// Waits until `n` polls wait in `domain`, as `/v1/domains/{domain}/task-lists` counts them.
pub async fn until_waiting(addr: &str, domain: &str, n: usize) {
    let began = Instant::now();
    let path = format!("/v1/domains/{domain}/task-lists");
    loop {
        let lists = crate::raw_http(addr, "GET", &path, &[], b"").await;
        let waiting: u64 = lists.json()["taskLists"]
            .as_array()
            .expect("task lists")
            .iter()
            .map(|list| list["pollers"].as_u64().unwrap_or(0))
            .sum();
        if waiting == n as u64 {
            return;
        }
        assert!(
            began.elapsed() < SHOWN_WITHIN,
            "{waiting} polls wait, not {n}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
