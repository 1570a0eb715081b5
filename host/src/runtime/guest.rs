//! One call into a guest: its store (fresh for every task), the host functions it may import,
//! and how a call that breaks a limit or traps becomes a [`GuestFailure`].

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use wasmtime::component::ResourceTable;
use wasmtime::{ResourceLimiter, Store, Trap, UpdateDeadline};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

use super::Call;
use super::bindings::{heartbeat, log};
use super::determinism::TaskWorld;
use super::http::{HttpGrant, Outgoing};
use super::limits::GuestLimits;
use super::tap::{GuestLine, LogTap};
use super::ticker::{self, TICK, Ticks};

/// Log lines one call may write; the rest are dropped, so a guest cannot flood the log.
const MAX_LOG_LINES: u32 = 100;
/// Longest log line kept, in bytes.
const MAX_LOG_LINE: usize = 4096;

/// Records a heartbeat for the running activity task and answers whether its cancellation was
/// requested.
pub(crate) type Heartbeat =
    Arc<dyn Fn(Option<String>) -> Pin<Box<dyn Future<Output = bool> + Send>> + Send + Sync>;

/// Why a guest call did not produce an answer. Its `Display` is the reason recorded in the
/// history (at most 256 characters).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GuestFailure {
    /// The call used up its CPU time.
    #[error("weft: CPU time limit exceeded ({0} ms)")]
    Cpu(u64),
    /// The guest tried to grow its memory past the limit.
    #[error("weft: memory limit exceeded ({0} bytes)")]
    Memory(u64),
    /// The guest overflowed its stack.
    #[error("weft: stack overflow")]
    StackOverflow,
    /// The guest trapped (a panic, `unreachable`, an out-of-bounds access...).
    #[error("weft: the guest trapped: {0}")]
    Trap(String),
    /// The guest panicked (a trap, after the SDK's panic hook logged where and why).
    #[error("weft: the guest panicked at {0}")]
    Panic(String),
    /// The answer is larger than the output limit.
    #[error("weft: output of {size} bytes exceeds the limit of {limit} bytes")]
    Output {
        /// Its size, in bytes of JSON.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The answer is not one the service accepts.
    #[error("weft: invalid answer: {0}")]
    Invalid(String),
    /// A decider answered an error of its own.
    #[error("weft: the decider failed: {0}")]
    Decider(String),
}

impl GuestFailure {
    /// The reason as SWF stores it: at most 256 characters.
    pub(crate) fn reason(&self) -> String {
        self.to_string().chars().take(256).collect()
    }
}

/// The state of one guest call: what its imports work on.
///
/// What a guest can reach is what this state grants, whatever its world links:
///
/// - WASI 0.2 (`wasmtime_wasi::p2`, linked for every world so that a std guest or a language
///   runtime loads): no arguments, no environment variables, no preopened directory (so no file
///   at all), stdin closed and stdout/stderr discarded, no socket address allowed for TCP or
///   UDP, no name lookup. `wasi:cli/exit` ends the call as a trap. Clocks and randomness are the
///   host's for activity workers and functions; a decider's are its task's (see [`Grant`]);
/// - `weft:swf/log` (rate-limited lines in the host's log) and, for activity workers,
///   `weft:swf/heartbeat`;
/// - for activity workers only, `wasi:http` to the hosts on the binding's allow-list (see
///   `super::http`); everyone else's linker has no `wasi:http`;
/// - nothing else: a component importing anything its world's linker lacks (any other
///   interface, such as `evil:host/backdoor`) is refused at upload.
pub(crate) struct GuestState {
    wasi: WasiCtx,
    table: ResourceTable,
    http: WasiHttpCtx,
    /// The binding's outgoing-HTTP allow-list, with this call's caps.
    http_grant: HttpGrant,
    memory: MemoryCap,
    /// Who the guest is, for log lines: module and task.
    label: Arc<str>,
    log_lines: u32,
    /// Where the call's lines are kept for its task, if anywhere.
    tap: Option<LogTap>,
    /// The guest's report of its panic (`panicked at ...`, as Rust's SDK logs it), if it logged
    /// one: a trap that follows is that panic.
    panic: Option<String>,
    heartbeat: Option<Heartbeat>,
    /// Ticks of CPU time left.
    ticks_left: u64,
    /// A decider's replay on the workflow core (`super::workflow_core`).
    replay: super::workflow_core::Replay,
    /// Keeps the epoch ticker running for the call; its count tells whether the epoch moved
    /// while the host waited.
    ticks: ticker::Call,
}

/// What a call's WASI grants beyond the sandbox that every guest is in.
pub(crate) enum Grant {
    /// A decider: clocks stopped at its task's start and randomness seeded by the task
    /// (`super::determinism`).
    Decider(TaskWorld),
    /// An activity worker: the host's clocks and randomness, heartbeats, and HTTP to the hosts
    /// of its binding.
    Activity(Heartbeat),
    /// A function: the host's clocks and randomness.
    Function,
}

impl GuestState {
    fn new(ticks: &Ticks, call: &Call, grant: Grant, outgoing: Arc<Outgoing>) -> Self {
        // No arguments, environment, preopened directories, name lookup or socket address;
        // stdio goes nowhere. (These are the builder's defaults, but the sandbox should not
        // depend on defaults: each is said here.)
        let mut wasi = WasiCtx::builder();
        wasi.allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .socket_addr_check(|_, _| Box::pin(async { false }));
        let (heartbeat, http_hosts) = match grant {
            Grant::Decider(world) => {
                world.grant(&mut wasi);
                (None, Arc::from([]))
            }
            Grant::Activity(heartbeat) => (Some(heartbeat), call.http_hosts.clone()),
            Grant::Function => (None, Arc::from([])),
        };
        let limits = &call.limits;
        let ticks_left = limits.cpu().as_millis() / TICK.as_millis();
        GuestState {
            wasi: wasi.build(),
            table: ResourceTable::new(),
            http: WasiHttpCtx::new(),
            http_grant: HttpGrant::new(http_hosts, limits.cpu(), limits.memory_bytes, outgoing),
            memory: MemoryCap {
                limit: limits.memory_bytes,
                refused: false,
                given: 0,
            },
            label: call.label.clone(),
            log_lines: 0,
            tap: call.tap.clone(),
            panic: None,
            heartbeat,
            ticks_left: u64::try_from(ticks_left).unwrap_or(u64::MAX),
            replay: Default::default(),
            ticks: ticks.call(),
        }
    }

    /// The decider's replay on the workflow core.
    pub(crate) fn replay(&mut self) -> &mut super::workflow_core::Replay {
        &mut self.replay
    }
}

/// A fresh store for one call by `call`, with its limits in force and `grant`'s capabilities.
pub(crate) fn store(
    engine: &wasmtime::Engine,
    ticks: &Ticks,
    call: &Call,
    grant: Grant,
    outgoing: Arc<Outgoing>,
) -> Store<GuestState> {
    let state = GuestState::new(ticks, call, grant, outgoing);
    let mut store = Store::new(engine, state);
    store.limiter(|state| &mut state.memory);
    // The deadline must be set before instantiation: a new store's deadline has already passed.
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(|mut store| {
        let state = store.data_mut();
        if state.ticks_left == 0 {
            return Ok(UpdateDeadline::Interrupt);
        }
        state.ticks_left -= 1;
        // Yield at every tick so a busy guest never holds a runtime thread.
        Ok(UpdateDeadline::Yield(1))
    });
    store
}

/// What a failed call into the guest in `store` means for its task.
pub(crate) fn failure(
    store: &Store<GuestState>,
    limits: &GuestLimits,
    error: wasmtime::Error,
) -> GuestFailure {
    if store.data().memory.refused {
        return GuestFailure::Memory(limits.memory_bytes);
    }
    if let Some(exit) = error.downcast_ref::<wasmtime_wasi::I32Exit>() {
        // `wasi:cli/exit`: the guest ended its call itself; its backtrace says nothing more.
        // WASI 0.2's `exit` carries only success or failure (seen here as 0 or 1), and it is
        // what `std::process::exit(N)` calls, whatever N: only `exit-with-code` carries a
        // status, so 1 is not necessarily the status the guest's code named.
        return GuestFailure::Trap(match exit.0 {
            0 => "it exited, with success, before answering".to_owned(),
            1 => "it exited with a failure status (WASI 0.2's exit carries no number)".to_owned(),
            status => format!("it exited with status {status}"),
        });
    }
    match error.downcast_ref::<Trap>() {
        Some(Trap::UnreachableCodeReached) if store.data().panic.is_some() => {
            let panic = store.data().panic.as_deref().unwrap_or_default();
            // `panicked at FILE:LINE:COL:\nMESSAGE`, on one line.
            GuestFailure::Panic(panic.trim_start_matches(PANIC).replace('\n', " "))
        }
        Some(Trap::Interrupt) => GuestFailure::Cpu(limits.cpu_ms),
        Some(Trap::StackOverflow) => GuestFailure::StackOverflow,
        // Rust keeps its own stack in linear memory, below the data: overflowing it wraps to
        // an address far out of bounds.
        Some(Trap::MemoryOutOfBounds) => GuestFailure::Trap(format!(
            "{} (a stack overflow or a bad pointer)",
            describe(Trap::MemoryOutOfBounds)
        )),
        Some(trap) => GuestFailure::Trap(describe(*trap)),
        None => GuestFailure::Trap(format!("{error:#}")),
    }
}

/// How Rust's panic message starts, as the SDK's panic hook logs it.
const PANIC: &str = "panicked at ";

/// `text` cut to at most `max` bytes, at a character boundary.
fn truncated(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

/// What `trap` was, without the "wasm trap: " its `Display` starts with: the reason already says
/// that the guest trapped.
fn describe(trap: Trap) -> String {
    let text = trap.to_string();
    match text.strip_prefix("wasm trap: ") {
        Some(what) => what.to_owned(),
        None => text,
    }
}

/// The bytes of linear memory the guest in `store` has been given, all its memories together.
pub(crate) fn memory_bytes(store: &Store<GuestState>) -> u64 {
    store.data().memory.given
}

/// The memory limit, remembering whether it refused a growth: a guest that runs out of memory
/// usually aborts, and the abort is reported as what it is.
struct MemoryCap {
    limit: u64,
    refused: bool,
    /// Bytes given to all the instance's memories: their initial sizes and every growth.
    given: u64,
}

impl ResourceLimiter for MemoryCap {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let allowed = u64::try_from(desired).is_ok_and(|d| d <= self.limit);
        self.refused |= !allowed;
        if allowed {
            self.given += desired.saturating_sub(current) as u64;
        }
        Ok(allowed)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 100_000)
    }
}

impl WasiView for GuestState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl WasiHttpView for GuestState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: &mut self.http_grant,
        }
    }
}

impl log::Host for GuestState {
    fn write(&mut self, level: log::Level, message: String) {
        let message = truncated(message, MAX_LOG_LINE);
        if matches!(level, log::Level::Error) && message.starts_with(PANIC) {
            // Kept even past the line limit: it is why the call is about to trap.
            self.panic = Some(message.clone());
        }
        self.log_lines += 1;
        if self.log_lines > MAX_LOG_LINES {
            return;
        }
        let guest = &*self.label;
        let level = match level {
            log::Level::Debug => {
                tracing::debug!(target: "weft::guest", guest, "{message}");
                "debug"
            }
            log::Level::Info => {
                tracing::info!(target: "weft::guest", guest, "{message}");
                "info"
            }
            log::Level::Warn => {
                tracing::warn!(target: "weft::guest", guest, "{message}");
                "warn"
            }
            log::Level::Error => {
                tracing::error!(target: "weft::guest", guest, "{message}");
                "error"
            }
        };
        if let Some(tap) = &self.tap {
            tap.push(GuestLine { level, message });
        }
    }
}

impl heartbeat::Host for GuestState {
    async fn record_heartbeat(&mut self, details: Option<String>) -> bool {
        let Some(heartbeat) = &self.heartbeat else {
            // Only activity workers import the heartbeat; answer "stop" if anyone else could.
            return true;
        };
        let before = self.ticks.count();
        let cancel = heartbeat(details).await;
        // The epoch moved on while the host waited (however short the wait: a tick may fall in
        // it): the guest's next check charges it one tick that it did not spend computing, and
        // only one, however many passed. Give it back, so only CPU time counts.
        if self.ticks.count() != before {
            self.ticks_left = self.ticks_left.saturating_add(1);
        }
        cancel
    }
}
