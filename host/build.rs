//! Embeds the web console: every file under `console/dist` (the built front end, committed so
//! that `cargo build` needs no Node) becomes an entry of `CONSOLE_ASSETS` in
//! `$OUT_DIR/console_assets.rs`, which `api/console.rs` includes.
//!
//! And the guest SDKs, which `weft new` unpacks so that a project needs nothing but the `weft`
//! binary: the workspace's `Cargo.toml`, `guest-sdk/` (Rust, Python, JavaScript), `wit/` and
//! the prebuilt workflow core, by their paths in the checkout, in `$OUT_DIR/sdk_files.rs`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    // Read when the script runs, not baked in when it is compiled: cargo reuses a compiled build
    // script for the same package in another checkout sharing the target directory (a git
    // worktree), which must embed its own console.
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it");
    let root = Path::new(&manifest_dir).join("console/dist");
    // A directory is watched whole: any file added, changed or removed re-runs this script.
    println!("cargo::rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut table = String::from("&[\n");
    for file in &files {
        let name = file.strip_prefix(&root).expect("under the root");
        let name = name.to_str().expect("UTF-8 asset names").replace('\\', "/");
        writeln!(
            table,
            "    ({name:?}, include_bytes!({:?})),",
            file.display()
        )
        .unwrap();
    }
    table.push(']');
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out.join("console_assets.rs"), table).expect("write console_assets.rs");
    embed_sdk(&Path::new(&manifest_dir).join(".."), &out);
}

/// What of the checkout the SDKs are: directories walked whole, and single files.
const SDK: &[&str] = &[
    "Cargo.toml",
    "guest-sdk",
    "wit",
    "examples/artifacts/prebuilt/workflow-core.wasm",
];

/// Names a walk skips: what builds, tests and installs leave, and the core's bare-Wasm crate,
/// which only this repository builds.
const SKIPPED: &[&str] = &[
    "node_modules",
    "__pycache__",
    "target",
    "build",
    "dist",
    "workflow-core",
];

/// Writes `sdk_files.rs`: `(path in the checkout, bytes)` for each file of [`SDK`].
fn embed_sdk(root: &Path, out: &Path) {
    let mut files = Vec::new();
    for entry in SDK {
        let path = root.join(entry);
        println!("cargo::rerun-if-changed={}", path.display());
        if path.is_dir() {
            collect_sdk(&path, &mut files);
        } else {
            files.push(path);
        }
    }
    files.sort();
    let mut table = String::from("&[\n");
    for file in &files {
        let name = file.strip_prefix(root).expect("under the root");
        let name = name.to_str().expect("UTF-8 file names").replace('\\', "/");
        let file = file.canonicalize().expect("an SDK file");
        writeln!(
            table,
            "    ({name:?}, include_bytes!({:?})),",
            file.display()
        )
        .unwrap();
    }
    table.push(']');
    // Written only when it changes: a rewrite alone would rebuild the crate.
    let path = out.join("sdk_files.rs");
    if std::fs::read_to_string(&path).ok().as_deref() != Some(table.as_str()) {
        std::fs::write(path, table).expect("write sdk_files.rs");
    }
}

/// The files under `dir` an SDK is made of, recursively (following the `wit` link).
fn collect_sdk(dir: &Path, files: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).expect("a readable SDK directory");
    for entry in entries {
        let path = entry.expect("a readable SDK directory").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.starts_with('.') || SKIPPED.contains(&name) {
            continue;
        }
        if path.is_dir() {
            collect_sdk(&path, files);
        } else {
            files.push(path);
        }
    }
}

/// Every file under `dir`, recursively; nothing if it does not exist.
fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("readable console/dist").path();
        if path.is_dir() {
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}
