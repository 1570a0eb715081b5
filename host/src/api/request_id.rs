//! Request ids: each request gets one, in the UUID form AWS uses, answered in its
//! `x-amzn-RequestId` header and carried by every log line written while it is served (the
//! `request` span), so a client's id finds the server's account of the request.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument as _;

tokio::task_local! {
    /// The id of the request the current task serves.
    static CURRENT: String;
}

/// The header AWS answers the id in.
const HEADER: &str = "x-amzn-requestid";

/// Serves `request` under a fresh id: within a `request` span that names it, and with the id in
/// the response's header (the API's answers set it themselves; the console's files do not).
pub(super) async fn identify(request: Request, next: Next) -> Response {
    let id = fresh();
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %request.method(),
        path = request.uri().path(),
        operation = tracing::field::Empty,
    );
    let started = Instant::now();
    let mut response = CURRENT
        .scope(id.clone(), next.run(request))
        .instrument(span.clone())
        .await;
    let status = response.status().as_u16();
    span.in_scope(|| {
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        tracing::debug!(status, micros, "answered");
    });
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().entry(HEADER).or_insert(value);
    }
    response
}

/// The id of the request being served; a fresh one outside any (an answer the edge writes
/// itself, before a request could be read).
pub(super) fn request_id() -> String {
    CURRENT.try_with(String::clone).unwrap_or_else(|_| fresh())
}

/// A fresh request id in the UUID form AWS uses: unique within the process (a count, spread
/// over the bits by a multiplication that is one-to-one) and across processes (random keys
/// drawn once), without a system call for randomness per request.
fn fresh() -> String {
    static KEYS: OnceLock<[u64; 2]> = OnceLock::new();
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let [mask, process] = *KEYS.get_or_init(|| {
        let mut b = [0u8; 16];
        if getrandom::fill(&mut b).is_err() {
            // Ids only correlate logs; clock-derived keys will do if the OS has no randomness.
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos();
            b = nanos.to_le_bytes();
        }
        let (first, second) = b.split_at(8);
        [first, second].map(|half| u64::from_le_bytes(half.try_into().expect("8 bytes")))
    });
    let count = COUNT.fetch_add(1, Ordering::Relaxed);
    let unique = count.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ mask;
    // The part that changes first, so that ids tell apart at a glance.
    let id = format!("{unique:016x}{process:016x}");
    format!(
        "{}-{}-{}-{}-{}",
        &id[..8],
        &id[8..12],
        &id[12..16],
        &id[16..20],
        &id[20..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_look_like_uuids() {
        let id = request_id();
        assert_eq!(id.len(), 36);
        assert_eq!(id.matches('-').count(), 4);
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| request_id()).collect();
        assert_eq!(ids.len(), 1000, "every id is new");
        assert!(!ids.contains(&id));
    }

    #[tokio::test]
    async fn within_a_request_the_id_stays_the_same() {
        let id = CURRENT
            .scope("the-id".to_owned(), async { (request_id(), request_id()) })
            .await;
        assert_eq!(id, ("the-id".to_owned(), "the-id".to_owned()));
    }
}
