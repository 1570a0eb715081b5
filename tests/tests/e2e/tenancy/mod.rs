//! Tenants side by side on one server: each signs with its own keys (`tenants::{ACME, GLOBEX}`)
//! and is blind to the other; bad credentials get AWS's errors; quotas and rates hold.
//!
//! | file | what |
//! | --- | --- |
//! | `isolation.rs` | the same names in two tenants, and nothing of one reachable by the other |
//! | `auth.rs` | every bad or foreign credential, refused with the error AWS sends |
//! | `quotas.rs` | counts (`LimitExceededFault`), rates (`ThrottlingException`), Wasm limits |

mod auth;
mod isolation;
mod quotas;

use std::time::Duration;

use weft_host::Config;
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::guests::{self, WeftClient};
use weft_tests::tenants::{self, Tenant};

use crate::common::register_domain;
use crate::flow::{D, register_activity, register_workflow};

/// A server with ACME and GLOBEX as `configure` leaves them, and empty polls after 1 s.
async fn server_with(configure: impl Fn(&mut Config) + Send + Sync + 'static) -> TestServer {
    TestServer::start_with(move |config| {
        tenants::both(config);
        config.poll_timeout = Duration::from_secs(1);
        configure(config);
    })
    .await
}

/// `tenant`'s SWF client, after registering domain [`D`] with workflow type `wf` and activity
/// type `act`.
async fn set_up(server: &TestServer, tenant: &Tenant) -> Client {
    let c = tenant.client(server);
    register_domain(&c, D).await;
    register_workflow(&c, "wf").await;
    register_activity(&c, "act").await;
    c
}

/// `tenant`'s client of the `/v1` API.
fn weft(server: &TestServer, tenant: &Tenant) -> WeftClient {
    guests::weft_client(server).with_credentials(tenant.key, tenant.secret)
}
