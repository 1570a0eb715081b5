//! The `weft` binary: start-up line, configuration from flags and environment, refusal of a
//! second server on the same data, shutdown on SIGTERM, and the commands that drive a running
//! server's `/v1` API.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn weft() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_weft"));
    command.env("RUST_LOG", "warn");
    for var in [
        "WEFT_LISTEN",
        "WEFT_DATA",
        "WEFT_POLL_TIMEOUT",
        "WEFT_ACCOUNT_ID",
        "WEFT_ENDPOINT",
        "WEFT_CONFIG",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
    ] {
        command.env_remove(var);
    }
    command
}

/// Starts `command` and returns it with the address from its `listening on` line.
fn start(mut command: Command) -> (Child, String) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("weft starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    (child, addr)
}

/// Waits for `child` to exit, for at most `limit`.
fn wait(mut child: Child, limit: Duration) -> Output {
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "weft did not exit in {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn signal(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

fn terminate(child: &Child) {
    signal(child, "-TERM");
}

/// Calls SWF operation `operation` with `body` on a fresh connection; returns status and body.
fn call(addr: &str, operation: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST / HTTP/1.1\r\nHost: {addr}\r\nX-Amz-Target: SimpleWorkflowService.{operation}\r\n\
         Content-Type: application/x-amz-json-1.0\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response.split_once("\r\n\r\n").unwrap().1.to_owned();
    (status, body)
}

fn serve(data: &Path) -> Command {
    let mut command = weft();
    command.args(["serve", "--data"]).arg(data);
    command.args(["--listen", "127.0.0.1:0"]);
    command
}

#[test]
fn serves_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("nested/data");
    let (child, addr) = start(serve(&data));
    assert!(
        addr.starts_with("127.0.0.1:") && !addr.ends_with(":0"),
        "{addr}"
    );
    TcpStream::connect(&addr).expect("the server accepts connections");
    assert!(
        data.join("weft.redb").exists(),
        "the data directory is created"
    );

    terminate(&child);
    let output = wait(child, Duration::from_secs(10));
    assert!(output.status.success(), "{output:?}");
}

#[test]
fn a_second_server_on_the_same_data_fails_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (first, _) = start(serve(dir.path()));

    let second = serve(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = wait(second, Duration::from_secs(5));
    assert!(!output.status.success());
    assert!(output.stdout.is_empty(), "it never says it is listening");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("is in use by another weft process"),
        "{stderr}"
    );

    // The first one is unharmed and still serving.
    terminate(&first);
    assert!(wait(first, Duration::from_secs(10)).status.success());
}

#[test]
fn reads_its_settings_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let mut command = weft();
    command
        .arg("serve")
        .env("WEFT_LISTEN", "127.0.0.1:0")
        .env("WEFT_DATA", dir.path())
        .env("WEFT_POLL_TIMEOUT", "5");
    let (child, addr) = start(command);
    TcpStream::connect(addr).unwrap();
    assert!(dir.path().join("weft.redb").exists());
    terminate(&child);
    assert!(wait(child, Duration::from_secs(10)).status.success());
}

#[test]
fn bad_settings_are_refused_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    for (args, expected) in [
        (&["--account-id", "12"][..], "account id"),
        (&["--poll-timeout", "0"][..], "poll-timeout"),
        (
            &["--listen", "not-an-address"][..],
            "cannot listen on not-an-address",
        ),
    ] {
        let output = weft()
            .args(["serve", "--data"])
            .arg(dir.path())
            .args(args)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn acknowledged_changes_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let (child, addr) = start(serve(dir.path()));
    for i in 0..20 {
        let body =
            format!(r#"{{"name": "d{i:02}", "workflowExecutionRetentionPeriodInDays": "1"}}"#);
        assert_eq!(call(&addr, "RegisterDomain", &body).0, 200);
    }
    // No chance to shut down: whatever was acknowledged must already be committed.
    signal(&child, "-KILL");
    wait(child, Duration::from_secs(10));

    let (child, addr) = start(serve(dir.path()));
    let (status, body) = call(
        &addr,
        "ListDomains",
        r#"{"registrationStatus": "REGISTERED"}"#,
    );
    assert_eq!(status, 200);
    for i in 0..20 {
        assert!(
            body.contains(&format!(r#""name":"d{i:02}""#)),
            "d{i:02} lost: {body}"
        );
    }
    terminate(&child);
    wait(child, Duration::from_secs(10));
}

/// Runs `weft ARGS --endpoint http://ADDR` to its end.
fn remote(addr: &str, args: &[&str]) -> Output {
    weft()
        .args(args)
        .args(["--endpoint", &format!("http://{addr}")])
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn module_commands_print_the_servers_answers_and_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let (child, addr) = start(serve(&dir.path().join("data")));

    // Nothing uploaded: no lines, or the empty list as JSON.
    let listed = remote(&addr, &["module", "list"]);
    assert!(listed.status.success(), "{listed:?}");
    assert_eq!(text(&listed.stdout), "");
    let listed = remote(&addr, &["module", "list", "--json"]);
    assert!(listed.status.success(), "{listed:?}");
    assert_eq!(text(&listed.stdout).trim(), r#"{"modules":[]}"#);

    // A core module is not a component: the server says so, and the command fails.
    let core = dir.path().join("core.wasm");
    std::fs::write(&core, b"\0asm\x01\0\0\0").unwrap();
    let uploaded = remote(&addr, &["module", "upload", core.to_str().unwrap()]);
    assert!(!uploaded.status.success());
    assert_eq!(text(&uploaded.stdout), "");
    let stderr = text(&uploaded.stderr);
    assert!(
        stderr.contains("Invalid module: not a WebAssembly component")
            && stderr.contains("ValidationException"),
        "{stderr}"
    );

    let deleted = remote(&addr, &["module", "delete", "abc"]);
    assert!(!deleted.status.success());
    assert!(text(&deleted.stderr).contains("Unknown module: abc"));

    terminate(&child);
    wait(child, Duration::from_secs(10));
}

#[test]
fn binding_names_reach_the_server_intact() {
    let dir = tempfile::tempdir().unwrap();
    let (child, addr) = start(serve(dir.path()));
    let body = r#"{"name": "d", "workflowExecutionRetentionPeriodInDays": "1"}"#;
    assert_eq!(call(&addr, "RegisterDomain", body).0, 200);

    // Characters that must be percent-encoded in a path come back in the server's message as
    // they were given.
    let name = "a b/c?%d";
    let failures = remote(
        &addr,
        &["binding", "failures", "--domain", "d", "--activities", name],
    );
    assert!(!failures.status.success());
    let stderr = text(&failures.stderr);
    assert!(
        stderr.contains(&format!("No activity binding: {name}")),
        "{stderr}"
    );

    // The endpoint may come from the environment.
    let listed = weft()
        .args(["binding", "list", "--domain", "d", "--json"])
        .env("WEFT_ENDPOINT", format!("http://{addr}"))
        .output()
        .unwrap();
    assert!(listed.status.success(), "{listed:?}");
    assert_eq!(text(&listed.stdout).trim(), r#"{"bindings":[]}"#);

    terminate(&child);
    wait(child, Duration::from_secs(10));
}

#[test]
fn deploy_without_a_server_fails_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("guest.wasm");
    std::fs::write(&file, b"\0asm\x0d\0\x01\0").unwrap();
    // A port nobody listens on: bound, then released.
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    let args = [
        "deploy",
        file.to_str().unwrap(),
        "--domain",
        "d",
        "--decisions",
        "deciders",
    ];
    let output = remote(&addr, &args);
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!("cannot reach weft at http://{addr}"))
            && stderr.contains("is `weft serve` running there?"),
        "{stderr}"
    );

    // A missing file is named before anything is sent.
    let output = remote(
        &addr,
        &["deploy", "nope.wasm", "--domain", "d", "--function", "f"],
    );
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("cannot read nope.wasm"));
}

/// A `weft.toml` in `dir` with one tenant and its data in `dir/data`, listening on a free port.
fn tenant_config(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("weft.toml");
    let data = dir.join("data");
    std::fs::write(
        &path,
        format!(
            "[server]\nlisten = \"127.0.0.1:0\"\ndata = {data:?}\n\n\
             [[tenants]]\nname = \"acme\"\naccount_id = \"111111111111\"\n\
             domains = [\"*\"]\n\
             keys = [{{ id = \"AKIAACMECLI000001\", secret = \"acme-cli-secret-0123\" }}]\n"
        ),
    )
    .unwrap();
    path
}

#[test]
fn serves_the_tenants_of_its_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut command = weft();
    command
        .arg("serve")
        .arg("--config")
        .arg(tenant_config(dir.path()));
    let (child, addr) = start(command);
    assert!(
        dir.path().join("data/weft.redb").exists(),
        "data as the file says"
    );

    let (status, body) = call(
        &addr,
        "ListDomains",
        r#"{"registrationStatus":"REGISTERED"}"#,
    );
    assert_eq!(status, 400);
    assert!(
        body.contains("MissingAuthenticationTokenException"),
        "{body}"
    );

    let listed = weft()
        .args([
            "module",
            "list",
            "--json",
            "--endpoint",
            &format!("http://{addr}"),
        ])
        .env("AWS_ACCESS_KEY_ID", "AKIAACMECLI000001")
        .env("AWS_SECRET_ACCESS_KEY", "acme-cli-secret-0123")
        .output()
        .unwrap();
    assert!(listed.status.success(), "{listed:?}");
    assert_eq!(text(&listed.stdout).trim(), r#"{"modules":[]}"#);
    let refused = weft()
        .args(["module", "list", "--endpoint", &format!("http://{addr}")])
        .args(["--access-key-id", "AKIAACMECLI000001"])
        .args(["--secret-access-key", "not-the-secret-at-all"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("InvalidSignatureException"),
        "{refused:?}"
    );

    terminate(&child);
    assert!(wait(child, Duration::from_secs(10)).status.success());
}

#[test]
fn says_when_it_runs_open_and_refuses_bad_config_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut open = serve(&dir.path().join("open"));
    let mut child = open
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("open single-tenant mode"), "{line}");
    assert!(line.contains("NOT authenticated"), "{line}");
    terminate(&child);
    wait(child, Duration::from_secs(10));

    let bad = dir.path().join("bad.toml");
    for (text, expected) in [
        ("[limits]\nmax_domain = 3\n", "max_domain"),
        ("[[tenants]]\nname = \"a\"\n", "missing field"),
        (
            "[[tenants]]\nname = \"a\"\naccount_id = \"12\"\ndomains = [\"*\"]\n\
             keys = [{ id = \"K\", secret = \"0123456789abcdef\" }]\n",
            "not 12 digits",
        ),
    ] {
        std::fs::write(&bad, text).unwrap();
        let output = weft()
            .args(["serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(dir.path().join("data"))
            .arg("--config")
            .arg(&bad)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{text}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{text}: {stderr}");
    }
}

/// The README's first command, shortened: the demo runs its orders and the quote, then exits.
#[test]
fn the_demo_runs_to_the_end_and_exits() {
    let child = weft()
        .args(["demo", "--orders", "2", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The guests are embedded in the binary: nothing is built at run time.
    let output = wait(child, Duration::from_secs(120));
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(stdout.contains("2 orders closed in"), "{stdout}");
    assert!(stdout.contains("WorkflowExecutionCompleted"), "{stdout}");
}
