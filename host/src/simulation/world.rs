//! The simulated world: one service on a redb store in a temporary directory, a manual clock,
//! faults drawn from the seed, and restarts that reopen the store from disk.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::api::{Operation, call_json};
use crate::clock::{Clock as _, ManualClock, Timestamp};
use crate::engine::{Broken, fire_due};
use crate::fault::Fault;
use crate::ops::{Ctx, Service};
use crate::store::{Faults, Rates, Store, StoreError, Writer};

/// Where the clock starts: 2027-01-15, a day in no time zone's transition.
const EPOCH: i64 = 1_800_000_000_000;

/// How often each store fault comes, in percent of the calls it can hit. Slow calls are left
/// out: a delay changes nothing when requests come one at a time, and costs wall time.
const RATES: Rates = Rates {
    unavailable: 3,
    conflict: 3,
    slow: 0,
    lost_answer: 3,
};

/// A service as a process runs it, with the store underneath it (without the faults) for the
/// checks.
struct Node {
    svc: Arc<Service>,
    ctx: Ctx,
    store: Store,
    writer: Writer,
}

/// The world one seed runs in.
pub(super) struct World {
    dir: tempfile::TempDir,
    pub(super) clock: Arc<ManualClock>,
    pub(super) faults: Arc<Faults>,
    broken: Broken,
    node: Option<Node>,
    /// Requests that met a retryable failure and were sent again.
    pub(super) retries: u64,
}

impl World {
    /// A fresh world whose store faults come from `seed`, with `broken` rules off.
    pub(super) fn new(seed: u64, broken: Broken) -> World {
        let mut world = World {
            dir: tempfile::tempdir().expect("a temporary directory"),
            clock: Arc::new(ManualClock::new(Timestamp::from_millis(EPOCH))),
            faults: Faults::new(RATES, seed ^ 0x5EED_FA17),
            broken,
            node: None,
            retries: 0,
        };
        world.start();
        world
    }

    /// Opens the store and starts a service on it.
    fn start(&mut self) {
        let opened = Store::open_dir(self.dir.path(), self.clock.clone()).expect("the store opens");
        let faulty = opened.store.with_faults(self.faults.clone());
        let mut svc = Service::for_tests(
            self.dir.path(),
            self.clock.clone(),
            faulty,
            opened.secret,
            Duration::ZERO,
        );
        svc.engine.broken = self.broken;
        let ctx = svc.open_ctx();
        self.node = Some(Node {
            svc: Arc::new(svc),
            ctx,
            store: opened.store,
            writer: opened.writer,
        });
    }

    /// Stops the service, waits for its writer to stop, and starts another on what the store
    /// holds: whatever the service kept only in memory is gone.
    pub(super) fn restart(&mut self) {
        let node = self.node.take().expect("a running node");
        drop((node.svc, node.ctx, node.store));
        node.writer.join();
        self.start();
    }

    fn node(&self) -> &Node {
        self.node.as_ref().expect("a running node")
    }

    /// The service, for operations beyond SWF's.
    pub(super) fn svc(&self) -> &Arc<Service> {
        &self.node().svc
    }

    /// Who calls: the open tenant.
    pub(super) fn ctx(&self) -> &Ctx {
        &self.node().ctx
    }

    /// The store without faults.
    pub(super) fn store(&self) -> &Store {
        &self.node().store
    }

    /// The clock's time.
    pub(super) fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// Calls SWF's `operation` as a client does: a retryable failure is sent again. What it
    /// ends with is the answer; an internal failure is an error of the simulation's.
    pub(super) async fn call(&mut self, operation: &str, input: &Value) -> Outcome {
        let op = Operation::from_name(operation).expect("an SWF operation");
        for _ in 0..50 {
            let node = self.node();
            match call_json(&node.svc, &node.ctx, op, input.clone()).await {
                Ok(bytes) if bytes.is_empty() => return Ok(Value::Null),
                Ok(bytes) => return Ok(serde_json::from_slice(&bytes).expect("a JSON answer")),
                Err(Fault::Unavailable(_) | Fault::Throttling(_)) => self.retries += 1,
                Err(fault) => return Err(fault),
            }
        }
        Err(Fault::Unavailable(format!("{operation}: 50 tries")))
    }

    /// Fires every deadline that has come, as the timers loop does, retrying what the faults
    /// refuse.
    pub(super) async fn fire_due(&mut self) -> Result<(), String> {
        for _ in 0..50 {
            let setup = self.svc().engine.clone();
            match self
                .svc()
                .store
                .apply(move |tx| fire_due(tx, &setup, usize::MAX))
                .await
            {
                Ok(_) => return Ok(()),
                Err(StoreError::Unavailable(_) | StoreError::Busy(_)) => self.retries += 1,
                Err(error) => return Err(format!("firing deadlines failed: {error}")),
            }
        }
        Err("firing deadlines: 50 tries".into())
    }
}

/// What a call ends with.
pub(super) type Outcome = Result<Value, Fault>;

/// Binds Lambda function `name` in domain `d` (as uploading a function module would) and
/// answers the domain's id.
pub(super) async fn bind_function(world: &World, name: &str) -> Result<u64, String> {
    let scope = world.ctx().scope.clone();
    let domain = world
        .store()
        .snapshot()
        .and_then(|tx| tx.domain(&scope, "d"))
        .map_err(|e| e.to_string())?
        .ok_or("no domain d")?;
    let binding = crate::model::Binding::for_tests(crate::model::BindingKind::Function, name);
    let id = domain.id;
    world
        .store()
        .apply(move |tx| tx.put_binding(id, &binding))
        .await
        .map_err(|e| e.to_string())?;
    Ok(id)
}
