//! What every benchmark's `main` shares: its runtime, and the settings read from the
//! environment.

use std::future::Future;
use std::str::FromStr;

/// Runs `bench` to its end on a multi-threaded runtime with time and I/O, as a server has.
pub fn run<F: Future>(bench: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(bench)
}

/// The environment variable `name` read as a `T`, or `default` if it is unset or unreadable.
pub fn setting<T: FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}
