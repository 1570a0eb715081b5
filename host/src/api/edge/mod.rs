//! The HTTP edge: accepts connections and serves the router on them over HTTP/1.1, within the
//! [`HttpLimits`] that keep slow, idle or greedy clients from holding the server.
//!
//! - At most `max_connections` connections are served at once. While that many are open the
//!   loop does not accept: the rest wait in the operating system's backlog, instead of being
//!   accepted and dropped. Within that cap one client address may hold only its share, and the
//!   last slots are kept for addresses with few connections (`limits.rs`); a connection over
//!   either is answered `ThrottlingException` and closed.
//! - A client has `header_timeout` to send a request's headers (hyper's header read timeout,
//!   which also closes a kept-alive connection idle that long), within `max_header_bytes`;
//!   `Api::admit` gives it `body_timeout` for the body, or the shorter
//!   `unverified_body_timeout` while its signature cannot be checked.
//! - A request hyper cannot parse (headers too large, a malformed line or header) is answered
//!   with an AWS JSON fault like any other (`unparsed.rs`), not hyper's bodiless 400 or 431.
//! - On shutdown the loop stops accepting; every connection finishes the request it is serving
//!   (long polls answer empty, as the service's shutdown watch tells them) and closes; `serve`
//!   returns when all are closed. A connection still busy [`DRAIN_GRACE`] after that, such as
//!   one whose client does not read its answer, is cut off.
//!
//! - A listener may speak HTTPS: its connections' TLS handshake must end within
//!   `header_timeout`, as a request's headers must, and then HTTP is served over it as over
//!   plain TCP. The connection cap counts both listeners' connections together.
//!
//! AWS SDKs speak HTTP/1.1 to SWF, and so does this edge: no HTTP/2, no upgrades.

mod limits;
mod trim;
mod unparsed;

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::response::Response;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::Service;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

use self::limits::{Connections, Slot};
use self::unparsed::Rewrite;
use super::response::{self, Face};
use super::{Api, request_id, router};
use crate::config::HttpLimits;
use crate::fault::Fault;
use crate::skipping::{Busy, Idle};

/// How long, after shutdown begins, a connection may take to finish its request. Long polls
/// answer at once and other requests take milliseconds; only a client that stalls needs this.
const DRAIN_GRACE: Duration = Duration::from_secs(30);

/// How long to wait before accepting again after an error that is not one connection's (such
/// as running out of file descriptors), so the loop does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// Where connections are accepted, and whether they speak HTTPS.
pub(crate) struct Listener {
    pub(crate) tcp: TcpListener,
    pub(crate) tls: Option<TlsAcceptor>,
}

/// Serves `api` on `listeners` until `stopping` turns true, then waits until every connection
/// is closed.
pub(crate) async fn serve(
    listeners: Vec<Listener>,
    api: Arc<Api>,
    stopping: watch::Receiver<bool>,
) {
    let limits: HttpLimits = api.http.clone();
    let idle = api.service.idle.clone();
    let service = Edge(TowerToHyperService::new(router(api)), idle);
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(limits.max_header_bytes)
        // One buffer per write, so that `Rewrite` sees hyper's own answers whole.
        .writev(false);
    let connections = Connections::new(&limits);
    let trimming = tokio::spawn(connections.closes.clone().trim());
    let mut stop = stopping.clone();
    loop {
        // Stopping wins over a connection that is ready at the same moment.
        let permit = tokio::select! {
            biased;
            _ = stop.wait_for(|stopping| *stopping) => break,
            permit = connections.free_slot() => permit,
        };
        let Some(permit) = permit else { break };
        let (listener, accepted) = tokio::select! {
            biased;
            _ = stop.wait_for(|stopping| *stopping) => break,
            accepted = accept(&listeners) => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                tracing::error!(error = %e, "cannot accept connections; retrying in a second");
                tokio::select! {
                    () = tokio::time::sleep(ACCEPT_BACKOFF) => continue,
                    _ = stop.wait_for(|stopping| *stopping) => break,
                }
            }
        };
        let slot = match connections.admit(permit, peer.ip()) {
            Ok(slot) => slot,
            Err(refusal) => {
                connections.refuse(stream, refusal);
                continue;
            }
        };
        // An answer may leave in more than one write; without this a later one can wait on
        // the client's delayed acknowledgement (Nagle). axum::serve did not set it.
        let _ = stream.set_nodelay(true);
        let (service, stopping) = (service.clone(), stopping.clone());
        match listener.tls.clone() {
            None => {
                let connection = http.serve_connection(TokioIo::new(Rewrite::new(stream)), service);
                tokio::spawn(drive(connection, stopping, slot));
            }
            Some(tls) => {
                let within = limits.header_timeout;
                let http = http.clone();
                tokio::spawn(async move {
                    let Some(stream) = handshake(tls, stream, within, stopping.clone()).await
                    else {
                        return;
                    };
                    let connection =
                        http.serve_connection(TokioIo::new(Rewrite::new(stream)), service);
                    drive(connection, stopping, slot).await;
                });
            }
        }
    }
    drop(listeners);
    // Every connection holds a slot until it closes: all are back once all are closed.
    connections.all_closed().await;
    trimming.abort();
}

/// The TLS side of `stream`, once its handshake has ended within `within`; `None` if it failed,
/// took longer, or the server began to stop. A client that speaks plain HTTP to this port is
/// told so, in plain HTTP, rather than sent a TLS alert it cannot read.
async fn handshake(
    tls: TlsAcceptor,
    stream: TcpStream,
    within: Duration,
    mut stopping: watch::Receiver<bool>,
) -> Option<tokio_rustls::server::TlsStream<TcpStream>> {
    let handshake = async {
        if speaks_plain_http(&stream).await {
            tracing::debug!("plain HTTP sent to the HTTPS port; answered so");
            answer_plain_http(stream).await;
            return None;
        }
        // A client that does not trust the certificate is routine.
        (tls.accept(stream).await)
            .inspect_err(|e| tracing::debug!(error = %e, "TLS handshake failed"))
            .ok()
    };
    tokio::select! {
        handshake = tokio::time::timeout(within, handshake) => handshake.ok().flatten(),
        _ = stopping.wait_for(|stopping| *stopping) => None,
    }
}

/// Whether the client began with what an HTTP request begins with (a method's capital
/// letters), not a TLS record (whose first byte is 22, a handshake).
async fn speaks_plain_http(stream: &TcpStream) -> bool {
    let mut first = [0; 1];
    matches!(stream.peek(&mut first).await, Ok(1) if first[0].is_ascii_uppercase())
}

/// Tells a client that sent plain HTTP to the HTTPS port what happened (as an AWS fault, which
/// SDKs show, and plain enough for curl), and closes the connection once the client has
/// read it (closed with its request unread, the connection would be reset, and the answer
/// lost).
async fn answer_plain_http(mut stream: TcpStream) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = r#"{"__type":"BadRequestException","message":"This port serves HTTPS: the request was sent as plain HTTP. Use an https:// endpoint (or the --http-listen address)."}"#;
    let answer = format!(
        "HTTP/1.1 400 Bad Request\r\nContent-Type: application/x-amz-json-1.0\r\n\
         x-amzn-ErrorType: BadRequestException\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(answer.as_bytes()).await;
    let _ = stream.shutdown().await;
    let mut unread = [0; 4096];
    let drained = async { while matches!(stream.read(&mut unread).await, Ok(1..)) {} };
    let _ = tokio::time::timeout(PLAIN_HTTP_DRAIN, drained).await;
}

/// How long a plain-HTTP client on the HTTPS port has to read its answer and close.
const PLAIN_HTTP_DRAIN: Duration = Duration::from_secs(1);

/// The next connection any of `listeners` accepts, and the listener that did.
async fn accept(listeners: &[Listener]) -> (&Listener, io::Result<(TcpStream, SocketAddr)>) {
    std::future::poll_fn(|cx| {
        for listener in listeners {
            if let Poll::Ready(accepted) = listener.tcp.poll_accept(cx) {
                return Poll::Ready((listener, accepted));
            }
        }
        Poll::Pending
    })
    .await
}

/// Serves one connection until it closes, or, once `stopping`, until it has finished its
/// request (at most [`DRAIN_GRACE`]).
async fn drive<S: AsyncRead + AsyncWrite + Unpin + Send + 'static>(
    connection: http1::Connection<TokioIo<Rewrite<S>>, Edge>,
    mut stopping: watch::Receiver<bool>,
    _slot: Slot,
) {
    let mut connection = std::pin::pin!(connection);
    let served = tokio::select! {
        served = connection.as_mut() => Some(served),
        _ = stopping.wait_for(|stopping| *stopping) => None,
    };
    let served = match served {
        Some(served) => served,
        None => {
            connection.as_mut().graceful_shutdown();
            let Ok(served) = tokio::time::timeout(DRAIN_GRACE, connection).await else {
                tracing::warn!("cut off a connection still busy {DRAIN_GRACE:?} after shutdown");
                return;
            };
            served
        }
    };
    if let Err(e) = served {
        // A client that goes away, times out or sends what is not HTTP is routine.
        tracing::debug!(error = %e, "connection closed with an error");
    }
}

/// Errors of one connection that `accept` reports; the next one may be fine.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// The router as hyper calls it, with a handler that panics answered as an internal failure
/// (the panic itself is logged by the panic hook) instead of a connection dropped without an
/// answer.
#[derive(Clone)]
struct Edge(TowerToHyperService<Router>, Arc<Idle>);

impl Service<hyper::Request<Incoming>> for Edge {
    type Response = Response;
    type Error = Infallible;
    type Future =
        CatchPanic<<TowerToHyperService<Router> as Service<hyper::Request<Incoming>>>::Future>;

    fn call(&self, request: hyper::Request<Incoming>) -> Self::Future {
        let face = Face::of_path(request.uri().path());
        // Looked at only when time skips: every request passes here.
        let busy = (self.1.counts() && may_change(&request)).then(|| self.1.busy());
        CatchPanic {
            face,
            inner: Box::pin(self.0.call(request)),
            _busy: busy,
        }
    }
}

/// Whether a request may change what happens next, and so keeps time from skipping while it is
/// served: anything but reads (a test asking every few milliseconds whether its run has closed
/// must not hold time still).
fn may_change(request: &hyper::Request<Incoming>) -> bool {
    if request.method() == hyper::Method::GET || request.method() == hyper::Method::HEAD {
        return false;
    }
    let target = request.headers().get("x-amz-target");
    let operation = target
        .and_then(|t| t.to_str().ok())
        .and_then(|t| t.rsplit('.').next())
        .unwrap_or_default();
    !["Describe", "List", "Count", "GetWorkflowExecutionHistory"]
        .iter()
        .any(|read| operation.starts_with(read))
}

/// A request's future that answers `InternalFailure` if it panics. The server is busy while it
/// runs, if it may change anything (for time-skipping).
struct CatchPanic<F> {
    face: Face,
    inner: Pin<Box<F>>,
    _busy: Option<Busy>,
}

impl<F: Future<Output = Result<Response, Infallible>>> Future for CatchPanic<F> {
    type Output = Result<Response, Infallible>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.inner.as_mut();
        match std::panic::catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(poll) => poll,
            Err(_) => Poll::Ready(Ok(response::respond(
                self.face,
                &request_id(),
                Err(Fault::internal("the request's handler panicked")),
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;

    use super::*;

    #[tokio::test]
    async fn a_panicking_handler_is_answered_as_an_internal_failure() {
        let panics = async {
            if std::hint::black_box(false) {
                return Ok(Response::default());
            }
            panic!("a bug at host/src/secret.rs:12");
        };
        let caught = CatchPanic {
            face: Face::Swf,
            inner: Box::pin(panics),
            _busy: None,
        };
        let Ok(response) = caught.await;
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(
            response.headers().get("x-amzn-errortype").unwrap(),
            "InternalFailure"
        );
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let body = String::from_utf8(body.to_vec()).unwrap();
        assert!(body.contains("unknown error"), "{body}");
        assert!(!body.contains("secret") && !body.contains("bug"), "{body}");
    }
}
