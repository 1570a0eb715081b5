//! The sandbox against real guests, without the service around it: `escape-activity` tries each
//! ambient capability and gets nothing; `backdoor-function` and a decider with a clock and
//! randomness are refused at load. (`tests/tests/e2e/wasm/sandbox.rs` does the same end to end.)

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{Call, GuestFailure, GuestLimits, Heartbeat, Runtime, tasks, types};

/// The component of test guest `name`.
fn guest(name: &str) -> &'static [u8] {
    weft_test_guests::component(name).unwrap()
}

fn task(input: &str) -> tasks::ActivityTask {
    tasks::ActivityTask {
        activity_id: "a".into(),
        activity_type: types::ActivityType {
            name: "escape".into(),
            version: "1".into(),
        },
        workflow_execution: types::WorkflowExecution {
            workflow_id: "w".into(),
            run_id: "r".into(),
        },
        input: Some(input.into()),
        started_event_id: 5,
    }
}

/// Runs `escape-activity` on each input, with `hosts` allowed; what each completed with.
async fn escape(inputs: &[String], hosts: &[&str]) -> Vec<Result<String, GuestFailure>> {
    let runtime = Runtime::new(None).unwrap();
    let module = runtime.load(guest("escape-activity")).unwrap();
    let call = Call {
        label: "escape".into(),
        limits: GuestLimits {
            cpu_ms: 200,
            ..GuestLimits::default()
        },
        http_hosts: hosts.iter().map(|h| (*h).to_owned()).collect(),
        tap: None,
        share: Arc::new(tokio::sync::Semaphore::new(4)),
    };
    let heartbeat: Heartbeat = Arc::new(|_| Box::pin(async { false }));
    let mut outcomes = Vec::new();
    for input in inputs {
        let outcome = runtime
            .run(&module, &call, &task(input), heartbeat.clone())
            .await;
        outcomes.push(outcome.map(|outcome| match outcome {
            tasks::ActivityOutcome::Completed(Some(result)) => result,
            other => panic!("{input}: {other:?}"),
        }));
    }
    outcomes
}

/// What each attempt of `escape-activity` gets, exactly: the test fails if one works.
pub(crate) const DENIED: [(&str, &str); 8] = [
    (
        "read-root",
        "denied: No such file or directory (os error 44)",
    ),
    (
        "read-passwd",
        "denied: No such file or directory (os error 44)",
    ),
    (
        "list-cwd",
        "denied: No such file or directory (os error 44)",
    ),
    ("write", "denied: No such file or directory (os error 44)"),
    ("env", "got: vars [], args []"),
    ("udp", "denied: Permission denied (os error 2)"),
    (
        "dns",
        "denied: failed to lookup address information: Non-recoverable error",
    ),
    ("spawn", "denied: operation not supported on this platform"),
];

/// A server on 127.0.0.1 that answers each request with `200 hello`, except `/redirect` (a
/// redirect to `elsewhere`) and `/slow` (no answer); the number of requests it read.
async fn server(elsewhere: std::net::SocketAddr) -> (std::net::SocketAddr, Arc<AtomicUsize>) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let counted = counted.clone();
            tokio::spawn(async move {
                let mut head = vec![0; 4096];
                let n = stream.read(&mut head).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&head[..n]).into_owned();
                counted.fetch_add(1, Ordering::SeqCst);
                let answer = if head.starts_with("GET /slow ") {
                    tokio::time::sleep(std::time::Duration::from_secs(30)).await;
                    return;
                } else if head.starts_with("GET /redirect ") {
                    format!(
                        "HTTP/1.1 302 Found\r\nlocation: http://{elsewhere}/\r\n\
                         content-length: 5\r\nconnection: close\r\n\r\nmoved"
                    )
                } else {
                    "HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello"
                        .to_owned()
                };
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    (addr, requests)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_escape_guest_gets_nothing() {
    let (addr, requests) = server("127.0.0.1:9".parse().unwrap()).await;
    let mut inputs: Vec<String> = DENIED.iter().map(|(input, _)| (*input).into()).collect();
    inputs.extend([
        format!("tcp:{addr}"),
        format!("http:http://{addr}/"),
        "exit".into(),
        "exit-code".into(),
    ]);
    let outcomes = escape(&inputs, &[]).await;
    for ((input, denial), outcome) in DENIED.iter().zip(&outcomes) {
        assert_eq!(outcome.as_deref(), Ok(*denial), "{input}");
    }
    let [tcp, http, exit, exit_code] = &outcomes[DENIED.len()..] else {
        unreachable!()
    };
    assert_eq!(tcp.as_deref(), Ok("denied: Permission denied (os error 2)"));
    assert_eq!(http.as_deref(), Ok("denied: ErrorCode::HttpRequestDenied"));
    // std's exit(3) reaches the host as WASI 0.2's bare failure; exit-with-code carries 3.
    assert_eq!(
        exit,
        &Err(GuestFailure::Trap(
            "it exited with a failure status (WASI 0.2's exit carries no number)".into()
        ))
    );
    assert_eq!(
        exit_code,
        &Err(GuestFailure::Trap("it exited with status 3".into()))
    );
    assert_eq!(
        requests.load(Ordering::SeqCst),
        0,
        "the server saw a request"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn http_goes_only_to_allowed_hosts_without_following_redirects() {
    let (elsewhere, elsewhere_requests) = server("127.0.0.1:9".parse().unwrap()).await;
    let (addr, requests) = server(elsewhere).await;
    let inputs = [
        format!("http:http://{addr}/"),
        format!("http:http://{addr}/redirect"),
        format!("http:http://{elsewhere}/"),
        format!("http:http://localhost:{}/", addr.port()),
        format!("http:http://{addr}/slow"),
    ];
    let allowed = addr.to_string();
    let outcomes = escape(&inputs, &[&allowed]).await;
    let outcomes: Vec<&str> = outcomes
        .iter()
        .map(|o| o.as_deref().unwrap_or_else(|e| panic!("{e}")))
        .collect();
    assert_eq!(
        outcomes[..4],
        [
            "got: 200 hello",
            // Not followed: the guest sees the redirect, and asking for its target is denied.
            "got: 302 moved",
            "denied: ErrorCode::HttpRequestDenied",
            "denied: ErrorCode::HttpRequestDenied",
        ]
    );
    // No answer: the exchange ends at the call's CPU budget (200 ms here), as the first byte's
    // timeout or the whole exchange's deadline, whichever wakes first (they are equal).
    assert!(
        [
            "denied: ErrorCode::ConnectionReadTimeout",
            "denied: ErrorCode::HttpResponseTimeout"
        ]
        .contains(&outcomes[4]),
        "{}",
        outcomes[4]
    );
    assert_eq!(requests.load(Ordering::SeqCst), 3);
    assert_eq!(elsewhere_requests.load(Ordering::SeqCst), 0);
}

#[test]
fn a_function_with_an_import_no_world_has_is_refused() {
    let runtime = Runtime::new(None).unwrap();
    let load = |name: &str| runtime.load(guest(name));
    let Err(refused) = load("backdoor-function") else {
        panic!("the backdoor loaded");
    };
    assert!(
        refused.0.starts_with(
            "a function may not import what this component imports: component imports \
             instance `evil:host/backdoor`"
        ),
        "{refused}"
    );
}
