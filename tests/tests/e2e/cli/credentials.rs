//! Who the CLI signs as, and where it connects: keys from flags, the AWS environment variables
//! and the AWS shared files (`AWS_PROFILE`, `--profile`), the region from them too, and
//! `https://` endpoints checked against a CA file.

use weft_tests::TestServer;
use weft_tests::tenants::{self, ACME, GLOBEX};

use super::{Weft, write};

async fn tenants_server() -> TestServer {
    TestServer::start_with(tenants::both).await
}

#[tokio::test]
async fn keys_come_from_flags_the_environment_or_a_profile_in_that_order() {
    let server = tenants_server().await;
    let files = tempfile::tempdir().unwrap();
    let credentials = write(
        files.path(),
        "credentials",
        &format!(
            "[default]\naws_access_key_id = {}\naws_secret_access_key = {}\n\n\
             [globex]\naws_access_key_id = {}\naws_secret_access_key = {}\n",
            ACME.key, ACME.secret, GLOBEX.key, GLOBEX.secret
        ),
    );
    let config = write(
        files.path(),
        "config",
        "[default]\nregion = us-east-1\n[profile globex]\nregion = eu-west-1\n",
    );
    let weft = || {
        Weft::at(&server)
            .env("AWS_SHARED_CREDENTIALS_FILE", &credentials)
            .env("AWS_CONFIG_FILE", &config)
    };
    // The default profile is ACME: its domain lands in ACME's us-east-1.
    weft().run(&["domain", "register", "acme-d"]).await.out();
    // AWS_PROFILE picks GLOBEX, in the profile's region.
    let globex = || weft().env("AWS_PROFILE", "globex");
    globex()
        .run(&["domain", "register", "globex-d"])
        .await
        .out();
    let listed = globex().run(&["domain", "list", "--json"]).await.json();
    assert_eq!(listed["domainInfos"][0]["name"], "globex-d");
    assert_eq!(listed["domainInfos"].as_array().unwrap().len(), 1);
    let acme = server.client_as(ACME.key, ACME.secret, "us-east-1");
    let seen = acme.list_domains().registration_status("REGISTERED".into());
    let seen = seen.send().await.unwrap();
    let names: Vec<_> = seen.domain_infos().iter().map(|d| d.name()).collect();
    assert_eq!(names, ["acme-d"]);
    let in_eu = server.client_as(GLOBEX.key, GLOBEX.secret, "eu-west-1");
    let eu = in_eu.describe_domain().name("globex-d").send().await;
    assert!(eu.is_ok(), "{eu:?}");

    // Keys in the environment win over AWS_PROFILE (whose region still counts, as for AWS);
    // --profile wins over them.
    let env_keys = || {
        globex()
            .env("AWS_ACCESS_KEY_ID", ACME.key)
            .env("AWS_SECRET_ACCESS_KEY", ACME.secret)
    };
    let listed = env_keys().run(&["domain", "list", "--json"]).await.json();
    assert_eq!(listed["domainInfos"], serde_json::json!([]));
    let args = ["domain", "list", "--json", "--region", "us-east-1"];
    let listed = env_keys().run(&args).await.json();
    assert_eq!(listed["domainInfos"][0]["name"], "acme-d");
    let flagged = weft()
        .env("AWS_ACCESS_KEY_ID", ACME.key)
        .env("AWS_SECRET_ACCESS_KEY", ACME.secret)
        .run(&["domain", "list", "--profile", "globex", "--json"])
        .await
        .json();
    assert_eq!(flagged["domainInfos"][0]["name"], "globex-d");

    // A missing profile, and no keys at all, say so.
    let missing = weft().run(&["domain", "list", "--profile", "nope"]).await;
    assert!(
        missing
            .err()
            .contains("no profile \"nope\" in the AWS config or credentials file"),
        "{missing:?}"
    );
    let unsigned = Weft::at(&server).run(&["domain", "list"]).await;
    assert!(unsigned.err().contains("Exception"), "{unsigned:?}");
}

#[tokio::test]
async fn an_https_endpoint_is_trusted_through_a_ca_file_only() {
    let server = TestServer::start().await;
    let pki = crate::wasm::tls::pki();
    let acceptor = pki.acceptor();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let upstream = server.endpoint().trim_start_matches("http://").to_owned();
    // TLS in front of the server, as a load balancer would be.
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, upstream) = (acceptor.clone(), upstream.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut plain = tokio::net::TcpStream::connect(upstream).await.unwrap();
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    let files = tempfile::tempdir().unwrap();
    let ca = write(files.path(), "ca.pem", &pki.ca_pem);
    let endpoint = format!("https://localhost:{port}");
    let https = || Weft::bare().env("WEFT_ENDPOINT", &endpoint);
    let untrusted = https().run(&["domain", "list"]).await;
    let err = untrusted.err();
    assert!(
        err.contains(&format!("cannot talk TLS with {endpoint}: "))
            && err.contains("trust its CA with --ca-file FILE or AWS_CA_BUNDLE")
            && !err.contains("running"),
        "{untrusted:?}"
    );
    let ca = ca.to_str().unwrap();
    https()
        .run(&["domain", "register", "d", "--ca-file", ca])
        .await
        .out();
    let listed = https()
        .env("AWS_CA_BUNDLE", ca)
        .run(&["domain", "list", "--json"])
        .await;
    assert_eq!(listed.json()["domainInfos"][0]["name"], "d");
}
