//! What a newcomer does, in each guest language: `weft new` into an empty directory outside the
//! checkout, with nothing but the binary (it unpacks the SDKs it carries into the user's cache,
//! read-only); then the project README's commands, in order
//! (set up and build, test, `weft apply`, start and read the history) against a fresh `weft
//! serve`. Needs the languages' toolchains, so it runs when `WEFT_GUEST_LANG_TESTS` is set;
//! it uses no shared store, so the PostgreSQL pass of the suite skips it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use weft_tests::languages;

use weft_tests::process::{Weft, binary};

/// Every file under `dir` with its size and modification time: what a build must not change.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, SystemTime)> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            }
            files.insert(entry.path(), (meta.len(), meta.modified().unwrap()));
        }
    }
    files
}

/// The shell blocks of a README, in order.
pub(super) fn shell_blocks(readme: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "```sh" {
            let body: Vec<_> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
            blocks.push(body.join("\n"));
        }
    }
    blocks
}

/// Runs `script` with bash in `dir`, with `weft` on the PATH and pointed at `endpoint`, and
/// cargo building into `cargo_target` if given; answers its stdout, panicking with everything
/// it printed if it fails.
pub(super) fn bash(
    script: &str,
    dir: &Path,
    endpoint: &str,
    cargo_target: Option<&Path>,
) -> String {
    let weft_dir = binary().parent().unwrap().to_owned();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![weft_dir];
    paths.extend(std::env::split_paths(&path));
    let toolchains = std::env::var_os("WEFT_GUEST_TOOLCHAINS")
        .map(PathBuf::from)
        .unwrap_or_else(|| languages::target_dir().join("guest-toolchains"));
    let mut bash = Command::new("bash");
    match cargo_target {
        Some(target) => bash.env("CARGO_TARGET_DIR", target),
        None => bash.env_remove("CARGO_TARGET_DIR"),
    };
    let out = bash
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).unwrap())
        .env("WEFT_ENDPOINT", endpoint)
        .env("WEFT_GUEST_TOOLCHAINS", toolchains)
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert!(
        out.status.success(),
        "in {}:\n{script}\nfailed:\n{}{}",
        dir.display(),
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

#[test]
fn a_newcomer_goes_from_weft_new_to_a_greeting_in_every_language() {
    if !languages::enabled() || weft_tests::test_store().is_some() {
        return;
    }
    // The user's cache, where `weft new` unpacks the SDKs the binary carries.
    let cache = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let server = Weft::start(data.path(), &data.path().join("weft.log"), None);
    let endpoint = format!("http://{}", server.addr);
    // Rust projects share one target directory across runs of this test, given as
    // CARGO_TARGET_DIR (which `weft apply` must follow): its dependencies compile once.
    let rust_target = languages::target_dir().join("newcomer-rust");
    std::fs::create_dir_all(&rust_target).unwrap();

    let projects = tempfile::tempdir().unwrap();
    let mut before = None;
    for lang in ["rust", "python", "js"] {
        let dir = projects.path().join(format!("hello-{lang}"));
        let new = Command::new(binary())
            .args(["new", lang])
            .arg(&dir)
            .env("XDG_CACHE_HOME", cache.path())
            .output()
            .unwrap();
        assert!(new.status.success(), "{new:?}");
        let sdk = unpacked_sdk(cache.path());
        before.get_or_insert_with(|| snapshot(&sdk));
        let target = (lang == "rust").then_some(rust_target.as_path());
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
        let blocks = shell_blocks(&readme);
        assert_eq!(blocks.len(), 4, "{readme}");
        // How long each step takes, for a newcomer's estimate (`--nocapture` shows it).
        let timed = |step: &str, block: &str| {
            let began = std::time::Instant::now();
            let out = bash(block, &dir, &endpoint, target);
            eprintln!("{lang}: {step} took {:.1} s", began.elapsed().as_secs_f64());
            out
        };
        timed("setting up and building", &blocks[0]);
        timed("testing", &blocks[1]);
        let applied = timed("weft apply", &blocks[2]);
        assert!(
            applied.contains(&format!("registered  domain hello-{lang}")),
            "{applied}"
        );
        let ran = timed("running the workflow", &blocks[3]);
        assert!(ran.starts_with("Hello, Ada!\n"), "{lang}: {ran}");
        assert!(ran.contains("  TimerFired  "), "{lang}: {ran}");
        // Built again from the same sources, the project is the same bytes: nothing to upload.
        bash(&blocks[0], &dir, &endpoint, target);
        let again = bash(&blocks[2], &dir, &endpoint, target);
        assert!(again.ends_with("nothing to change\n"), "{lang}: {again}");
        // The modules are named after the project.
        let modules = bash("weft module list", &dir, &endpoint, None);
        for role in ["decider", "worker"] {
            let name = format!("hello-{lang}-{role}");
            assert!(modules.contains(&name), "{lang}: no {name} in {modules}");
        }
    }
    let sdk = unpacked_sdk(cache.path());
    assert_eq!(
        Some(snapshot(&sdk)),
        before,
        "the builds wrote into the unpacked SDK"
    );
    let manifest = std::fs::metadata(sdk.join("guest-sdk/Cargo.toml")).unwrap();
    assert!(
        manifest.permissions().readonly(),
        "the unpacked SDK is not read-only"
    );
}

/// The one directory `weft new` unpacked the SDKs into under the cache `cache`.
fn unpacked_sdk(cache: &Path) -> PathBuf {
    let dirs: Vec<_> = std::fs::read_dir(cache.join("weft/sdk"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}
