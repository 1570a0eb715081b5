//! Embeds the web console: every file under `console/dist` (the built front end, committed so
//! that `cargo build` needs no Node) becomes an entry of `CONSOLE_ASSETS` in
//! `$OUT_DIR/console_assets.rs`, which `api/console.rs` includes.

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
