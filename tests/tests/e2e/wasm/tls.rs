//! HTTPS from a guest: `escape-activity` fetches `https://` from a local server whose
//! certificate a test CA signed (made here with rcgen, served with tokio-rustls and `ring`). The
//! request succeeds on a Weft that trusts the CA (`Config::http_ca`), and fails with a
//! certificate error, not a panic or a protocol error, on one that trusts only the Mozilla roots.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair, KeyUsagePurpose};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use weft_tests::TestServer;
use weft_tests::guests::{self, Bind, BindingKind};

use super::sandbox::run_escapes;
use crate::flow::{D, WORKERS, register_activity, register_workflow};

/// A test CA's certificate in PEM, and a certificate it signed for `localhost` and 127.0.0.1
/// with that certificate's key.
pub(crate) struct Pki {
    pub(crate) ca_pem: String,
    server_chain: Vec<CertificateDer<'static>>,
    server_key: PrivateKeyDer<'static>,
}

impl Pki {
    /// A TLS acceptor serving the certificate for `localhost` and 127.0.0.1.
    pub(crate) fn acceptor(&self) -> tokio_rustls::TlsAcceptor {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(self.server_chain.clone(), self.server_key.clone_key())
            .unwrap();
        tokio_rustls::TlsAcceptor::from(Arc::new(config))
    }
}

pub(crate) fn pki() -> Pki {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "Weft test CA");
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let server_key = KeyPair::generate().unwrap();
    let server = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
        .unwrap()
        .signed_by(&server_key, &ca)
        .unwrap();
    Pki {
        ca_pem: ca.pem(),
        server_chain: vec![server.der().clone()],
        server_key: PrivatePkcs8KeyDer::from(server_key.serialize_der()).into(),
    }
}

/// An HTTPS server on 127.0.0.1 answering every request `200 secure`; its address and how many
/// requests it answered (a client that refuses the certificate sends none).
async fn https_server(pki: &Pki) -> (SocketAddr, Arc<AtomicUsize>) {
    let acceptor = pki.acceptor();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let answered = Arc::new(AtomicUsize::new(0));
    let counted = answered.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, counted) = (acceptor.clone(), counted.clone());
            tokio::spawn(async move {
                // A handshake the client gives up (its certificate check failed) ends here.
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut head = vec![0; 4096];
                if tls.read(&mut head).await.unwrap_or(0) == 0 {
                    return;
                }
                let answer =
                    "HTTP/1.1 200 OK\r\ncontent-length: 6\r\nconnection: close\r\n\r\nsecure";
                if tls.write_all(answer.as_bytes()).await.is_ok() {
                    counted.fetch_add(1, Ordering::SeqCst);
                }
                let _ = tls.shutdown().await;
            });
        }
    });
    (addr, answered)
}

/// A server trusting the CAs in `http_ca`, with [`D`] and the types the escape runs use, and
/// `escape-activity` serving [`WORKERS`], allowed to reach `hosts`.
async fn server_with(http_ca: Vec<PathBuf>, hosts: Vec<String>) -> TestServer {
    let server = TestServer::start_with(move |config| {
        config.poll_timeout = Duration::from_secs(1);
        config.http_ca = http_ca.clone();
    })
    .await;
    let c = server.client();
    guests::register_examples(&c, D).await;
    let weft = guests::weft_client(&server);
    let bind = Bind {
        http_hosts: hosts,
        ..Bind::default()
    };
    guests::deploy(
        &weft,
        "escape-activity",
        D,
        BindingKind::Activity,
        WORKERS,
        bind,
    )
    .await;
    register_workflow(&c, "w").await;
    register_activity(&c, "escape").await;
    server
}

#[tokio::test]
async fn https_from_a_guest_succeeds_only_when_its_ca_is_trusted() {
    let pki = pki();
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &pki.ca_pem).unwrap();
    let (addr, answered) = https_server(&pki).await;
    let by_name = format!("localhost:{}", addr.port());
    let hosts = vec![by_name.clone(), addr.to_string()];
    let get = |authority: &str| format!("http:https://{authority}/");

    let trusting = server_with(vec![ca_file], hosts.clone()).await;
    let attempts = [(get(&by_name), WORKERS), (get(&addr.to_string()), WORKERS)];
    let answers = run_escapes(&trusting.client(), "trusted", &attempts, 0).await;
    // By name and by address: the certificate names both.
    assert_eq!(answers[&get(&by_name)], "got: 200 secure");
    assert_eq!(answers[&get(&addr.to_string())], "got: 200 secure");
    assert_eq!(answered.load(Ordering::SeqCst), 2);

    let untrusting = server_with(Vec::new(), hosts).await;
    let attempts = [(get(&by_name), WORKERS)];
    let answers = run_escapes(&untrusting.client(), "untrusted", &attempts, 0).await;
    assert_eq!(
        answers[&get(&by_name)],
        "denied: ErrorCode::TlsCertificateError"
    );
    assert_eq!(answered.load(Ordering::SeqCst), 2, "a request was sent");
}

#[tokio::test]
async fn a_ca_file_without_certificates_stops_the_server_from_starting() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("not-a-ca.pem");
    std::fs::write(
        &bad,
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    let mut config = weft_host::Config::new(dir.path().join("data"));
    config.http_ca = vec![bad.clone()];
    let Err(error) = weft_host::Weft::open(config) else {
        panic!("the server started");
    };
    assert_eq!(
        error.to_string(),
        format!(
            "invalid configuration: HTTP CA file {}: no PEM certificate (BEGIN CERTIFICATE) in it",
            bad.display()
        )
    );
    assert!(
        !dir.path().join("data").exists(),
        "the store was opened before the configuration was checked"
    );
}
