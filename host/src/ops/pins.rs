//! Reading runs' pins (see `model::pins`): the pin of a decision task's run, for the worker
//! that decides it; and the open runs pinned to a module, listed and counted from the
//! visibility index (`Filter::Module`), for bindings, modules and upgrades.

use crate::clock::Timestamp;
use crate::fault::Fault;
use crate::model::{Pin, Run, TaskKind};
use crate::store::{Cursor, Filter, Listing, Reads, StoreError};

use super::Service;
use super::polling::open_token;

/// Open runs read at once while listing the runs pinned to a module.
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

/// How many open runs of the domain are pinned to `module`.
pub(crate) fn pinned_count(tx: &dyn Reads, domain: u64, module: &str) -> Result<u64, StoreError> {
    tx.count_listed(domain, Listing::Open, &Filter::Module(module), EVER)
}

/// How many open runs of the domains of `account` (in every region) are pinned to `module`.
pub(crate) fn account_pinned_count(
    tx: &dyn Reads,
    account: &str,
    module: &str,
) -> Result<u64, StoreError> {
    let mut count = 0;
    for (scope, domain) in tx.every_domain()? {
        if scope.account == account {
            count += pinned_count(tx, domain.id, module)?;
        }
    }
    Ok(count)
}

/// The open runs of the domain pinned to `module`, oldest start first.
pub(crate) fn pinned_runs(
    tx: &dyn Reads,
    domain: u64,
    module: &str,
) -> Result<Vec<Run>, StoreError> {
    let filter = Filter::Module(module);
    let mut cursor = Cursor {
        after: None,
        reverse: false,
        limit: PAGE,
    };
    let mut runs = Vec::new();
    loop {
        let page = tx.listed_runs(domain, Listing::Open, &filter, EVER, cursor)?;
        cursor.after = page.items.last().map(|r| (r.started_at.as_millis(), r.seq));
        runs.extend(page.items);
        if !page.more {
            return Ok(runs);
        }
    }
}
