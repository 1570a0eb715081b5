//! A task's guest log lines, as its call wrote them: what the worker keeps with the run (the
//! console's recent lines of a run) and with a failure (a Python traceback or a JavaScript stack,
//! which the SDKs log at `error` before they answer).

use std::sync::{Arc, Mutex};

/// One line a guest logged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GuestLine {
    /// `debug`, `info`, `warn` or `error`.
    pub(crate) level: &'static str,
    pub(crate) message: String,
}

/// Where one call's log lines go, besides the service's log; shared by the worker that reads
/// them after the call.
#[derive(Clone, Debug, Default)]
pub(crate) struct LogTap(Arc<Mutex<Vec<GuestLine>>>);

impl LogTap {
    /// Keeps `line`.
    pub(crate) fn push(&self, line: GuestLine) {
        self.lines().push(line);
    }

    /// The lines kept so far, leaving none.
    pub(crate) fn take(&self) -> Vec<GuestLine> {
        std::mem::take(&mut *self.lines())
    }

    fn lines(&self) -> std::sync::MutexGuard<'_, Vec<GuestLine>> {
        // Each change is one push or take: a panic elsewhere leaves the lines usable.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
