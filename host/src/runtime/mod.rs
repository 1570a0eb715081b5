//! The Wasm runtime: one wasmtime engine with a pooling allocator and an epoch ticker (which
//! runs only while guests do: `ticker`), the modules it has loaded (compiled once per sha256,
//! the compiled code cached on disk, pre-instantiated), and calls into them, each in a fresh
//! store with its CPU, memory and output limits.
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
mod tap;
#[cfg(test)]
mod tests;
mod ticker;
mod values;
mod workflow_core;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};
use tokio::sync::Semaphore;
use wasmtime::component::{Component, HasSelf, Linker, Val};
use wasmtime::{Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use self::bindings::{activity, decider, function, heartbeat, log};
use self::determinism::TaskWorld;
use self::guest::{Grant, GuestState};

pub(crate) use self::bindings::{tasks, types};
pub(crate) use self::guest::{GuestFailure, Heartbeat};
pub(crate) use self::http::{Outgoing, check_http_hosts, install_crypto_provider};
pub use self::limits::GuestLimits;
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

/// A loaded module: compiled, checked against its world, and ready to instantiate.
pub(crate) struct Module {
    /// The sha256 of its bytes, in lowercase hex.
    pub(crate) digest: String,
    /// The world it was built for.
    pub(crate) world: World,
    pre: Pre,
}

enum Pre {
    /// A decider, with how to read its decision tasks and whether it imports the workflow
    /// core (which then gets each task too).
    Decider(decider::DeciderPre<GuestState>, values::Plan, bool),
    Activity(activity::ActivityWorkerPre<GuestState>),
    Function(function::FunctionPre<GuestState>),
}

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

/// The engine, its linkers and the loaded modules.
pub(crate) struct Runtime {
    engine: Engine,
    linkers: Linkers,
    /// Where compiled code is cached, by digest; none keeps it in memory only.
    cache_dir: Option<PathBuf>,
    loaded: Mutex<HashMap<String, Arc<Module>>>,
    /// Slots in the instance pool, shared fairly by tenants: a call waits for one rather than
    /// fail.
    admission: admission::Admission,
    /// The epoch ticker, which runs while guests do.
    ticks: Ticks,
    /// How activity workers' HTTP requests are sent: the TLS roots they trust.
    outgoing: Arc<Outgoing>,
}

struct Linkers {
    decider: Linker<GuestState>,
    activity: Linker<GuestState>,
    function: Linker<GuestState>,
}

impl Runtime {
    /// A runtime caching compiled code in `cache_dir`, with its epoch ticker running; guests'
    /// HTTPS trusts the Mozilla roots only (see [`Runtime::with_outgoing`]).
    pub(crate) fn new(cache_dir: Option<PathBuf>) -> Result<Runtime, String> {
        let outgoing = Arc::new(Outgoing::new(&[])?);
        let engine = Engine::new(&config()).map_err(|e| format!("wasmtime: {e:#}"))?;
        let linkers = Linkers::new(&engine).map_err(|e| format!("wasmtime linker: {e:#}"))?;
        if let Some(dir) = &cache_dir {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let ticks = Ticks::start(&engine)?;
        Ok(Runtime {
            engine,
            linkers,
            cache_dir,
            loaded: Mutex::new(HashMap::new()),
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
    /// may. Compiling is slow (tens of milliseconds and up): call it off the async threads.
    pub(crate) fn load(&self, code: &[u8]) -> Result<Arc<Module>, InvalidModule> {
        let digest = Self::digest(code);
        if let Some(module) = self.lock().get(&digest) {
            return Ok(module.clone());
        }
        let (component, compiled) = self.compile(&digest, code)?;
        let module = Arc::new(self.check(digest.clone(), &component)?);
        // Only a module that passed its checks leaves compiled code behind.
        if compiled {
            self.cache(&digest, &component);
        }
        self.lock().insert(digest, module.clone());
        Ok(module)
    }

    /// The module `digest`, if it is loaded.
    pub(crate) fn loaded(&self, digest: &str) -> Option<Arc<Module>> {
        self.lock().get(digest).cloned()
    }

    /// Forgets a loaded module (its cached code stays until the module is deleted).
    pub(crate) fn unload(&self, digest: &str) {
        self.lock().remove(digest);
        if let Some(path) = self.cached(digest) {
            let _ = std::fs::remove_file(path);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Module>>> {
        self.loaded
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn cached(&self, digest: &str) -> Option<PathBuf> {
        let dir = self.cache_dir.as_ref()?;
        Some(dir.join(format!("{digest}.cwasm")))
    }

    /// The component, from the cache when its code is there and fits this engine; true if it
    /// was compiled now (and is not in the cache).
    fn compile(&self, digest: &str, code: &[u8]) -> Result<(Component, bool), InvalidModule> {
        if let Some(path) = self.cached(digest).filter(|p| p.exists()) {
            // SAFETY: the cache holds only what `Component::serialize` wrote for this digest;
            // wasmtime checks that it was compiled by this version with this configuration. A
            // process that can rewrite the data directory can change everything Weft stores.
            #[allow(unsafe_code, reason = "loading our own compiled-code cache")]
            let component = unsafe { Component::deserialize_file(&self.engine, path) };
            match component {
                Ok(component) => return Ok((component, false)),
                Err(e) => tracing::info!("recompiling {digest}: cached code unusable: {e}"),
            }
        }
        if !is_component(code) {
            return Err(InvalidModule(
                "not a WebAssembly component (a core module or something else); build it for \
                 wasm32-wasip2"
                    .into(),
            ));
        }
        let component = Component::new(&self.engine, code)
            .map_err(|e| InvalidModule(format!("not a valid component: {e:#}")))?;
        Ok((component, true))
    }

    /// Writes the compiled code of `component` to the cache; a failure only costs a recompile.
    fn cache(&self, digest: &str, component: &Component) {
        let Some(path) = self.cached(digest) else {
            return;
        };
        let written = component
            .serialize()
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                let tmp = path.with_extension("tmp");
                std::fs::write(&tmp, bytes)
                    .and_then(|()| std::fs::rename(&tmp, &path))
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = written {
            tracing::warn!("could not cache the compiled code of {digest}: {e}");
        }
    }

    /// Checks `component` against the world its export names, and pre-instantiates it.
    fn check(&self, digest: String, component: &Component) -> Result<Module, InvalidModule> {
        let ty = component.component_type();
        let exports: Vec<&str> = ty.exports(&self.engine).map(|(name, _)| name).collect();
        let worlds: Vec<World> = [World::Decider, World::ActivityWorker, World::Function]
            .into_iter()
            .filter(|w| exports.contains(&w.export()))
            .collect();
        let [world] = worlds[..] else {
            return Err(InvalidModule(format!(
                "a component must export exactly one of `decide` (world decider), `run` \
                 (activity-worker) or `invoke` (function); this one exports {exports:?}"
            )));
        };
        let http_imports: Vec<&str> = ty
            .imports(&self.engine)
            .map(|(name, _)| name)
            .filter(|name| name.starts_with("wasi:http/"))
            .collect();
        if world == World::Decider && !http_imports.is_empty() {
            return Err(InvalidModule(format!(
                "a decider cannot send HTTP requests (its decisions must follow from its \
                 history alone), but this one imports `{}`",
                http_imports.join("`, `")
            )));
        }
        let linker = match world {
            World::Decider => &self.linkers.decider,
            World::ActivityWorker => &self.linkers.activity,
            World::Function => &self.linkers.function,
        };
        let pre = linker.instantiate_pre(component).map_err(|e| {
            InvalidModule(format!(
                "a {} may not import what this component imports: {e:#}",
                world.name()
            ))
        })?;
        let mismatch = |e: wasmtime::Error| {
            InvalidModule(format!("not a {} of weft:swf@0.1.0: {e:#}", world.name()))
        };
        let pre = match world {
            World::Decider => {
                let pre = decider::DeciderPre::new(pre).map_err(mismatch)?;
                let mut imports = ty.imports(&self.engine);
                let replays = imports.any(|(name, _)| name == workflow_core::REPLAY);
                Pre::Decider(pre, decision_task_plan(&self.engine, &ty)?, replays)
            }
            World::ActivityWorker => {
                Pre::Activity(activity::ActivityWorkerPre::new(pre).map_err(mismatch)?)
            }
            World::Function => Pre::Function(function::FunctionPre::new(pre).map_err(mismatch)?),
        };
        Ok(Module { digest, world, pre })
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
        let Pre::Decider(pre, plan, replays) = &module.pre else {
            return Err(GuestFailure::Invalid("not a decider".into()));
        };
        let _slot = self.admission.enter(&call.share).await;
        let began = Instant::now();
        let world = Grant::Decider(TaskWorld::of(task));
        let mut store = guest::store(
            &self.engine,
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
        let Pre::Activity(pre) = &module.pre else {
            return Err(GuestFailure::Invalid("not an activity worker".into()));
        };
        let _slot = self.admission.enter(&call.share).await;
        let grant = Grant::Activity(heartbeat);
        let mut store = guest::store(
            &self.engine,
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
        let Pre::Function(pre) = &module.pre else {
            return Err(GuestFailure::Invalid("not a function".into()));
        };
        let _slot = self.admission.enter(&call.share).await;
        let grant = Grant::Function;
        let mut store = guest::store(
            &self.engine,
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

impl Linkers {
    fn new(engine: &Engine) -> wasmtime::Result<Linkers> {
        let base = || -> wasmtime::Result<Linker<GuestState>> {
            let mut linker = Linker::new(engine);
            // The WASI a std guest links against; the context grants nothing (see `guest`).
            wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
            log::add_to_linker::<_, HasSelf<GuestState>>(&mut linker, |state| state)?;
            Ok(linker)
        };
        let mut activity = base()?;
        heartbeat::add_to_linker::<_, HasSelf<GuestState>>(&mut activity, |state| state)?;
        // Outgoing HTTP, for activity workers only, to the hosts each binding allows.
        wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut activity)?;
        let mut decider = base()?;
        workflow_core::add_to_linker(&mut decider)?;
        Ok(Linkers {
            decider,
            activity,
            function: base()?,
        })
    }
}

/// The engine's configuration: epoch interruption for the CPU limit, and a pool of instance
/// slots so that a task's instance costs microseconds.
fn config() -> wasmtime::Config {
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(POOL_SIZE)
        .total_core_instances(POOL_SIZE * 8)
        .total_memories(POOL_SIZE * 2)
        .total_tables(POOL_SIZE * 4)
        .total_stacks(POOL_SIZE)
        .max_memory_size(GuestLimits::CEILING.memory_bytes as usize)
        .linear_memory_keep_resident(256 << 10)
        .table_keep_resident(256 << 10);
    let mut config = wasmtime::Config::new();
    config
        .wasm_component_model(true)
        .epoch_interruption(true)
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    config
}

/// How to read decision tasks for the decider whose component type is `ty` (already checked to
/// export `decide` as `wit/worlds.wit` says).
fn decision_task_plan(
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

/// Whether `code` starts like a component (and not a core module).
fn is_component(code: &[u8]) -> bool {
    // Preamble: magic, then version 0x0d with layer 1 for components (core modules: 1, layer 0).
    code.len() >= 8 && code[..4] == *b"\0asm" && code[6..8] == [1, 0]
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
