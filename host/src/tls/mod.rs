//! TLS: the client configurations, for guests' outgoing HTTPS and for the connections to
//! PostgreSQL, here; the server's HTTPS in `server.rs`, and its self-signed certificate for
//! local use in `self_signed.rs`.
//!
//! The one crypto provider is rustls's `ring`, named here rather than taken from the process
//! default, so another library installing another provider cannot change what Weft's TLS uses.

mod self_signed;
pub(crate) mod server;

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject as _;
use rustls::{ClientConfig, RootCertStore};

/// The Mozilla roots compiled in (`webpki-roots`).
pub(crate) fn mozilla_roots() -> RootCertStore {
    RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    }
}

/// Adds every certificate in the PEM file `path` to `roots`. The message names the file as
/// `what`, such as "HTTP CA file".
pub(crate) fn add_pem_file(
    roots: &mut RootCertStore,
    path: &Path,
    what: &str,
) -> Result<(), String> {
    let named = |why: String| format!("{what} {}: {why}", path.display());
    let pem = std::fs::read(path).map_err(|e| named(e.to_string()))?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<_, _>>()
        .map_err(|e| named(e.to_string()))?;
    if certs.is_empty() {
        return Err(named(
            "no PEM certificate (BEGIN CERTIFICATE) in it".to_owned(),
        ));
    }
    for cert in certs {
        roots.add(cert).map_err(|e| named(e.to_string()))?;
    }
    Ok(())
}

/// A client configuration that trusts `roots` and verifies the server's name.
pub(crate) fn client_config(roots: RootCertStore) -> Result<ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}
