//! Loading modules: each compiled once per sha256, checked against its world, pre-instantiated
//! and kept, Cranelift's code cached on disk.
//!
//! Two compilers make a module's code. Cranelift optimizes: its code runs fastest, but a Python
//! or JavaScript guest (12 to 19 MiB, an interpreter inside) takes it 9 to 11 s on two cores.
//! Winch, wasmtime's baseline compiler, makes code for such a guest in about 2 s, code that runs
//! slower. So a module of [`TIER_UP_FROM`] bytes or more is compiled by Winch and serves at
//! once, while one background thread compiles it again with Cranelift, caches that code and
//! puts it in the Winch code's place (calls already running finish on the Winch code). A smaller
//! module, which Cranelift compiles in well under a second, goes to Cranelift straight away.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, mpsc};
use std::time::Instant;

use tokio::sync::watch;
use wasmtime::component::{Component, Linker};
use wasmtime::{Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Strategy};

use super::bindings::{activity, decider, function, heartbeat, log};
use super::guest::GuestState;
use super::{GuestLimits, InvalidModule, POOL_SIZE, World, decision_task_plan, workflow_core};

/// The size from which a component is compiled by Winch first (see the module's docs):
/// Cranelift compiles a 0.3 MiB Rust guest in about 0.2 s, a 12 MiB JavaScript one in 11 s.
pub(crate) const TIER_UP_FROM: usize = 2 << 20;

/// The compiler that made a module's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compiler {
    /// Cranelift: optimized code, cached on disk.
    Cranelift,
    /// Winch: baseline code, made fast, until Cranelift's replaces it.
    Winch,
}

/// A loaded module: compiled, checked against its world, and ready to instantiate.
pub(crate) struct Module {
    /// The sha256 of its bytes, in lowercase hex.
    pub(crate) digest: String,
    /// The world it was built for.
    pub(crate) world: World,
    /// The code calls use now: Winch's until Cranelift's takes its place.
    code: watch::Sender<Arc<Code>>,
}

impl Module {
    fn new(digest: String, world: World, code: Code) -> Module {
        Module {
            digest,
            world,
            code: watch::Sender::new(Arc::new(code)),
        }
    }

    /// The code a call begun now uses.
    pub(super) fn code(&self) -> Arc<Code> {
        self.code.borrow().clone()
    }

    /// The compiler that made the code calls use now.
    #[cfg(test)]
    pub(crate) fn compiler(&self) -> Compiler {
        self.code.borrow().compiler
    }

    /// Waits until the module's code is Cranelift's (at once if it is).
    #[cfg(test)]
    pub(crate) async fn optimized(&self) {
        let mut code = self.code.subscribe();
        // The sender is the module itself, which outlives this borrow of it.
        let _ = code
            .wait_for(|code| code.compiler == Compiler::Cranelift)
            .await;
    }
}

/// A module's code from one compiler, pre-instantiated in that compiler's engine.
pub(super) struct Code {
    #[cfg(test)]
    compiler: Compiler,
    /// The engine its stores are made in.
    pub(super) engine: Engine,
    pub(super) pre: Pre,
}

/// A module pre-instantiated for its world.
pub(super) enum Pre {
    /// A decider, with how to read its decision tasks and whether it imports the workflow
    /// core (which then gets each task too).
    Decider(decider::DeciderPre<GuestState>, super::values::Plan, bool),
    Activity(activity::ActivityWorkerPre<GuestState>),
    Function(function::FunctionPre<GuestState>),
}

/// One compiler's engine, with the linker of each world in it.
pub(super) struct Tier {
    #[cfg(test)]
    compiler: Compiler,
    pub(super) engine: Engine,
    decider: Linker<GuestState>,
    activity: Linker<GuestState>,
    function: Linker<GuestState>,
}

impl Tier {
    /// The engine of `compiler`: epoch interruption for the CPU limit; for Cranelift, whose
    /// code serves for good, a pool of instance slots so that a task's instance costs
    /// microseconds (Winch's code serves only until Cranelift's is ready, from memory mapped
    /// for each instance).
    pub(super) fn new(compiler: Compiler) -> Result<Tier, String> {
        let mut config = base_config();
        match compiler {
            Compiler::Cranelift => {
                let mut pool = PoolingAllocationConfig::default();
                pool.total_component_instances(POOL_SIZE)
                    .total_core_instances(POOL_SIZE * 8)
                    .total_memories(POOL_SIZE * 2)
                    .total_tables(POOL_SIZE * 4)
                    .total_stacks(POOL_SIZE)
                    .max_memory_size(GuestLimits::CEILING.memory_bytes as usize)
                    .linear_memory_keep_resident(256 << 10)
                    .table_keep_resident(256 << 10);
                config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
            }
            Compiler::Winch => {
                config.strategy(Strategy::Winch);
            }
        }
        let engine = Engine::new(&config).map_err(|e| format!("wasmtime: {e:#}"))?;
        let linker = |world| linker(&engine, world).map_err(|e| format!("wasmtime linker: {e:#}"));
        Ok(Tier {
            #[cfg(test)]
            compiler,
            decider: linker(World::Decider)?,
            activity: linker(World::ActivityWorker)?,
            function: linker(World::Function)?,
            engine,
        })
    }

    /// Compiles `code` and checks it: the module `digest`, with this compiler's code.
    pub(super) fn load(&self, digest: String, code: &[u8]) -> Result<Module, InvalidModule> {
        let (world, checked) = self.check(&self.compile(code)?)?;
        Ok(Module::new(digest, world, checked))
    }

    /// Compiles `code`, which must be a component.
    fn compile(&self, code: &[u8]) -> Result<Component, InvalidModule> {
        if !is_component(code) {
            return Err(InvalidModule(
                "not a WebAssembly component (a core module or something else); build it for \
                 wasm32-wasip2"
                    .into(),
            ));
        }
        Component::new(&self.engine, code)
            .map_err(|e| InvalidModule(format!("not a valid component: {e:#}")))
    }

    /// Checks `component` against the world its export names, and pre-instantiates it.
    fn check(&self, component: &Component) -> Result<(World, Code), InvalidModule> {
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
            World::Decider => &self.decider,
            World::ActivityWorker => &self.activity,
            World::Function => &self.function,
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
        let code = Code {
            #[cfg(test)]
            compiler: self.compiler,
            engine: self.engine.clone(),
            pre,
        };
        Ok((world, code))
    }
}

/// What every engine shares: components, and epoch interruption for the CPU limit.
fn base_config() -> wasmtime::Config {
    let mut config = wasmtime::Config::new();
    config.wasm_component_model(true).epoch_interruption(true);
    config
}

/// The linker of `world` in `engine`: WASI (whose context grants nothing, see `guest`), the
/// log, and what the world adds.
fn linker(engine: &Engine, world: World) -> wasmtime::Result<Linker<GuestState>> {
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
    log::add_to_linker::<_, wasmtime::component::HasSelf<GuestState>>(&mut linker, |s| s)?;
    match world {
        World::Decider => workflow_core::add_to_linker(&mut linker)?,
        World::ActivityWorker => {
            heartbeat::add_to_linker::<_, wasmtime::component::HasSelf<GuestState>>(
                &mut linker,
                |s| s,
            )?;
            // Outgoing HTTP, for activity workers only, to the hosts each binding allows.
            wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker)?;
        }
        World::Function => {}
    }
    Ok(linker)
}

/// Whether `code` starts like a component (and not a core module).
fn is_component(code: &[u8]) -> bool {
    // Preamble: magic, then version 0x0d with layer 1 for components (core modules: 1, layer 0).
    code.len() >= 8 && code[..4] == *b"\0asm" && code[6..8] == [1, 0]
}

/// The loaded modules and Cranelift's engine and cache: what loads share with the background
/// thread that replaces Winch's code.
pub(super) struct Modules {
    cranelift: Tier,
    /// Cranelift on the background thread alone: its code, serialized, loads into
    /// `cranelift`'s engine as the cache's does.
    background: Engine,
    /// Where Cranelift's code is cached, by digest; none keeps it in memory only.
    cache_dir: Option<PathBuf>,
    loaded: Mutex<HashMap<String, Arc<Module>>>,
}

impl Modules {
    pub(super) fn new(cache_dir: Option<PathBuf>) -> Result<Modules, String> {
        if let Some(dir) = &cache_dir {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let mut background = base_config();
        background.parallel_compilation(false);
        Ok(Modules {
            cranelift: Tier::new(Compiler::Cranelift)?,
            background: Engine::new(&background).map_err(|e| format!("wasmtime: {e:#}"))?,
            cache_dir,
            loaded: Mutex::new(HashMap::new()),
        })
    }

    /// Cranelift's engine.
    pub(super) fn engine(&self) -> &Engine {
        &self.cranelift.engine
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<Module>>> {
        // Each change is one call on the map: a panic elsewhere cannot leave it half done.
        self.loaded
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The module `digest`, if it is loaded.
    pub(super) fn loaded(&self, digest: &str) -> Option<Arc<Module>> {
        self.lock().get(digest).cloned()
    }

    /// Whether `module` itself is loaded (not unloaded, nor loaded again since).
    fn holds(&self, module: &Module) -> bool {
        is(self.lock().get(&module.digest), module)
    }

    /// Keeps `module`, unless a load that ran beside this one kept the same module first:
    /// answers the one kept, and whether it is `module`.
    pub(super) fn keep(&self, module: Arc<Module>) -> (Arc<Module>, bool) {
        let mut loaded = self.lock();
        match loaded.get(&module.digest) {
            Some(kept) => (kept.clone(), false),
            None => {
                loaded.insert(module.digest.clone(), module.clone());
                (module, true)
            }
        }
    }

    /// Forgets a loaded module and its cached code.
    pub(super) fn unload(&self, digest: &str) {
        // Under the lock, so that the background thread cannot cache it again meanwhile.
        let mut loaded = self.lock();
        loaded.remove(digest);
        if let Some(path) = self.cached(digest) {
            let _ = std::fs::remove_file(path);
        }
    }

    fn cached(&self, digest: &str) -> Option<PathBuf> {
        let dir = self.cache_dir.as_ref()?;
        Some(dir.join(format!("{digest}.cwasm")))
    }

    /// The module `digest` from Cranelift's cached code, if it is there and fits this engine.
    pub(super) fn load_cached(&self, digest: &str) -> Option<Module> {
        let path = self.cached(digest).filter(|p| p.exists())?;
        // SAFETY: the cache holds only what `Component::serialize` wrote for this digest;
        // wasmtime checks that it was compiled by this version with this configuration. A
        // process that can rewrite the data directory can change everything Weft stores.
        #[allow(unsafe_code, reason = "loading our own compiled-code cache")]
        let component = unsafe { Component::deserialize_file(&self.cranelift.engine, path) };
        let checked = component
            .map_err(|e| e.to_string())
            .and_then(|c| self.cranelift.check(&c).map_err(|e| e.0));
        match checked {
            Ok((world, code)) => Some(Module::new(digest.to_owned(), world, code)),
            Err(e) => {
                tracing::info!("recompiling {digest}: cached code unusable: {e}");
                None
            }
        }
    }

    /// Compiles `code` with Cranelift, and caches the code of a module that passed its checks.
    pub(super) fn compile(&self, digest: String, code: &[u8]) -> Result<Module, InvalidModule> {
        let component = self.cranelift.compile(code)?;
        let (world, checked) = self.cranelift.check(&component)?;
        if self.cache_dir.is_some() {
            match component.serialize() {
                Ok(bytes) => {
                    if let Some(tmp) = self.write_cache(&digest, &bytes) {
                        self.commit_cache(&digest, &tmp);
                    }
                }
                Err(e) => tracing::warn!("could not cache the compiled code of {digest}: {e}"),
            }
        }
        Ok(Module::new(digest, world, checked))
    }

    /// Writes compiled code beside its place in the cache, and answers where; none without a
    /// cache or if writing failed (which only costs a recompile later).
    fn write_cache(&self, digest: &str, bytes: &[u8]) -> Option<PathBuf> {
        let tmp = self.cached(digest)?.with_extension("tmp");
        match std::fs::write(&tmp, bytes) {
            Ok(()) => Some(tmp),
            Err(e) => {
                tracing::warn!("could not cache the compiled code of {digest}: {e}");
                None
            }
        }
    }

    /// Puts the code [`Modules::write_cache`] wrote to `tmp` in its place.
    fn commit_cache(&self, digest: &str, tmp: &Path) {
        let Some(path) = self.cached(digest) else {
            return;
        };
        if let Err(e) = std::fs::rename(tmp, path) {
            tracing::warn!("could not cache the compiled code of {digest}: {e}");
        }
    }

    /// Compiles `module`'s `code` with Cranelift and puts that code in the place of Winch's,
    /// if the module is still loaded; caches it.
    fn optimize(&self, module: &Module, code: &[u8]) {
        if !self.holds(module) {
            return;
        }
        let began = Instant::now();
        let (bytes, checked) = match self.compile_in_background(code) {
            Ok(compiled) => compiled,
            Err(e) => {
                // Winch compiled and checked the same bytes: keep its code.
                tracing::warn!("Cranelift could not compile {}: {e}", module.digest);
                return;
            }
        };
        let written = self.write_cache(&module.digest, &bytes);
        let loaded = self.lock();
        if !is(loaded.get(&module.digest), module) {
            // Unloaded (deleted) meanwhile, or loaded again after that.
            if let Some(tmp) = written {
                let _ = std::fs::remove_file(tmp);
            }
            return;
        }
        if let Some(tmp) = written {
            self.commit_cache(&module.digest, &tmp);
        }
        module.code.send_replace(Arc::new(checked));
        drop(loaded);
        tracing::info!(
            "module {}: Cranelift's code serves from now on (compiled in {:.1} s)",
            module.digest,
            began.elapsed().as_secs_f64()
        );
    }
}

impl Modules {
    /// Compiles `code` with Cranelift on this thread alone; the code serialized, and loaded
    /// into Cranelift's engine and checked.
    fn compile_in_background(&self, code: &[u8]) -> Result<(Vec<u8>, Code), String> {
        let component = Component::new(&self.background, code).map_err(|e| format!("{e:#}"))?;
        let bytes = component.serialize().map_err(|e| format!("{e:#}"))?;
        // SAFETY: `bytes` is what `Component::serialize` made just now, in this process, by an
        // engine configured as Cranelift's but for its threads; wasmtime checks that it fits.
        #[allow(unsafe_code, reason = "loading code this process compiled just now")]
        let component = unsafe { Component::deserialize(&self.cranelift.engine, &bytes) };
        let component = component.map_err(|e| format!("{e:#}"))?;
        let (_, checked) = self.cranelift.check(&component).map_err(|e| e.0)?;
        Ok((bytes, checked))
    }
}

/// Puts the calling thread last in line for the CPU (nice 19, on Linux): the background
/// compile then takes only what nothing else wants, rather than holding up an upload's
/// Winch compile or a task.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: `setpriority` for this thread's own id changes only its scheduling priority.
    #[allow(unsafe_code, reason = "lowering this thread's priority")]
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19);
    }
}

/// Whether `kept` is `module` itself.
fn is(kept: Option<&Arc<Module>>, module: &Module) -> bool {
    kept.is_some_and(|kept| std::ptr::eq(Arc::as_ptr(kept), module))
}

/// A module whose Winch code Cranelift's is to replace, with its bytes.
type Optimize = (Arc<Module>, Vec<u8>);

/// The background thread that compiles modules with Cranelift one at a time, at the lowest
/// priority and on one core, started with the first module it gets; it ends when its sender is
/// dropped.
pub(super) struct Optimizer {
    jobs: Mutex<Option<mpsc::Sender<Optimize>>>,
}

impl Optimizer {
    pub(super) fn new() -> Optimizer {
        Optimizer {
            jobs: Mutex::new(None),
        }
    }

    /// Queues `module` (loaded with Winch from `code`) for Cranelift.
    pub(super) fn queue(&self, modules: &Arc<Modules>, module: Arc<Module>, code: &[u8]) {
        let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        let sender = jobs.get_or_insert_with(|| {
            let (sender, queued) = mpsc::channel::<Optimize>();
            // Held weakly: once the runtime is dropped (the server stopped), what is queued is
            // not compiled.
            let modules = Arc::downgrade(modules);
            let spawned = std::thread::Builder::new()
                .name("weft-optimize".into())
                .spawn(move || {
                    lower_priority();
                    for (module, code) in queued {
                        let Some(modules) = modules.upgrade() else {
                            break;
                        };
                        modules.optimize(&module, &code);
                    }
                });
            if let Err(e) = spawned {
                tracing::warn!("no Cranelift thread ({e}): Winch's code serves on");
            }
            sender
        });
        let _ = sender.send((module, code.to_vec()));
    }
}
