//! The epoch ticker: it advances the engine's epoch every [`TICK`], the granularity of guests'
//! CPU limit, but only while a guest call is running. An idle host has no guest to interrupt,
//! so the ticker thread then sleeps on a condition variable and costs nothing.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// How often the epoch advances while a guest runs.
pub(crate) const TICK: std::time::Duration = std::time::Duration::from_millis(1);

/// The ticker's count of ticks, kept beside the engine's epoch (which wasmtime does not let the
/// host read), so that a host call that waited can tell whether a tick passed meanwhile; and
/// the guest calls in progress, which keep it ticking.
#[derive(Clone, Default)]
pub(crate) struct Ticks(Arc<State>);

#[derive(Default)]
struct State {
    count: AtomicU64,
    calls: Mutex<Calls>,
    /// Signalled when the first call begins, and when the runtime stops.
    wake: Condvar,
}

#[derive(Default)]
struct Calls {
    running: usize,
    stopped: bool,
}

impl Ticks {
    /// Starts the ticker thread for `engines`; it ends after [`Ticks::stop`].
    pub(crate) fn start(engines: Vec<wasmtime::Engine>) -> Result<Ticks, String> {
        let ticks = Ticks::default();
        let ticking = ticks.clone();
        std::thread::Builder::new()
            .name("weft-epoch".into())
            .spawn(move || {
                while ticking.wait_for_calls() {
                    std::thread::sleep(TICK);
                    ticking.tick(&engines);
                }
            })
            .map_err(|e| format!("starting the epoch ticker: {e}"))?;
        Ok(ticks)
    }

    /// Advances the count, then the engines' epochs: whoever sees an epoch moved sees the count
    /// moved too.
    fn tick(&self, engines: &[wasmtime::Engine]) {
        self.0.count.fetch_add(1, Ordering::SeqCst);
        for engine in engines {
            engine.increment_epoch();
        }
    }

    /// The ticks so far.
    pub(crate) fn count(&self) -> u64 {
        self.0.count.load(Ordering::SeqCst)
    }

    /// A guest call in progress: the ticker runs until every one is dropped.
    pub(crate) fn call(&self) -> Call {
        let mut calls = self.calls();
        calls.running += 1;
        if calls.running == 1 {
            self.0.wake.notify_all();
        }
        Call(self.clone())
    }

    /// Ends the ticker thread.
    pub(crate) fn stop(&self) {
        self.calls().stopped = true;
        self.0.wake.notify_all();
    }

    /// Blocks while no call runs; `false` once stopped.
    fn wait_for_calls(&self) -> bool {
        let calls = self.calls();
        let calls = self
            .0
            .wake
            .wait_while(calls, |c| c.running == 0 && !c.stopped)
            .unwrap_or_else(|e| e.into_inner());
        !calls.stopped
    }

    fn calls(&self) -> MutexGuard<'_, Calls> {
        // Each change is one statement on the counts, so a panic cannot leave them half done.
        self.0.calls.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One guest call keeping the ticker running (see [`Ticks::call`]).
pub(crate) struct Call(Ticks);

impl Call {
    /// The ticks so far.
    pub(crate) fn count(&self) -> u64 {
        self.0.count()
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        self.0.calls().running -= 1;
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    /// Waits up to a few seconds for `done`.
    fn eventually(done: impl Fn() -> bool) -> bool {
        let began = Instant::now();
        while !done() {
            if began.elapsed() > Duration::from_secs(5) {
                return false;
            }
            std::thread::sleep(TICK);
        }
        true
    }

    #[test]
    fn ticks_only_while_a_call_runs() {
        let engine = wasmtime::Engine::default();
        let ticks = Ticks::start(vec![engine.clone()]).unwrap();
        let call = ticks.call();
        assert!(
            eventually(|| ticks.count() >= 2),
            "a running call is ticked"
        );
        drop(call);
        // The ticker may finish the tick it was sleeping on, then it waits.
        std::thread::sleep(TICK * 5);
        let idle = ticks.count();
        std::thread::sleep(TICK * 20);
        assert_eq!(ticks.count(), idle, "no call, no ticks");
        let again = ticks.call();
        assert!(eventually(|| ticks.count() > idle), "a new call wakes it");
        drop(again);
        ticks.stop();
    }
}
