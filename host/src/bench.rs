//! For benchmarks only (`tests/benches/wasm.rs`), not a stable API: one guest call as an
//! in-process worker makes it, without the service around it, so that what a task pays for Wasm
//! can be measured apart from the SWF work.
//!
//! A [`Probe`] owns a runtime of its own (engine, instance pool, epoch ticker) with one module
//! loaded. Each call takes a fresh store from the pool, instantiates the pre-instantiated
//! component, makes the one call and drops the store, exactly as the in-process workers do.
//!
//! ```no_run
//! # async fn example(code: &[u8], task: &serde_json::Value) -> Result<(), String> {
//! let probe = weft_host::bench::Probe::new(code)?;
//! let response = probe.decide_once(task).await?;
//! # Ok(())
//! # }
//! ```

use std::sync::Arc;

use serde_json::Value;

use crate::runtime::{Call, GuestLimits, Heartbeat, Module, Runtime, tasks, types};

pub use crate::runtime::DecidePhases;

/// A module loaded in a runtime of its own, called with the default limits.
pub struct Probe {
    runtime: Runtime,
    module: Arc<Module>,
    call: Call,
    /// Answers "go on" at once: the activity worker's heartbeat.
    heartbeat: Heartbeat,
}

impl Probe {
    /// Compiles `code` (a component of any of the three worlds) and pre-instantiates it. Takes
    /// tens of milliseconds: call it off the async threads.
    pub fn new(code: &[u8]) -> Result<Probe, String> {
        let runtime = Runtime::new(None)?;
        let module = runtime.load(code).map_err(|e| e.to_string())?;
        Ok(Probe {
            runtime,
            module,
            call: Call {
                label: "bench".into(),
                limits: GuestLimits::default(),
                http_hosts: Arc::from([]),
            },
            heartbeat: Arc::new(|_| Box::pin(async { false })),
        })
    }

    /// Runs the decider on `task`, a decision task in wire JSON (`PollForDecisionTask`'s
    /// answer), and answers its decision response in wire JSON.
    pub async fn decide_once(&self, task: &Value) -> Result<Value, String> {
        self.decide_phases(task).await.map(|(response, _)| response)
    }

    /// [`Probe::decide_once`], and where its time went.
    pub async fn decide_phases(&self, task: &Value) -> Result<(Value, DecidePhases), String> {
        let mut phases = DecidePhases::default();
        let response = self
            .runtime
            .decide_timed(&self.module, &self.call, task, &mut phases)
            .await
            .map_err(|e| e.to_string())?;
        Ok((response, phases))
    }

    /// Runs the activity worker on a task with this input, as the in-process worker builds it
    /// from the polled task, and answers the result it completed with; any other outcome is an
    /// error.
    pub async fn run_once(&self, input: Option<&str>) -> Result<Option<String>, String> {
        let task = tasks::ActivityTask {
            activity_id: "bench".into(),
            activity_type: types::ActivityType {
                name: "bench".into(),
                version: "1".into(),
            },
            workflow_execution: types::WorkflowExecution {
                workflow_id: "bench".into(),
                run_id: "bench".into(),
            },
            input: input.map(str::to_owned),
            started_event_id: 6,
        };
        let outcome = self
            .runtime
            .run(&self.module, &self.call, &task, self.heartbeat.clone())
            .await
            .map_err(|e| e.to_string())?;
        match outcome {
            tasks::ActivityOutcome::Completed(result) => Ok(result),
            other => Err(format!("the activity did not complete: {other:?}")),
        }
    }
}
