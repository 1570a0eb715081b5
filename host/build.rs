//! Embeds the web console: every file under `console/dist` (the built front end, committed so
//! that `cargo build` needs no Node) becomes an entry of `CONSOLE_ASSETS` in
//! `$OUT_DIR/console_assets.rs`, which `api/console.rs` includes.
//!
//! And the guest SDKs, which `weft new` unpacks so that a project needs nothing but the `weft`
//! binary: the workspace's `Cargo.toml`, `guest-sdk/` (Rust, Python, JavaScript), `wit/` and
//! the prebuilt workflow core, by their paths in the checkout, in `$OUT_DIR/sdk_files.rs`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What of the checkout the SDKs are: directories walked whole, and single files.
const SDK: &[&str] = &[
    "Cargo.toml",
    "guest-sdk",
    "wit",
    "examples/artifacts/prebuilt/workflow-core.wasm",
];

/// Names the SDKs' walk skips: what builds, tests and installs leave, and the core's bare-Wasm
/// crate, which only this repository builds.
const SKIPPED: &[&str] = &[
    "node_modules",
    "__pycache__",
    "target",
    "build",
    "dist",
    "workflow-core",
];

fn main() {
    // Read when the script runs, not baked in when it is compiled: cargo reuses a compiled build
    // script for the same package in another checkout sharing the target directory (a git
    // worktree), which must embed its own console.
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));

    let console = Path::new(&manifest_dir).join("console/dist");
    let mut files = Vec::new();
    walk(&console, &[], &mut files);
    write_table(&console, &files, &out.join("console_assets.rs"));

    let checkout = Path::new(&manifest_dir).join("..");
    let mut files = Vec::new();
    for entry in SDK {
        walk(&checkout.join(entry), SKIPPED, &mut files);
    }
    write_table(&checkout, &files, &out.join("sdk_files.rs"));
}

/// `path` and every file under it, recursively (following links), but names starting with `.`
/// or in `skipped`; nothing if it does not exist. A directory is watched whole: any file added,
/// changed or removed under it re-runs this script.
fn walk(path: &Path, skipped: &[&str], files: &mut Vec<PathBuf>) {
    println!("cargo::rerun-if-changed={}", path.display());
    collect(path, skipped, files);
}

fn collect(path: &Path, skipped: &[&str], files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(path) else {
        if path.is_file() {
            files.push(path.to_owned());
        }
        return;
    };
    for entry in entries {
        let path = entry.expect("a readable directory").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if !name.starts_with('.') && !skipped.contains(&name) {
            collect(&path, skipped, files);
        }
    }
}

/// Writes to `to` the table `&[(path below root, include_bytes!(file)), ...]` of `files`; only
/// when it changes, as a rewrite alone would rebuild the crate.
fn write_table(root: &Path, files: &[PathBuf], to: &Path) {
    let mut files = files.to_vec();
    files.sort();
    let mut table = String::from("&[\n");
    for file in &files {
        let name = file.strip_prefix(root).expect("under the root");
        let name = name.to_str().expect("UTF-8 file names").replace('\\', "/");
        let file = file.canonicalize().expect("a readable file");
        writeln!(
            table,
            "    ({name:?}, include_bytes!({:?})),",
            file.display()
        )
        .unwrap();
    }
    table.push(']');
    if std::fs::read_to_string(to).ok().as_deref() != Some(table.as_str()) {
        std::fs::write(to, table).expect("write the table");
    }
}
