//! Compiling uploaded modules, the costliest thing a request can ask for (a large Python or
//! JavaScript component takes seconds of CPU and hundreds of MB), within bounds:
//!
//! 1. an upload takes its place in the tenant's module quota before anything compiles, so
//!    uploads beyond the quota are refused at once, however many arrive together;
//! 2. then it waits for a turn among its tenant's compiles (the `compiles` quota), then for
//!    one among the server's (`max_compiles`); both queues are first come, first served, so
//!    one tenant's uploads wait behind each other, not in front of another tenant's.
//!
//! Replays load their module through the same turns.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Semaphore;

use crate::fault::Fault;
use crate::metrics::Metrics;
use crate::model::ModuleRecord;
use crate::tenancy::{Quotas, Tenant};

/// The server's compiles, and the module places uploads have taken before they are stored.
pub(crate) struct Compiles {
    turns: Arc<Semaphore>,
    /// Per account: modules and bytes taken by uploads not yet stored (or refused).
    reserved: Arc<Mutex<HashMap<String, (usize, u64)>>>,
    metrics: Arc<Metrics>,
}

/// A module's place in its tenant's quota while it is compiled and stored; given back when
/// dropped.
pub(crate) struct Place {
    reserved: Arc<Mutex<HashMap<String, (usize, u64)>>>,
    account: String,
    size: u64,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut reserved = lock(&self.reserved);
        if let Some((count, bytes)) = reserved.get_mut(&self.account) {
            *count -= 1;
            *bytes -= self.size;
            if *count == 0 {
                reserved.remove(&self.account);
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every change is one call on the map: a panic elsewhere cannot leave it half done.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Compiles {
    /// At most `max` compiles at once on this server, counted in `metrics`.
    pub(crate) fn new(max: usize, metrics: Arc<Metrics>) -> Self {
        Compiles {
            turns: Arc::new(Semaphore::new(max.max(1))),
            reserved: Arc::default(),
            metrics,
        }
    }

    /// A place for a module of `size` bytes in `account`'s quota, beside the modules it has
    /// `stored` and those being uploaded, or `LimitExceededFault`.
    pub(crate) fn reserve(
        &self,
        account: &str,
        stored: &[ModuleRecord],
        size: u64,
        quotas: &Quotas,
    ) -> Result<Place, Fault> {
        let mut reserved = lock(&self.reserved);
        let (count, bytes) = reserved.get(account).copied().unwrap_or_default();
        let held = stored.iter().map(|m| m.size).sum::<u64>() + bytes;
        room(stored.len() + count, held, size, quotas)?;
        let entry = reserved.entry(account.to_owned()).or_default();
        entry.0 += 1;
        entry.1 += size;
        Ok(Place {
            reserved: self.reserved.clone(),
            account: account.to_owned(),
            size,
        })
    }

    /// Runs `compile` off the async threads once `tenant` and then the server have a turn.
    /// The turns are the compile's until it ends, even if the request is dropped meanwhile.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        tenant: &Tenant,
        compile: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Fault> {
        let waiting = Counted::new(&self.metrics, Gauge::Waiting);
        let tenants = tenant.compiles.clone().acquire_owned().await;
        let servers = self.turns.clone().acquire_owned().await;
        let turns = tenants.and_then(|t| servers.map(|s| (t, s)));
        let turns = turns.map_err(Fault::internal)?;
        drop(waiting);
        let running = Counted::new(&self.metrics, Gauge::Running);
        let compiled = tokio::task::spawn_blocking(move || {
            // Fields drop in order: the gauge falls before the turns are given back, so it
            // never counts a compile that has already let the next one in.
            let _held = (running, turns);
            compile()
        });
        compiled.await.map_err(Fault::internal)
    }
}

/// Which of the compile gauges a [`Counted`] is counted in.
#[derive(Clone, Copy)]
enum Gauge {
    Waiting,
    Running,
}

/// One compile counted in a gauge while it lives.
struct Counted {
    metrics: Arc<Metrics>,
    gauge: Gauge,
}

impl Counted {
    fn new(metrics: &Arc<Metrics>, gauge: Gauge) -> Self {
        Counted::add(metrics, gauge, 1);
        Counted {
            metrics: metrics.clone(),
            gauge,
        }
    }

    fn add(metrics: &Metrics, gauge: Gauge, delta: i64) {
        match gauge {
            Gauge::Waiting => metrics.own.compiles_waiting(delta),
            Gauge::Running => metrics.own.compiles_running(delta),
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        Counted::add(&self.metrics, self.gauge, -1);
    }
}

/// Whether one more module of `size` bytes fits beside `count` modules of `held` bytes within
/// `quotas`, or the `LimitExceededFault` saying which quota it would pass.
pub(crate) fn room(count: usize, held: u64, size: u64, quotas: &Quotas) -> Result<(), Fault> {
    if count >= quotas.modules {
        return Err(Fault::LimitExceeded(format!(
            "Limit of {} modules reached",
            quotas.modules
        )));
    }
    if held + size > quotas.module_bytes {
        return Err(Fault::LimitExceeded(format!(
            "The tenant's modules may take {} bytes; {held} are taken and this one has {size}",
            quotas.module_bytes
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::clock::Timestamp;
    use crate::runtime::World;

    fn quotas(modules: usize) -> Quotas {
        Quotas {
            modules,
            compiles: 2,
            ..Quotas::default()
        }
    }

    fn stored(n: usize) -> Vec<ModuleRecord> {
        (0..n)
            .map(|i| ModuleRecord {
                digest: format!("{i:064}"),
                world: World::Decider,
                size: 10,
                uploaded_at: Timestamp::from_millis(0),
                name: None,
                version: None,
                used_by: Vec::new(),
                pinned_runs: 0,
            })
            .collect()
    }

    #[test]
    fn places_are_taken_before_compiling_and_given_back() {
        let compiles = Compiles::new(2, Arc::default());
        let quotas = quotas(3);
        let first = compiles.reserve("a", &stored(1), 10, &quotas).unwrap();
        let _second = compiles.reserve("a", &stored(1), 10, &quotas).unwrap();
        let refused = compiles.reserve("a", &stored(1), 10, &quotas);
        assert!(matches!(refused, Err(Fault::LimitExceeded(m)) if m.contains("3 modules")));
        // Another account has its own quota.
        assert!(compiles.reserve("b", &[], 10, &quotas).is_ok());
        drop(first);
        assert!(compiles.reserve("a", &stored(1), 10, &quotas).is_ok());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn compiles_run_at_most_the_servers_and_the_tenants_turns_at_once() {
        let tenant = crate::tenancy::open_tenant_with(|q| q.compiles = 2);
        let compiles = Arc::new(Compiles::new(3, Arc::default()));
        let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let mut uploads = Vec::new();
        for _ in 0..8 {
            let (compiles, tenant) = (compiles.clone(), tenant.clone());
            let (running, most) = (running.clone(), most.clone());
            uploads.push(tokio::spawn(async move {
                compiles
                    .run(&tenant, move || {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(20));
                        running.fetch_sub(1, Ordering::SeqCst);
                    })
                    .await
            }));
        }
        for upload in uploads {
            upload.await.unwrap().unwrap();
        }
        // The tenant's 2, not the server's 3.
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }
}
