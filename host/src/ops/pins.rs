//! Reading runs' pins (see `model::pins`): the pin of a decision task's run, for the worker
//! that decides it; and how many open runs each module holds, for bindings, modules and their
//! deletion.
//!
//! Counts are read from the open runs themselves, a page at a time: they cost one read per
//! open run of the domain, which is what an operator's listing or a module's deletion may
//! spend, and never a decision task.

use std::collections::HashMap;

use crate::clock::Timestamp;
use crate::fault::Fault;
use crate::model::{Pin, Run, Scope, TaskKind};
use crate::store::{Cursor, Filter, Listing, Reads, StoreError};

use super::Service;
use super::polling::open_token;

/// Open runs read at once while counting pins.
const PAGE: usize = 1000;
/// The time range of every run.
const EVER: (Timestamp, Timestamp) = (
    Timestamp::from_millis(i64::MIN),
    Timestamp::from_millis(i64::MAX),
);

/// The pin of the run whose decision task `token` names; none if the run is not pinned (or
/// gone).
pub(crate) async fn task_pin(svc: &Service, token: &str) -> Result<Option<Pin>, Fault> {
    let task = open_token(svc, token, TaskKind::Decision)?;
    svc.store
        .read(move |tx| Ok(tx.run(task.run)?.and_then(|run| run.pin)))
        .await
}

/// How many open runs of the domain are pinned to each module, by digest.
pub(crate) fn pinned_counts(
    tx: &dyn Reads,
    domain: u64,
) -> Result<HashMap<String, u64>, StoreError> {
    let mut counts = HashMap::new();
    each_open_run(tx, domain, &mut |run| {
        if let Some(pin) = &run.pin {
            *counts.entry(pin.module.clone()).or_default() += 1;
        }
        Ok(())
    })?;
    Ok(counts)
}

/// How many open runs of each domain of `account` (in every region) are pinned to each
/// module, by digest.
pub(crate) fn account_pinned_counts(
    tx: &dyn Reads,
    account: &str,
) -> Result<HashMap<String, u64>, StoreError> {
    let mut counts = HashMap::new();
    let domains = tx.every_domain()?;
    let owned = domains
        .iter()
        .filter(|(scope, _): &&(Scope, _)| scope.account == account);
    for (_, domain) in owned {
        for (module, count) in pinned_counts(tx, domain.id)? {
            *counts.entry(module).or_default() += count;
        }
    }
    Ok(counts)
}

/// Calls `each` with every open run of the domain, newest first.
pub(crate) fn each_open_run(
    tx: &dyn Reads,
    domain: u64,
    each: &mut dyn FnMut(Run) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut cursor = Cursor {
        after: None,
        reverse: true,
        limit: PAGE,
    };
    loop {
        let page = tx.listed_runs(domain, Listing::Open, &Filter::All, EVER, cursor)?;
        cursor.after = page.items.last().map(|r| (r.started_at.as_millis(), r.seq));
        for run in page.items {
            each(run)?;
        }
        if !page.more {
            return Ok(());
        }
    }
}
