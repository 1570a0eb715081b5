//! The `weft` binary's client commands, run as a user runs them against a real server.
//!
//! | file | what |
//! | --- | --- |
//! | `workflows.rs` | `weft domain`, `type` and `workflow`: a run from start to result without the AWS CLI |
//! | `batches.rs` | `weft workflow batch`, `weft batch list/describe/cancel` |
//! | `apply.rs` | `weft apply`: a project's manifest registered, uploaded and bound, then unchanged |
//! | `credentials.rs` | keys from flags, the environment and AWS profiles; https endpoints |
//! | `newcomer.rs` | `weft new` in each language, then its README's commands, against a read-only SDK |
//! | `paper_cuts.rs` | digest prefixes, `module prune`, help text, busy ports, `demo --quiet` |
//! | `pauses.rs` | `weft workflow pause/resume`, `weft tasklist list/describe/pause/resume/limit` |
//! | `schedules.rs` | `weft schedule`: made, paused, triggered, backfilled, changed and removed |
//! | `worked_example.rs` | the SDK READMEs' worked example in a `weft new` project: tests, signal, timeout, cancel |

mod apply;
mod batches;
mod credentials;
mod newcomer;
mod paper_cuts;
mod pauses;
mod schedules;
mod worked_example;
mod workflows;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use weft_tests::TestServer;

/// What a `weft` command did.
#[derive(Debug)]
pub(crate) struct Out {
    pub(crate) ok: bool,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Out {
    /// Stdout read as JSON (panics, showing the output, if it is not).
    pub(crate) fn json(&self) -> Value {
        assert!(self.ok, "{self:?}");
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }

    /// Asserts the command succeeded; its stdout.
    pub(crate) fn out(&self) -> &str {
        assert!(self.ok, "{self:?}");
        &self.stdout
    }

    /// Asserts the command failed; its stderr.
    pub(crate) fn err(&self) -> &str {
        assert!(!self.ok, "{self:?}");
        &self.stderr
    }
}

/// A `weft` command line: the binary, run in `dir`, with none of the caller's AWS or Weft
/// settings (no profile files either) but those given.
pub(crate) struct Weft {
    command: Command,
}

impl Weft {
    /// `weft ARGS` pointed at `server`.
    pub(crate) fn at(server: &TestServer) -> Weft {
        let mut weft = Weft::bare();
        weft.command.env("WEFT_ENDPOINT", server.endpoint());
        weft
    }

    /// `weft ARGS` with no endpoint set.
    pub(crate) fn bare() -> Weft {
        let mut command = Command::new(weft_tests::process::binary());
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy().into_owned();
            if name.starts_with("AWS_") || name.starts_with("WEFT_") {
                command.env_remove(name);
            }
        }
        let nowhere = std::env::temp_dir().join("weft-tests-no-aws-files");
        command
            .env("AWS_CONFIG_FILE", &nowhere)
            .env("AWS_SHARED_CREDENTIALS_FILE", &nowhere);
        Weft { command }
    }

    /// Runs in `dir`.
    pub(crate) fn dir(mut self, dir: &Path) -> Weft {
        self.command.current_dir(dir);
        self
    }

    /// With the environment variable `name` set to `value`.
    pub(crate) fn env(mut self, name: &str, value: impl AsRef<std::ffi::OsStr>) -> Weft {
        self.command.env(name, value);
        self
    }

    /// With stdout going to `to` instead of being captured.
    pub(crate) fn stdout(mut self, to: impl Into<std::process::Stdio>) -> Weft {
        self.command.stdout(to);
        self
    }

    /// Runs `weft ARGS` to the end, off the test's runtime (which serves the server).
    pub(crate) fn run(mut self, args: &[&str]) -> impl Future<Output = Out> + Send + use<> {
        self.command.args(args);
        async move {
            let out = tokio::task::spawn_blocking(move || self.command.output())
                .await
                .unwrap()
                .unwrap();
            let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
            Out {
                ok: out.status.success(),
                stdout: text(out.stdout),
                stderr: text(out.stderr),
            }
        }
    }
}

/// Runs `weft ARGS` against `server`.
pub(crate) async fn weft(server: &TestServer, args: &[&str]) -> Out {
    Weft::at(server).run(args).await
}

/// A file `name` holding `text` in `dir`.
pub(crate) fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}
