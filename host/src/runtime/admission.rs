//! Who runs next: a call takes a permit from its tenant's share first, then a slot of the
//! instance pool.
//!
//! Tokio's semaphores hand out permits in the order they were asked for, and a tenant can have
//! no more calls waiting for a slot than its share has permits. So however much one tenant has
//! queued, another tenant's call waits behind at most the others' shares, never behind their
//! whole backlog: the pool is shared fairly without a scheduler of its own.

use std::sync::Arc;

use tokio::sync::{Semaphore, SemaphorePermit};

/// The instance pool's slots.
pub(super) struct Admission {
    slots: Arc<Semaphore>,
}

/// A call's right to an instance, held while it runs.
pub(super) struct Admitted<'a> {
    _share: SemaphorePermit<'a>,
    _slot: SemaphorePermit<'a>,
}

impl Admission {
    /// A pool of `slots` instances.
    pub(super) fn new(slots: usize) -> Self {
        Admission {
            slots: Arc::new(Semaphore::new(slots)),
        }
    }

    /// Waits for a permit of `share`, then for a slot.
    pub(super) async fn enter<'a>(&'a self, share: &'a Semaphore) -> Admitted<'a> {
        // Neither semaphore is ever closed.
        let share = share.acquire().await.expect("shares stay open");
        let slot = self.slots.acquire().await.expect("the pool stays open");
        Admitted {
            _share: share,
            _slot: slot,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use super::*;

    /// A pool of 2 slots; tenant A (share 2) has 10 calls queued before tenant B's one call.
    /// B's call runs as soon as a slot frees, ahead of A's backlog.
    #[tokio::test]
    async fn a_flood_does_not_starve_another_tenant() {
        let pool = Arc::new(Admission::new(2));
        let (a, b) = (Arc::new(Semaphore::new(2)), Arc::new(Semaphore::new(2)));
        let order = Arc::new(Mutex::new(Vec::new()));
        let release = Arc::new(Semaphore::new(0));
        let mut calls = Vec::new();
        let spawn = |name: &'static str, share: Arc<Semaphore>| {
            let (pool, order, release) = (pool.clone(), order.clone(), release.clone());
            tokio::spawn(async move {
                let _admitted = pool.enter(&share).await;
                order.lock().unwrap().push(name);
                // Each call runs until the test lets one finish.
                release.acquire().await.unwrap().forget();
            })
        };
        for _ in 0..10 {
            calls.push(spawn("a", a.clone()));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        calls.push(spawn("b", b.clone()));
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(*order.lock().unwrap(), ["a", "a"], "A fills the pool");
        for _ in 0..11 {
            release.add_permits(1);
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        for call in calls {
            call.await.unwrap();
        }
        let order = order.lock().unwrap();
        let b_at = order.iter().position(|n| *n == "b").unwrap();
        assert!(b_at <= 3, "B ran {b_at}th: {order:?}");
    }
}
