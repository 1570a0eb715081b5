//! The project in the current directory, if any: its `weft-app.toml` gives the workflow
//! commands their default domain and workflow type.

use std::path::{Component, Path, PathBuf};

use weft_host::client::TypeRef;

use crate::manifest::{FILE_NAME, Manifest};

/// A manifest and the directory it is in (its module files are relative to it).
pub(crate) struct Project {
    /// The manifest's directory.
    pub(crate) dir: PathBuf,
    /// The manifest.
    pub(crate) manifest: Manifest,
}

impl Project {
    /// The manifest at `path`, or `weft-app.toml` in the current directory if `path` is
    /// `None` (then `None` if there is none).
    pub(crate) fn find(path: Option<&std::path::Path>) -> anyhow::Result<Option<Project>> {
        let path = match path {
            Some(path) => path.to_owned(),
            None => {
                let here = PathBuf::from(FILE_NAME);
                if !here.exists() {
                    return Ok(None);
                }
                here
            }
        };
        let manifest = Manifest::read(&path).map_err(anyhow::Error::msg)?;
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
            _ => PathBuf::from("."),
        };
        Ok(Some(Project { dir, manifest }))
    }

    /// Where a `[[module]]`'s `file` is: relative to the manifest; or, for a file under
    /// `target/` of a cargo project that is not there, under the target directory cargo builds
    /// into (`CARGO_TARGET_DIR`, `build.target-dir`), if it is there.
    pub(crate) fn module_file(&self, file: &Path) -> PathBuf {
        let path = self.dir.join(file);
        if path.exists() || !self.dir.join("Cargo.toml").is_file() {
            return path;
        }
        let mut parts = file.components().skip_while(|c| *c == Component::CurDir);
        if parts.next() != Some(Component::Normal("target".as_ref())) {
            return path;
        }
        let rest: PathBuf = parts.collect();
        match cargo_target_dir(&self.dir).map(|target| target.join(rest)) {
            Some(built) if built.exists() => built,
            _ => path,
        }
    }
}

/// The target directory cargo builds the project in `dir` into, as `cargo metadata` says.
fn cargo_target_dir(dir: &Path) -> Option<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let metadata = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(dir)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let metadata: serde_json::Value = serde_json::from_slice(&metadata.stdout).ok()?;
    metadata["target_directory"].as_str().map(PathBuf::from)
}

/// `given`, else the domain of the project in the current directory.
pub(crate) fn domain(given: Option<String>) -> anyhow::Result<String> {
    if let Some(domain) = given {
        return Ok(domain);
    }
    match Project::find(None)? {
        Some(project) => Ok(project.manifest.domain.name),
        None => anyhow::bail!("give --domain (or run this in a project with a {FILE_NAME})"),
    }
}

/// `given`, else the one workflow type of the project in the current directory.
pub(crate) fn workflow_type(given: Option<TypeRef>) -> anyhow::Result<TypeRef> {
    if let Some(given) = given {
        return Ok(given);
    }
    let project = Project::find(None)?;
    match project.as_ref().map(|p| p.manifest.only_workflow()) {
        Some(Some(only)) => Ok(TypeRef {
            name: only.name.clone(),
            version: only.version.clone(),
        }),
        Some(None) => anyhow::bail!(
            "give --type NAME:VERSION ({FILE_NAME} declares {} workflow types)",
            project.map_or(0, |p| p.manifest.workflows.len())
        ),
        None => {
            anyhow::bail!("give --type NAME:VERSION (or run this in a project with a {FILE_NAME})")
        }
    }
}
