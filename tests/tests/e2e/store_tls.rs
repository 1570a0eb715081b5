//! TLS to PostgreSQL: a store URL with `sslmode=verify-full` connects only to a server whose
//! certificate names the host it asked for and is signed by a root it trusts (`sslrootcert`,
//! else the Mozilla roots).
//!
//! These run on the suite's PostgreSQL server (`WEFT_TEST_POSTGRES`), which must be on this
//! machine with TLS on, serving a certificate that names `localhost` and can stand as its own
//! root (Debian's snakeoil certificate does). On redb they pass at once.

use weft_host::{Config, StoreUrl, Weft};
use weft_tests::TestServer;

use crate::common::register_domain;
use crate::flow::D;

/// A fresh schema of the suite's database as a URL reaching the server by `host` (at its
/// usual address), with `tls` appended; `None` on redb.
fn url(host: &str, tls: &str) -> Option<String> {
    let base = weft_tests::test_postgres()?;
    let schema = weft_tests::fresh_schema(&base);
    let url = schema
        .expose()
        .replacen("@127.0.0.1:", &format!("@{host}:"), 1);
    assert!(
        url.contains(&format!("@{host}:")),
        "WEFT_TEST_POSTGRES must name the server as 127.0.0.1: {base}"
    );
    Some(format!("{url}&hostaddr=127.0.0.1&{tls}"))
}

/// Runs `query` on the suite's database: the first column of the first row, as text.
fn ask(query: &'static str) -> String {
    let url = weft_tests::test_postgres().expect("WEFT_TEST_POSTGRES");
    weft_tests::on_database(&url, move |client| Ok(client.query_one(query, &[])?.get(0))).unwrap()
}

/// The certificate file of the suite's server, whose certificate is its own root.
fn server_certificate() -> String {
    assert_eq!(
        ask("SHOW ssl"),
        "on",
        "the suite's PostgreSQL server has TLS off"
    );
    ask("SHOW ssl_cert_file")
}

/// Why opening a store at `url` fails.
fn refusal(url: String) -> String {
    let mut config = Config::new(tempfile::tempdir().unwrap().path());
    config.store = Some(StoreUrl::new(url));
    match Weft::open(config) {
        Ok(_) => panic!("a server the store should not trust was used"),
        Err(e) => e.to_string(),
    }
}

#[tokio::test]
async fn a_server_its_root_vouches_for_serves_over_tls() {
    if weft_tests::test_postgres().is_none() {
        return;
    }
    let root = server_certificate();
    let url = url(
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={root}"),
    )
    .unwrap();
    let server = TestServer::start_with(move |c| c.store = Some(StoreUrl::new(url.clone()))).await;
    let client = server.client();
    register_domain(&client, D).await;
    let described = client.describe_domain().name(D).send().await.unwrap();
    assert_eq!(described.domain_info().unwrap().name(), D);
    // Other test servers run at once, but none of them over TLS.
    let encrypted = ask(
        "SELECT count(*)::text FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) \
         WHERE ssl AND application_name = 'weft'",
    );
    assert_ne!(encrypted, "0", "no connection of Weft's uses TLS");
}

#[tokio::test]
async fn a_server_no_trusted_root_vouches_for_is_refused() {
    if weft_tests::test_postgres().is_none() {
        return;
    }
    let root = server_certificate();
    // The Mozilla roots do not sign the server's own certificate.
    let refused = refusal(url("localhost", "sslmode=verify-full").unwrap());
    assert!(refused.contains("UnknownIssuer"), "{refused}");
    // The root vouches for the certificate, but not for a name the certificate does not hold.
    let refused =
        refusal(url("127.0.0.1", &format!("sslmode=require&sslrootcert={root}")).unwrap());
    assert!(refused.contains("not valid for name"), "{refused}");
}
