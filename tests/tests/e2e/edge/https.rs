//! HTTPS (issue 32): `weft serve --tls-self-signed` serves SWF, `/v1`, `/metrics` and the
//! console over TLS, with plain HTTP beside it on `--http-listen`, to clients that trust the CA
//! it prints; a certificate replaced on disk is served to the next connection while the
//! connections already open go on.

use std::path::Path;
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair, KeyUsagePurpose};
use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use weft_host::ServerTls;
use weft_tests::{RawResponse, TestServer};

use super::PATIENCE;
use crate::cli::Weft;

/// A TLS connection to `addr` trusting only the CA certificates in the PEM `ca`.
async fn connect(addr: &str, ca: &[u8]) -> TlsStream<TcpStream> {
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca) {
        roots.add(cert.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let tcp = TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .unwrap()
}

/// The certificate the server presented on `tls`.
fn presented(tls: &TlsStream<TcpStream>) -> CertificateDer<'static> {
    tls.get_ref().1.peer_certificates().unwrap()[0].clone()
}

/// Sends `GET path` on `tls`, keeping the connection open, and reads the answer (its body is
/// `content-length` long).
async fn get(tls: &mut TlsStream<TcpStream>, path: &str) -> RawResponse {
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    tls.write_all(request.as_bytes()).await.unwrap();
    let mut bytes = Vec::new();
    let mut chunk = [0; 16 * 1024];
    loop {
        let n = tokio::time::timeout(PATIENCE, tls.read(&mut chunk))
            .await
            .expect("an answer")
            .unwrap();
        assert!(n > 0, "the connection closed mid-answer");
        bytes.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&bytes);
        let Some(head_end) = text.find("\r\n\r\n") else {
            continue;
        };
        let length: usize = text[..head_end]
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().unwrap())
            })
            .expect("a content-length");
        if bytes.len() >= head_end + 4 + length {
            return RawResponse::parse(&bytes);
        }
    }
}

#[tokio::test]
async fn a_self_signed_server_serves_every_face_over_https_and_plain_http_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let log = dir.path().join("weft.log");
    let mut weft = tokio::task::spawn_blocking(move || {
        let args = ["--tls-self-signed", "--http-listen", "127.0.0.1:0"];
        weft_tests::process::Weft::start_with(&data, &log, None, &args, "warn")
    })
    .await
    .unwrap();
    assert_eq!(weft.scheme, "https");
    let plain = weft.next_line();
    let plain = plain
        .strip_prefix("listening on ")
        .expect(&plain)
        .to_owned();
    assert!(plain.starts_with("http://"), "{plain}");
    let trust = weft.next_line();
    let ca = trust
        .split_once("AWS_CA_BUNDLE=")
        .expect(&trust)
        .1
        .to_owned();
    assert_eq!(Path::new(&ca), dir.path().join("data/tls/ca.pem"));
    let console = format!("console at https://{}/console/", weft.addr);
    assert_eq!(weft.next_line(), console);

    // The CLI, trusting the printed CA, registers over HTTPS; the plain address sees it.
    let secure = || Weft::bare().env("WEFT_ENDPOINT", weft.endpoint());
    secure()
        .env("AWS_CA_BUNDLE", &ca)
        .run(&["domain", "register", "secure-d"])
        .await
        .out();
    let listed = Weft::bare()
        .env("WEFT_ENDPOINT", &plain)
        .run(&["domain", "list", "--json"])
        .await
        .json();
    assert!(listed.to_string().contains("secure-d"), "{listed}");
    // Without the CA the certificate is refused, and the error says so.
    let refused = secure().run(&["domain", "list"]).await;
    assert!(refused.err().contains("certificate"), "{refused:?}");

    // The console and the metrics are served over TLS too, on one kept-alive connection.
    let ca_pem = std::fs::read(&ca).unwrap();
    let mut tls = connect(&weft.addr, &ca_pem).await;
    let console = get(&mut tls, "/console/").await;
    assert_eq!(console.status, 200, "{console:?}");
    assert!(console.body.contains("<html"), "{}", console.body);
    let metrics = get(&mut tls, "/metrics").await;
    assert_eq!(metrics.status, 200, "{metrics:?}");
    assert!(metrics.body.contains("weft_"), "{}", metrics.body);

    // Plain HTTP to the HTTPS port is told what happened, in plain HTTP.
    let headers = [("X-Amz-Target", "SimpleWorkflowService.ListDomains")];
    let plain_to_tls = weft_tests::raw_http(&weft.addr, "POST", "/", &headers, b"{}").await;
    assert_eq!(plain_to_tls.status, 400, "{plain_to_tls:?}");
    assert!(
        plain_to_tls.body.contains("This port serves HTTPS"),
        "{plain_to_tls:?}"
    );
}

/// A CA, and `n` certificates for localhost it signed, as PEM: (CA, [(certificate, key)]).
fn certificates(n: usize) -> (String, Vec<(String, String)>) {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign];
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let pairs = (0..n)
        .map(|_| {
            let key = KeyPair::generate().unwrap();
            let cert = CertificateParams::new(vec!["localhost".to_owned()])
                .unwrap()
                .signed_by(&key, &ca)
                .unwrap();
            (cert.pem(), key.serialize_pem())
        })
        .collect();
    (ca.pem(), pairs)
}

/// Replaces `path` with a file holding `text`, as a renewal tool does (a rename over it).
fn replace(path: &Path, text: &str) {
    let new = path.with_extension("new");
    std::fs::write(&new, text).unwrap();
    std::fs::rename(new, path).unwrap();
}

#[tokio::test]
async fn a_certificate_replaced_on_disk_is_served_to_new_connections_only() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let (ca, pairs) = certificates(2);
    std::fs::write(&cert, &pairs[0].0).unwrap();
    std::fs::write(&key, &pairs[0].1).unwrap();
    let tls = ServerTls::Files {
        cert: cert.clone(),
        key: key.clone(),
    };
    let server = TestServer::start_with(move |config| config.tls = Some(tls.clone())).await;
    let addr = server.addr().to_string();
    let pem = |text: &str| CertificateDer::from_pem_slice(text.as_bytes()).unwrap();

    let mut before = connect(&addr, ca.as_bytes()).await;
    assert_eq!(presented(&before), pem(&pairs[0].0));
    assert_eq!(get(&mut before, "/metrics").await.status, 200);

    replace(&cert, &pairs[1].0);
    replace(&key, &pairs[1].1);
    let mut after = connect(&addr, ca.as_bytes()).await;
    assert_eq!(presented(&after), pem(&pairs[1].0));
    assert_eq!(get(&mut after, "/metrics").await.status, 200);
    // The connection made before the renewal is still served.
    assert_eq!(get(&mut before, "/metrics").await.status, 200);
}
