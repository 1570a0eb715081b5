//! What one client may hold: its address's share of the connections, and the reserve kept
//! for new clients.

use std::time::Duration;

use tokio::time::{sleep, timeout};
use weft_tests::{RawResponse, TestServer};

use super::{
    LOCAL, PATIENCE, addr, connect_from, list_domains_on, loopback, read_until_closed, served_from,
};

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
