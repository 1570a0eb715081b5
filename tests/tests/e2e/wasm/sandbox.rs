//! The guest sandbox end to end: `escape-activity`, bound like any worker, tries every ambient
//! capability and gets nothing; granted `wasi:http` reaches only the hosts its binding allows;
//! a component importing an interface no world has is refused at upload, and only activity
//! bindings take an allow-list.
//!
//! Huge allocations and CPU loops are the hostile guests' (`activities.rs`, `deciders.rs`,
//! `functions.rs`); a decider reading the clock or randomness is refused at upload
//! (`modules.rs`).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use weft_tests::aws_sdk_swf::types::{Decision, ScheduleActivityTaskDecisionAttributes};
use weft_tests::guests::{self, Bind, BindingKind, ClientError};

use super::{activity_ids, server};
use crate::flow::{
    D, DECIDERS, WORKERS, act_type, decision_task, register_activity, register_workflow, respond,
    schedule_activity_with, start_on, task_list, wait_for_events,
};

/// What each attempt of `escape-activity` must get, exactly: if one worked, its answer would
/// start with `got:` and name what it found.
const DENIED: [(&str, &str); 8] = [
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

/// What a guest gets when `wasi:http` refuses its request.
const HTTP_DENIED: &str = "denied: ErrorCode::HttpRequestDenied";

/// A server on 127.0.0.1 answering every request `200 hello`, or `/redirect` with a 302 to
/// `elsewhere`; its address and how many requests it read.
async fn http_server(elsewhere: Option<SocketAddr>) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut head = vec![0; 4096];
            let n = stream.read(&mut head).await.unwrap_or(0);
            if n == 0 {
                continue;
            }
            counted.fetch_add(1, Ordering::SeqCst);
            let answer = match elsewhere {
                Some(to) if head.starts_with(b"GET /redirect ") => format!(
                    "HTTP/1.1 302 Found\r\nlocation: http://{to}/\r\ncontent-length: 5\r\n\
                     connection: close\r\n\r\nmoved"
                ),
                _ => "HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello"
                    .to_owned(),
            };
            let _ = stream.write_all(answer.as_bytes()).await;
        }
    });
    (addr, requests)
}

/// ScheduleActivityTask of type "escape" as `id` with `input`, on task list `list`.
fn escape(id: &str, input: &str, list: &str) -> Decision {
    schedule_activity_with(
        ScheduleActivityTaskDecisionAttributes::builder()
            .activity_id(id)
            .activity_type(act_type("escape", "1"))
            .task_list(task_list(list))
            .input(input),
    )
}

/// Runs workflow `workflow_id`, whose first decision schedules each `(input, list)` as an
/// `escape` activity; once `completed` of them completed and `failed` failed, what each
/// answered (a result or a failure reason), by input.
pub(super) async fn run_escapes(
    c: &weft_tests::aws_sdk_swf::Client,
    workflow_id: &str,
    attempts: &[(String, &str)],
    failed: usize,
) -> BTreeMap<String, String> {
    let run = start_on(c, workflow_id, "w", DECIDERS).await;
    let task = decision_task(c, DECIDERS).await;
    let decisions = attempts
        .iter()
        .enumerate()
        .map(|(i, (input, list))| escape(&i.to_string(), input, list))
        .collect();
    respond(c, task.task_token(), decisions).await;
    let completed = attempts.len() - failed;
    wait_for_events(c, workflow_id, &run, "ActivityTaskFailed", failed).await;
    let events = wait_for_events(c, workflow_id, &run, "ActivityTaskCompleted", completed).await;
    let ids = activity_ids(&events);
    let input = |scheduled: i64| {
        attempts[ids[&scheduled].parse::<usize>().unwrap()]
            .0
            .clone()
    };
    let mut answers = BTreeMap::new();
    for event in &events {
        if let Some(done) = event.activity_task_completed_event_attributes() {
            let result = done.result().unwrap_or_default().to_owned();
            answers.insert(input(done.scheduled_event_id()), result);
        }
        if let Some(failure) = event.activity_task_failed_event_attributes() {
            let reason = failure.reason().unwrap_or_default().to_owned();
            answers.insert(input(failure.scheduled_event_id()), reason);
        }
    }
    assert_eq!(answers.len(), attempts.len(), "each attempt answers once");
    answers
}

#[tokio::test]
async fn an_escaping_activity_gets_nothing() {
    let (_server, c, weft) = server().await;
    let (addr, requests) = http_server(None).await;
    guests::deploy(
        &weft,
        "escape-activity",
        D,
        BindingKind::Activity,
        WORKERS,
        Bind {
            concurrency: Some(4),
            ..Bind::default()
        },
    )
    .await;
    register_workflow(&c, "w").await;
    register_activity(&c, "escape").await;
    let mut attempts: Vec<(String, &str)> = DENIED
        .iter()
        .map(|(input, _)| ((*input).to_owned(), WORKERS))
        .collect();
    attempts.extend([
        (format!("tcp:{addr}"), WORKERS),
        (format!("http:http://{addr}/"), WORKERS),
        ("exit".to_owned(), WORKERS),
    ]);
    let answers = run_escapes(&c, "escape", &attempts, 1).await;
    for (input, denial) in DENIED {
        assert_eq!(answers[input], denial, "{input}");
    }
    assert_eq!(
        answers[&format!("tcp:{addr}")],
        "denied: Permission denied (os error 2)"
    );
    assert_eq!(answers[&format!("http:http://{addr}/")], HTTP_DENIED);
    // Exiting ends the guest's call, not the host: the task fails, saying so.
    assert_eq!(
        answers["exit"],
        "weft: the guest trapped: it exited with a failure status (WASI 0.2's exit carries no \
         number)"
    );
    assert_eq!(
        requests.load(Ordering::SeqCst),
        0,
        "the server saw a request"
    );
}

#[tokio::test]
async fn http_reaches_only_the_hosts_a_binding_allows() {
    let (_server, c, weft) = server().await;
    let (elsewhere, elsewhere_requests) = http_server(None).await;
    let (allowed, requests) = http_server(Some(elsewhere)).await;
    let digest = guests::deploy(
        &weft,
        "escape-activity",
        D,
        BindingKind::Activity,
        "granted",
        Bind {
            http_hosts: vec![allowed.to_string()],
            ..Bind::default()
        },
    )
    .await;
    weft.bind(D, BindingKind::Activity, WORKERS, &Bind::module(&digest))
        .await
        .unwrap();
    let listed = weft.list_bindings(D).await.unwrap();
    let hosts: BTreeMap<&str, &[String]> = listed
        .iter()
        .map(|b| (b.name.as_str(), b.http_hosts.as_slice()))
        .collect();
    assert_eq!(hosts["granted"], [allowed.to_string()]);
    assert!(hosts[WORKERS].is_empty());

    register_workflow(&c, "w").await;
    register_activity(&c, "escape").await;
    let get = |addr: SocketAddr, path: &str| format!("http:http://{addr}{path}");
    let attempts = [
        (get(allowed, "/"), "granted"),
        (get(elsewhere, "/"), "granted"),
        (
            format!("http:http://localhost:{}/", allowed.port()),
            "granted",
        ),
        (get(allowed, "/redirect"), "granted"),
        (get(allowed, "/ungranted"), WORKERS),
    ];
    let answers = run_escapes(&c, "http", &attempts, 0).await;
    assert_eq!(answers[&get(allowed, "/")], "got: 200 hello");
    // Another port, or the same server by another name, is another host.
    assert_eq!(answers[&get(elsewhere, "/")], HTTP_DENIED);
    assert_eq!(answers[&attempts[2].0], HTTP_DENIED);
    // A redirect is handed to the guest, not followed to a host the list lacks.
    assert_eq!(answers[&get(allowed, "/redirect")], "got: 302 moved");
    // The same module bound without a grant.
    assert_eq!(answers[&get(allowed, "/ungranted")], HTTP_DENIED);
    assert_eq!(requests.load(Ordering::SeqCst), 2);
    assert_eq!(elsewhere_requests.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn foreign_imports_are_refused_and_only_activities_take_http_hosts() {
    let (_server, _c, weft) = server().await;
    let refused = weft.upload_module(guests::guest("backdoor-function")).await;
    let Err(ClientError::Refused { code, message, .. }) = refused else {
        panic!("the backdoor was accepted: {refused:?}");
    };
    assert_eq!(code, "ValidationException");
    assert!(
        message.starts_with(
            "Invalid module: a function may not import what this component imports: component \
             imports instance `evil:host/backdoor`"
        ),
        "{message}"
    );

    let function = weft
        .upload_module(guests::guest("hostile-function"))
        .await
        .unwrap()
        .digest;
    let activity = weft
        .upload_module(guests::guest("escape-activity"))
        .await
        .unwrap()
        .digest;
    let grant = |module: &str, hosts: &[&str]| Bind {
        http_hosts: hosts.iter().map(|h| (*h).to_owned()).collect(),
        ..Bind::module(module)
    };
    let bound = weft
        .bind(
            D,
            BindingKind::Function,
            "f",
            &grant(&function, &["example.com"]),
        )
        .await;
    let Err(ClientError::Refused { message, .. }) = bound else {
        panic!("a function was granted HTTP: {bound:?}");
    };
    assert_eq!(
        message,
        "httpHosts is for activity bindings only: a function binding cannot send HTTP requests"
    );
    for bad in [
        "http://example.com",
        "example.com/x",
        "*.example.com",
        "EXAMPLE.com",
    ] {
        let bound = weft
            .bind(D, BindingKind::Activity, WORKERS, &grant(&activity, &[bad]))
            .await;
        let Err(ClientError::Refused { code, message, .. }) = bound else {
            panic!("{bad} was accepted: {bound:?}");
        };
        assert_eq!(code, "ValidationException", "{bad}");
        assert!(
            message.starts_with(&format!("Invalid httpHosts: {bad:?}: ")),
            "{message}"
        );
    }
    let bound = weft
        .bind(
            D,
            BindingKind::Activity,
            WORKERS,
            &grant(
                &activity,
                &["api.example.com", "10.0.0.1:8443", "[::1]:8080"],
            ),
        )
        .await
        .unwrap();
    assert_eq!(
        bound.http_hosts,
        ["api.example.com", "10.0.0.1:8443", "[::1]:8080"]
    );
}
