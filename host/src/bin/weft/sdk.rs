//! The guest SDKs this `weft` carries (`host/build.rs`), unpacked once into the user's cache for
//! the projects `weft new` writes: `$XDG_CACHE_HOME/weft/sdk/VERSION-DIGEST` (else
//! `~/.cache/...`), laid out as a Weft checkout is (so that it and `--sdk` name the same kind of
//! directory), its files read-only: a project depends on it and never writes into it.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use sha2::{Digest as _, Sha256};

/// `(path in a checkout, bytes)` of each file of the SDKs.
const FILES: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/sdk_files.rs"));

/// The file that marks an unpacking as whole.
const DONE: &str = ".unpacked";

/// The unpacked SDKs' directory, unpacking them first if this is their first use.
pub(crate) fn unpacked() -> anyhow::Result<PathBuf> {
    let dir = cache_root()?.join(format!("{}-{}", env!("CARGO_PKG_VERSION"), digest()));
    if dir.join(DONE).is_file() {
        return Ok(dir);
    }
    let parent = dir.parent().expect("a directory in the cache");
    std::fs::create_dir_all(parent).with_context(|| format!("cannot make {}", parent.display()))?;
    // Unpacked beside, then renamed into place: a reader never sees half of it.
    let staging = parent.join(format!(".unpacking-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    let unpacked = unpack(&staging).and_then(|()| {
        std::fs::write(staging.join(DONE), "")?;
        match std::fs::rename(&staging, &dir) {
            // Another `weft new` unpacked it meanwhile.
            Err(_) if dir.join(DONE).is_file() => Ok(()),
            renamed => renamed.map_err(anyhow::Error::from),
        }
    });
    let _ = std::fs::remove_dir_all(&staging);
    unpacked.with_context(|| format!("cannot unpack the SDKs into {}", dir.display()))?;
    Ok(dir)
}

/// Writes every file into `to`, read-only.
fn unpack(to: &Path) -> anyhow::Result<()> {
    for (path, bytes) in FILES {
        let file = to.join(path);
        std::fs::create_dir_all(file.parent().expect("a file in a directory"))?;
        match *path {
            "Cargo.toml" => std::fs::write(&file, workspace_manifest(bytes)?)?,
            _ => std::fs::write(&file, bytes)?,
        }
        let mut permissions = std::fs::metadata(&file)?.permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&file, permissions)?;
    }
    Ok(())
}

/// The checkout's workspace manifest as the unpacked SDKs' own: its members only the Rust SDK
/// and the workflow core, whose manifests take their versions and dependencies from it.
fn workspace_manifest(checkout: &[u8]) -> anyhow::Result<String> {
    let text = std::str::from_utf8(checkout)?;
    let mut out = String::new();
    let mut in_list = false;
    for line in text.lines() {
        if in_list {
            in_list = line.trim() != "]";
            continue;
        }
        match line.split('=').next().map(str::trim) {
            Some("members") => out.push_str("members = [\"guest-sdk\", \"guest-sdk/core\"]\n"),
            Some("default-members") => {}
            _ => {
                out.push_str(line);
                out.push('\n');
                continue;
            }
        }
        in_list = line.trim_end().ends_with('[');
    }
    let parsed: toml::Table = toml::from_str(&out)?;
    anyhow::ensure!(
        parsed["workspace"]["members"].as_array().map(Vec::len) == Some(2),
        "the workspace manifest has no members list to replace"
    );
    Ok(out)
}

/// A digest of every file: a `weft` built from other sources unpacks into a directory of its own.
fn digest() -> String {
    let mut hash = Sha256::new();
    for (path, bytes) in FILES {
        hash.update(path.as_bytes());
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    }
    let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    hex[..12].to_owned()
}

/// `$XDG_CACHE_HOME/weft/sdk`, else `~/.cache/weft/sdk`.
fn cache_root() -> anyhow::Result<PathBuf> {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let cache = match var("XDG_CACHE_HOME") {
        Some(cache) => cache,
        None => var("HOME")
            .context("neither XDG_CACHE_HOME nor HOME is set: give --sdk PATH")?
            .join(".cache"),
    };
    Ok(cache.join("weft").join("sdk"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sdks_are_carried_with_a_workspace_of_their_own() {
        let paths: Vec<_> = FILES.iter().map(|(path, _)| *path).collect();
        for needed in [
            "Cargo.toml",
            "guest-sdk/Cargo.toml",
            "guest-sdk/core/Cargo.toml",
            "guest-sdk/python/pyproject.toml",
            "guest-sdk/js/package.json",
            "guest-sdk/js/build.mjs",
            "wit/worlds.wit",
            "examples/artifacts/prebuilt/workflow-core.wasm",
        ] {
            assert!(paths.contains(&needed), "{needed} is not carried");
        }
        assert!(
            !paths
                .iter()
                .any(|p| p.contains("node_modules") || p.contains("__pycache__"))
        );
        let (_, root) = FILES
            .iter()
            .find(|(path, _)| *path == "Cargo.toml")
            .unwrap();
        let manifest = workspace_manifest(root).unwrap();
        let parsed: toml::Table = toml::from_str(&manifest).unwrap();
        assert_eq!(
            parsed["workspace"]["members"],
            toml::Value::Array(vec!["guest-sdk".into(), "guest-sdk/core".into()])
        );
        assert!(parsed["workspace"].get("default-members").is_none());
        assert!(
            parsed["workspace"]["dependencies"]
                .get("weft-workflow-core")
                .is_some()
        );
    }
}
