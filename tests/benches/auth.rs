//! What signed requests cost: checking one SigV4 signature (as `weft serve --config` does for
//! every request), and ListDomains round trips through aws-sdk-swf against an open server and
//! against one with tenants.
//!
//! `cargo bench -p weft-tests --bench auth`.

use std::time::{Duration, Instant};

use weft_host::bench::SignedRequest;
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::RegistrationStatus;
use weft_tests::tenants::{self, ACME};

const CALLS: usize = 2_000;

fn main() {
    for body in [64, 4 << 10, 64 << 10] {
        let request = SignedRequest::new(body);
        assert!(request.verify(), "the bench request verifies");
        let rounds = 20_000;
        let began = Instant::now();
        for _ in 0..rounds {
            std::hint::black_box(request.verify());
        }
        let each = began.elapsed() / rounds;
        println!(
            "verify a signature, {body:>6} B body: {:>6.2} µs",
            micros(each)
        );
    }
    weft_tests::bench::run(async {
        let open = TestServer::start().await;
        let rate = round_trips(&open.client()).await;
        println!("ListDomains, open server:         {rate:>7.0} calls/s (1 client)");
        let signed = TestServer::start_with(tenants::both).await;
        let rate = round_trips(&ACME.client(&signed)).await;
        println!("ListDomains, server with tenants: {rate:>7.0} calls/s (1 client)");
    });
}

/// ListDomains calls per second, one after another.
async fn round_trips(client: &Client) -> f64 {
    let began = Instant::now();
    for _ in 0..CALLS {
        client
            .list_domains()
            .registration_status(RegistrationStatus::Registered)
            .send()
            .await
            .expect("ListDomains");
    }
    CALLS as f64 / began.elapsed().as_secs_f64()
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
