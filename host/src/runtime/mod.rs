//! The Wasm runtime: wasmtime engines for two compilers (Cranelift's with a pooling allocator)
//! and an epoch ticker (which runs only while guests do: `ticker`), the modules it has loaded
//! (compiled once per sha256, large ones by Winch first and Cranelift in the background, the
//! optimized code cached on disk, pre-instantiated: `loading`), and calls into them, each in a
//! fresh store with its CPU, memory and output limits.
//!
//! Only this module knows wasmtime.
//!
//! # What a guest can reach
//!
//! A guest gets what its world's linker provides, and of that only what its store grants (see
//! `guest::GuestState` for each interface):
//!
//! | | decider | activity worker | function |
//! | --- | --- | --- | --- |
//! | `weft:swf/log` | yes | yes | yes |
//! | `weft:swf/heartbeat` | | yes | |
//! | files, environment, arguments, stdin | empty | empty | empty |
//! | sockets (TCP, UDP), name lookup | denied | denied | denied |
//! | clocks, randomness | its task's (`determinism`) | the host's | the host's |
//! | `wasi:http` (outgoing) | refused at upload | the binding's `httpHosts` only (see `http`) | refused at upload |
//! | any other import | refused at upload | refused at upload | refused at upload |
//!
//! Memory, CPU time and output are bounded per call (`limits`); a guest's stack overflow, trap,
//! `exit` or panic ends its call, never the host.

mod admission;
mod bindings;
mod determinism;
mod guest;
mod http;
mod limits;
mod loading;
mod tap;
#[cfg(test)]
mod tests;
mod ticker;
mod values;
mod workflow_core;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};
use tokio::sync::Semaphore;
use wasmtime::Engine;
use wasmtime::component::Val;

use self::determinism::TaskWorld;
use self::guest::Grant;
use self::loading::{Modules, Optimizer, Pre, Tier};

pub(crate) use self::bindings::{tasks, types};
pub(crate) use self::guest::{GuestFailure, Heartbeat};
pub(crate) use self::http::{Outgoing, check_http_hosts, install_crypto_provider};
pub use self::limits::GuestLimits;
pub(crate) use self::loading::{Compiler, Module, TIER_UP_FROM};
pub(crate) use self::tap::{GuestLine, LogTap};
use self::ticker::Ticks;

/// Guest instances alive at once, across all bindings: the size of the instance pool.
pub(crate) const POOL_SIZE: u32 = 256;

/// What a module is, by the world it was built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum World {
    /// Exports `decide`: serves decision task lists.
    Decider,
    /// Exports `run`: serves activity task lists.
    ActivityWorker,
    /// Exports `invoke`: runs as a Lambda function.
    Function,
}

impl World {
    /// The one function a module of this world exports.
    fn export(self) -> &'static str {
        match self {
            World::Decider => "decide",
            World::ActivityWorker => "run",
            World::Function => "invoke",
        }
    }

    /// Its name in `wit/worlds.wit`.
    pub fn name(self) -> &'static str {
        match self {
            World::Decider => "decider",
            World::ActivityWorker => "activity-worker",
            World::Function => "function",
        }
    }
}

/// Why a module cannot be loaded: a message for whoever uploaded it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct InvalidModule(pub(crate) String);

/// Where the time of one [`Runtime::decide`] went, for benchmarks (`crate::bench` re-exports
/// it). Dropping the store, after the last phase, is in none of them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DecidePhases {
    /// A fresh store, the instance from the pre-instantiated component, and finding `decide`.
    pub instantiate: Duration,
    /// The task's wire JSON to the component value `decide` takes.
    pub task_to_value: Duration,
    /// The call: copying the task into the guest, the guest's work, copying its answer out.
    pub call: Duration,
    /// The answer to wire JSON, and measuring its size against the output limit.
    pub answer_to_json: Duration,
    /// Bytes of linear memory the instance had been given when its call returned.
    pub memory_bytes: u64,
}

/// Who is calling and within which limits: the label names the guest in log lines, and the
/// share is its tenant's, a permit per instance it may run at once.
#[derive(Clone)]
pub(crate) struct Call {
    pub(crate) label: Arc<str>,
    pub(crate) limits: GuestLimits,
    pub(crate) share: Arc<Semaphore>,
    /// The hosts an activity worker may send HTTP requests to (checked by
    /// [`check_http_hosts`]); empty denies all. Deciders and functions have no `wasi:http`, so
    /// theirs is ignored.
    pub(crate) http_hosts: Arc<[String]>,
    /// Where the call's log lines are kept besides the service's log, if anywhere.
    pub(crate) tap: Option<LogTap>,
}

/// The engines, the loaded modules, and what calls share.
pub(crate) struct Runtime {
    /// The loaded modules, and Cranelift's engine and compiled-code cache.
    modules: Arc<Modules>,
    /// Winch's engine, for large modules until Cranelift's code is ready.
    winch: Tier,
    /// The size from which a module is compiled by Winch first.
    tier_up_from: usize,
    /// The thread that compiles such modules with Cranelift.
    optimizer: Optimizer,
    /// Slots in the instance pool, shared fairly by tenants: a call waits for one rather than
    /// fail.
    admission: admission::Admission,
    /// The epoch ticker, which runs while guests do.
    ticks: Ticks,
    /// How activity workers' HTTP requests are sent: the TLS roots they trust.
    outgoing: Arc<Outgoing>,
}

impl Runtime {
    /// A runtime caching Cranelift's code in `cache_dir`, with its epoch ticker running;
    /// guests' HTTPS trusts the Mozilla roots only (see [`Runtime::with_outgoing`]).
    pub(crate) fn new(cache_dir: Option<PathBuf>) -> Result<Runtime, String> {
        let outgoing = Arc::new(Outgoing::new(&[])?);
        let modules = Arc::new(Modules::new(cache_dir)?);
        let winch = Tier::new(Compiler::Winch)?;
        let ticks = Ticks::start(vec![modules.engine().clone(), winch.engine.clone()])?;
        Ok(Runtime {
            modules,
            winch,
            tier_up_from: TIER_UP_FROM,
            optimizer: Optimizer::new(),
            admission: admission::Admission::new(POOL_SIZE as usize),
            ticks,
            outgoing,
        })
    }

    /// This runtime, sending guests' HTTP requests with `outgoing` (its trust roots).
    pub(crate) fn with_outgoing(mut self, outgoing: Outgoing) -> Runtime {
        self.outgoing = Arc::new(outgoing);
        self
    }

    /// This runtime, compiling modules of `bytes` or more by Winch first (for tests).
    #[cfg(test)]
    pub(crate) fn tier_up_from(mut self, bytes: usize) -> Runtime {
        self.tier_up_from = bytes;
        self
    }

    /// The sha256 of `code`, in lowercase hex: a module's name.
    pub(crate) fn digest(code: &[u8]) -> String {
        Sha256::digest(code)
            .iter()
            .fold(String::with_capacity(64), |mut hex, b| {
                let _ = write!(hex, "{b:02x}");
                hex
            })
    }

    /// Loads `code`: a component of one of the three worlds that imports only what its world
    /// may. Compiling is slow (tens of milliseconds to seconds): call it off the async threads.
    pub(crate) fn load(&self, code: &[u8]) -> Result<Arc<Module>, InvalidModule> {
        self.load_from(code, self.tier_up_from)
    }

    /// [`Runtime::load`], with Cranelift's code from the start whatever the module's size (for
    /// benchmarks of what a call costs).
    pub(crate) fn load_optimized(&self, code: &[u8]) -> Result<Arc<Module>, InvalidModule> {
        self.load_from(code, usize::MAX)
    }

    /// The module of `code` with Winch's code for good, kept nowhere (for tests).
    #[cfg(test)]
    pub(crate) fn load_by_winch(&self, code: &[u8]) -> Result<Arc<Module>, InvalidModule> {
        Ok(Arc::new(self.winch.load(Self::digest(code), code)?))
    }

    fn load_from(&self, code: &[u8], tier_up_from: usize) -> Result<Arc<Module>, InvalidModule> {
        let digest = Self::digest(code);
        if let Some(module) = self.modules.loaded(&digest) {
            return Ok(module);
        }
        if let Some(module) = self.modules.load_cached(&digest) {
            return Ok(self.modules.keep(Arc::new(module)).0);
        }
        if code.len() < tier_up_from {
            let module = self.modules.compile(digest, code)?;
            return Ok(self.modules.keep(Arc::new(module)).0);
        }
        let began = Instant::now();
        let module = Arc::new(self.winch.load(digest, code)?);
        tracing::info!(
            "module {}: Winch's code serves (compiled in {:.1} s); Cranelift's follows",
            module.digest,
            began.elapsed().as_secs_f64()
        );
        let (module, ours) = self.modules.keep(module);
        if ours {
            self.optimizer.queue(&self.modules, module.clone(), code);
        }
        Ok(module)
    }

    /// The module `digest`, if it is loaded.
    pub(crate) fn loaded(&self, digest: &str) -> Option<Arc<Module>> {
        self.modules.loaded(digest)
    }

    /// Forgets a loaded module and its cached code.
    pub(crate) fn unload(&self, digest: &str) {
        self.modules.unload(digest);
    }

    /// Runs decider `module` on a decision task in its wire JSON (`PollForDecisionTask`'s
    /// answer, all events included) and answers its decision response in wire JSON
    /// (`RespondDecisionTaskCompleted`'s input, less the token).
    pub(crate) async fn decide(
        &self,
        module: &Module,
        call: &Call,
        task: &Value,
    ) -> Result<Value, GuestFailure> {
        self.decide_timed(module, call, task, &mut DecidePhases::default())
            .await
    }

    /// [`Runtime::decide`], noting in `phases` how long each step took (for benchmarks); left
    /// as they were if the call fails.
    pub(crate) async fn decide_timed(
        &self,
        module: &Module,
        call: &Call,
        task: &Value,
        phases: &mut DecidePhases,
    ) -> Result<Value, GuestFailure> {
        let code = module.code();
        let Pre::Decider(pre, plan, replays) = &code.pre else {
            return Err(GuestFailure::Invalid("not a decider".into()));
        };
        let _slot = self.admission.enter(&call.share).await;
        let began = Instant::now();
        let world = Grant::Decider(TaskWorld::of(task));
        let mut store = guest::store(
            &code.engine,
            &self.ticks,
            call,
            world,
            self.outgoing.clone(),
        );
        if *replays {
            *store.data_mut().replay() = workflow_core::Replay::of(task.clone());
        }
        let instance = pre
            .instance_pre()
            .instantiate_async(&mut store)
            .await
            .map_err(|e| guest::failure(&store, &call.limits, e))?;
        let func = instance
            .get_func(&mut store, "decide")
            .ok_or_else(|| GuestFailure::Invalid("no `decide` export".into()))?;
        let instantiated = Instant::now();
        let arg = plan
            .read(task)
            .map_err(|e| GuestFailure::Invalid(format!("the decision task does not fit: {e}")))?;
        let converted = Instant::now();
        let mut results = [Val::Bool(false)];
        func.call_async(&mut store, &[arg], &mut results)
            .await
            .map_err(|e| guest::failure(&store, &call.limits, e))?;
        let called = Instant::now();
        let [Val::Result(answer)] = results else {
            return Err(GuestFailure::Invalid("`decide` answered no result".into()));
        };
        let response = match answer {
            Ok(Some(response)) => values::to_json(&response).map_err(GuestFailure::Invalid)?,
            Ok(None) => return Err(GuestFailure::Invalid("an empty answer".into())),
            Err(error) => {
                let message = match error.as_deref() {
                    Some(Val::String(s)) => s.clone(),
                    _ => String::new(),
                };
                return Err(GuestFailure::Decider(message));
            }
        };
        let size = serde_json::to_vec(&response).map_or(u64::MAX, |b| b.len() as u64);
        check_output(size, &call.limits)?;
        *phases = DecidePhases {
            instantiate: instantiated - began,
            task_to_value: converted - instantiated,
            call: called - converted,
            answer_to_json: called.elapsed(),
            memory_bytes: guest::memory_bytes(&store),
        };
        Ok(response)
    }

    /// Runs activity worker `module` on `task`; `heartbeat` serves its heartbeats.
    pub(crate) async fn run(
        &self,
        module: &Module,
        call: &Call,
        task: &tasks::ActivityTask,
        heartbeat: Heartbeat,
    ) -> Result<tasks::ActivityOutcome, GuestFailure> {
        let code = module.code();
        let Pre::Activity(pre) = &code.pre else {
            return Err(GuestFailure::Invalid("not an activity worker".into()));
        };
        let _slot = self.admission.enter(&call.share).await;
        let grant = Grant::Activity(heartbeat);
        let mut store = guest::store(
            &code.engine,
            &self.ticks,
            call,
            grant,
            self.outgoing.clone(),
        );
        let outcome = async {
            let worker = pre.instantiate_async(&mut store).await?;
            worker.call_run(&mut store, task).await
        }
        .await
        .map_err(|e| guest::failure(&store, &call.limits, e))?;
        let size = match &outcome {
            tasks::ActivityOutcome::Completed(result) => len(result),
            tasks::ActivityOutcome::Failed(failure) => len(&failure.reason) + len(&failure.details),
            tasks::ActivityOutcome::Canceled(details) => len(details),
        };
        check_output(size, &call.limits)?;
        Ok(outcome)
    }

    /// Runs function `module` on `input`.
    pub(crate) async fn invoke(
        &self,
        module: &Module,
        call: &Call,
        input: Option<&str>,
    ) -> Result<Result<Option<String>, tasks::Failure>, GuestFailure> {
        let code = module.code();
        let Pre::Function(pre) = &code.pre else {
            return Err(GuestFailure::Invalid("not a function".into()));
        };
        let _slot = self.admission.enter(&call.share).await;
        let grant = Grant::Function;
        let mut store = guest::store(
            &code.engine,
            &self.ticks,
            call,
            grant,
            self.outgoing.clone(),
        );
        let answer = async {
            let function = pre.instantiate_async(&mut store).await?;
            function.call_invoke(&mut store, input).await
        }
        .await
        .map_err(|e| guest::failure(&store, &call.limits, e))?;
        let size = match &answer {
            Ok(result) => len(result),
            Err(failure) => len(&failure.reason) + len(&failure.details),
        };
        check_output(size, &call.limits)?;
        Ok(answer)
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.ticks.stop();
    }
}

/// How to read decision tasks for the decider whose component type is `ty` (already checked to
/// export `decide` as `wit/worlds.wit` says).
pub(super) fn decision_task_plan(
    engine: &Engine,
    ty: &wasmtime::component::types::Component,
) -> Result<values::Plan, InvalidModule> {
    let param = match ty.get_export(engine, "decide").map(|e| e.ty) {
        Some(wasmtime::component::types::ComponentItem::ComponentFunc(func)) => {
            func.params().next().map(|(_, ty)| ty)
        }
        _ => None,
    };
    let param = param.ok_or_else(|| InvalidModule("`decide` takes no decision task".into()))?;
    values::Plan::new(&param).map_err(|e| InvalidModule(format!("the decision task type: {e}")))
}

fn len(text: &Option<String>) -> u64 {
    text.as_ref().map_or(0, |s| s.len() as u64)
}

fn check_output(size: u64, limits: &GuestLimits) -> Result<(), GuestFailure> {
    if size > limits.output_bytes {
        return Err(GuestFailure::Output {
            size,
            limit: limits.output_bytes,
        });
    }
    Ok(())
}
