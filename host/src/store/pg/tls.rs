//! What the store's URL asks of TLS. The URL speaks libpq's language: `sslmode` and
//! `sslrootcert` as query parameters.
//!
//! - `sslmode=require`, `verify-ca` or `verify-full`: TLS, and the server's certificate must
//!   name the host and be signed by a trusted root. That is `verify-full` whichever of the three
//!   is named: Weft never sends credentials to a server it has not authenticated.
//! - `sslrootcert=PATH`: the roots are the certificates in that PEM file; without it, the
//!   Mozilla roots compiled in (those of managed databases with public certificates).
//! - `disable`, `allow`, `prefer` (libpq's default) or none: no TLS.

use std::borrow::Cow;
use std::path::PathBuf;

use percent_encoding::percent_decode_str;
use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::store::{OpenError, StoreError};

/// The driver's configuration for `url`, and the TLS connector if the URL asks for TLS.
pub(super) fn parse(
    url: &str,
) -> Result<(tokio_postgres::Config, Option<MakeRustlsConnect>), StoreError> {
    let invalid = |why: String| {
        StoreError::from(OpenError::Config(format!(
            "the store's PostgreSQL URL: {why}"
        )))
    };
    let (url, root_file) = split_libpq_options(url);
    // The parser's message never repeats the string, which may hold a password.
    let config: tokio_postgres::Config = url.parse().map_err(|e| invalid(format!("{e}")))?;
    if config.get_ssl_mode() != SslMode::Require {
        return match root_file {
            Some(_) => Err(invalid(
                "sslrootcert is used only with sslmode=verify-full (or require, verify-ca)".into(),
            )),
            None => Ok((config, None)),
        };
    }
    let roots = match root_file {
        Some(path) => {
            let mut roots = rustls::RootCertStore::empty();
            crate::tls::add_pem_file(&mut roots, &path, "sslrootcert").map_err(invalid)?;
            roots
        }
        None => crate::tls::mozilla_roots(),
    };
    let tls = crate::tls::client_config(roots).map_err(invalid)?;
    Ok((config, Some(MakeRustlsConnect::new(tls))))
}

/// `url` as the driver takes it: without `sslrootcert` (answered apart, decoded), and with
/// libpq's `sslmode` values the driver does not know turned into the ones it does. A URL in
/// the `key=value` form is left as it is.
fn split_libpq_options(url: &str) -> (Cow<'_, str>, Option<PathBuf>) {
    let Some((base, query)) = url.split_once('?') else {
        return (Cow::Borrowed(url), None);
    };
    let mut root_file = None;
    let mut kept = Vec::new();
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("sslrootcert", value)) => {
                let path = percent_decode_str(value).decode_utf8_lossy();
                root_file = Some(PathBuf::from(path.into_owned()));
            }
            Some(("sslmode", "verify-ca" | "verify-full")) => kept.push("sslmode=require"),
            Some(("sslmode", "allow")) => kept.push("sslmode=prefer"),
            _ => kept.push(pair),
        }
    }
    let url = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    (Cow::Owned(url), root_file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libpq_options_become_the_drivers() {
        let (url, root) = split_libpq_options(
            "postgres://u@h/db?sslmode=verify-full&sslrootcert=%2Fetc%2Fca%20file.pem&options=x",
        );
        assert_eq!(url, "postgres://u@h/db?sslmode=require&options=x");
        assert_eq!(root, Some(PathBuf::from("/etc/ca file.pem")));
        let (url, root) = split_libpq_options("postgres://u@h/db?sslmode=allow");
        assert_eq!(
            (url.as_ref(), root),
            ("postgres://u@h/db?sslmode=prefer", None)
        );
        let (url, _) = split_libpq_options("postgres://u@h/db?sslrootcert=a");
        assert_eq!(url, "postgres://u@h/db");
        let plain = "host=h user=u sslmode=require";
        assert_eq!(split_libpq_options(plain).0, plain);
    }

    #[test]
    fn tls_is_used_when_asked_for_and_only_then() {
        for (url, tls) in [
            ("postgres://u@h/db", false),
            ("postgres://u@h/db?sslmode=prefer", false),
            ("postgres://u@h/db?sslmode=disable", false),
            ("postgres://u@h/db?sslmode=require", true),
            ("postgres://u@h/db?sslmode=verify-ca", true),
            ("postgres://u@h/db?sslmode=verify-full", true),
        ] {
            let (config, connector) = parse(url).unwrap();
            assert_eq!(connector.is_some(), tls, "{url}");
            assert_eq!(config.get_ssl_mode() == SslMode::Require, tls, "{url}");
        }
    }

    #[test]
    fn a_root_file_that_cannot_be_used_is_a_configuration_error() {
        let missing = "postgres://u@h/db?sslmode=verify-full&sslrootcert=/no/such/ca.pem";
        let Err(StoreError::Open(OpenError::Config(message))) = parse(missing) else {
            panic!("a missing root file is accepted");
        };
        assert!(message.contains("sslrootcert /no/such/ca.pem"), "{message}");
        let without_tls = "postgres://u@h/db?sslrootcert=/no/such/ca.pem";
        assert!(matches!(
            parse(without_tls),
            Err(StoreError::Open(OpenError::Config(_)))
        ));
    }
}
