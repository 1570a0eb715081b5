//! HTTPS for `weft serve`: a certificate chain and its key, PEM files read again whenever
//! either changes on disk, so a renewed certificate is served to the next connection without a
//! restart; connections already open keep the one they began with.
//!
//! The files are looked at on each handshake (two `stat`s, next to a handshake's signature
//! they cost nothing) rather than on a timer, so a replaced certificate is served from the
//! very next connection. A change that does not load (the certificate written, its key not
//! yet) leaves the last good pair in service, and is reported once.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use rustls::ServerConfig;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tokio_rustls::TlsAcceptor;

use super::self_signed::SelfSigned;
use crate::config::ServerTls;

/// How a server speaks HTTPS: its acceptor, and the CA clients trust if it made its own
/// certificate.
pub(crate) struct Https {
    pub(crate) acceptor: TlsAcceptor,
    pub(crate) made_ca: Option<PathBuf>,
}

impl Https {
    /// HTTPS as `tls` says; a self-signed certificate is kept in `data_dir`'s `tls/`, for
    /// localhost and `hosts`.
    pub(crate) fn new(tls: &ServerTls, data_dir: &Path, hosts: &[String]) -> Result<Https, String> {
        match tls {
            ServerTls::Files { cert, key } => Ok(Https {
                acceptor: acceptor(cert, key)?,
                made_ca: None,
            }),
            ServerTls::SelfSigned => {
                let made = SelfSigned::ensure(&data_dir.join("tls"), hosts)?;
                Ok(Https {
                    acceptor: acceptor(&made.cert, &made.key)?,
                    made_ca: Some(made.ca),
                })
            }
        }
    }
}

/// An acceptor serving the certificate in `cert` with the key in `key`, or why the files
/// cannot be served.
pub(crate) fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let certificates = Certificates::load(cert, key, provider.clone())?;
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(certificates));
    // The edge speaks HTTP/1.1 only, as AWS SDKs do to SWF.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// The files, and the pair last loaded from them.
struct Certificates {
    cert: PathBuf,
    key: PathBuf,
    provider: Arc<CryptoProvider>,
    loaded: Mutex<Loaded>,
}

struct Loaded {
    /// What the files were when `served` was read from them.
    stamp: Stamp,
    served: Arc<CertifiedKey>,
    /// A later state of the files that did not load: not tried again until they change.
    refused: Option<Stamp>,
}

/// What tells that a file changed: its modification time, length and inode, for both files
/// (a file replaced by renaming another over it has a new inode, even within one mtime tick).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp([(SystemTime, u64, u64); 2]);

impl Stamp {
    fn of(cert: &Path, key: &Path) -> std::io::Result<Stamp> {
        let one = |path: &Path| -> std::io::Result<_> {
            let meta = std::fs::metadata(path)?;
            Ok((meta.modified()?, meta.len(), inode(&meta)))
        };
        Ok(Stamp([one(cert)?, one(key)?]))
    }
}

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> u64 {
    0
}

impl Certificates {
    fn load(cert: &Path, key: &Path, provider: Arc<CryptoProvider>) -> Result<Self, String> {
        let stamp = Stamp::of(cert, key).map_err(|e| format!("TLS certificate or key: {e}"))?;
        let served = Arc::new(read_pair(cert, key, &provider)?);
        Ok(Certificates {
            cert: cert.to_owned(),
            key: key.to_owned(),
            provider,
            loaded: Mutex::new(Loaded {
                stamp,
                served,
                refused: None,
            }),
        })
    }

    /// The pair to serve now: the files' if they changed and load, else the last good one.
    fn current(&self) -> Arc<CertifiedKey> {
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        // A file missing for a moment (being replaced) is no change yet.
        let Ok(stamp) = Stamp::of(&self.cert, &self.key) else {
            return loaded.served.clone();
        };
        if stamp == loaded.stamp || Some(stamp) == loaded.refused {
            return loaded.served.clone();
        }
        match read_pair(&self.cert, &self.key, &self.provider) {
            Ok(pair) => {
                tracing::info!(cert = %self.cert.display(), "serving the renewed TLS certificate");
                *loaded = Loaded {
                    stamp,
                    served: Arc::new(pair),
                    refused: None,
                };
            }
            Err(why) => {
                tracing::warn!("{why}; still serving the previous TLS certificate");
                loaded.refused = Some(stamp);
            }
        }
        loaded.served.clone()
    }
}

impl fmt::Debug for Certificates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Certificates")
            .field("cert", &self.cert)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl ResolvesServerCert for Certificates {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

/// The chain in the PEM file `cert` (the server's certificate first) with the private key in
/// the PEM file `key`, checked to belong together.
fn read_pair(cert: &Path, key: &Path, provider: &CryptoProvider) -> Result<CertifiedKey, String> {
    let named =
        |what: &str, path: &Path, why: String| format!("TLS {what} {}: {why}", path.display());
    let pem = std::fs::read(cert).map_err(|e| named("certificate", cert, e.to_string()))?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<_, _>>()
        .map_err(|e| named("certificate", cert, e.to_string()))?;
    if chain.is_empty() {
        return Err(named(
            "certificate",
            cert,
            "no PEM certificate (BEGIN CERTIFICATE) in it".into(),
        ));
    }
    let pem = std::fs::read(key).map_err(|e| named("key", key, e.to_string()))?;
    let private = PrivateKeyDer::from_pem_slice(&pem).map_err(|e| {
        named(
            "key",
            key,
            format!("no usable PEM private key (PKCS#8, PKCS#1 or SEC1) in it: {e}"),
        )
    })?;
    CertifiedKey::from_der(chain, private, provider).map_err(|e| {
        format!(
            "TLS key {} does not go with the certificate {}: {e}",
            key.display(),
            cert.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(name: &str) -> (String, String) {
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec![name.to_owned()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        (cert.pem(), key.serialize_pem())
    }

    fn served(certificates: &Certificates) -> CertificateDer<'static> {
        certificates.current().cert[0].clone()
    }

    #[test]
    fn a_replaced_pair_is_served_and_a_broken_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        let (first_cert, first_key) = pair("first.test");
        std::fs::write(&cert, &first_cert).unwrap();
        std::fs::write(&key, &first_key).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let certificates = Certificates::load(&cert, &key, provider).unwrap();
        let first = served(&certificates);

        // The certificate renewed, its key not yet: the old pair stays.
        let (second_cert, second_key) = pair("second.test");
        std::fs::write(dir.path().join("new.pem"), &second_cert).unwrap();
        std::fs::rename(dir.path().join("new.pem"), &cert).unwrap();
        assert_eq!(served(&certificates), first);

        std::fs::write(dir.path().join("new.pem"), &second_key).unwrap();
        std::fs::rename(dir.path().join("new.pem"), &key).unwrap();
        let second = served(&certificates);
        assert_ne!(second, first);
        assert_eq!(
            second.as_ref(),
            CertificateDer::from_pem_slice(second_cert.as_bytes())
                .unwrap()
                .as_ref()
        );
    }

    #[test]
    fn unusable_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        let missing = acceptor(&cert, &key).err().unwrap();
        assert!(missing.contains("TLS certificate or key"), "{missing}");

        let (one_cert, _) = pair("one.test");
        let (_, other_key) = pair("other.test");
        std::fs::write(&cert, "not a certificate").unwrap();
        std::fs::write(&key, &other_key).unwrap();
        let empty = acceptor(&cert, &key).err().unwrap();
        assert!(
            empty.contains("no PEM certificate") && empty.contains("cert.pem"),
            "{empty}"
        );

        std::fs::write(&cert, &one_cert).unwrap();
        let mismatch = acceptor(&cert, &key).err().unwrap();
        assert!(mismatch.contains("does not go with"), "{mismatch}");
    }
}
