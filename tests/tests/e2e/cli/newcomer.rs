//! What a newcomer does, in each guest language: `weft new` into an empty directory outside the
//! checkout, against a read-only copy of the SDK; then the project README's commands, in order
//! (set up and build, test, `weft apply`, start and read the history) against a fresh `weft
//! serve`. Needs the languages' toolchains, so it runs when `WEFT_GUEST_LANG_TESTS` is set;
//! it uses no shared store, so the PostgreSQL pass of the suite skips it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use weft_tests::languages;

use weft_tests::process::{Weft, binary};

/// A copy of the checkout's files (those git knows, as they are now), to build against.
fn checkout_copy(to: &Path) {
    let root = languages::root();
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(&root)
        .output()
        .expect("git lists the checkout's files");
    for path in listed.stdout.split(|b| *b == 0).filter(|p| !p.is_empty()) {
        let path = std::str::from_utf8(path).unwrap();
        let (from, into) = (root.join(path), to.join(path));
        std::fs::create_dir_all(into.parent().unwrap()).unwrap();
        let kind = std::fs::symlink_metadata(&from);
        match kind {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&from).unwrap();
                std::os::unix::fs::symlink(target, &into).unwrap();
            }
            Ok(_) => {
                std::fs::copy(&from, &into).unwrap();
            }
            Err(_) => {} // Deleted in the working tree.
        }
    }
}

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
fn shell_blocks(readme: &str) -> Vec<String> {
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
fn bash(script: &str, dir: &Path, endpoint: &str, cargo_target: Option<&Path>) -> String {
    let weft_dir = binary().parent().unwrap().to_owned();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![weft_dir];
    paths.extend(std::env::split_paths(&path));
    let toolchains = std::env::var_os("WEFT_GUEST_TOOLCHAINS")
        .map(PathBuf::from)
        .unwrap_or_else(|| languages::root().join("target/guest-toolchains"));
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
    let sdk = tempfile::tempdir().unwrap();
    checkout_copy(sdk.path());
    let before = snapshot(sdk.path());
    let data = tempfile::tempdir().unwrap();
    let server = Weft::start(data.path(), &data.path().join("weft.log"), None);
    let endpoint = format!("http://{}", server.addr);
    // Rust projects share one target directory across runs of this test, given as
    // CARGO_TARGET_DIR (which `weft apply` must follow): its dependencies compile once.
    let rust_target = languages::root().join("target/newcomer-rust");
    std::fs::create_dir_all(&rust_target).unwrap();

    let projects = tempfile::tempdir().unwrap();
    for lang in ["rust", "python", "js"] {
        let dir = projects.path().join(format!("hello-{lang}"));
        let new = Command::new(binary())
            .args(["new", lang])
            .arg(&dir)
            .arg("--sdk")
            .arg(sdk.path())
            .output()
            .unwrap();
        assert!(new.status.success(), "{new:?}");
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
    assert_eq!(
        snapshot(sdk.path()),
        before,
        "the builds wrote into the SDK's checkout"
    );
}
