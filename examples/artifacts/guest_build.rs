//! Builds guest crates of the workspace as `wasm32-wasip2` components, from a build script.
//!
//! Shared by the build scripts of `examples/artifacts` and `tests/guests/artifacts` (which
//! includes this file by path). It runs cargo on the workspace for the guests' target, in a
//! target directory of its own (`<target>/wasm/<checkout>`): the outer build holds the lock of
//! its own directory, and the guests' artifacts then serve every profile and both artifact
//! crates. Cargo's build-directory lock serializes the two build scripts if they run at once.

use std::env;
use std::ffi::OsString;
use std::fs;
use std::hash::{DefaultHasher, Hash as _, Hasher as _};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The target the guests are built for.
const TARGET: &str = "wasm32-wasip2";

/// What every guest is built from besides its own crate, relative to the workspace root: the
/// SDK, the WIT worlds, the names the examples share, the lock file, the workspace manifest
/// (dependency versions), and the guests' link flags.
const SHARED_INPUTS: [&str; 6] = [
    "guest-sdk",
    "wit",
    "examples/catalog",
    "Cargo.lock",
    "Cargo.toml",
    ".cargo/config.toml",
];

/// Environment a build script inherits from the outer build that must not reach the guests'
/// build: flags meant for the native build (they would replace the guests' own from
/// `.cargo/config.toml`, such as their stack size), the outer target directory, and clippy's
/// wrapper (under `cargo clippy` the guests are still to be built, not linted).
const LEAKED_ENV: [&str; 4] = [
    "RUSTFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_TARGET_DIR",
    "RUSTC_WORKSPACE_WRAPPER",
];

/// Builds the guest crates `guests`, each in the directory of its name under `parent` (relative
/// to the workspace root), with the release profile and `--locked`, and copies each component
/// to `$OUT_DIR/<name>.wasm`. `inputs` names further files or directories (relative to the
/// workspace root) the guests are built from: cargo reruns this only when one of those, a
/// guest's directory or one of [`SHARED_INPUTS`] changes.
pub(crate) fn build(parent: &str, guests: &[&str], inputs: &[&str]) {
    let workspace = workspace();
    let crate_dirs = guests.iter().map(|name| Path::new(parent).join(name));
    let watched = SHARED_INPUTS.iter().chain(inputs).map(PathBuf::from);
    for path in watched.chain(crate_dirs) {
        println!("cargo::rerun-if-changed={}", workspace.join(path).display());
    }

    ensure_target();
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let target_dir = target_dir(&out_dir, &workspace);
    let mut cargo = Command::new(env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo")));
    cargo
        .current_dir(&workspace)
        .args(["build", "--release", "--locked", "--target", TARGET])
        .arg("--target-dir")
        .arg(&target_dir)
        .args(guests.iter().flat_map(|name| ["-p", name]))
        // A build script's stdout is read for `cargo::` directives: keep cargo's off it.
        .stdout(Stdio::from(io::stderr()));
    for name in LEAKED_ENV {
        cargo.env_remove(name);
    }
    run(&mut cargo);

    let built = target_dir.join(TARGET).join("release");
    for name in guests {
        let from = built.join(format!("{}.wasm", name.replace('-', "_")));
        let to = out_dir.join(format!("{name}.wasm"));
        if let Err(error) = fs::copy(&from, &to) {
            panic!("copying {} to {}: {error}", from.display(), to.display());
        }
    }
}

/// The workspace root: the first directory above this crate with a `Cargo.lock`.
fn workspace() -> PathBuf {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    manifest_dir
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or_else(|| panic!("no Cargo.lock above {}", manifest_dir.display()))
        .to_path_buf()
}

/// `<target>/wasm/<checkout>`, beside the outer build's profiles: its target directory is the
/// nearest directory above `OUT_DIR` that cargo tagged with `CACHEDIR.TAG` (without one, an
/// unusual layout, `OUT_DIR` itself). `<checkout>` is a digest of the workspace's path: a
/// `wasm32` cdylib's file name has no hash of its package, so two checkouts sharing a target
/// directory (git worktrees with one `CARGO_TARGET_DIR`) would otherwise overwrite each other's
/// components while each one's cargo still deems its own fresh.
fn target_dir(out_dir: &Path, workspace: &Path) -> PathBuf {
    let mut checkout = DefaultHasher::new();
    workspace.hash(&mut checkout);
    out_dir
        .ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .unwrap_or(out_dir)
        .join("wasm")
        .join(format!("{:016x}", checkout.finish()))
}

/// Installs the guests' target with rustup unless rustc already has its standard library: a
/// fresh machine with only rustup builds Weft with no step of its own.
fn ensure_target() {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| OsString::from("rustc"));
    if has_target(&rustc) {
        return;
    }
    println!("cargo::warning=adding the {TARGET} target with rustup, to build the Wasm guests");
    let added = Command::new("rustup")
        .args(["target", "add", TARGET])
        .stdout(Stdio::from(io::stderr()))
        .status();
    if !added.as_ref().is_ok_and(|status| status.success()) || !has_target(&rustc) {
        panic!(
            "{rustc:?} has no standard library for {TARGET}, which the Wasm guests need, and \
             `rustup target add {TARGET}` did not add it ({added:?}): Weft builds with a \
             rustup toolchain"
        );
    }
}

/// Whether `rustc` has a standard library for the guests' target.
fn has_target(rustc: &OsString) -> bool {
    let output = Command::new(rustc)
        .args(["--print", "target-libdir", "--target", TARGET])
        .output();
    output.is_ok_and(|output| {
        output.status.success()
            && Path::new(String::from_utf8_lossy(&output.stdout).trim()).is_dir()
    })
}

/// Runs `command` to the end; it prints to stderr, which cargo shows if this build fails.
fn run(command: &mut Command) {
    match command.status() {
        Ok(status) if status.success() => {}
        Ok(status) => panic!("{command:?} failed ({status})"),
        Err(error) => panic!("cannot run {command:?}: {error}"),
    }
}
