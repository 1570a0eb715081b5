//! The [`log`] facade, forwarded to the host's `log` import.

use crate::bindings::decider::weft::swf::log::{Level as HostLevel, write};

/// Forwards `log` records to the host.
struct HostLogger;

static LOGGER: HostLogger = HostLogger;

/// Installs the logger and the panic hook, once per instance (the host gives every task a fresh
/// instance, so in practice once per task). Called by the exported functions before the guest's
/// own code.
pub(crate) fn install() {
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Trace);
        // A panic traps the call, and std's own hook writes to a stderr that goes nowhere: the
        // host reads the message from this line, in Rust's words (`panicked at FILE:LINE:COL:`
        // and the message), and reports the trap as that panic.
        if cfg!(target_arch = "wasm32") {
            std::panic::set_hook(Box::new(|info| log::error!("{info}")));
        }
    }
}

impl log::Log for HostLogger {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }

    fn log(&self, record: &log::Record<'_>) {
        let level = match record.level() {
            log::Level::Error => HostLevel::Error,
            log::Level::Warn => HostLevel::Warn,
            log::Level::Info => HostLevel::Info,
            log::Level::Debug | log::Level::Trace => HostLevel::Debug,
        };
        let message = record.args().to_string();
        if cfg!(target_arch = "wasm32") {
            write(level, &message);
        } else {
            // Outside a component there is no host to write to (the import only exists in Wasm).
            eprintln!("[{level:?}] {message}");
        }
    }

    fn flush(&self) {}
}
