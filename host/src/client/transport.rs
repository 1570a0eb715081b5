//! One HTTP/1.1 exchange with the server, over plain TCP or TLS: what [`super::Client`]'s calls
//! share. A fresh connection per exchange keeps the client simple; the CLI makes a handful of
//! calls per command.

use std::convert::Infallible;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt as _;
use hyper::body::{Body, Frame, SizeHint};
use hyper::http::request::Builder;
use hyper::{HeaderMap, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

use super::ClientError;

/// How long connecting (and the TLS handshake) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the server is: its address and, for `https://`, how to check who answers.
#[derive(Clone)]
pub(super) struct Transport {
    /// The endpoint as given, for messages.
    pub(super) endpoint: String,
    /// `host:port`: where to connect, and the `Host` header.
    pub(super) authority: String,
    tls: Option<Tls>,
}

#[derive(Clone)]
struct Tls {
    config: Arc<rustls::ClientConfig>,
    name: ServerName<'static>,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.endpoint)
    }
}

/// What the server answered.
pub(super) struct Answer {
    pub(super) status: StatusCode,
    pub(super) headers: HeaderMap,
    pub(super) body: Bytes,
}

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

impl Transport {
    /// The server at `endpoint` (`http://host[:port]` or `https://host[:port]`); an `https`
    /// server's certificate is checked against the Mozilla roots and those in `ca_file`.
    pub(super) fn new(endpoint: &str, ca_file: Option<&Path>) -> Result<Transport, ClientError> {
        let invalid = |reason: &str| ClientError::Endpoint {
            endpoint: endpoint.to_owned(),
            reason: reason.to_owned(),
        };
        let uri: Uri = endpoint
            .parse()
            .map_err(|_| invalid("not a URL; expected http://host:port or https://host"))?;
        let https = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => return Err(invalid("expected http://host:port or https://host")),
        };
        if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
            return Err(invalid("expected no path: http://host:port"));
        }
        let authority = uri
            .authority()
            .filter(|a| !a.host().is_empty())
            .ok_or_else(|| invalid("no host"))?;
        let host = authority.host();
        let port = authority.port_u16().unwrap_or(if https { 443 } else { 80 });
        let tls = match https {
            false => None,
            true => Some(Tls::new(host, ca_file).map_err(|e| invalid(&e))?),
        };
        Ok(Transport {
            endpoint: endpoint.trim_end_matches('/').to_owned(),
            authority: format!("{host}:{port}"),
            tls,
        })
    }

    /// Sends `request` with `body` on a fresh connection and reads the whole answer; `sent`
    /// hears when the last of the body has gone to the connection.
    pub(super) async fn send(
        &self,
        request: Builder,
        body: Vec<u8>,
        sent: Option<oneshot::Sender<()>>,
    ) -> Result<Answer, ClientError> {
        let io = tokio::time::timeout(CONNECT_TIMEOUT, self.connect())
            .await
            .map_err(|_| ClientError::Connect {
                endpoint: self.endpoint.clone(),
                reason: format!("no connection in {CONNECT_TIMEOUT:?}"),
            })??;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io))
            .await
            .map_err(|e| self.protocol(e))?;
        let connection = tokio::spawn(connection);
        let request = request
            .body(Watched::new(body, sent))
            .map_err(|e| self.protocol(e))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| self.protocol(e))?;
        let (parts, body) = response.into_parts();
        let body = body.collect().await.map_err(|e| self.protocol(e))?;
        connection.abort();
        Ok(Answer {
            status: parts.status,
            headers: parts.headers,
            body: body.to_bytes(),
        })
    }

    async fn connect(&self) -> Result<Box<dyn Io>, ClientError> {
        let tcp = TcpStream::connect(&self.authority)
            .await
            .map_err(|e| ClientError::Connect {
                endpoint: self.endpoint.clone(),
                reason: e.to_string(),
            })?;
        let Some(tls) = &self.tls else {
            return Ok(Box::new(tcp));
        };
        let connector = tokio_rustls::TlsConnector::from(tls.config.clone());
        let stream = connector
            .connect(tls.name.clone(), tcp)
            .await
            .map_err(|e| ClientError::Tls {
                endpoint: self.endpoint.clone(),
                reason: e.to_string(),
            })?;
        Ok(Box::new(stream))
    }

    pub(super) fn protocol(&self, reason: impl std::fmt::Display) -> ClientError {
        ClientError::Protocol {
            endpoint: self.endpoint.clone(),
            reason: reason.to_string(),
        }
    }
}

/// A request body handed to the connection a chunk at a time, telling `sent` once the last
/// chunk has gone (for a large upload, when the server has it all but a buffer's worth).
struct Watched {
    body: Bytes,
    sent: Option<oneshot::Sender<()>>,
}

impl Watched {
    const CHUNK: usize = 64 << 10;

    fn new(body: Vec<u8>, sent: Option<oneshot::Sender<()>>) -> Watched {
        Watched {
            body: Bytes::from(body),
            sent,
        }
    }
}

impl Body for Watched {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.body.is_empty() {
            if let Some(sent) = self.sent.take() {
                let _ = sent.send(());
            }
            return Poll::Ready(None);
        }
        let n = self.body.len().min(Watched::CHUNK);
        let chunk = self.body.split_to(n);
        if self.body.is_empty()
            && let Some(sent) = self.sent.take()
        {
            let _ = sent.send(());
        }
        Poll::Ready(Some(Ok(Frame::data(chunk))))
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.body.len() as u64)
    }
}

impl Tls {
    fn new(host: &str, ca_file: Option<&Path>) -> Result<Tls, String> {
        let mut roots = crate::tls::mozilla_roots();
        if let Some(path) = ca_file {
            crate::tls::add_pem_file(&mut roots, path, "CA file")?;
        }
        let config = crate::tls::client_config(roots)?;
        // An IPv6 literal comes bracketed in a URL, bare in a certificate.
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let name = ServerName::try_from(bare.to_owned()).map_err(|e| e.to_string())?;
        Ok(Tls {
            config: Arc::new(config),
            name,
        })
    }
}
