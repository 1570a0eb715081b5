//! The real `weft` binary as a child process: the crash tests kill it with SIGKILL and start it
//! again on the same state (its data directory, or the PostgreSQL database it shares with the
//! other nodes); the memory tests and bench read its resident set.

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;

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
/// bench binary (`target/debug/deps/e2e-HASH` → `target/debug/weft`). `WEFT_BENCH_BINARY`
/// names another (an earlier build kept aside), for a bench's before-and-after figures; the
/// tests that run the binary take it too, so leave it unset for them.
pub fn binary() -> PathBuf {
    if let Some(other) = std::env::var_os("WEFT_BENCH_BINARY") {
        return PathBuf::from(other);
    }
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

/// Builds the release `weft` binary, as a bench that runs it needs (cargo builds only the
/// bench's own package).
pub fn build_release() {
    let mut command = cargo();
    command
        .args([
            "build",
            "--release",
            "--quiet",
            "--locked",
            "-p",
            "weft-host",
        ])
        .args(["--bin", "weft"]);
    let built = command.status().expect("cargo runs");
    assert!(built.success(), "the weft binary does not build");
}

/// The cargo that runs this bench, for a build of its own. The variables cargo sets for the
/// running bench are left out: a build script that watches one (ring's watches
/// `CARGO_MANIFEST_DIR`) would otherwise rebuild the whole tree, and again at the next plain
/// `cargo build`.
pub fn cargo() -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let set_for_the_bench = [
            "CARGO_MANIFEST_",
            "CARGO_PKG_",
            "CARGO_CRATE_",
            "CARGO_BIN_",
        ]
        .iter()
        .any(|prefix| name.starts_with(prefix))
            || ["CARGO_PRIMARY_PACKAGE", "CARGO_TARGET_TMPDIR"].contains(&&*name);
        if set_for_the_bench {
            command.env_remove(&*name);
        }
    }
    command
}

/// The CPU time process `pid` has used, user and system, over all its threads, from `/proc`
/// (in ticks of 10 ms, Linux's `USER_HZ`).
pub fn cpu_time_of(pid: u32) -> Duration {
    let spent = spent_by(pid);
    spent.user + spent.system
}

/// What a process has spent so far, over all its threads: CPU in user space and in the
/// kernel, and how often its threads were switched out (waiting, or preempted).
#[derive(Clone, Copy, Debug, Default)]
pub struct Spent {
    /// CPU time in user space.
    pub user: Duration,
    /// CPU time in the kernel.
    pub system: Duration,
    /// Context switches of its live threads, voluntary and not.
    pub switches: u64,
}

impl std::ops::Sub for Spent {
    type Output = Spent;

    fn sub(self, earlier: Spent) -> Spent {
        Spent {
            user: self.user.saturating_sub(earlier.user),
            system: self.system.saturating_sub(earlier.system),
            switches: self.switches.saturating_sub(earlier.switches),
        }
    }
}

/// What process `pid` has spent so far, from `/proc`: CPU in ticks of 10 ms (Linux's
/// `USER_HZ`), switches summed over its threads' `status` (a thread that ended takes its
/// count with it).
pub fn spent_by(pid: u32) -> Spent {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the process's stat");
    // Fields after the command name, which is in parentheses and may hold spaces: utime and
    // stime are the 14th and 15th of the line, the 12th and 13th after it.
    let after = &stat[stat.rfind(')').expect("a stat line") + 2..];
    let mut ticks = after
        .split(' ')
        .skip(11)
        .map(|n| n.parse::<u64>().expect("ticks"));
    let mut cpu = || Duration::from_millis(ticks.next().expect("utime and stime") * 10);
    let (user, system) = (cpu(), cpu());
    let mut switches = 0;
    let threads = std::fs::read_dir(format!("/proc/{pid}/task")).expect("the process's threads");
    for thread in threads.flatten() {
        let Ok(status) = std::fs::read_to_string(thread.path().join("status")) else {
            continue; // it ended meanwhile
        };
        switches += status
            .lines()
            .filter_map(|line| line.split_once("ctxt_switches:"))
            .filter_map(|(_, count)| count.trim().parse::<u64>().ok())
            .sum::<u64>();
    }
    Spent {
        user,
        system,
        switches,
    }
}

/// How to run `weft serve`: the command that runs the binary, and where it listens.
pub struct Launch<'a> {
    /// The binary, or a command that runs it.
    pub command: Command,
    /// `HOST:PORT` (port 0 for a free one).
    pub listen: &'a str,
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
        Weft::start_binary(&binary(), data, log, store, args, filter)
    }

    /// Like [`Weft::start_with`], running the `weft` at `binary`: a bench's other build.
    pub fn start_binary(
        binary: &Path,
        data: &Path,
        log: &Path,
        store: Option<&str>,
        args: &[&str],
        filter: &str,
    ) -> Weft {
        let at = Launch {
            command: Command::new(binary),
            listen: "127.0.0.1:0",
        };
        Weft::start_command(at, data, log, store, args, filter)
    }

    /// Like [`Weft::start_binary`], as `at` says: a command that runs the binary (inside a
    /// network namespace, say, with variables of its own) and the address to listen on.
    pub fn start_command(
        at: Launch<'_>,
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
        let mut command = at.command;
        command
            .args(["serve", "--listen", at.listen, "--data"])
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

    /// The process's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The CPU time the process has used, user and system, over all its threads.
    pub fn cpu_time(&self) -> Duration {
        cpu_time_of(self.child.id())
    }

    /// What the process has spent so far (see [`spent_by`]).
    pub fn spent(&self) -> Spent {
        spent_by(self.child.id())
    }

    /// The bytes of memory the process holds (its resident set), from `/proc`.
    pub fn resident_bytes(&self) -> u64 {
        self.status_bytes("VmRSS:")
    }

    /// The most bytes of memory the process has held at once (its resident set's peak).
    pub fn peak_resident_bytes(&self) -> u64 {
        self.status_bytes("VmHWM:")
    }

    /// A size in kB the process's `/proc` status gives after `field`, in bytes.
    fn status_bytes(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the process's status");
        let kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix(field))
            .and_then(|value| value.trim().strip_suffix("kB"))
            .and_then(|kib| kib.trim().parse().ok())
            .unwrap_or_else(|| panic!("{field} in kB"));
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
