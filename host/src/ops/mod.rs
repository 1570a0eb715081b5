//! The SWF operations, one file per family. Each operation is an `async fn(&Service, &Ctx,
//! Input) -> Result<Output, Fault>`: it checks what the model states only in prose, then reads a
//! snapshot or hands a change to the writer.

pub(crate) mod activity_tasks;
pub(crate) mod batches;
pub(crate) mod compiles;
pub(crate) mod controls;
pub(crate) mod decision_tasks;
pub(crate) mod domains;
pub(crate) mod executions;
pub(crate) mod functions;
pub(crate) mod history;
pub(crate) mod imports;
pub(crate) mod listings;
pub(crate) mod modules;
mod paging;
pub(crate) mod pauses;
pub(crate) mod pins;
mod polling;
pub(crate) mod replay;
pub(crate) mod resets;
pub(crate) mod run_failures;
pub(crate) mod run_logs;
pub(crate) mod runs;
pub(crate) mod schedules;
pub(crate) mod stored_events;
pub(crate) mod tags;
pub(crate) mod types;
pub(crate) mod upgrades;
pub(crate) mod wasm;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::clock::Clock;
use crate::config::Limits;
use crate::engine::Setup;
use crate::fault::Fault;
use crate::model::{Domain, Scope};
use crate::runtime::Runtime;
use crate::seal::Sealer;
use crate::store::{Reads, Store};
use crate::tenancy::{Caller, Tenant, Tenants};

/// What every operation works with.
pub(crate) struct Service {
    pub(crate) store: Store,
    pub(crate) sealer: Sealer,
    pub(crate) limits: Limits,
    pub(crate) clock: Arc<dyn Clock>,
    /// What the engine needs: whom to wake, and the open-run limit.
    pub(crate) engine: Setup,
    /// How long a long poll waits for a task.
    pub(crate) poll_timeout: Duration,
    /// Turns true when the service stops: long polls answer empty at once.
    pub(crate) shutdown: watch::Receiver<bool>,
    /// The Wasm runtime that checks uploads and runs the bound guests.
    pub(crate) runtime: Arc<Runtime>,
    /// Told after every committed change to the bindings, so the workers follow them.
    pub(crate) bindings_changed: watch::Sender<()>,
    /// Told after a paused run is resumed here, so the decision tasks held for it are decided.
    pub(crate) runs_resumed: watch::Sender<()>,
    /// Who may call, and within which quotas.
    pub(crate) tenants: Tenants,
    /// Turns to compile modules, and the module places uploads have taken.
    pub(crate) compiles: compiles::Compiles,
    /// The latest lines each run's bound guests logged on this node.
    pub(crate) run_logs: run_logs::RunLogs,
    /// What keeps the server busy, counted when time skips.
    pub(crate) idle: Arc<crate::skipping::Idle>,
    /// The clock, when it skips time (`--time-skipping`): it may also be moved by hand.
    pub(crate) skipping: Option<Arc<crate::skipping::SkippingClock>>,
    /// Held while task lists' controls are read again (`controls::refresh_controls`).
    pub(crate) controls_turn: tokio::sync::Mutex<()>,
}

impl Service {
    /// The engine setup for changes made on behalf of `ctx`: its tenant's open-run quota.
    pub(crate) fn engine_for(&self, ctx: &Ctx) -> Setup {
        Setup {
            max_open_runs: ctx.tenant.quotas.open_executions,
            ..self.engine.clone()
        }
    }
}

#[cfg(test)]
impl Service {
    /// The context of the open tenant (the default account) in `us-east-1`.
    pub(crate) fn open_ctx(&self) -> Ctx {
        let tenant = self.tenants.by_account(crate::DEFAULT_ACCOUNT_ID).cloned();
        Ctx::new(crate::tenancy::Caller {
            tenant: tenant.expect("the open tenant"),
            region: "us-east-1".into(),
        })
    }

    /// A service for tests on `store` (whose token key is `secret`), keeping its files in
    /// `dir`: default limits, no tenants, long polls that wait `poll_timeout`.
    pub(crate) fn for_tests(
        dir: &std::path::Path,
        clock: Arc<dyn Clock>,
        store: Store,
        secret: [u8; 32],
        poll_timeout: Duration,
    ) -> Service {
        Service {
            store,
            sealer: Sealer::new(secret),
            limits: Limits::default(),
            clock,
            engine: Setup::new(&Default::default(), None),
            poll_timeout,
            shutdown: watch::channel(false).1,
            runtime: Arc::new(Runtime::new(None).expect("a Wasm runtime")),
            bindings_changed: watch::Sender::new(()),
            runs_resumed: watch::Sender::new(()),
            tenants: Tenants::new(&crate::Config::new(dir)).expect("no tenants"),
            compiles: compiles::Compiles::new(1, Arc::default()),
            run_logs: Default::default(),
            idle: Default::default(),
            skipping: None,
            controls_turn: Default::default(),
        }
    }
}

/// Who is asking: the tenant, and the scope every name in the request is resolved in.
#[derive(Clone)]
pub(crate) struct Ctx {
    pub(crate) scope: Scope,
    pub(crate) tenant: Arc<Tenant>,
    /// Ends a long poll made in this context once it turns true, answered empty as at its
    /// timeout: an in-process worker's stop. A poll so ended still delivers a task the writer
    /// is claiming for it at that moment, where a poll dropped instead would leave the task
    /// started, with no one to serve it, until its start-to-close timeout.
    pub(crate) stop: Option<watch::Receiver<bool>>,
}

impl Ctx {
    /// The context of `caller`: its tenant's account, in the region it signed for.
    pub(crate) fn new(caller: Caller) -> Ctx {
        Ctx {
            scope: Scope {
                account: caller.tenant.account.clone(),
                region: caller.region,
            },
            tenant: caller.tenant,
            stop: None,
        }
    }

    /// This context, with its long polls ended once `stop` turns true.
    pub(crate) fn until(self, stop: watch::Receiver<bool>) -> Ctx {
        Ctx {
            stop: Some(stop),
            ..self
        }
    }
}

/// The domain `name` of `scope`, or `UnknownResourceFault`.
fn known_domain(tx: &dyn Reads, scope: &Scope, name: &str) -> Result<Domain, Fault> {
    tx.domain(scope, name)?
        .ok_or_else(|| Fault::unknown_domain(name))
}
