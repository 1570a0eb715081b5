//! `GET /metrics`: every metric of this node (`crate::metrics`), for Prometheus to scrape.
//!
//! The metrics span every tenant, so they are the operator's: with tenants, a scrape must carry
//! the operator's token (`[operator] metrics_token` in weft.toml) as `Authorization: Bearer`,
//! and with no token configured nobody may scrape. An open server answers anyone, unless a
//! token is configured.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::response::{self, Face};
use super::{Api, request_id};
use crate::fault::Fault;
use crate::metrics::{MAX_SCHEDULE_SERIES, Pending};
use crate::model::Kind;
use crate::ops::pins::pinned_count;
use crate::store::{Cursor, Reads, StoreError};

/// The content type of the OpenMetrics text format, which Prometheus reads.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// How long a scrape waits for the store: a database that does not answer must not hold the
/// metrics that would show it (`weft_store_up` 0).
const STORE_WAIT: Duration = Duration::from_secs(3);

pub(super) async fn metrics(State(api): State<Arc<Api>>, headers: HeaderMap) -> Response {
    let outcome = async {
        allowed(&api, &headers)?;
        let read = tokio::time::timeout(STORE_WAIT, api.service.store.read_long(pending)).await;
        let pending = match read {
            Ok(Ok(pending)) => Some(pending),
            Ok(Err(fault)) => {
                tracing::warn!(error = %fault, "a scrape could not read the store");
                None
            }
            Err(_) => None,
        };
        Ok::<_, Fault>(api.service.engine.metrics.render(pending).await)
    }
    .await;
    match outcome {
        Ok(text) => {
            let mut response = text.into_response();
            let content_type = HeaderValue::from_static(OPENMETRICS);
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, content_type);
            response
        }
        Err(fault) => response::respond(Face::Extension, &request_id(), Err(fault)),
    }
}

/// Reads every domain's waiting tasks, types and pinned runs from `tx`.
fn pending(tx: &dyn Reads) -> Result<Pending, StoreError> {
    let mut domains = HashMap::new();
    let mut types = Vec::new();
    for (scope, domain) in tx.every_domain()? {
        for kind in [Kind::Workflow, Kind::Activity] {
            // Every type: a domain's are bounded by its quota.
            let all = Cursor {
                after: None,
                reverse: false,
                limit: usize::MAX,
            };
            let page = tx.stored_types(domain.id, kind, None, all, &|_| true)?;
            types.extend(page.items.into_iter().map(|(ty, _)| (domain.id, kind, ty)));
        }
        domains.insert(domain.id, (scope.account, domain.name));
    }
    let mut pinned = Vec::new();
    for (domain, binding) in tx.bindings(None)? {
        for version in &binding.versions {
            let count = pinned_count(tx, domain, &version.module)?;
            pinned.push((domain, binding.name.clone(), version.number, count));
        }
    }
    let mut schedules = Vec::new();
    for &domain in domains.keys() {
        let room = MAX_SCHEDULE_SERIES - schedules.len();
        for s in tx.schedules(domain, None, room)? {
            let state = &s.state;
            let counts = [
                state.actions,
                state.skipped,
                state.missed,
                u64::from(state.paused),
            ];
            schedules.push((domain, s.id, counts));
        }
    }
    let paused = (tx.list_controls()?.into_iter())
        .filter(|(_, control)| control.paused.is_some())
        .map(|(key, _)| key)
        .collect();
    let pending = Pending::new(domains, tx.queued(None)?, types);
    Ok(pending
        .with_pinned(pinned)
        .with_schedules(schedules)
        .with_lists_paused(paused))
}

/// Whether the request may read the metrics.
fn allowed(api: &Api, headers: &HeaderMap) -> Result<(), Fault> {
    let Some(token) = &api.metrics_token else {
        return match api.service.tenants.is_open() {
            true => Ok(()),
            false => Err(Fault::AccessDenied(
                "Metrics are the operator's: set [operator] metrics_token in weft.toml".into(),
            )),
        };
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let Some(given) = given else {
        return Err(Fault::MissingAuthenticationToken(
            "Metrics need the operator's token as Authorization: Bearer".into(),
        ));
    };
    // Digests compared in full: how long the comparison takes says nothing of the token.
    let (a, b) = (
        Sha256::digest(given.as_bytes()),
        Sha256::digest(token.as_bytes()),
    );
    let differ = a
        .iter()
        .zip(b.iter())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y));
    match differ {
        0 => Ok(()),
        _ => Err(Fault::AccessDenied(
            "The metrics token is not the operator's".into(),
        )),
    }
}
