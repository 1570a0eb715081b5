//! Sending a guest's request once its grant allows it: one TCP connection per request, TLS for
//! `https` with the roots this service trusts, HTTP/1.1 over it.
//!
//! Weft sends requests itself rather than through `wasmtime-wasi-http`'s default sender, which
//! trusts only the compiled-in Mozilla roots: an operator whose guests call internal services
//! signed by a private CA adds that CA (`--http-ca`). The configuration is `crate::tls`'s.

use std::future::{Future, poll_fn};
use std::path::PathBuf;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use wasmtime_wasi_http::{Error, WasiBody};

/// Installs `ring` as the process's default rustls crypto provider, unless one is installed
/// already (by an earlier call, or by whoever embeds Weft): then that one stays. Weft's own TLS
/// names its provider and does not depend on this; it is for any other rustls user in the
/// process, which would otherwise panic on finding none.
pub(crate) fn install_crypto_provider() {
    // An error only says a provider is installed already, which is all this wants.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// How guests' requests leave the process: the TLS configuration, shared by every call.
pub(crate) struct Outgoing {
    tls: tokio_rustls::TlsConnector,
}

impl Outgoing {
    /// Trusting the Mozilla roots compiled in (`webpki-roots`) and every certificate in the
    /// PEM files `ca_files`. The message names the file that cannot be used.
    pub(crate) fn new(ca_files: &[PathBuf]) -> Result<Outgoing, String> {
        let mut roots = crate::tls::mozilla_roots();
        for path in ca_files {
            crate::tls::add_pem_file(&mut roots, path, "HTTP CA file")?;
        }
        let config = crate::tls::client_config(roots)?;
        Ok(Outgoing {
            tls: tokio_rustls::TlsConnector::from(Arc::new(config)),
        })
    }

    /// Sends `request` (its URI absolute, its timeouts given) and waits for the response's
    /// head; the future to drive the connection while the body is read goes with it.
    pub(crate) async fn send(
        &self,
        mut request: hyper::Request<WasiBody>,
        timeouts: Timeouts,
    ) -> Result<(hyper::Response<Incoming>, Connection), Error> {
        let uri = request.uri();
        let use_tls = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            _ => return Err(Error::HttpProtocolError),
        };
        let authority = uri.authority().ok_or(Error::HttpRequestUriInvalid)?;
        let port = authority
            .port_u16()
            .unwrap_or(if use_tls { 443 } else { 80 });
        // An IPv6 host keeps its brackets in a URI; neither a socket address nor a TLS server
        // name has them.
        let host = authority.host();
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host)
            .to_owned();
        let tcp = tokio::time::timeout(timeouts.connect, TcpStream::connect((host.as_str(), port)))
            .await
            .map_err(|_| Error::ConnectionTimeout)?
            .map_err(Error::Connect)?;
        let stream: Box<dyn Stream> = if use_tls {
            let name = ServerName::try_from(host).map_err(|_| Error::HttpRequestUriInvalid)?;
            let tls = tokio::time::timeout(timeouts.connect, self.tls.connect(name, tcp))
                .await
                .map_err(|_| Error::ConnectionTimeout)?
                .map_err(tls_error)?;
            Box::new(tls)
        } else {
            Box::new(tcp)
        };
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        // On the wire the request line names only the path: the authority is in `Host`.
        let path = uri_path(request.uri())?;
        *request.uri_mut() = path;

        let mut connection = Some(connection);
        let mut head = pin!(tokio::time::timeout(
            timeouts.first_byte,
            sender.send_request(request)
        ));
        // The head arrives only while the connection is driven, so drive it here until then.
        let response = poll_fn(|cx| {
            if let Poll::Ready(head) = head.as_mut().poll(cx) {
                return Poll::Ready(head);
            }
            if let Some(driving) = connection.as_mut()
                && let Poll::Ready(ended) = Pin::new(driving).poll(cx)
            {
                connection = None;
                if let Err(e) = ended {
                    return Poll::Ready(Ok(Err(e)));
                }
                return head.as_mut().poll(cx);
            }
            Poll::Pending
        })
        .await
        .map_err(|_| Error::ConnectionReadTimeout)?
        .map_err(hyper_error)?;
        let io: Connection = Box::new(async move {
            match connection {
                Some(driving) => driving.await.map_err(hyper_error),
                None => Ok(()),
            }
        });
        Ok((response, io))
    }
}

/// What drives a connection while its response body is read.
pub(crate) type Connection = Box<dyn Future<Output = Result<(), Error>> + Send>;

/// How long one exchange may wait for each step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timeouts {
    /// Connecting, with the TLS handshake.
    pub(crate) connect: Duration,
    /// From sending the request to the response's head.
    pub(crate) first_byte: Duration,
}

trait Stream: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Stream for T {}

/// `uri` reduced to its path and query.
fn uri_path(uri: &hyper::Uri) -> Result<hyper::Uri, Error> {
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    path.parse().map_err(|_| Error::HttpRequestUriInvalid)
}

/// A failed TLS handshake as `wasi:http` names it: an untrusted or invalid certificate apart
/// from other failures, so a guest can tell a trust problem from a broken server.
fn tls_error(error: std::io::Error) -> Error {
    match error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
    {
        Some(rustls::Error::InvalidCertificate(_)) => Error::TlsCertificateError,
        Some(rustls::Error::AlertReceived(alert)) => Error::TlsAlertReceived {
            alert_id: Some(u8::from(*alert)),
            alert_message: Some(format!("{alert:?}")),
        },
        Some(_) => Error::TlsProtocolError,
        None => Error::Tls(error),
    }
}

/// A hyper error as `wasi:http` names it.
fn hyper_error(error: hyper::Error) -> Error {
    if error.is_timeout() {
        Error::HttpResponseTimeout
    } else {
        Error::Hyper(error)
    }
}

/// `response`'s body with `wasi:http`'s error type, boxed as the hooks return it.
pub(crate) fn boxed(response: hyper::Response<Incoming>) -> hyper::Response<WasiBody> {
    response.map(|body| body.map_err(hyper_error).boxed_unsync())
}
