//! External AWS clients as subprocesses: `curl --aws-sigv4`, and boto3 and the AWS CLI from a
//! Python venv that the first test to need it creates in `target/pyenv`, from PyPI, with the
//! versions in `tests/clients/requirements.txt`.
//!
//! Needs `curl` (7.75 or newer, for `--aws-sigv4`) and `python3` with its `venv` module; a
//! missing one fails the test with what to install. The venv is made once per
//! `requirements.txt`, under a lock file, so concurrent test processes wait for one another.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

/// The tests crate's directory.
const CRATE: &str = env!("CARGO_MANIFEST_DIR");

/// A finished subprocess.
#[derive(Debug)]
pub struct Output {
    /// Its exit code (`None` if a signal ended it).
    pub code: Option<i32>,
    /// What it printed.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
}

/// Runs `command` to the end on a blocking thread and collects its output.
pub async fn run(mut command: Command) -> Output {
    tokio::task::spawn_blocking(move || {
        let output = command
            .output()
            .unwrap_or_else(|e| panic!("running {command:?}: {e}"));
        Output {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    })
    .await
    .expect("the subprocess thread")
}

/// A `curl` command that reads no `.curlrc` and uses no proxy; fails the test if curl is missing
/// or too old for `--aws-sigv4`.
pub fn curl() -> Command {
    let version = match Command::new("curl").arg("--version").output() {
        Ok(out) => String::from_utf8_lossy(&out.stdout).into_owned(),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            panic!("curl is not installed; the client tests need it (Debian: apt-get install curl)")
        }
        Err(e) => panic!("running curl --version: {e}"),
    };
    let numbers: Vec<u32> = version
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .split('.')
        .map_while(|n| n.parse().ok())
        .collect();
    assert!(
        numbers.as_slice() >= [7, 75].as_slice(),
        "curl 7.75 or newer is needed for --aws-sigv4, found {:?}",
        version.lines().next()
    );
    let mut curl = Command::new("curl");
    curl.args(["-q", "--silent", "--show-error", "--noproxy", "*"]);
    curl
}

/// boto3 and the AWS CLI, installed in `target/pyenv`.
#[derive(Debug)]
pub struct PyEnv {
    /// The venv's Python, which imports boto3.
    pub python: PathBuf,
    /// The venv's `aws`.
    pub aws: PathBuf,
}

impl PyEnv {
    /// `tests/clients/swf_client.py` run by the venv's Python, with `args`.
    pub fn swf_client(&self, args: &[&str]) -> Command {
        self.script("swf_client.py", args)
    }

    /// The script `tests/clients/NAME` run by the venv's Python, with `args`.
    pub fn script(&self, name: &str, args: &[&str]) -> Command {
        let mut python = Command::new(&self.python);
        python
            .arg(Path::new(CRATE).join("clients").join(name))
            .args(args);
        python
    }
}

/// Whether the tests that drive other clients (curl, boto3, the AWS CLI) run: they need
/// `curl`, Python and PyPI, so they run only when `WEFT_CLIENT_TESTS` is set (`.ci/run` sets
/// it), and `cargo test` alone passes offline. Says so on stderr when they do not.
pub fn enabled() -> bool {
    let on = std::env::var_os("WEFT_CLIENT_TESTS").is_some_and(|v| !v.is_empty() && v != "0");
    if !on {
        eprintln!("skipped: set WEFT_CLIENT_TESTS=1 to run the curl, boto3 and AWS CLI tests");
    }
    on
}

/// The venv, created (or brought up to `requirements.txt`) by the first call.
pub async fn pyenv() -> &'static PyEnv {
    static PYENV: OnceLock<PyEnv> = OnceLock::new();
    tokio::task::spawn_blocking(|| PYENV.get_or_init(make_pyenv))
        .await
        .expect("setting up the Python venv")
}

fn make_pyenv() -> PyEnv {
    let target = crate::languages::target_dir();
    let dir = target.join("pyenv");
    let bin = dir.join("bin");
    let env = PyEnv {
        python: bin.join("python"),
        aws: bin.join("aws"),
    };
    let requirements = Path::new(CRATE).join("clients").join("requirements.txt");
    let wanted = fs::read_to_string(&requirements)
        .unwrap_or_else(|e| panic!("{}: {e}", requirements.display()));
    let ready = dir.join(".weft-ready");

    fs::create_dir_all(&target).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
    let lock = File::create(target.join(".weft-pyenv.lock")).expect("the venv's lock file");
    lock.lock().expect("locking the venv");
    if fs::read_to_string(&ready).is_ok_and(|had| had == wanted) && env.aws.is_file() {
        return env;
    }

    let started = Instant::now();
    match fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != ErrorKind::NotFound => panic!("removing {}: {e}", dir.display()),
        _ => {}
    }
    let mut venv = Command::new("python3");
    venv.args(["-m", "venv"]).arg(&dir);
    match venv.output() {
        Err(e) if e.kind() == ErrorKind::NotFound => panic!(
            "python3 is not installed; the boto3 and AWS CLI tests need it \
             (Debian: apt-get install python3 python3-venv)"
        ),
        Err(e) => panic!("running {venv:?}: {e}"),
        Ok(out) if !out.status.success() => panic!(
            "`python3 -m venv {}` failed; on Debian and Ubuntu, apt-get install python3-venv:\n{}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        ),
        Ok(_) => {}
    }
    let mut pip = Command::new(&env.python);
    pip.args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ])
    .arg("--requirement")
    .arg(&requirements);
    let out = pip
        .output()
        .unwrap_or_else(|e| panic!("running {pip:?}: {e}"));
    assert!(
        out.status.success(),
        "installing boto3 and the AWS CLI from PyPI into {} failed:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    fs::write(&ready, &wanted).unwrap_or_else(|e| panic!("{}: {e}", ready.display()));
    eprintln!(
        "set up {} (boto3, awscli) in {:.1} s",
        dir.display(),
        started.elapsed().as_secs_f64()
    );
    env
}

/// Makes `command` (boto3 or the AWS CLI) sign with `key` and `secret` in us-east-1, and nothing
/// else: no `AWS_*` variable, config file, credentials file, instance metadata, proxy or
/// retry from the machine it runs on.
pub fn with_credentials(command: &mut Command, key: &str, secret: &str) {
    for (name, _) in std::env::vars_os() {
        let text = name.to_string_lossy();
        if text.starts_with("AWS_")
            || text.to_ascii_lowercase().ends_with("_proxy")
            || text.starts_with("PYTHON")
        {
            command.env_remove(&name);
        }
    }
    let null = OsStr::new("/dev/null");
    command
        .env("AWS_CONFIG_FILE", null)
        .env("AWS_SHARED_CREDENTIALS_FILE", null)
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_MAX_ATTEMPTS", "1")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", key)
        .env("AWS_SECRET_ACCESS_KEY", secret);
}
