//! Guests written in Python and JavaScript, built from source by their SDKs' one-command builds
//! (`guest-sdk/python`, `guest-sdk/js`), and variants of Rust guests. The builds need python3 with pip and node with npm, and
//! fetch their toolchains from PyPI and npm on first use, so the tests that use them run only
//! when `WEFT_GUEST_LANG_TESTS` is set (`.ci/run` sets it).
//!
//! ```no_run
//! use weft_tests::languages::{self, Lang};
//!
//! if languages::enabled() {
//!     let decider = languages::build(Lang::Js, "decider", "examples/order-js/decider.js");
//!     assert_eq!(&decider[..4], b"\0asm");
//! }
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

/// Whether the tests of Python and JavaScript guests run.
pub fn enabled() -> bool {
    std::env::var_os("WEFT_GUEST_LANG_TESTS").is_some_and(|v| !v.is_empty())
}

/// A guest language and its SDK's build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    /// `guest-sdk/python`, built with componentize-py.
    Python,
    /// `guest-sdk/js`, built with ComponentizeJS.
    Js,
}

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is in the repository")
        .to_path_buf()
}

/// The build's target directory: `CARGO_TARGET_DIR` when the tests run with one (CI keeps it
/// outside the clone, as a cache), else the repository's `target`. The tests' own caches (the
/// Python venv, toolchains, Rust projects' builds) live under it, so they are reused as the
/// build is.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .unwrap_or_else(|| root().join("target"))
}

/// The component built from `entry` (a path from the repository's root) as a guest of `world`
/// (`decider`, `activity-worker` or `function`). Each is built once per process; a failed build
/// panics with the build's output.
pub fn build(lang: Lang, world: &str, entry: &str) -> Arc<Vec<u8>> {
    type Built = Mutex<HashMap<(Lang, String, String), Arc<Vec<u8>>>>;
    static BUILT: OnceLock<Built> = OnceLock::new();
    let key = (lang, world.to_owned(), entry.to_owned());
    // One build at a time: each takes most of the machine.
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap();
    if let Some(code) = built.get(&key) {
        return code.clone();
    }
    let code = Arc::new(build_now(lang, world, &root().join(entry)));
    built.insert(key, code.clone());
    code
}

/// Builds `entry` from `source` with its lines changed by `edit` (a variant of a guest, such as
/// a deliberately changed decider), beside it so that its relative imports resolve.
pub fn build_edited(
    lang: Lang,
    world: &str,
    entry: &str,
    edit: impl FnOnce(&str) -> String,
) -> Vec<u8> {
    let entry = root().join(entry);
    let source = std::fs::read_to_string(&entry).unwrap();
    let name = entry.file_name().unwrap().to_str().unwrap();
    // A Python module's name must be an identifier.
    let variant = entry.with_file_name(format!("edited_{}_{name}", std::process::id()));
    std::fs::write(&variant, edit(&source)).unwrap();
    let code = std::panic::catch_unwind(|| build_now(lang, world, &variant));
    let _ = std::fs::remove_file(&variant);
    code.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Builds a variant of the Rust guest crate `dir` (a path from the repository's root) whose
/// `src/lib.rs` is changed by `edit`: a copy of the crate in a workspace of its own, depending
/// on the checkout's SDK and catalog, built with the guests' link flags and the checkout's lock
/// file into `target/wasm-variants` (its dependencies compile there once, then stay).
pub fn build_rust_edited(dir: &str, edit: impl FnOnce(&str) -> String) -> Vec<u8> {
    let root = root();
    let copy = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(root.join(dir).join("src/lib.rs")).unwrap();
    std::fs::create_dir(copy.path().join("src")).unwrap();
    std::fs::write(copy.path().join("src/lib.rs"), edit(&source)).unwrap();
    let path = |p: &str| root.join(p).display().to_string();
    let manifest = format!(
        "[package]\nname = \"variant\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [lib]\ncrate-type = [\"cdylib\"]\n\n[dependencies]\n\
         weft-guest = {{ path = {:?}, features = [\"serde\"] }}\n\
         weft-examples = {{ path = {:?} }}\nserde_json = \"1\"\n\n[workspace]\n",
        path("guest-sdk"),
        path("examples/catalog"),
    );
    std::fs::write(copy.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(root.join("Cargo.lock"), copy.path().join("Cargo.lock")).unwrap();
    let target = target_dir().join("wasm-variants");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-wasip2",
            "--config",
        ])
        .arg(root.join(".cargo/config.toml"))
        .arg("--target-dir")
        .arg(&target)
        .current_dir(copy.path())
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "building a variant of {dir} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read(target.join("wasm32-wasip2/release/variant.wasm")).unwrap()
}

fn build_now(lang: Lang, world: &str, entry: &Path) -> Vec<u8> {
    let out = std::env::temp_dir().join(format!(
        "weft-{}-{:?}-{world}-{}.wasm",
        std::process::id(),
        lang,
        entry.file_stem().unwrap().to_string_lossy()
    ));
    let root = root();
    let mut command = match lang {
        Lang::Python => {
            let mut c = Command::new("python3");
            c.arg(root.join("guest-sdk/python/build.py"));
            c
        }
        Lang::Js => {
            let mut c = Command::new("node");
            c.arg(root.join("guest-sdk/js/build.mjs"));
            c
        }
    };
    command
        .args(["--world", world])
        .arg(entry)
        .arg("-o")
        .arg(&out);
    let output = command.current_dir(&root).output().unwrap_or_else(|e| {
        panic!("cannot run the {lang:?} build (is it installed?): {e}");
    });
    assert!(
        output.status.success(),
        "building {} failed:\n{}{}",
        entry.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let code = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    code
}
