//! The `weft` command: clap → config → `Weft::serve`, and the commands that drive a running
//! server's `/v1` API through `weft_host::client`. Nothing else lives here.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use serde::Serialize;
use serde_json::json;
use tokio::net::TcpListener;
use weft_host::client::{
    Bind, BindingKind, BindingList, Client, FailureList, Limits, ModuleList, ModuleRecord, Replay,
    ReplayReport, TypeRef, show,
};
use weft_host::{ConfigFile, ServerSettings, Weft};

#[derive(Parser)]
#[command(
    name = "weft",
    version,
    about = "An Amazon SWF-compatible workflow service"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// How log lines are written to stderr: `text` for people, `json` (one object per line,
    /// with the request id of the request being served) for log collectors.
    #[arg(long, global = true, env = "WEFT_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

/// See [`Cli::log_format`].
#[derive(Clone, Copy, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the SWF API over HTTP.
    Serve(ServeArgs),
    /// Run the demo: the e-commerce order workflow as in-process Wasm guests, on a fresh data
    /// directory, with a timeline of every order.
    Demo(DemoArgs),
    #[command(flatten)]
    Remote(RemoteCommand),
}

/// The commands that drive a running server.
#[derive(Subcommand)]
enum RemoteCommand {
    /// Upload, list or delete Wasm modules on a running server.
    Module(ModuleArgs),
    /// Bind a module to a domain's decision or activity task list, or to a function name.
    Bind(BindArgs),
    /// List, remove or inspect a domain's bindings on a running server.
    Binding(BindingArgs),
    /// Upload a module and bind it, in one step.
    Deploy(DeployArgs),
    /// Replay a decider over a domain's recorded histories and report, run by run, the first
    /// decision it makes differently; fails if any run diverges.
    Replay(ReplayArgs),
}

#[derive(Args)]
struct DemoArgs {
    /// Orders to start.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    orders: u32,
    /// Keep serving afterwards, so you can look with the AWS CLI (Ctrl-C stops).
    #[arg(long)]
    serve: bool,
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = weft_host::DEFAULT_LISTEN)]
    listen: String,
    /// Data directory (default: a fresh one under the system's temporary directory).
    #[arg(long)]
    data: Option<PathBuf>,
}

#[derive(Args)]
struct ServeArgs {
    /// A weft.toml: tenants, their keys and quotas, limits, and the settings below (see
    /// weft.example.toml). Without tenants, the server runs open: requests are not
    /// authenticated.
    #[arg(long, env = "WEFT_CONFIG", value_name = "FILE")]
    config: Option<PathBuf>,
    /// Every setting, from the flags or the environment (clap prefers the flag).
    #[command(flatten)]
    settings: ServerSettings,
}

/// Where the server is, and how to print its answers.
#[derive(Args)]
struct Remote {
    /// The server's URL.
    #[arg(
        long,
        env = "WEFT_ENDPOINT",
        default_value = "http://127.0.0.1:8080",
        global = true
    )]
    endpoint: String,
    /// The region to act in, sent as in a SigV4 credential scope (as AWS clients do).
    #[arg(long, default_value = "us-east-1", global = true)]
    region: String,
    /// Print the server's JSON instead of short lines.
    #[arg(long, global = true)]
    json: bool,
    /// The access key id to sign with, as AWS clients take it (a server with tenants requires
    /// signed requests).
    #[arg(
        long,
        env = "AWS_ACCESS_KEY_ID",
        global = true,
        requires = "secret_access_key"
    )]
    access_key_id: Option<String>,
    /// The secret access key to sign with.
    #[arg(
        long,
        env = "AWS_SECRET_ACCESS_KEY",
        global = true,
        hide_env_values = true
    )]
    secret_access_key: Option<String>,
}

impl Remote {
    /// A client of the server, signing with the credentials if given.
    fn client(&self) -> anyhow::Result<Client> {
        let client = Client::new(&self.endpoint, &self.region)?;
        Ok(match (&self.access_key_id, &self.secret_access_key) {
            (Some(id), Some(secret)) => client.with_credentials(id, secret),
            _ => client,
        })
    }
}

#[derive(Args)]
struct ModuleArgs {
    #[command(subcommand)]
    action: ModuleAction,
    #[command(flatten)]
    remote: Remote,
}

#[derive(Subcommand)]
enum ModuleAction {
    /// Upload a component (.wasm built for wasm32-wasip2); prints its digest.
    Upload {
        /// The component's file.
        file: PathBuf,
    },
    /// List the modules.
    List,
    /// Delete a module that no binding uses.
    Delete {
        /// The module's digest.
        digest: String,
    },
}

/// What a binding serves: exactly one of a decision task list, an activity task list or a
/// function name.
#[derive(Args)]
#[group(required = true, multiple = false)]
struct Target {
    /// A decision task list, served by a decider.
    #[arg(long, value_name = "TASK_LIST")]
    decisions: Option<String>,
    /// An activity task list, served by an activity worker.
    #[arg(long, value_name = "TASK_LIST")]
    activities: Option<String>,
    /// A Lambda function name, served by a function.
    #[arg(long, value_name = "NAME")]
    function: Option<String>,
}

impl Target {
    fn get(&self) -> (BindingKind, &str) {
        match (&self.decisions, &self.activities, &self.function) {
            (Some(name), _, _) => (BindingKind::Decision, name),
            (_, Some(name), _) => (BindingKind::Activity, name),
            (_, _, Some(name)) => (BindingKind::Function, name),
            // clap requires one of the group.
            (None, None, None) => unreachable!("clap requires a target"),
        }
    }
}

/// A binding's concurrency and limits; the server's defaults where absent.
#[derive(Args)]
struct Tuning {
    /// Tasks run at once (default 4).
    #[arg(long, value_name = "N")]
    concurrency: Option<u32>,
    /// CPU time per call, in milliseconds (default 10000).
    #[arg(long, value_name = "MS")]
    cpu_ms: Option<u64>,
    /// Memory per instance, in MiB (default 64).
    #[arg(long, value_name = "MB")]
    memory_mb: Option<u64>,
    /// Size of one answer, in KiB (default 1024).
    #[arg(long, value_name = "KB")]
    output_kb: Option<u64>,
    /// Let an activity worker send HTTP requests to HOST (`host` for the scheme's default port,
    /// or `host:port`); repeat for more hosts. None by default.
    #[arg(long = "allow-http", value_name = "HOST")]
    allow_http: Vec<String>,
}

impl Tuning {
    fn bind(&self, digest: &str) -> Bind {
        Bind {
            concurrency: self.concurrency,
            limits: Limits {
                cpu_ms: self.cpu_ms,
                memory_bytes: self.memory_mb.map(|mb| mb.saturating_mul(1 << 20)),
                output_bytes: self.output_kb.map(|kb| kb.saturating_mul(1 << 10)),
            },
            http_hosts: self.allow_http.clone(),
            ..Bind::module(digest)
        }
    }
}

#[derive(Args)]
struct BindArgs {
    /// The domain.
    #[arg(long)]
    domain: String,
    #[command(flatten)]
    target: Target,
    /// The module's digest.
    #[arg(long)]
    module: String,
    #[command(flatten)]
    tuning: Tuning,
    #[command(flatten)]
    remote: Remote,
}

#[derive(Args)]
struct BindingArgs {
    #[command(subcommand)]
    action: BindingAction,
    #[command(flatten)]
    remote: Remote,
}

#[derive(Subcommand)]
enum BindingAction {
    /// List a domain's bindings.
    List {
        /// The domain.
        #[arg(long)]
        domain: String,
    },
    /// Remove a binding: its workers stop after their current task.
    Remove {
        /// The domain.
        #[arg(long)]
        domain: String,
        #[command(flatten)]
        target: Target,
    },
    /// Show a binding's latest guest failures, oldest first.
    Failures {
        /// The domain.
        #[arg(long)]
        domain: String,
        #[command(flatten)]
        target: Target,
    },
}

#[derive(Args)]
struct DeployArgs {
    /// The component's file.
    file: PathBuf,
    /// The domain.
    #[arg(long)]
    domain: String,
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    tuning: Tuning,
    /// Before binding a decider, replay it over the newest N runs of its task list, and refuse
    /// to bind it if it decides any of them differently.
    #[arg(long, value_name = "N", requires = "decisions")]
    verify: Option<u32>,
    /// Bind even if the replay diverges.
    #[arg(long, requires = "verify")]
    force: bool,
    #[command(flatten)]
    remote: Remote,
}

#[derive(Args)]
struct ReplayArgs {
    /// The decider's component file (uploaded, if it is not already).
    #[arg(long, value_name = "FILE")]
    module: PathBuf,
    /// The domain whose runs to replay.
    #[arg(long)]
    domain: String,
    /// Only runs of this workflow type.
    #[arg(long = "type", value_name = "NAME:VERSION", value_parser = type_ref)]
    workflow_type: Option<TypeRef>,
    /// Only runs whose decision tasks go to this task list.
    #[arg(long, value_name = "TASK_LIST")]
    task_list: Option<String>,
    /// How many runs, newest first, open or closed (default 10, at most 1000).
    #[arg(long, value_name = "N")]
    last: Option<u32>,
    #[command(flatten)]
    remote: Remote,
}

/// `NAME:VERSION` as a workflow type (SWF's names and versions hold no `:`).
fn type_ref(text: &str) -> Result<TypeRef, String> {
    match text.split_once(':') {
        Some((name, version)) if !name.is_empty() && !version.is_empty() => Ok(TypeRef {
            name: name.to_owned(),
            version: version.to_owned(),
        }),
        _ => Err("expected NAME:VERSION, such as OrderWorkflow:1.0".into()),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The demo tells its own story on stdout; the log then shows only what goes wrong.
    let default_filter = match cli.command {
        Command::Demo(_) => "warn",
        _ => "info",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter));
    let log = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match cli.log_format {
        LogFormat::Text => log.with_ansi(std::io::stderr().is_terminal()).init(),
        // The event's fields at the top level, and the spans it happened in (a request's id)
        // as a list, so a collector can index them without parsing a message.
        LogFormat::Json => log
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(true)
            .init(),
    }
    let outcome = tokio::runtime::Runtime::new()
        .context("cannot start the async runtime")
        .and_then(|runtime| match cli.command {
            Command::Serve(args) => runtime.block_on(serve(args)),
            Command::Demo(args) => runtime.block_on(demo(args)),
            Command::Remote(command) => runtime.block_on(remote(command)),
        });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Flags win over the environment, which wins over the config file, which wins over the
/// defaults: `ConfigFile::resolve` merges them.
async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let file = match &args.config {
        Some(path) => ConfigFile::read(path)?,
        None => ConfigFile::default(),
    };
    let (listen, config) = file.resolve(args.settings).map_err(anyhow::Error::msg)?;
    let tenants = config.tenants.len();
    let weft = Weft::open(config)?;
    if weft.is_open() {
        tracing::warn!(
            "no tenants configured: open single-tenant mode, requests are NOT authenticated \
             (give --config with [[tenants]] to require signed requests)"
        );
    } else {
        tracing::info!(tenants, "every request must be signed by a tenant's key");
    }
    let listener = TcpListener::bind(&listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    // Handlers go in before the address is announced: whoever reads it may signal at once.
    let shutdown = shutdown_signal().context("cannot install signal handlers")?;
    let addr = listener.local_addr()?;
    println!("listening on http://{addr}");
    tracing::info!(%addr, "serving SWF");
    weft.serve(listener, shutdown).await?;
    tracing::info!("stopped");
    Ok(())
}

/// Runs a command against a running server's `/v1` API and prints what it answers.
async fn remote(command: RemoteCommand) -> anyhow::Result<()> {
    let connect = Remote::client;
    match command {
        RemoteCommand::Module(ModuleArgs { action, remote }) => {
            let client = connect(&remote)?;
            match action {
                ModuleAction::Upload { file } => {
                    let module = client.upload_module(read(&file)?).await?;
                    print(remote.json, &module, [show::module(&module)]);
                }
                ModuleAction::List => {
                    let modules = client.list_modules().await?;
                    let lines = lines(&modules, show::module);
                    print(remote.json, &ModuleList { modules }, lines);
                }
                ModuleAction::Delete { digest } => {
                    client.delete_module(&digest).await?;
                    print(remote.json, &json!({}), [format!("deleted {digest}")]);
                }
            }
        }
        RemoteCommand::Bind(args) => {
            let client = connect(&args.remote)?;
            let (kind, name) = args.target.get();
            let bind = args.tuning.bind(&args.module);
            let binding = client.bind(&args.domain, kind, name, &bind).await?;
            print(args.remote.json, &binding, [show::binding(&binding)]);
        }
        RemoteCommand::Binding(BindingArgs { action, remote }) => {
            let client = connect(&remote)?;
            match action {
                BindingAction::List { domain } => {
                    let bindings = client.list_bindings(&domain).await?;
                    let lines = lines(&bindings, show::binding);
                    print(remote.json, &BindingList { bindings }, lines);
                }
                BindingAction::Remove { domain, target } => {
                    let (kind, name) = target.get();
                    client.unbind(&domain, kind, name).await?;
                    let line = format!("removed {} {name} in {domain}", kind.name());
                    print(remote.json, &json!({}), [line]);
                }
                BindingAction::Failures { domain, target } => {
                    let (kind, name) = target.get();
                    let failures = client.failures(&domain, kind, name).await?;
                    let lines = lines(&failures, show::failure);
                    print(remote.json, &FailureList { failures }, lines);
                }
            }
        }
        RemoteCommand::Deploy(args) => {
            let client = connect(&args.remote)?;
            let (kind, name) = args.target.get();
            let code = read(&args.file)?;
            let module = client.upload_module(code).await?;
            let verified = match args.verify {
                Some(last) => Some(verify(&client, &args.domain, name, &module, last).await?),
                None => None,
            };
            if let Some(report) = verified.as_ref().filter(|_| !args.remote.json) {
                print(false, report, lines(&report.runs, show::replay));
            }
            let diverged = verified.as_ref().map_or(0, |r| r.diverged().count());
            if let Some(report) = verified.as_ref().filter(|_| diverged > 0 && !args.force) {
                print(args.remote.json, report, []);
                anyhow::bail!(
                    "not bound: the decider diverges on {diverged} of the last {} runs of \
                     {name} (--force binds it anyway)",
                    report.runs.len()
                );
            }
            let bind = args.tuning.bind(&module.digest);
            let binding = client.bind(&args.domain, kind, name, &bind).await?;
            let lines = [show::module(&module), show::binding(&binding)];
            let mut all = json!({"module": module, "binding": binding});
            if let Some(report) = verified {
                all["replay"] = json!(report);
            }
            print(args.remote.json, &all, lines);
        }
        RemoteCommand::Replay(args) => {
            let client = connect(&args.remote)?;
            let module = client.upload_module(read(&args.module)?).await?;
            let replay = Replay {
                module: module.digest,
                workflow_type: args.workflow_type,
                task_list: args.task_list,
                last: args.last,
            };
            let report = client.replay(&args.domain, &replay).await?;
            print(args.remote.json, &report, lines(&report.runs, show::replay));
            let diverged = report.diverged().count();
            if diverged > 0 {
                anyhow::bail!("{diverged} of {} runs diverged", report.runs.len());
            }
        }
    }
    Ok(())
}

/// Replays the uploaded decider `module` over the newest `last` runs of the task list `name`.
async fn verify(
    client: &Client,
    domain: &str,
    name: &str,
    module: &ModuleRecord,
    last: u32,
) -> anyhow::Result<ReplayReport> {
    let replay = Replay {
        module: module.digest.clone(),
        task_list: Some(name.to_owned()),
        last: Some(last),
        ..Replay::default()
    };
    Ok(client.replay(domain, &replay).await?)
}

fn read(file: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))
}

/// One line per record.
fn lines<T>(records: &[T], line: fn(&T) -> String) -> Vec<String> {
    records.iter().map(line).collect()
}

/// Prints `answer` as JSON (as the server sent it), or its `lines`.
fn print(json: bool, answer: &impl Serialize, lines: impl IntoIterator<Item = String>) {
    if json {
        match serde_json::to_string(answer) {
            Ok(answer) => println!("{answer}"),
            Err(e) => eprintln!("cannot print the answer as JSON: {e}"),
        }
    } else {
        for line in lines {
            println!("{line}");
        }
    }
}

async fn demo(args: DemoArgs) -> anyhow::Result<()> {
    let options = weft_host::demo::DemoOptions {
        orders: args.orders,
        listen: args.listen,
        data_dir: args.data,
        serve: args.serve,
    };
    let shutdown = shutdown_signal().context("cannot install signal handlers")?;
    weft_host::demo::run(options, shutdown).await
}

/// Installs the SIGINT and SIGTERM handlers now, and completes on either.
#[cfg(unix)]
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        tracing::info!("shutting down");
    })
}

/// Completes on Ctrl-C.
#[cfg(not(unix))]
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down");
    })
}
