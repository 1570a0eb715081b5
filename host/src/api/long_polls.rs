//! The long polls each tenant has waiting over HTTP, capped by its `long_polls` quota.
//!
//! A long poll holds its connection for up to the poll timeout, and every tenant's requests
//! share the edge's connections: without a cap, one tenant's pollers (or one address polling
//! as the open tenant) could take them all. SWF caps pollers per task list (1,000), which does
//! not stop a tenant that polls many lists. Configured tenants are counted across their
//! regions, as an account is the unit AWS quotas apply to; the open tenant is anyone, so it is
//! counted per region (its scope), where its names live.
//!
//! Only polls that arrive over HTTP count: in-process workers poll through `api::call`, hold no
//! connection, and are bounded by their bindings' concurrency.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::fault::Fault;
use crate::metrics::{Labels, Metrics};
use crate::ops::Ctx;

/// Long polls in progress, by tenant (or by scope, for the open tenant).
#[derive(Default)]
pub(super) struct LongPolls {
    counts: Arc<Mutex<HashMap<String, usize>>>,
}

/// One long poll's place in its tenant's count, given back when dropped.
pub(super) struct Place {
    counts: Arc<Mutex<HashMap<String, usize>>>,
    key: String,
    /// Where it is counted among the open long polls shown as metrics.
    gauge: (Arc<Metrics>, Labels),
}

impl LongPolls {
    fn counts(counts: &Mutex<HashMap<String, usize>>) -> MutexGuard<'_, HashMap<String, usize>> {
        // Every change is one call on the map, so a panic elsewhere cannot leave it half done.
        counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A place for one more long poll of `ctx`'s tenant (`open`: the open tenant, counted per
    /// region), or `LimitExceededFault` when its quota is taken: the fault SWF documents for
    /// too many concurrent pollers, which SDKs do not retry at once.
    pub(super) fn enter(
        &self,
        ctx: &Ctx,
        open: bool,
        metrics: &Arc<Metrics>,
    ) -> Result<Place, Fault> {
        let max = ctx.tenant.quotas.long_polls;
        let (key, per) = if open {
            (
                format!("{}/{}", ctx.scope.account, ctx.scope.region),
                "region",
            )
        } else {
            (ctx.scope.account.clone(), "account")
        };
        let mut counts = Self::counts(&self.counts);
        let count = counts.entry(key.clone()).or_default();
        if *count >= max {
            return Err(Fault::long_polls_limit(per, max));
        }
        *count += 1;
        let labels = metrics.tenant_labels(&ctx.tenant.name);
        metrics.own.long_poll(&labels, 1);
        Ok(Place {
            counts: self.counts.clone(),
            key,
            gauge: (metrics.clone(), labels),
        })
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let (metrics, labels) = &self.gauge;
        metrics.own.long_poll(labels, -1);
        let mut counts = LongPolls::counts(&self.counts);
        if let Some(count) = counts.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scope;

    fn ctx(region: &str, long_polls: usize) -> Ctx {
        let tenant = crate::tenancy::open_tenant_with(|q| q.long_polls = long_polls);
        Ctx {
            scope: Scope {
                account: tenant.account.clone(),
                region: region.into(),
            },
            tenant,
            stop: None,
        }
    }

    #[test]
    fn polls_beyond_the_quota_are_refused_until_one_ends() {
        let polls = LongPolls::default();
        let east = ctx("us-east-1", 2);
        let first = polls.enter(&east, true, &Arc::default()).unwrap();
        let _second = polls.enter(&east, true, &Arc::default()).unwrap();
        let refused = polls.enter(&east, true, &Arc::default()).err().unwrap();
        assert_eq!(
            refused,
            Fault::LimitExceeded(
                "Limit on maximum concurrent poll requests per region reached (2)".into()
            )
        );
        // The open tenant counts per region: another region has its own.
        let _west = polls
            .enter(&ctx("us-west-2", 2), true, &Arc::default())
            .unwrap();
        drop(first);
        assert!(polls.enter(&east, true, &Arc::default()).is_ok());
    }

    #[test]
    fn configured_tenants_count_across_regions() {
        let polls = LongPolls::default();
        let _east = polls
            .enter(&ctx("us-east-1", 1), false, &Arc::default())
            .unwrap();
        let west = polls.enter(&ctx("us-west-2", 1), false, &Arc::default());
        assert!(matches!(west, Err(Fault::LimitExceeded(m)) if m.contains("per account")));
    }

    #[test]
    fn no_count_is_left_behind() {
        let polls = LongPolls::default();
        drop(
            polls
                .enter(&ctx("us-east-1", 1), true, &Arc::default())
                .unwrap(),
        );
        assert!(LongPolls::counts(&polls.counts).is_empty());
    }
}
