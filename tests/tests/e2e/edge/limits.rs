//! What one client may hold: its address's share of the connections, the reserve kept for new
//! clients, its tenant's long polls, and the time and bytes a request may take before its
//! signature is checked.

use std::future::Future;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::{sleep, timeout};
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::error::ProvideErrorMetadata;
use weft_tests::aws_sdk_swf::types::TaskList;
use weft_tests::tenants::{self, ACME, GLOBEX};
use weft_tests::{RawResponse, TestServer, guests};

use super::{
    LOCAL, PATIENCE, addr, connect_from, list_domains_on, loopback, read_until_closed, served_from,
};
use crate::common::register_domain;

/// Asserts that `response` refuses a connection with `ThrottlingException`, saying `why`.
#[track_caller]
fn assert_refused(response: &RawResponse, why: &str) {
    assert_eq!(response.status, 400, "{}", response.body);
    assert_eq!(response.error_code(), "ThrottlingException");
    assert_eq!(
        response.header("x-amzn-errortype"),
        Some("ThrottlingException")
    );
    assert!(response.message().contains(why), "{}", response.message());
}

#[tokio::test]
async fn one_address_at_its_cap_does_not_keep_another_out() {
    let server = TestServer::start_with(|c| {
        c.http.max_connections_per_address = Some(2);
        c.http.header_timeout = Duration::from_secs(300);
    })
    .await;
    let addr = addr(&server);
    let held = [
        served_from(LOCAL, &addr).await,
        served_from(LOCAL, &addr).await,
    ];
    // A third connection from that address is answered with an AWS error, and closed.
    let mut third = connect_from(LOCAL, &addr).await;
    let response = list_domains_on(&mut third, false).await;
    assert_refused(&response, "Too many connections from 127.0.0.1");
    assert!(read_until_closed(&mut third).await.is_empty());
    // Meanwhile another address is served, again and again.
    for _ in 0..3 {
        let mut other = connect_from(loopback(2), &addr).await;
        let response = list_domains_on(&mut other, true).await;
        assert_eq!(response.status, 200, "{}", response.body);
    }
    // Once one of its connections closes, the first address is served again.
    drop(held);
    eventually_served(loopback(1), &addr).await;
}

/// Waits until a connection from `from` is served (the server sees closed connections go a
/// moment after they close).
async fn eventually_served(from: std::net::IpAddr, addr: &str) {
    let served = async {
        loop {
            let mut stream = connect_from(from, addr).await;
            if list_domains_on(&mut stream, true).await.status == 200 {
                return;
            }
            sleep(Duration::from_millis(50)).await;
        }
    };
    timeout(PATIENCE, served)
        .await
        .unwrap_or_else(|_| panic!("{from} not served after {PATIENCE:?}"));
}

#[tokio::test]
async fn the_last_connections_are_kept_for_new_clients() {
    let server = TestServer::start_with(|c| {
        c.http.max_connections = 6;
        c.http.max_connections_per_address = Some(6);
        c.http.reserved_connections = Some(2);
        c.http.reserved_per_address = 1;
        c.http.header_timeout = Duration::from_secs(300);
    })
    .await;
    let addr = addr(&server);
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(served_from(LOCAL, &addr).await);
    }
    // Only the reserve is left: 127.0.0.1, holding four, is refused...
    let mut fifth = connect_from(LOCAL, &addr).await;
    let response = list_domains_on(&mut fifth, false).await;
    assert_refused(&response, "kept for clients holding fewer than 1");
    drop(fifth);
    // ...while new clients get one connection each.
    held.push(served_from(loopback(2), &addr).await);
    let mut second = connect_from(loopback(2), &addr).await;
    let response = list_domains_on(&mut second, false).await;
    assert_refused(&response, "nearly at its connection limit");
    held.push(served_from(loopback(3), &addr).await);
    // Every connection is taken now: the next one waits in the backlog.
    let waiting = tokio::spawn({
        let addr = addr.clone();
        async move {
            let mut stream = connect_from(loopback(4), &addr).await;
            list_domains_on(&mut stream, true).await
        }
    });
    sleep(Duration::from_secs(1)).await;
    assert!(!waiting.is_finished(), "served over the cap");
    held.truncate(4);
    let response = timeout(PATIENCE, waiting).await.unwrap().unwrap();
    assert_eq!(response.status, 200, "{}", response.body);
}

/// Starts a poll for an activity task on `list` (which must wait: nothing is scheduled, and
/// `server`'s clock stands still): `Ok` with the poll once the server has it waiting, else its
/// error code and message.
async fn poll_waits(
    server: &TestServer,
    client: &Client,
    list: &str,
) -> Result<JoinHandle<()>, (String, String)> {
    let waiting = server.polls_waiting();
    let poll = client
        .poll_for_activity_task()
        .domain("d")
        .task_list(TaskList::builder().name(list).build().unwrap())
        .send();
    let mut poll = tokio::spawn(poll);
    let admitted = async {
        while server.polls_waiting() <= waiting {
            sleep(Duration::from_millis(1)).await;
        }
    };
    let ended = tokio::select! {
        () = admitted => None,
        ended = &mut poll => Some(ended),
    };
    match ended {
        None => Ok(tokio::spawn(async move {
            let _ = poll.await;
        })),
        Some(Ok(Ok(task))) => panic!("an empty poll was answered at once: {task:?}"),
        Some(Ok(Err(e))) => Err((
            e.code().unwrap_or("?").to_owned(),
            e.message().unwrap_or_default().to_owned(),
        )),
        Some(Err(e)) => panic!("the poll task failed: {e}"),
    }
}

/// Starts a poll by each of `polls` (a client and a task list of its own), and waits for the
/// first to end: one of them must be refused at once, since together they are one over the
/// cap, while the others wait. Answers the index of the refused poll with its message, and the
/// polls still waiting.
async fn one_refused(polls: &[(&Client, &str)]) -> (usize, String, Vec<JoinHandle<()>>) {
    let (ended, mut first) = mpsc::unbounded_channel();
    let waiting = polls
        .iter()
        .enumerate()
        .map(|(i, (client, list))| {
            let poll = client
                .poll_for_activity_task()
                .domain("d")
                .task_list(TaskList::builder().name(*list).build().unwrap())
                .send();
            let ended = ended.clone();
            tokio::spawn(async move {
                let _ = ended.send((i, poll.await));
            })
        })
        .collect::<Vec<_>>();
    let (i, answer) = timeout(PATIENCE, first.recv())
        .await
        .expect("a poll over the cap is refused at once")
        .unwrap();
    let err = answer.expect_err("an empty poll is refused, not answered");
    assert_eq!(err.code(), Some("LimitExceededFault"), "{err:?}");
    let message = err.message().unwrap_or_default().to_owned();
    let waiting = waiting
        .into_iter()
        .enumerate()
        .filter_map(|(j, poll)| (j != i).then_some(poll))
        .collect();
    (i, message, waiting)
}

#[tokio::test]
async fn the_open_tenants_long_polls_are_capped_per_region() {
    let server = TestServer::start_manual_with(|c| {
        c.limits.max_long_polls = 2;
        c.poll_timeout = Duration::from_secs(60);
    })
    .await;
    let east = server.client();
    let west = server.client_in("us-west-2");
    register_domain(&east, "d").await;
    register_domain(&west, "d").await;
    // Three polls, on lists of their own so that SWF's cap per list is not what acts.
    let polls = [(&east, "a"), (&east, "b"), (&east, "c")];
    let (_, message, waiting) = one_refused(&polls).await;
    server.until_polls_wait(waiting.len()).await;
    assert_eq!(
        message,
        "Limit on maximum concurrent poll requests per region reached (2)"
    );
    // Another region is another scope, with its own polls.
    assert!(poll_waits(&server, &west, "a").await.is_ok());
    // A poll that ends gives its place back, once the server has let it go.
    let polls = server.polls_waiting();
    waiting[0].abort();
    let let_go = async {
        while server.polls_waiting() == polls {
            sleep(Duration::from_millis(1)).await;
        }
    };
    timeout(PATIENCE, let_go)
        .await
        .expect("the server lets go of a poll its client gave up");
    let admitted = async {
        while poll_waits(&server, &east, "d").await.is_err() {
            sleep(Duration::from_millis(1)).await;
        }
    };
    timeout(PATIENCE, admitted)
        .await
        .expect("a poll is admitted once one ends");
}

#[tokio::test]
async fn a_tenants_long_polls_are_capped_across_its_regions() {
    let server = TestServer::start_manual_with(|c| {
        let mut acme = ACME.config();
        acme.quotas.long_polls = 1;
        c.tenants = vec![acme, GLOBEX.config()];
        c.poll_timeout = Duration::from_secs(60);
    })
    .await;
    let acme_east = ACME.client(&server);
    let acme_west = server.client_as(ACME.key, ACME.secret, "us-west-2");
    let globex = GLOBEX.client(&server);
    for client in [&acme_east, &acme_west, &globex] {
        register_domain(client, "d").await;
    }
    let (_, message, waiting) = one_refused(&[(&acme_east, "a"), (&acme_west, "a")]).await;
    server.until_polls_wait(waiting.len()).await;
    assert_eq!(
        message,
        "Limit on maximum concurrent poll requests per account reached (1)"
    );
    // Another tenant's pollers are not held back by ACME's...
    assert!(poll_waits(&server, &globex, "a").await.is_ok());
    // ...nor are ACME's other requests.
    let listed = acme_east
        .list_domains()
        .registration_status("REGISTERED".into())
        .send()
        .await;
    assert!(listed.is_ok(), "{listed:?}");
}

/// `X-Amz-Date` for `at`: `yyyymmddThhmmssZ`.
fn amz_date(at: SystemTime) -> String {
    let secs = at.duration_since(UNIX_EPOCH).unwrap().as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The head of a request naming ACME's real access key with a signature that is not its own,
/// announcing a body of `length` bytes, with `extra` headers.
fn forged_head(addr: &str, length: usize, extra: &str) -> String {
    let date = amz_date(SystemTime::now());
    format!(
        "POST / HTTP/1.1\r\nHost: {addr}\r\nX-Amz-Target: SimpleWorkflowService.ListDomains\r\n\
         Content-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Date: {date}\r\nContent-Length: {length}\r\n{extra}\
         Authorization: AWS4-HMAC-SHA256 Credential={}/{}/us-east-1/swf/aws4_request, \
         SignedHeaders=host;x-amz-date;x-amz-target, Signature={}\r\n\r\n",
        ACME.key,
        &date[..8],
        "0".repeat(64)
    )
}

/// Runs `exchange` within [`PATIENCE`]: far less than the body timeout the tests set.
async fn promptly<T>(exchange: impl Future<Output = T>) -> T {
    timeout(PATIENCE, exchange)
        .await
        .unwrap_or_else(|_| panic!("no answer after {PATIENCE:?}"))
}

#[tokio::test]
async fn a_request_not_yet_verified_cannot_hold_its_connection_for_the_body_timeout() {
    let server = TestServer::start_with(|c| {
        tenants::both(c);
        c.http.body_timeout = Duration::from_secs(300);
        c.http.unverified_body_timeout = Duration::from_secs(1);
        c.http.unverified_body_bytes = 4096;
    })
    .await;
    let addr = addr(&server);

    // A real key, a forged signature, and a body that stops coming: the shorter deadline cuts
    // it off, not the five-minute one.
    let mut stream = connect_from(LOCAL, &addr).await;
    let head = forged_head(&addr, 100, "");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
        .write_all(b"{\"registrationStatus\": ")
        .await
        .unwrap();
    let response = RawResponse::parse(&promptly(read_until_closed(&mut stream)).await);
    assert_eq!(response.status, 408, "{}", response.body);
    assert_eq!(response.error_code(), "RequestTimeoutException");

    // A body over what is read unverified is refused before it is sent.
    let mut stream = connect_from(LOCAL, &addr).await;
    stream
        .write_all(forged_head(&addr, 100_000, "").as_bytes())
        .await
        .unwrap();
    let response = RawResponse::parse(&promptly(read_until_closed(&mut stream)).await);
    assert_eq!(response.status, 413, "{}", response.body);
    assert!(
        response.message().contains("x-amz-content-sha256"),
        "{}",
        response.message()
    );

    // A request that declares its body's hash has its signature checked first: the forgery
    // is refused before a byte of the body is sent.
    let mut stream = connect_from(LOCAL, &addr).await;
    let declared = format!("X-Amz-Content-Sha256: {}\r\n", "ab".repeat(32));
    stream
        .write_all(forged_head(&addr, 100_000, &declared).as_bytes())
        .await
        .unwrap();
    let response = RawResponse::parse(&promptly(read_until_closed(&mut stream)).await);
    assert_eq!(response.status, 400, "{}", response.body);
    assert_eq!(response.error_code(), "InvalidSignatureException");

    // Clients that sign properly are not affected: SDK requests fit the unverified limits,
    // and `weft` declares the hash of an upload larger than them.
    let listed = ACME
        .client(&server)
        .list_domains()
        .registration_status("REGISTERED".into())
        .send()
        .await;
    assert!(listed.is_ok(), "{listed:?}");
    let code = guests::guest("one-activity-decider");
    assert!(code.len() > 4096);
    let weft = guests::weft_client(&server).with_credentials(ACME.key, ACME.secret);
    weft.upload_module(code)
        .await
        .expect("the upload is accepted");
}
