//! Requests that web pages make: what keeps a page the developer visits from using a Weft on
//! their machine or network.
//!
//! A browser lets any page send a "simple" request (a GET, or a POST of `text/plain`, a form
//! or multipart) to any address, without asking the server first; the page cannot read the
//! answer, but the request is served. And a page that rebinds a DNS name of its own to the
//! server's address (DNS rebinding) is, to the browser, talking to its own origin: it can send
//! anything and read every answer. With tenants, neither gets anywhere: every request must
//! be signed with a key no page has, and the signature covers the Host. An open server (no
//! tenants) is anyone's who reaches it, so before any route runs:
//!
//! - **Host** (open servers). It answers only requests that name it by a loopback name
//!   (`localhost`, `*.localhost`), an IP address (which no page can rebind), or a name
//!   configured in `allowed_hosts`.
//! - **Origin** (every server). A request carrying an `Origin` other than the server's own (the
//!   authority of its `Host`) is refused: browsers send `Origin` on every cross-origin request
//!   but GETs, and the console, served from the server itself, sends its own.
//! - **Content-Type** (every server). A request with a body must declare what its route
//!   reads: AWS JSON on SWF's face (`application/x-amz-json-1.0`, as every SDK sends, or
//!   `application/json`, as boto 2 does; parameters such as a charset are ignored, and
//!   anything else is `UnknownOperationException`, as AWS answers it), a module
//!   (`application/wasm` or `application/octet-stream`) for uploads, JSON elsewhere under
//!   `/v1` (else 415). None of these is a type a page may send without the server's consent (a
//!   CORS preflight, which Weft never grants).

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::Response;

use super::response::{self, Face};
use super::{Api, request_id};
use crate::fault::{Fault, echo};
use crate::model::routes;

/// Where a request's body may be sent, and the media types each reads.
const SWF_TYPES: &[&str] = &["application/x-amz-json-1.0", "application/json"];
const MODULE_TYPES: &[&str] = &["application/wasm", "application/octet-stream"];
const JSON_TYPES: &[&str] = &["application/json"];

/// The names an open server answers to, beside loopback names and IP addresses.
#[derive(Clone, Debug, Default)]
pub(crate) struct AllowedHosts(Vec<String>);

impl AllowedHosts {
    /// The names configured (`[server] allowed_hosts`), compared without case.
    pub(crate) fn new(names: Vec<String>) -> Self {
        AllowedHosts(names.into_iter().map(|n| n.to_ascii_lowercase()).collect())
    }

    /// Whether `host` (a `Host` header: a name or address, and maybe a port) names this
    /// server.
    fn allows(&self, host: &str) -> bool {
        let name = host_name(host).to_ascii_lowercase();
        let name = name.trim_end_matches('.');
        name == "localhost"
            || name.ends_with(".localhost")
            || name.parse::<IpAddr>().is_ok()
            || self.0.iter().any(|allowed| allowed == name)
    }
}

/// The name or address in a `Host` header, without its port (and an IPv6 address without
/// its brackets).
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split_once(']').map_or(rest, |(address, _)| address);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

/// Serves the request, unless it is one a web page made against the rules above.
pub(super) async fn guard(State(api): State<Arc<Api>>, request: Request, next: Next) -> Response {
    let checked = check(
        &api.allowed_hosts,
        api.service.tenants.is_open(),
        request.method(),
        request.uri().path(),
        request.headers(),
    );
    match checked {
        Ok(()) => next.run(request).await,
        Err(fault) => {
            let face = Face::of_path(request.uri().path());
            response::respond(face, &request_id(), Err(fault))
        }
    }
}

fn check(
    allowed: &AllowedHosts,
    open: bool,
    method: &Method,
    path: &str,
    headers: &HeaderMap,
) -> Result<(), Fault> {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let host = text(header::HOST);
    if open && let Some(host) = host.filter(|host| !allowed.allows(host)) {
        return Err(Fault::AccessDenied(format!(
            "This server does not answer to the name '{}': without tenants it answers only \
             to localhost, IP addresses and the names in [server] allowed_hosts \
             (--allow-host)",
            echo(host)
        )));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        // Any server: a page elsewhere has no business here, signed or not.
        let origin = origin.to_str().unwrap_or("?");
        let authority = origin.split_once("://").map(|(_, authority)| authority);
        let same = authority
            .zip(host)
            .is_some_and(|(a, h)| a.eq_ignore_ascii_case(h));
        if !same {
            return Err(Fault::AccessDenied(format!(
                "Cross-origin requests are refused: Origin '{}' is not this server",
                echo(origin)
            )));
        }
    }
    if *method == Method::POST || *method == Method::PUT {
        let expected = match path {
            "/" => SWF_TYPES,
            routes::MODULES => MODULE_TYPES,
            _ if path.starts_with("/v1/") => JSON_TYPES,
            // Nothing is served there: the router answers that.
            _ => return Ok(()),
        };
        let given = text(header::CONTENT_TYPE).unwrap_or("");
        let media = given.split(';').next().unwrap_or("").trim();
        if !expected.iter().any(|t| t.eq_ignore_ascii_case(media)) {
            let message = format!(
                "Content-Type '{}' is not what {method} {} reads: send {}",
                echo(given),
                echo(path),
                expected.join(" or ")
            );
            return Err(match path {
                "/" => Fault::UnknownOperation(message),
                _ => Fault::UnsupportedMediaType(message),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderName, HeaderValue};

    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            let name = HeaderName::from_bytes(name.as_bytes()).unwrap();
            map.insert(name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn swf(pairs: &[(&str, &str)]) -> Result<(), Fault> {
        let allowed = AllowedHosts::new(vec!["Weft.Internal".into()]);
        check(&allowed, true, &Method::POST, "/", &headers(pairs))
    }

    const JSON: (&str, &str) = ("content-type", "application/x-amz-json-1.0");

    #[test]
    fn an_open_server_answers_to_loopback_names_addresses_and_names_configured() {
        for host in [
            "localhost",
            "localhost:8080",
            "app.localhost:1",
            "127.0.0.1:8080",
            "10.1.2.3",
            "[::1]:8080",
            "weft.internal:8080",
            "WEFT.INTERNAL",
            "localhost.",
        ] {
            assert_eq!(swf(&[("host", host), JSON]), Ok(()), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:8080",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
        ] {
            assert!(
                matches!(swf(&[("host", host), JSON]), Err(Fault::AccessDenied(m)) if m.contains("allowed_hosts")),
                "{host}"
            );
        }
        // With tenants every request is signed: the Host is the signature's business.
        let signed = headers(&[("host", "evil.example"), JSON]);
        let allowed = AllowedHosts::default();
        assert_eq!(check(&allowed, false, &Method::POST, "/", &signed), Ok(()));
    }

    #[test]
    fn only_the_servers_own_origin_may_send_requests() {
        let host = ("host", "127.0.0.1:8080");
        assert_eq!(
            swf(&[host, JSON, ("origin", "http://127.0.0.1:8080")]),
            Ok(())
        );
        for origin in ["http://evil.example", "http://127.0.0.1:9090", "null"] {
            assert!(
                matches!(swf(&[host, JSON, ("origin", origin)]), Err(Fault::AccessDenied(m)) if m.contains("Cross-origin")),
                "{origin}"
            );
        }
    }

    #[test]
    fn bodies_must_declare_what_their_route_reads() {
        let allowed = AllowedHosts::default();
        let host = ("host", "localhost");
        let verdict = |method: Method, path: &str, content_type: &str| {
            let map = match content_type {
                "" => headers(&[host]),
                given => headers(&[host, ("content-type", given)]),
            };
            check(&allowed, true, &method, path, &map).is_ok()
        };
        assert!(verdict(Method::POST, "/", "application/x-amz-json-1.0"));
        assert!(verdict(
            Method::POST,
            "/",
            "application/json; charset=UTF-8"
        ));
        assert!(verdict(
            Method::POST,
            "/",
            "Application/X-Amz-Json-1.0 ; charset=UTF-8"
        ));
        // AWS refuses JSON 1.1 on a JSON 1.0 service.
        assert!(!verdict(Method::POST, "/", "application/x-amz-json-1.1"));
        assert!(verdict(Method::POST, "/v1/modules", "application/wasm"));
        assert!(verdict(
            Method::POST,
            "/v1/modules",
            "application/octet-stream"
        ));
        assert!(verdict(
            Method::PUT,
            "/v1/domains/d/bindings/activity/a",
            "application/json"
        ));
        assert!(verdict(Method::GET, "/v1/modules", ""));
        // What a page may send cross-site without asking: refused everywhere.
        for simple in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data",
            "",
        ] {
            assert!(!verdict(Method::POST, "/", simple), "{simple}");
            assert!(!verdict(Method::POST, "/v1/modules", simple), "{simple}");
            assert!(
                !verdict(Method::POST, "/v1/domains/d/replay", simple),
                "{simple}"
            );
        }
        assert!(!verdict(Method::POST, "/v1/modules", "application/json"));
        // Nothing is served at other paths: the router says so.
        assert!(verdict(Method::POST, "/v2/anything", ""));
        let refused = |path: &str| {
            check(&allowed, false, &Method::POST, path, &headers(&[host])).unwrap_err()
        };
        assert!(matches!(refused("/"), Fault::UnknownOperation(_)));
        assert!(matches!(
            refused("/v1/modules"),
            Fault::UnsupportedMediaType(_)
        ));
    }
}
