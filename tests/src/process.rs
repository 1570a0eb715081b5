//! The real `weft` binary as a child process: the crash tests kill it with SIGKILL and start it
//! again on the same state (its data directory, or the PostgreSQL database it shares with the
//! other nodes); the memory tests and bench read its resident set.

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};

/// A running `weft serve`. Dropping it kills the process.
pub struct Weft {
    child: Child,
    /// Kept open so the process never writes to a closed pipe.
    stdout: BufReader<ChildStdout>,
    /// `HOST:PORT`, from its start-up line.
    pub addr: String,
    /// `http` or `https`, from its start-up line.
    pub scheme: String,
}

/// Where cargo put the `weft` binary: beside the `deps` directory that holds this test or
/// bench binary (`target/debug/deps/e2e-HASH` → `target/debug/weft`).
pub fn binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary lives in target/<profile>/deps");
    let weft = dir.join(format!("weft{}", std::env::consts::EXE_SUFFIX));
    assert!(
        weft.exists(),
        "{} is missing: build it with `cargo build -p weft-host --bin weft`",
        weft.display()
    );
    weft
}

impl Weft {
    /// Starts `weft serve` on `data` (and the database `store` names, if any) with 1 s long
    /// polls, appending its log to `log`, and waits for its start-up line. Blocks: call it off
    /// the async threads.
    pub fn start(data: &Path, log: &Path, store: Option<&str>) -> Weft {
        Weft::start_with(data, log, store, &[], "warn")
    }

    /// Like [`Weft::start`], with `args` added to `weft serve`'s (a `--poll-timeout` there
    /// replaces the 1 s) and `RUST_LOG` set to `filter`.
    pub fn start_with(
        data: &Path,
        log: &Path,
        store: Option<&str>,
        args: &[&str],
        filter: &str,
    ) -> Weft {
        let log_file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("the log file opens");
        let mut command = Command::new(binary());
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(data)
            .args(match args.contains(&"--poll-timeout") {
                true => &[][..],
                false => &["--poll-timeout", "1"][..],
            })
            .args(store.map(|url| format!("--store={url}")))
            .args(args)
            .env("RUST_LOG", filter)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log_file);
        for var in [
            "WEFT_LISTEN",
            "WEFT_DATA",
            "WEFT_STORE",
            "WEFT_POLL_TIMEOUT",
            "WEFT_ACCOUNT_ID",
            "WEFT_LOG_FORMAT",
        ] {
            command.env_remove(var);
        }
        let mut child = command.spawn().expect("weft starts");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        let _ = stdout.read_line(&mut line);
        let Some((scheme, addr)) = line
            .trim()
            .strip_prefix("listening on ")
            .and_then(|url| url.split_once("://"))
        else {
            let _ = child.kill();
            let _ = child.wait();
            let log = std::fs::read_to_string(log).unwrap_or_default();
            panic!(
                "weft did not start on {}: first line {line:?}; log:\n{log}",
                data.display()
            );
        };
        Weft {
            addr: addr.to_owned(),
            scheme: scheme.to_owned(),
            child,
            stdout,
        }
    }

    /// `SCHEME://HOST:PORT`.
    pub fn endpoint(&self) -> String {
        format!("{}://{}", self.scheme, self.addr)
    }

    /// The next line the process printed after its first (blocks until there is one), without
    /// its line break.
    pub fn next_line(&mut self) -> String {
        let mut line = String::new();
        let _ = self.stdout.read_line(&mut line);
        line.trim_end().to_owned()
    }

    /// The bytes of memory the process holds (its resident set), from `/proc`.
    pub fn resident_bytes(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the process's status");
        let kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.trim().strip_suffix("kB"))
            .and_then(|kib| kib.trim().parse().ok())
            .expect("VmRSS in kB");
        kib * 1024
    }
}

impl Drop for Weft {
    /// SIGKILL: no shutdown and no flush, so only what the store committed survives. Waits until
    /// the process is gone, so the next one can open the data directory.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
