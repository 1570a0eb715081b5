//! `weft serve --tls-self-signed`: a certificate made here for local use, so that clients that
//! speak only HTTPS (as AWS SDKs expect of SWF) can reach a server without a real certificate.
//!
//! It is made as mkcert makes one: a CA of its own, whose certificate clients trust
//! (`AWS_CA_BUNDLE`), signing the server's certificate. A self-signed server certificate alone
//! would not do: rustls refuses a CA certificate as a server's, and OpenSSL's strict mode (the
//! default from Python 3.13) wants a CA with its extensions. The CA's key is not kept, so
//! nothing else can be signed with it. The files are kept in the data directory and used
//! again on the next start, so clients keep trusting the same CA, unless the names the
//! certificate must carry changed.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

/// The names every self-signed certificate carries: what reaches this machine itself.
const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The files of a self-signed certificate, in `dir`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SelfSigned {
    /// The CA's certificate, which clients trust.
    pub(crate) ca: PathBuf,
    /// The server's certificate, signed by the CA.
    pub(crate) cert: PathBuf,
    /// The server's private key, readable by its owner only.
    pub(crate) key: PathBuf,
}

impl SelfSigned {
    fn in_dir(dir: &Path) -> SelfSigned {
        SelfSigned {
            ca: dir.join("ca.pem"),
            cert: dir.join("cert.pem"),
            key: dir.join("key.pem"),
        }
    }

    /// The certificate in `dir` for localhost and `hosts`: the one made before if it names
    /// them, else a new one (and a new CA).
    pub(crate) fn ensure(dir: &Path, hosts: &[String]) -> Result<SelfSigned, String> {
        let files = SelfSigned::in_dir(dir);
        let mut names: Vec<String> = LOOPBACK.iter().map(|n| (*n).to_owned()).collect();
        for host in hosts {
            if !names.contains(host) {
                names.push(host.clone());
            }
        }
        // The names are written last: a set whose names file matches is complete.
        let names_file = dir.join("names");
        let wanted = names.join("\n");
        let made = std::fs::read_to_string(&names_file).ok();
        if made.as_deref() == Some(wanted.as_str())
            && [&files.ca, &files.cert, &files.key]
                .iter()
                .all(|f| f.is_file())
        {
            return Ok(files);
        }
        let why = |e: String| {
            format!(
                "cannot make a self-signed certificate in {}: {e}",
                dir.display()
            )
        };
        let (ca, cert, key) = make(names).map_err(|e| why(e.to_string()))?;
        std::fs::create_dir_all(dir).map_err(|e| why(e.to_string()))?;
        write(&files.key, &key, true).map_err(why)?;
        write(&files.cert, &cert, false).map_err(why)?;
        write(&files.ca, &ca, false).map_err(why)?;
        write(&names_file, &wanted, false).map_err(why)?;
        Ok(files)
    }
}

/// A new CA's certificate, and a server certificate it signed for `names` with its key, as PEM.
fn make(names: Vec<String>) -> Result<(String, String, String), rcgen::Error> {
    let mut ca = CertificateParams::new(Vec::<String>::new())?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca.distinguished_name.push(
        DnType::CommonName,
        "Weft local CA (weft serve --tls-self-signed)",
    );
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate()?)?;

    let key = KeyPair::generate()?;
    let mut server = CertificateParams::new(names)?;
    server
        .distinguished_name
        .push(DnType::CommonName, "weft serve");
    server.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    server.use_authority_key_identifier_extension = true;
    let server = server.signed_by(&key, &ca)?;
    Ok((ca.pem(), server.pem(), key.serialize_pem()))
}

/// Writes `text` to `path` through a temporary file renamed over it, so a server reading the
/// files never sees half of one; `secret` files are readable by their owner only.
fn write(path: &Path, text: &str, secret: bool) -> Result<(), String> {
    let temporary = path.with_extension("tmp");
    let named = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if secret {
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    }
    #[cfg(not(unix))]
    let _ = secret;
    let mut file = options.open(&temporary).map_err(named)?;
    std::io::Write::write_all(&mut file, text.as_bytes()).map_err(named)?;
    file.sync_all().map_err(named)?;
    std::fs::rename(&temporary, path).map_err(named)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_certificate_is_kept_until_the_names_change() {
        let dir = tempfile::tempdir().unwrap();
        let tls = dir.path().join("tls");
        let first = SelfSigned::ensure(&tls, &[]).unwrap();
        let ca = std::fs::read(&first.ca).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&first.key).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "the key is its owner's only: {mode:o}");
        }
        assert_eq!(SelfSigned::ensure(&tls, &[]).unwrap(), first);
        assert_eq!(std::fs::read(&first.ca).unwrap(), ca, "the same CA again");

        let named = SelfSigned::ensure(&tls, &["weft.internal".to_owned()]).unwrap();
        assert_ne!(
            std::fs::read(&named.ca).unwrap(),
            ca,
            "a new name, a new certificate"
        );
        assert!(super::super::server::acceptor(&named.cert, &named.key).is_ok());
    }
}
