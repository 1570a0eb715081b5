//! The engine on a real store without HTTP, with a manual clock: time moves only when a test
//! moves it, so timeouts are checked to the millisecond without sleeping.

mod faults;
mod lambdas;
mod table;
mod timeouts;
mod triggers;

use std::sync::Arc;

use serde_json::Value;

use crate::clock::{ManualClock, Timestamp};
use crate::fault::Fault;
use crate::model::{
    ActivityKind, ChildPolicy, Domain, ExecutionConfig, Run, Scope, TaskList, Timeout, TypeName,
    TypeRecord, WorkflowKind,
};
use crate::store::{Cursor, Opened, Store, StoreError, TypeWrites, Writer};
use crate::{Limits, clock::Clock as _};

use super::{Engine, NewRun, Setup, fire_due};

fn domain() -> Domain {
    Domain {
        id: 1,
        name: "d".into(),
        description: None,
        retention: "1".into(),
        deprecated_at: None,
        tags: vec![],
    }
}

/// A run of `wf`/`1` on decision list `dl`: decision tasks time out after 60 s, the run after
/// 600 s, and it is kept for a day once closed.
fn new_run() -> NewRun {
    NewRun {
        account: "000000000000".into(),
        domain_name: "d".into(),
        workflow_id: "w".into(),
        workflow_type: TypeName {
            name: "wf".into(),
            version: "1".into(),
        },
        config: ExecutionConfig {
            task_start_to_close_timeout: Timeout::Seconds(60),
            execution_start_to_close_timeout: Timeout::Seconds(600),
            task_list: TaskList { name: "dl".into() },
            task_priority: None,
            child_policy: ChildPolicy::Terminate,
            lambda_role: None,
        },
        input: None,
        tags: vec![],
        retention_days: 1,
        parent: None,
        continued_from: None,
        not_before: None,
        pin: None,
        schedule: None,
    }
}

/// The activity type every fixture registers, without defaults.
fn act() -> TypeName {
    TypeName {
        name: "act".into(),
        version: "1".into(),
    }
}

/// A type registered at time 0 without defaults.
fn registered<C: Default>() -> TypeRecord<C> {
    TypeRecord {
        description: None,
        created_at: Timestamp::from_millis(0),
        deprecated_at: None,
        config: C::default(),
    }
}

/// A store holding domain `d` with workflow type `wf`/`1` and activity type `act`/`1`, on a
/// manual clock.
struct Fixture {
    dir: tempfile::TempDir,
    store: Store,
    writer: Writer,
    clock: Arc<ManualClock>,
    setup: Setup,
}

/// A check's fault, inside a change: the test's own assertion failing.
fn checked<T>(found: Result<T, Fault>) -> Result<T, StoreError> {
    found.map_err(StoreError::broken)
}

impl Fixture {
    async fn new() -> Fixture {
        Fixture::with_limits(Limits::default()).await
    }

    async fn with_limits(limits: Limits) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(Timestamp::from_millis(1_000_000)));
        let Opened { store, writer, .. } = Store::open_dir(dir.path(), clock.clone()).unwrap();
        store
            .apply(|tx| {
                let scope = Scope {
                    account: "000000000000".into(),
                    region: "us-east-1".into(),
                };
                tx.add_domain(&scope, &domain())?;
                tx.add_type::<WorkflowKind>(&domain(), &new_run().workflow_type, &registered())?;
                tx.add_type::<ActivityKind>(&domain(), &act(), &registered())?;
                Ok(())
            })
            .await
            .unwrap();
        Fixture {
            dir,
            store,
            writer,
            clock,
            setup: Setup::new(&limits, None),
        }
    }

    /// Closes the store, lets `millis` pass while it is closed, and opens it again.
    fn restart(self, millis: i64) -> Fixture {
        let Fixture {
            dir,
            store,
            writer,
            clock,
            setup,
        } = self;
        drop(store);
        writer.join();
        clock.advance(millis);
        let Opened { store, writer, .. } = Store::open_dir(dir.path(), clock.clone()).unwrap();
        Fixture {
            dir,
            store,
            writer,
            clock,
            setup,
        }
    }

    /// Runs `change` through an engine on domain `d` in one writer job.
    async fn change<T: Send + 'static>(
        &self,
        change: impl FnOnce(&mut Engine<'_, '_>) -> Result<T, StoreError> + Clone + Send + 'static,
    ) -> T {
        let setup = self.setup.clone();
        self.store
            .apply(move |tx| {
                let mut eng = Engine::new(tx, 1, &setup);
                let out = change(&mut eng)?;
                eng.finish()?;
                Ok(out)
            })
            .await
            .unwrap()
    }

    /// Moves the clock `millis` forward, then acts on every deadline that has come, as the
    /// timer loop does; answers how many came.
    async fn advance(&self, millis: i64) -> usize {
        self.clock.advance(millis);
        let setup = self.setup.clone();
        self.store
            .apply(move |tx| fire_due(tx, &setup, usize::MAX))
            .await
            .unwrap()
    }

    /// Milliseconds since the fixture's start.
    fn elapsed(&self) -> i64 {
        self.clock.now().as_millis() - 1_000_000
    }

    /// The events of run `seq`, as wire JSON.
    async fn events(&self, seq: u64) -> Vec<Value> {
        self.store
            .read(move |tx| {
                let cursor = Cursor {
                    after: None,
                    reverse: false,
                    limit: 100_000,
                };
                let page = tx.history(seq, 1, u64::MAX - 1, cursor)?;
                Ok::<_, StoreError>(
                    page.items
                        .iter()
                        .map(|(_, json)| serde_json::from_slice(json).unwrap())
                        .collect(),
                )
            })
            .await
            .unwrap()
    }

    /// The event types of run `seq`, in order.
    async fn event_types(&self, seq: u64) -> Vec<String> {
        let events = self.events(seq).await;
        events
            .iter()
            .map(|e| e["eventType"].as_str().unwrap().to_owned())
            .collect()
    }

    /// The run `seq`, open or closed, if it is still kept.
    async fn run(&self, seq: u64) -> Option<Run> {
        self.store.read(move |tx| tx.run(seq)).await.unwrap()
    }
}

/// The open run `seq`, inside a change.
fn reload(eng: &Engine<'_, '_>, seq: u64) -> Result<Run, StoreError> {
    eng.open_run(seq)?
        .ok_or_else(|| StoreError::broken("closed"))
}

#[test]
fn run_ids_are_43_base64url_characters_beginning_with_a_letter() {
    // One in 32 random ids would begin with `-` or `_` without the rule: 1,000 show it.
    for _ in 0..1000 {
        let id = super::new_run_id().unwrap().to_string();
        assert_eq!(id.len(), 43, "{id}");
        assert!(id.starts_with(|c: char| c.is_ascii_alphabetic()), "{id}");
        let base64url = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        assert!(id.chars().all(base64url), "{id}");
    }
}
