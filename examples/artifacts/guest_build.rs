//! Builds guest crates of the workspace as `wasm32-wasip2` components, from a build script.
//!
//! Shared by the build scripts of `examples/artifacts` and `tests/guests/artifacts` (which
//! includes this file by path). It runs cargo on the workspace for the guests' target, in a
//! target directory of its own (`<target>/wasm/<checkout>`): the outer build holds the lock of
//! its own directory, and the guests' artifacts then serve every profile and both artifact
//! crates. Cargo's build-directory lock serializes the two build scripts if they run at once.
//!
//! A crate may keep components built earlier in a `prebuilt` directory, with the digest of the
//! sources they were built from ([`inputs_digest`]): while the sources still match, those are
//! used and nothing is compiled for Wasm, which takes a cold `cargo install` of the `weft`
//! binary from about 100 s of nested build (and a `rustup target add`) to none.

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
/// Rust SDK, the WIT worlds, the names the examples share, the lock file, the workspace manifest
/// (dependency versions, profiles), and the guests' link flags.
const SHARED_INPUTS: [&str; 9] = [
    "guest-sdk/Cargo.toml",
    "guest-sdk/src",
    "guest-sdk/core/Cargo.toml",
    "guest-sdk/core/src",
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

/// The file in a `prebuilt` directory that holds the digest of the sources its components were
/// built from, in hexadecimal.
const PREBUILT_INPUTS: &str = "inputs.digest";

/// Builds the guest crates `guests`, each in the directory of its name under `parent` (relative
/// to the workspace root; a name may be a relative path, whose last component names the crate), with the release profile and `--locked`, and copies each component
/// to `$OUT_DIR/<name>.wasm`. `inputs` names further files or directories (relative to the
/// workspace root) the guests are built from: cargo reruns this only when one of those, a
/// guest's directory or one of [`SHARED_INPUTS`] changes.
///
/// With `prebuilt` (a directory relative to the workspace root) holding `<name>.wasm` for every
/// guest and the digest of exactly the present sources, those are copied instead. Either way
/// the crate is told the sources' digest (`WEFT_GUEST_INPUTS`), whether it got the prebuilt
/// components (`WEFT_GUESTS_PREBUILT`, `true` or `false`) and, with `prebuilt`, the name of the
/// file there that records their digest (`WEFT_PREBUILT_INPUTS`).
pub(crate) fn build(parent: &str, guests: &[&str], inputs: &[&str], prebuilt: Option<&str>) {
    let workspace = workspace();
    let sources: Vec<PathBuf> = SHARED_INPUTS
        .iter()
        .chain(inputs)
        .map(PathBuf::from)
        .chain(guests.iter().map(|name| Path::new(parent).join(name)))
        .collect();
    for path in sources
        .iter()
        .map(PathBuf::as_path)
        .chain(prebuilt.map(Path::new))
    {
        println!("cargo::rerun-if-changed={}", workspace.join(path).display());
    }
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let digest = inputs_digest(&workspace, &sources);
    println!("cargo::rustc-env=WEFT_GUEST_INPUTS={digest}");
    let names: Vec<&str> = guests.iter().map(|guest| crate_name(guest)).collect();
    let used = prebuilt.is_some_and(|dir| {
        println!("cargo::rustc-env=WEFT_PREBUILT_INPUTS={PREBUILT_INPUTS}");
        copy_prebuilt(&workspace.join(dir), &names, &digest, &out_dir)
    });
    println!("cargo::rustc-env=WEFT_GUESTS_PREBUILT={used}");
    if !used {
        // A guest from outside `parent` is built on its own: built with the others, its
        // dependencies would take their features (a `no_std` crate would get `std`).
        let (own, others): (Vec<&str>, Vec<&str>) =
            guests.iter().partition(|guest| !guest.starts_with("../"));
        let own: Vec<&str> = own.iter().map(|guest| crate_name(guest)).collect();
        compile(&workspace, &own, &out_dir);
        for guest in others {
            compile(&workspace, &[crate_name(guest)], &out_dir);
        }
    }
}

/// The crate of guest `guest`, a directory under the parent (possibly `../`-relative): its
/// last component.
fn crate_name(guest: &str) -> &str {
    guest.rsplit('/').next().unwrap_or(guest)
}

/// Copies `<name>.wasm` of every guest from `dir` to `out_dir` if `dir` was built from sources
/// with `digest`; whether it did.
fn copy_prebuilt(dir: &Path, guests: &[&str], digest: &str, out_dir: &Path) -> bool {
    let recorded = fs::read_to_string(dir.join(PREBUILT_INPUTS)).unwrap_or_default();
    if recorded.trim() != digest {
        return false;
    }
    for name in guests {
        let file = format!("{name}.wasm");
        let (from, to) = (dir.join(&file), out_dir.join(&file));
        if let Err(error) = fs::copy(&from, &to) {
            panic!("copying {} to {}: {error}", from.display(), to.display());
        }
    }
    true
}

/// Compiles the guests with cargo for [`TARGET`] and copies their components to `out_dir`.
fn compile(workspace: &Path, guests: &[&str], out_dir: &Path) {
    ensure_target();
    let target_dir = target_dir(out_dir, workspace);
    let mut cargo = Command::new(env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo")));
    cargo
        .current_dir(workspace)
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

/// The extensions of the files a guest is built from. Only those count towards the digest, so
/// that what tools leave beside sources (editor backups, caches) does not change it.
const SOURCE_EXTENSIONS: [&str; 4] = ["rs", "toml", "wit", "lock"];

/// A digest of the source files under `paths` (files or directories, relative to `workspace`):
/// 64-bit FNV-1a over each file's path relative to the workspace, its length and its bytes, in
/// path order, in hexadecimal. It names what was built, it guards against no adversary: a
/// digest of a fixed definition, unlike `std`'s hashers, stays the same across Rust releases.
fn inputs_digest(workspace: &Path, paths: &[PathBuf]) -> String {
    let mut files = Vec::new();
    for path in paths {
        collect_sources(workspace, path, &mut files);
    }
    files.sort();
    files.dedup();
    let mut hash = Fnv1a::default();
    for relative in files {
        let bytes = fs::read(workspace.join(&relative))
            .unwrap_or_else(|error| panic!("reading {relative}: {error}"));
        hash.write(relative.as_bytes());
        hash.write(&[0]);
        hash.write(&(bytes.len() as u64).to_le_bytes());
        hash.write(&bytes);
    }
    format!("{:016x}", hash.0)
}

/// Adds the source files at or under `path` to `files`, as `/`-separated paths relative to
/// `workspace`. A missing path adds nothing; in directories, hidden entries and `target`
/// (what tools keep beside sources) are skipped.
fn collect_sources(workspace: &Path, path: &Path, files: &mut Vec<String>) {
    let full = workspace.join(path);
    if full.is_dir() {
        let entries = fs::read_dir(&full)
            .unwrap_or_else(|error| panic!("listing {}: {error}", full.display()));
        for entry in entries {
            let entry = entry.unwrap_or_else(|error| panic!("listing {}: {error}", full.display()));
            let name = entry.file_name();
            if !name.to_string_lossy().starts_with('.') && name != "target" {
                collect_sources(workspace, &path.join(name), files);
            }
        }
    } else if full.is_file()
        && path
            .extension()
            .is_some_and(|extension| SOURCE_EXTENSIONS.iter().any(|known| extension == *known))
    {
        let parts: Vec<_> = path
            .components()
            .map(|part| part.as_os_str().to_string_lossy())
            .collect();
        files.push(parts.join("/"));
    }
}

/// 64-bit FNV-1a: a hash of a fixed, published definition, a few lines long.
struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3);
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
