//! The web console's files, at `/console/`: the front end built from `host/console` and
//! embedded in the binary at compile time (`build.rs`). The console is a client of the API
//! beside it and signs its own requests, so its files are served to anyone: they hold no data.
//!
//! For front-end work, `WEFT_CONSOLE_DIR=host/console/dist` serves the files from that directory
//! instead, read on every request, so a rebuilt front end shows without rebuilding Weft.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use bytes::Bytes;

use super::Api;

/// Every file of the built console: its path under `dist/`, and its bytes.
const CONSOLE_ASSETS: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/console_assets.rs"));

/// The console's routes, to merge into the router.
pub(super) fn routes() -> Router<Arc<Api>> {
    Router::new()
        .route(
            "/console",
            get(|| async { Redirect::permanent("/console/") }),
        )
        .route("/console/", get(|| async { asset("index.html") }))
        .route(
            "/console/{*path}",
            get(|Path(path): Path<String>| async move { asset(&path) }),
        )
}

/// The file at `path` under the console's root, or 404.
fn asset(path: &str) -> Response {
    let Some(body) = find(path) else {
        return (StatusCode::NOT_FOUND, "no such file in the console\n").into_response();
    };
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, content_type(path));
    // The files keep their names from build to build: always check for a newer one.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // The console talks only to its own origin and runs only its own scripts; no page may
    // frame it (a framed console could be clicked into acting for its user).
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; \
             frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        ),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// The bytes of the file at `path`: from `WEFT_CONSOLE_DIR` if set, else embedded.
fn find(path: &str) -> Option<Bytes> {
    // Only plain relative names: nothing may reach outside the console's root.
    let plain = path
        .split('/')
        .all(|part| !part.is_empty() && part != "." && part != ".." && !part.contains('\\'));
    if !plain {
        return None;
    }
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    match DIR.get_or_init(|| std::env::var_os("WEFT_CONSOLE_DIR").map(PathBuf::from)) {
        Some(dir) => std::fs::read(dir.join(path)).ok().map(Bytes::from),
        None => CONSOLE_ASSETS
            .iter()
            .find(|(name, _)| *name == path)
            .map(|(_, bytes)| Bytes::from_static(bytes)),
    }
}

/// The content type of a console file, by its extension.
fn content_type(path: &str) -> HeaderValue {
    let extension = path.rsplit_once('.').map_or("", |(_, extension)| extension);
    HeaderValue::from_static(match extension {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" | "map" => "application/json",
        "woff2" => "font/woff2",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_could_leave_the_root_are_not_found() {
        for path in [
            "../Cargo.toml",
            "a/../../x",
            "./index.html",
            "/etc/passwd",
            "a//b",
            "a\\..\\b",
        ] {
            assert_eq!(find(path), None, "{path}");
        }
    }

    #[test]
    fn content_types_follow_the_extension() {
        assert_eq!(
            content_type("assets/app.js"),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("LICENSE"), "application/octet-stream");
    }
}
