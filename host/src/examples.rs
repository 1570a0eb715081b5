//! The example guests, built from the workspace's sources as Wasm components, for `weft demo`
//! and the end-to-end tests; and the hostile test guests, for the tests only.
//!
//! [`build`] runs `cargo build --release --locked --target wasm32-wasip2` on the examples, in
//! their own target directory (`target/wasm`), so that it works while an outer `cargo test`
//! holds the main target directory's lock. It installs the `wasm32-wasip2` target with rustup
//! first if it is missing. Builds are serialized across processes by a lock file, so concurrent
//! test binaries may all call it; once built, a call costs one no-op cargo run.
//!
//! What each example needs registered in a domain, and its sample inputs, are in [`order`] and
//! [`quote`].
//!
//! ```no_run
//! let modules = weft_host::examples::build()?;
//! let decider = std::fs::read(modules.get("order-decider").unwrap())?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::env;
use std::ffi::OsString;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use weft_examples::{TypeName, order, quote};

/// The target the guests are built for.
pub const TARGET: &str = "wasm32-wasip2";

/// The example guests, by crate name: the order workflow's decider and activity worker, the
/// quote workflow's decider and its function `price`.
pub const EXAMPLES: [&str; 4] = [
    "order-decider",
    "order-activities",
    "quote-decider",
    "price-function",
];

/// The test guests, by crate name: a decider, an activity worker and a function that misbehave
/// as their input asks, a decider that imports a clock and randomness (see
/// `tests/guests/*/src/lib.rs` for the inputs each understands), the benchmarks' decider of
/// a workflow with one activity, an activity worker that tries to escape its sandbox, and a
/// function importing an interface no world has.
pub const TEST_GUESTS: [&str; 7] = [
    "hostile-decider",
    "hostile-activity",
    "hostile-function",
    "impure-decider",
    "one-activity-decider",
    "escape-activity",
    "backdoor-function",
];

/// Built components, by crate name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Modules {
    paths: BTreeMap<&'static str, PathBuf>,
}

impl Modules {
    /// The component built from the crate `name`, if it is one of this set.
    pub fn get(&self, name: &str) -> Option<&Path> {
        self.paths.get(name).map(PathBuf::as_path)
    }

    /// Every component of this set: crate name and path.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Path)> {
        self.paths
            .iter()
            .map(|(name, path)| (*name, path.as_path()))
    }
}

/// Why the guests could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// This binary was built from a source tree that is no longer where it was.
    #[error("the Weft workspace is not at {0}: the examples build only from Weft's source tree")]
    NoWorkspace(PathBuf),
    /// The build directory or its lock could not be used.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// The `wasm32-wasip2` target is missing and could not be installed.
    #[error("the {TARGET} target is not installed and rustup could not add it: {0}")]
    Target(String),
    /// Cargo failed.
    #[error("`{command}` failed ({status}):\n{stderr}")]
    Cargo {
        /// The command line.
        command: String,
        /// How it ended.
        status: String,
        /// The end of what it printed.
        stderr: String,
    },
    /// Cargo succeeded but a component is not where it should be.
    #[error("cargo built no component at {0}")]
    Missing(PathBuf),
}

/// Builds the [example guests](EXAMPLES) and answers where their components are.
pub fn build() -> Result<Modules, BuildError> {
    build_crates(&EXAMPLES)
}

/// Builds the [test guests](TEST_GUESTS) and answers where their components are. Only tests
/// need these: they misbehave on purpose.
pub fn build_test_guests() -> Result<Modules, BuildError> {
    build_crates(&TEST_GUESTS)
}

/// The workspace root: the host crate's parent directory.
fn workspace() -> Result<PathBuf, BuildError> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    if root.join("Cargo.toml").is_file() && root.join("examples").is_dir() {
        Ok(root)
    } else {
        Err(BuildError::NoWorkspace(root))
    }
}

fn build_crates(crates: &[&'static str]) -> Result<Modules, BuildError> {
    let workspace = workspace()?;
    let target_dir = workspace.join("target").join("wasm");
    let io = |what: &str| {
        let what = format!("{what} in {}", target_dir.display());
        move |source| BuildError::Io { what, source }
    };
    fs::create_dir_all(&target_dir).map_err(io("creating the build directory"))?;
    let lock =
        File::create(target_dir.join(".weft-build.lock")).map_err(io("creating the lock"))?;
    lock.lock().map_err(io("locking the build directory"))?;

    ensure_target(&workspace)?;
    let mut cargo = Command::new(env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo")));
    cargo
        .current_dir(&workspace)
        .args([
            "build",
            "--release",
            "--locked",
            "--target",
            TARGET,
            "--target-dir",
        ])
        .arg(&target_dir)
        .args(crates.iter().flat_map(|name| ["-p", name]))
        // Flags meant for a native build (an outer `cargo test`'s, say) would replace the
        // guests' own from .cargo/config.toml, such as their stack size.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_TARGET_DIR");
    run(&mut cargo)?;

    let out = target_dir.join(TARGET).join("release");
    let mut paths = BTreeMap::new();
    for name in crates {
        let path = out.join(format!("{}.wasm", name.replace('-', "_")));
        if !path.is_file() {
            return Err(BuildError::Missing(path));
        }
        paths.insert(*name, path);
    }
    drop(lock);
    Ok(Modules { paths })
}

/// Installs the target with rustup unless rustc already has its standard library.
fn ensure_target(workspace: &Path) -> Result<(), BuildError> {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| OsString::from("rustc"));
    let libdir = Command::new(rustc)
        .current_dir(workspace)
        .args(["--print", "target-libdir", "--target", TARGET])
        .output();
    if let Ok(output) = &libdir
        && output.status.success()
        && Path::new(String::from_utf8_lossy(&output.stdout).trim()).is_dir()
    {
        return Ok(());
    }
    let mut rustup = Command::new("rustup");
    rustup
        .current_dir(workspace)
        .args(["target", "add", TARGET]);
    run(&mut rustup).map_err(|e| BuildError::Target(e.to_string()))
}

/// Runs a command to the end, capturing its output; a failure carries the end of its stderr.
fn run(command: &mut Command) -> Result<(), BuildError> {
    let line = format!("{command:?}");
    let output = command.output().map_err(|source| BuildError::Io {
        what: format!("running {line}"),
        source,
    })?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    Err(BuildError::Cargo {
        command: line,
        status: output.status.to_string(),
        stderr: lines[lines.len().saturating_sub(40)..].join("\n"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Wasm component's preamble: `\0asm`, then the component encoding's version and layer.
    const COMPONENT_PREAMBLE: [u8; 8] = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];

    fn assert_components(modules: &Modules, names: &[&str]) {
        assert_eq!(
            modules
                .iter()
                .map(|(name, _)| name)
                .collect::<Vec<_>>()
                .len(),
            names.len()
        );
        for name in names {
            let path = modules
                .get(name)
                .unwrap_or_else(|| panic!("{name} was not built"));
            let bytes = fs::read(path).unwrap();
            assert_eq!(
                bytes[..8],
                COMPONENT_PREAMBLE,
                "{} is not a component",
                path.display()
            );
        }
    }

    #[test]
    fn the_examples_and_the_test_guests_build_into_components() {
        let examples = build().unwrap();
        assert_components(&examples, &EXAMPLES);
        assert!(
            examples.get("hostile-decider").is_none(),
            "test guests stay out of the demo"
        );
        assert_components(&build_test_guests().unwrap(), &TEST_GUESTS);
    }

    /// The guests against the real runtime: each loads as its world (the impure decider is
    /// refused), answers what its example promises, and each misbehaviour becomes the guest's
    /// failure.
    #[tokio::test(flavor = "multi_thread")]
    async fn the_runtime_loads_the_guests_and_contains_their_misbehaviour() {
        use crate::runtime::{
            Call, GuestFailure, GuestLimits, Heartbeat, Runtime, World, tasks, types,
        };
        use serde_json::json;
        use std::sync::Arc;

        let examples = build().unwrap();
        let hostile = build_test_guests().unwrap();
        let runtime = Runtime::new(None).unwrap();
        let load = |name: &str| {
            let path = examples.get(name).or_else(|| hostile.get(name)).unwrap();
            runtime.load(&fs::read(path).unwrap())
        };
        let worlds = [
            ("order-decider", World::Decider),
            ("quote-decider", World::Decider),
            ("hostile-decider", World::Decider),
            ("one-activity-decider", World::Decider),
            ("order-activities", World::ActivityWorker),
            ("hostile-activity", World::ActivityWorker),
            ("price-function", World::Function),
            ("hostile-function", World::Function),
        ];
        for (name, world) in worlds {
            assert_eq!(
                load(name).unwrap_or_else(|e| panic!("{name}: {e}")).world,
                world
            );
        }
        let Err(impure) = load("impure-decider") else {
            panic!("the impure decider loaded");
        };
        assert!(impure.0.contains("deterministic"), "{impure}");

        let call = Call {
            label: "test".into(),
            limits: GuestLimits {
                cpu_ms: 500,
                memory_bytes: 16 << 20,
                output_bytes: 1 << 20,
            },
            share: std::sync::Arc::new(tokio::sync::Semaphore::new(4)),
            http_hosts: Arc::from([]),
        };
        let decision_task = |name: &str, input: &str| {
            json!({
                "workflowExecution": {"workflowId": "w", "runId": "r"},
                "workflowType": {"name": name, "version": "1.0"},
                "previousStartedEventId": 0,
                "startedEventId": 3,
                "events": [
                    {"eventId": 1, "eventTimestamp": 1.0, "eventType": "WorkflowExecutionStarted",
                     "workflowExecutionStartedEventAttributes": {
                        "input": input, "childPolicy": "TERMINATE", "taskList": {"name": "d"},
                        "workflowType": {"name": name, "version": "1.0"}}},
                    {"eventId": 2, "eventTimestamp": 2.0, "eventType": "DecisionTaskScheduled",
                     "decisionTaskScheduledEventAttributes": {"taskList": {"name": "d"}}},
                    {"eventId": 3, "eventTimestamp": 3.0, "eventType": "DecisionTaskStarted",
                     "decisionTaskStartedEventAttributes": {"scheduledEventId": 2}},
                ],
            })
        };
        let order = load("order-decider").unwrap();
        let response = runtime
            .decide(
                &order,
                &call,
                &decision_task(order::WORKFLOW.name, order::SAMPLE_ORDER),
            )
            .await
            .unwrap();
        let types: Vec<&str> = response["decisions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["decisionType"].as_str().unwrap())
            .collect();
        assert_eq!(types, ["StartTimer", "ScheduleActivityTask"]);

        let activity_task = |name: &str, input: &str| tasks::ActivityTask {
            activity_id: "a".into(),
            activity_type: types::ActivityType {
                name: name.into(),
                version: "1.0".into(),
            },
            workflow_execution: types::WorkflowExecution {
                workflow_id: "w".into(),
                run_id: "r".into(),
            },
            input: Some(input.into()),
            started_event_id: 5,
        };
        let beats = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let counted = beats.clone();
        let heartbeat: Heartbeat = Arc::new(move |_| {
            let n = counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            Box::pin(async move { n >= 3 })
        });
        let activities = load("order-activities").unwrap();
        let charge = activity_task(order::CHARGE_CREDIT_CARD.name, order::SAMPLE_DECLINED_ORDER);
        let declined = runtime
            .run(&activities, &call, &charge, heartbeat.clone())
            .await
            .unwrap();
        assert!(
            matches!(declined, tasks::ActivityOutcome::Failed(f) if f.reason.as_deref() == Some("card declined"))
        );
        let hostile_activity = load("hostile-activity").unwrap();
        let canceled = runtime
            .run(
                &hostile_activity,
                &call,
                &activity_task("Hostile", "heartbeat"),
                heartbeat,
            )
            .await
            .unwrap();
        assert!(
            matches!(&canceled, tasks::ActivityOutcome::Canceled(Some(d)) if d == "canceled after 3 heartbeats"),
            "{canceled:?}"
        );

        let price = load("price-function").unwrap();
        let line = runtime
            .invoke(&price, &call, Some(r#"{"sku":"tea","quantity":3}"#))
            .await
            .unwrap();
        assert!(line.unwrap().unwrap().contains(r#""line_cents":1350"#));

        let hostile_function = load("hostile-function").unwrap();
        for (input, expected) in [
            ("loop", "CPU time"),
            ("alloc", "memory limit"),
            // Rust's own stack lives in linear memory: running off it is an out-of-bounds access.
            ("stack", "out of bounds memory access"),
            ("call-depth", "stack overflow"),
            (
                "trap",
                "the guest trapped: wasm `unreachable` instruction executed",
            ),
            (
                "panic",
                "the guest trapped: wasm `unreachable` instruction executed",
            ),
            ("big", "exceeds the limit"),
        ] {
            let failure: GuestFailure = runtime
                .invoke(&hostile_function, &call, Some(input))
                .await
                .expect_err(input);
            assert!(failure.to_string().contains(expected), "{input}: {failure}");
        }
        let hostile_decider = load("hostile-decider").unwrap();
        let error = runtime
            .decide(&hostile_decider, &call, &decision_task("Hostile", "error"))
            .await
            .unwrap_err();
        assert_eq!(error, GuestFailure::Decider("asked to fail".into()));
    }

    /// Only the guest's own computing counts against its CPU limit: two thousand heartbeats
    /// that each keep the host 300 µs (under one tick, so that about a third of them straddle a
    /// tick) take far longer than the 100 ms the guest may compute, and it still completes.
    #[tokio::test(flavor = "multi_thread")]
    async fn heartbeat_waits_are_not_charged_as_cpu_time() {
        use crate::runtime::{Call, GuestLimits, Heartbeat, Runtime, tasks, types};
        use std::sync::Arc;
        use std::time::{Duration, Instant};

        let hostile = build_test_guests().unwrap();
        let runtime = Runtime::new(None).unwrap();
        let code = fs::read(hostile.get("hostile-activity").unwrap()).unwrap();
        let worker = runtime.load(&code).unwrap();
        let call = Call {
            label: "test".into(),
            limits: GuestLimits {
                cpu_ms: 100,
                ..GuestLimits::default()
            },
            share: std::sync::Arc::new(tokio::sync::Semaphore::new(4)),
            http_hosts: Arc::from([]),
        };
        let task = tasks::ActivityTask {
            activity_id: "a".into(),
            activity_type: types::ActivityType {
                name: "Hostile".into(),
                version: "1.0".into(),
            },
            workflow_execution: types::WorkflowExecution {
                workflow_id: "w".into(),
                run_id: "r".into(),
            },
            input: Some("heartbeat:2000".into()),
            started_event_id: 5,
        };
        let heartbeat: Heartbeat = Arc::new(|_| {
            Box::pin(async {
                std::thread::sleep(Duration::from_micros(300));
                false
            })
        });
        let began = Instant::now();
        let outcome = runtime.run(&worker, &call, &task, heartbeat).await;
        assert!(
            matches!(&outcome, Ok(tasks::ActivityOutcome::Completed(Some(n))) if n == "2000"),
            "{outcome:?}"
        );
        assert!(began.elapsed() > Duration::from_millis(500));
    }
}
