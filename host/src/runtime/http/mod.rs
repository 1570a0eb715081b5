//! Outgoing HTTP (`wasi:http/outgoing-handler` and `wasi:http/types`) for activity workers, and
//! only to the hosts their binding allows.
//!
//! Only the activity worker's linker has `wasi:http`: a decider importing it is refused at upload
//! (its decisions must follow from its history), and so is a function (its linker does not
//! provide it). Each call's store carries
//! its binding's allow-list as an [`HttpGrant`], whose `send_request` hook is the one place a
//! request can leave the process:
//!
//! - the request's authority must be on the list, or the guest gets
//!   `error-code::HTTP-request-denied` and nothing is sent (no DNS lookup, no connection). An
//!   empty list, every binding's default, denies every request;
//! - an entry `host:port` allows exactly that host and port; an entry `host` allows that host on
//!   the default port of the request's scheme (80 for `http`, 443 for `https`). Hosts are
//!   compared as written, after lowercasing: `127.1` is not `127.0.0.1`, and
//!   `api.example.com.` is not `api.example.com`; an authority with user info is denied;
//! - redirects are not followed (`wasi:http` hands a 3xx to the guest like any response), so a
//!   redirect to another host is only another request, checked like the first;
//! - connecting, the first byte of the response and each later byte wait at most what the guest
//!   asks in its request options, and at most the call's CPU budget; the whole exchange, from
//!   connecting to the last byte of the body, ends at the CPU budget too: waiting on the network
//!   is not CPU time, but it must not hold a slot for ever;
//! - a response body larger than the call's memory limit (which the guest could not hold) fails
//!   with `error-code::HTTP-response-body-size`.
//!
//! `https` works, trusting the Mozilla roots compiled in (`webpki-roots`), not the system's, and
//! the CAs the operator adds (`Config::http_ca`); `send` sends, with rustls and `ring`. A host
//! name is resolved by the system resolver at connect time: allowing a name trusts whoever
//! answers for it.

mod send;

use std::future::Future;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use hyper::body::{Body, Bytes, Frame};
use wasmtime_wasi_http::{Error, RequestOptions, WasiBody, WasiHttpHooks};

pub(crate) use self::send::{Outgoing, install_crypto_provider};

/// The most hosts one binding may allow.
pub(crate) const MAX_HTTP_HOSTS: usize = 100;

/// Checks a binding's allow-list: each entry a lowercase host name, an IPv4 address or a
/// bracketed IPv6 address, with an optional `:port`; no scheme, path, user info or wildcard.
/// The message names the first entry that is not one.
pub(crate) fn check_http_hosts(hosts: &[String]) -> Result<(), String> {
    if hosts.len() > MAX_HTTP_HOSTS {
        return Err(format!(
            "{} hosts; at most {MAX_HTTP_HOSTS} are allowed",
            hosts.len()
        ));
    }
    for entry in hosts {
        if let Err(why) = check_entry(entry) {
            return Err(format!("{entry:?}: {why}"));
        }
    }
    Ok(())
}

fn check_entry(entry: &str) -> Result<(), &'static str> {
    const EXPECTED: &str = "expected a host name, IPv4 address or [IPv6] address, with an \
                            optional :port (no scheme, path or wildcard)";
    if entry.contains(['/', '@', '?', '#', '*', '%']) {
        return Err(EXPECTED);
    }
    let (host, port) = split_port(entry).ok_or(EXPECTED)?;
    if let Some(port) = port
        && !(port.bytes().all(|b| b.is_ascii_digit())
            && !port.starts_with('0')
            && port.parse::<u16>().is_ok())
    {
        return Err("the port must be 1 to 65535");
    }
    if let Some(ip) = host.strip_prefix('[') {
        let ip = ip.strip_suffix(']').ok_or(EXPECTED)?;
        return match ip.parse::<Ipv6Addr>() {
            Ok(parsed) if parsed.to_string() == ip => Ok(()),
            Ok(_) => Err("write the IPv6 address in its short lowercase form, such as [::1]"),
            Err(_) => Err(EXPECTED),
        };
    }
    if host.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return match host.parse::<Ipv4Addr>() {
            Ok(_) => Ok(()),
            Err(_) => Err("not an IPv4 address (four decimal numbers, such as 127.0.0.1)"),
        };
    }
    if host.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err("write host names in lowercase");
    }
    let labels_ok = host.len() <= 253
        && host.split('.').all(|label| {
            (1..=63).contains(&label.len())
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        });
    if labels_ok { Ok(()) } else { Err(EXPECTED) }
}

/// `host[:port]` split at the port's colon (an IPv6 host keeps its brackets); none for an empty
/// host or port.
fn split_port(authority: &str) -> Option<(&str, Option<&str>)> {
    let (host, port) = match authority.rfind(':') {
        Some(colon) if !authority[colon..].contains(']') => {
            (&authority[..colon], Some(&authority[colon + 1..]))
        }
        _ => (authority, None),
    };
    if host.is_empty() || port.is_some_and(str::is_empty) {
        return None;
    }
    Some((host, port))
}

/// What one call may do with `wasi:http`: the hooks its store hands to `wasmtime-wasi-http`.
pub(crate) struct HttpGrant {
    /// The binding's allow-list, checked by [`check_http_hosts`]: empty denies everything.
    hosts: Arc<[String]>,
    /// The longest any exchange may take: the call's CPU budget.
    time_cap: Duration,
    /// The largest response body: the call's memory limit.
    body_cap: u64,
    /// How requests are sent, and which TLS roots they trust.
    outgoing: Arc<Outgoing>,
}

impl HttpGrant {
    pub(crate) fn new(
        hosts: Arc<[String]>,
        time_cap: Duration,
        body_cap: u64,
        outgoing: Arc<Outgoing>,
    ) -> HttpGrant {
        HttpGrant {
            hosts,
            time_cap,
            body_cap,
            outgoing,
        }
    }

    /// Whether a request to `uri` may be sent.
    fn allows(&self, uri: &hyper::Uri) -> bool {
        let Some(authority) = uri.authority() else {
            return false;
        };
        if authority.as_str().contains('@') {
            return false;
        }
        let host = authority.host().to_ascii_lowercase();
        let default_port = match uri.scheme_str() {
            Some("http") => Some(80),
            Some("https") => Some(443),
            _ => None,
        };
        let Some(port) = authority.port_u16().or(default_port) else {
            return false;
        };
        self.hosts.iter().any(|entry| match split_port(entry) {
            Some((allowed, None)) => allowed == host && Some(port) == default_port,
            Some((allowed, Some(p))) => allowed == host && p.parse() == Ok(port),
            None => false,
        })
    }

    /// `wanted` (the guest's choice, or none) bounded by the cap.
    fn bounded(&self, wanted: Option<Duration>) -> Duration {
        wanted.map_or(self.time_cap, |w| w.min(self.time_cap))
    }
}

type Sent = Box<
    dyn Future<
            Output = Result<
                (
                    hyper::Response<WasiBody>,
                    Box<dyn Future<Output = Result<(), Error>> + Send>,
                ),
                Error,
            >,
        > + Send,
>;

impl WasiHttpHooks for HttpGrant {
    fn send_request(
        &mut self,
        request: hyper::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: Box<dyn Future<Output = Result<(), Error>> + Send>,
    ) -> Sent {
        drop(fut);
        if !self.allows(request.uri()) {
            return Box::new(async { Err(Error::HttpRequestDenied) });
        }
        let options = options.unwrap_or_default();
        let timeouts = send::Timeouts {
            connect: self.bounded(options.connect_timeout),
            first_byte: self.bounded(options.first_byte_timeout),
        };
        // Tokio's timers take no zero period: a zero wait is the shortest one.
        let between_bytes = self
            .bounded(options.between_bytes_timeout)
            .max(Duration::from_nanos(1));
        let deadline = tokio::time::Instant::now() + self.time_cap;
        let body_cap = self.body_cap;
        let outgoing = self.outgoing.clone();
        Box::new(async move {
            let sent = outgoing.send(request, timeouts);
            let (response, io) = tokio::time::timeout_at(deadline, sent)
                .await
                .map_err(|_| Error::HttpResponseTimeout)??;
            let response = send::boxed(response).map(|body| {
                let bounded = Bounded {
                    inner: body,
                    left: body_cap,
                    limit: body_cap,
                    deadline: Box::pin(tokio::time::sleep_until(deadline)),
                    between_bytes,
                    idle: Box::pin(tokio::time::sleep(between_bytes)),
                };
                http_body_util::BodyExt::boxed_unsync(bounded)
            });
            Ok((response, io))
        })
    }
}

/// A response body cut off at its size limit, at the exchange's deadline, and when no byte
/// comes for `between_bytes`.
struct Bounded {
    inner: WasiBody,
    left: u64,
    limit: u64,
    deadline: Pin<Box<tokio::time::Sleep>>,
    between_bytes: Duration,
    /// Ends `between_bytes` after the last frame.
    idle: Pin<Box<tokio::time::Sleep>>,
}

impl Body for Bounded {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        let this = &mut *self;
        if this.deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(Error::HttpResponseTimeout)));
        }
        let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) else {
            ready!(this.idle.as_mut().poll(cx));
            return Poll::Ready(Some(Err(Error::ConnectionReadTimeout)));
        };
        let next_idle = tokio::time::Instant::now() + this.between_bytes;
        this.idle.as_mut().reset(next_idle);
        if let Some(Ok(data)) = frame.as_ref().map(|f| f.as_ref().map(Frame::data_ref))
            && let Some(data) = data
        {
            let len = data.len() as u64;
            if len > this.left {
                return Poll::Ready(Some(Err(Error::HttpResponseBodySize(Some(this.limit)))));
            }
            this.left -= len;
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(hosts: &[&str]) -> HttpGrant {
        let hosts: Vec<String> = hosts.iter().map(|h| (*h).to_owned()).collect();
        let outgoing = Arc::new(Outgoing::new(&[]).unwrap());
        HttpGrant::new(hosts.into(), Duration::from_secs(1), 1 << 20, outgoing)
    }

    #[test]
    fn allow_list_entries_are_checked() {
        let good = [
            "example.com",
            "api.example.com:8443",
            "127.0.0.1",
            "127.0.0.1:8080",
            "[::1]",
            "[::1]:8080",
            "localhost",
            "a-b.c0",
        ];
        let owned: Vec<String> = good.iter().map(|h| (*h).to_owned()).collect();
        assert_eq!(check_http_hosts(&owned), Ok(()));
        for bad in [
            "",
            "http://example.com",
            "example.com/path",
            "*.example.com",
            "Example.com",
            "user@example.com",
            "example.com:",
            "example.com:0",
            "example.com:65536",
            "example.com:080",
            "example.com:+80",
            ":80",
            "300.1.1.1",
            "127.1",
            "::1",
            "[::1",
            "[0:0::1]",
            "-a.com",
            "a..com",
            "example.com.",
            "exa mple.com",
        ] {
            assert!(
                check_http_hosts(&[bad.to_owned()]).is_err(),
                "{bad:?} was accepted"
            );
        }
        let many = vec!["a.com".to_owned(); MAX_HTTP_HOSTS + 1];
        assert!(check_http_hosts(&many).is_err());
    }

    #[test]
    fn requests_are_allowed_by_host_and_port() {
        let uri = |s: &str| s.parse::<hyper::Uri>().unwrap();
        let nothing = grant(&[]);
        assert!(!nothing.allows(&uri("http://127.0.0.1:8080/")));

        let g = grant(&["127.0.0.1:8080", "example.com", "[::1]:9000"]);
        assert!(g.allows(&uri("http://127.0.0.1:8080/x")));
        assert!(!g.allows(&uri("http://127.0.0.1:8081/x")));
        assert!(!g.allows(&uri("http://127.0.0.1/x")));
        assert!(g.allows(&uri("https://example.com/")));
        assert!(g.allows(&uri("http://EXAMPLE.com/")));
        assert!(g.allows(&uri("https://example.com:443/")));
        assert!(!g.allows(&uri("https://example.com:8443/")));
        assert!(!g.allows(&uri("http://example.com:443/")));
        assert!(!g.allows(&uri("http://evil.example.com/")));
        assert!(!g.allows(&uri("http://example.com.evil.net/")));
        assert!(!g.allows(&uri("http://user@example.com/")));
        assert!(g.allows(&uri("http://[::1]:9000/")));
        assert!(!g.allows(&uri("http://[::1]:9001/")));
    }

    /// `inner` within a 10-byte cap, the deadline `within` from now, and a minute between bytes.
    fn bounded_body(inner: WasiBody, within: Duration) -> Bounded {
        let minute = Duration::from_secs(60);
        Bounded {
            inner,
            left: 10,
            limit: 10,
            deadline: Box::pin(tokio::time::sleep(within)),
            between_bytes: minute,
            idle: Box::pin(tokio::time::sleep(minute)),
        }
    }

    #[tokio::test]
    async fn response_bodies_are_cut_at_the_size_cap_and_the_deadline() {
        use http_body_util::BodyExt as _;
        let bounded = |len: usize, within: Duration| {
            let full = http_body_util::Full::new(Bytes::from(vec![0u8; len]))
                .map_err(|never| match never {})
                .boxed_unsync();
            bounded_body(full, within)
        };
        let minute = Duration::from_secs(60);
        let body = bounded(10, minute).collect().await.unwrap().to_bytes();
        assert_eq!(body.len(), 10);
        assert!(matches!(
            bounded(11, minute).collect().await,
            Err(Error::HttpResponseBodySize(Some(10)))
        ));
        let late = bounded(1, Duration::ZERO);
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert!(matches!(
            late.collect().await,
            Err(Error::HttpResponseTimeout)
        ));
    }

    /// A body that sends one byte, then nothing, for ever.
    struct Stalls(bool);

    impl Body for Stalls {
        type Data = Bytes;
        type Error = Error;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
            if std::mem::replace(&mut self.0, true) {
                return Poll::Pending;
            }
            Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b"a")))))
        }
    }

    #[tokio::test]
    async fn a_body_that_stalls_is_cut_after_the_time_between_bytes() {
        use http_body_util::BodyExt as _;
        let mut stalled = bounded_body(Stalls(false).boxed_unsync(), Duration::from_secs(60));
        stalled.between_bytes = Duration::from_millis(50);
        stalled.idle = Box::pin(tokio::time::sleep(Duration::from_millis(50)));
        // Longer than the wait between bytes: the wait starts at the last frame, not before.
        tokio::time::sleep(Duration::from_millis(80)).await;
        let first = stalled.frame().await.unwrap().unwrap();
        assert_eq!(first.into_data().unwrap(), Bytes::from_static(b"a"));
        let started = std::time::Instant::now();
        assert!(matches!(
            stalled.frame().await,
            Some(Err(Error::ConnectionReadTimeout))
        ));
        assert!(started.elapsed() >= Duration::from_millis(40));
    }

    #[test]
    fn timeouts_are_bounded_by_the_cap() {
        let g = grant(&[]);
        assert_eq!(g.bounded(None), Duration::from_secs(1));
        assert_eq!(
            g.bounded(Some(Duration::from_millis(5))),
            Duration::from_millis(5)
        );
        assert_eq!(
            g.bounded(Some(Duration::from_secs(600))),
            Duration::from_secs(1)
        );
    }

    #[test]
    fn ca_files_must_hold_certificates() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        for bad in [missing, empty] {
            let Err(message) = Outgoing::new(std::slice::from_ref(&bad)) else {
                panic!("{} was accepted", bad.display());
            };
            assert!(
                message.starts_with(&format!("HTTP CA file {}: ", bad.display())),
                "{message}"
            );
        }
    }
}
