//! Gives the memory that closed connections freed back to the system.
//!
//! glibc's allocator keeps freed memory in its per-thread arenas for reuse, and gives back
//! little of it on its own: after 2,000 long polls closed, their buffers (about 23 KiB each)
//! stayed resident, and another burst served by other threads added to them (`cargo bench -p
//! weft-tests --bench memory` measures it). `malloc_trim` returns the arenas' free pages; it
//! walks every arena under its lock, so it runs only after many connections have closed, at
//! most once per [`EVERY`], off the async threads. Other allocators (musl's) give memory back
//! themselves: there it does nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// How often the closes are looked at.
const EVERY: Duration = Duration::from_secs(5);

/// Closes since the last trim that make the next one worth its walk: about 6 MiB of buffers.
const CLOSES: usize = 256;

/// Connections closed since the last trim.
#[derive(Default)]
pub(super) struct Closes(AtomicUsize);

impl Closes {
    /// One more connection closed.
    pub(super) fn closed(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    /// Trims after every [`EVERY`] that saw [`CLOSES`] closes, for as long as it runs.
    pub(super) async fn trim(self: Arc<Self>) {
        let mut ticks = tokio::time::interval(EVERY);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let closes = self.0.load(Ordering::Relaxed);
            if closes >= CLOSES {
                self.0.fetch_sub(closes, Ordering::Relaxed);
                let _ = tokio::task::spawn_blocking(give_back).await;
            }
        }
    }
}

/// Returns the allocator's free pages to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(
    unsafe_code,
    reason = "malloc_trim is a C function; it takes no pointer"
)]
fn give_back() {
    // SAFETY: malloc_trim takes no pointer and has no precondition; glibc serializes it with
    // every other call of the allocator.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back() {}
