//! The `weft` command: clap → config → `Weft::serve` or the demo, and the commands that drive a
//! running server through `weft_host::client`, one module per group of commands.

/// `println!` that ends the process quietly once stdout is closed (`weft workflow history ID |
/// head -1`), where std's panics on the broken pipe. Defined before the modules so that theirs
/// is this one.
macro_rules! println {
    () => { $crate::print_line(format_args!("")) };
    ($($arg:tt)*) => { $crate::print_line(format_args!($($arg)*)) };
}

mod apply;
mod batches;
mod bindings;
mod clock;
#[cfg(test)]
mod documented;
mod domains;
mod manifest;
mod modules;
mod new;
mod project;
mod remote;
mod schedules;
mod sdk;
mod show;
mod task_lists;
mod transfer;
mod workflows;

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use weft_host::{ConfigFile, ServerSettings, Weft};

use self::modules::ModulesCommand;

#[derive(Parser)]
#[command(
    name = "weft",
    version,
    about = "An Amazon SWF-compatible workflow service"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// How the server's log lines are written to stderr.
#[derive(Args)]
struct Logging {
    /// How log lines are written to stderr: `text` for people, `json` (one object per line,
    /// with the request id of the request being served) for log collectors.
    #[arg(long, env = "WEFT_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

/// See [`Logging::log_format`].
#[derive(Clone, Copy, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the SWF API over HTTP.
    Serve(ServeArgs),
    /// Run the demo: the e-commerce order workflow as in-process Wasm guests, its state in
    /// memory, with a timeline of every order.
    Demo(DemoArgs),
    /// Write a new project to start from: a workflow's decider and activity worker in Rust,
    /// Python or JavaScript, with unit tests, a weft-app.toml and a README of the commands
    /// that build, test, apply and start it.
    New(new::NewArgs),
    #[command(flatten)]
    Remote(RemoteCommand),
}

/// The commands that drive a running server.
#[derive(Subcommand)]
enum RemoteCommand {
    /// Make the server hold what the project's weft-app.toml declares: register its domain and
    /// types, upload and bind its modules.
    Apply(apply::ApplyArgs),
    /// List, register or describe domains.
    Domain(domains::DomainArgs),
    /// List or register workflow and activity types.
    Type(domains::TypeArgs),
    /// Start, inspect, signal, cancel, terminate and list workflow runs.
    Workflow(workflows::WorkflowArgs),
    /// Start a workflow on a schedule (every DURATION, or cron), and pause, trigger, backfill,
    /// list or remove schedules.
    Schedule(schedules::ScheduleArgs),
    /// List, describe or cancel batch jobs (made by `weft workflow batch`).
    Batch(batches::BatchArgs),
    /// List and describe a domain's task lists; pause, resume and limit them.
    #[command(name = "tasklist")]
    TaskList(task_lists::TaskListArgs),
    /// Show the server's clock; move a --time-skipping server's clock ahead.
    Clock(clock::ClockArgs),
    /// Write a domain's closed runs, each with its whole history, one JSON file per run.
    Export(transfer::ExportArgs),
    /// Bring runs recorded elsewhere (AWS's SWF, another Weft, an export) here, exactly as
    /// they were: listed, described and replayable, never given tasks.
    Import(transfer::ImportArgs),
    #[command(flatten)]
    Modules(ModulesCommand),
}

#[derive(Args)]
struct DemoArgs {
    /// Orders to start.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    orders: u32,
    /// Keep serving afterwards, so you can look with the AWS CLI (Ctrl-C stops).
    #[arg(long)]
    serve: bool,
    /// Address to listen on (port 0 picks a free port; default: 127.0.0.1:8080, or a free
    /// port when another program holds that one).
    #[arg(long)]
    listen: Option<String>,
    /// Data directory (default: none, the state is kept in memory and gone when the demo ends).
    #[arg(long)]
    data: Option<PathBuf>,
    /// Print each order's outcome and the summary only, without timelines.
    #[arg(long, short)]
    quiet: bool,
    /// Run on a clock that jumps to the next timer or timeout whenever nothing else can
    /// happen, as `weft serve --time-skipping` does.
    #[arg(long)]
    time_skipping: bool,
    #[command(flatten)]
    logging: Logging,
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
    #[command(flatten)]
    logging: Logging,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The demo and the client commands tell their own story on stdout; the log then shows
    // only what goes wrong.
    let (format, default_filter) = match &cli.command {
        Command::Serve(args) => (args.logging.log_format, "info"),
        Command::Demo(args) => (args.logging.log_format, "warn"),
        Command::New(_) | Command::Remote(_) => (LogFormat::Text, "warn"),
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter));
    let log = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
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
            Command::New(args) => new::run(args),
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
    let ephemeral = config.ephemeral;
    let weft = Weft::open(config)?;
    if ephemeral {
        tracing::warn!("--ephemeral: the state is kept in memory only, and lost when weft stops");
    }
    if weft.is_open() {
        tracing::warn!(
            "no tenants configured: open single-tenant mode, requests are NOT authenticated \
             (give --config with [[tenants]] to require signed requests)"
        );
    } else {
        tracing::info!(tenants, "every request must be signed by a tenant's key");
    }
    let main = weft_host::listen(&listen.addr)
        .await
        .map_err(anyhow::Error::msg)?;
    let plain = match &listen.http_addr {
        Some(addr) => Some(weft_host::listen(addr).await.map_err(anyhow::Error::msg)?),
        None => None,
    };
    // Handlers go in before the address is announced: whoever reads it may signal at once.
    let shutdown = shutdown_signal().context("cannot install signal handlers")?;
    let addr = main.local_addr()?;
    let scheme = if weft.is_https() { "https" } else { "http" };
    announce(format_args!("listening on {scheme}://{addr}"));
    if let Some(plain) = &plain {
        announce(format_args!("listening on http://{}", plain.local_addr()?));
    }
    if let Some(ca) = weft.self_signed_ca() {
        announce(format_args!(
            "self-signed certificate: clients trust it with AWS_CA_BUNDLE={}",
            ca.display()
        ));
    }
    announce(format_args!("console at {scheme}://{addr}/console/"));
    tracing::info!(%addr, scheme, "serving SWF");
    let listener = weft_host::Listeners { main, plain };
    weft.serve(listener, shutdown).await?;
    tracing::info!("stopped");
    Ok(())
}

/// Runs a command against a running server and prints what it answers.
async fn remote(command: RemoteCommand) -> anyhow::Result<()> {
    match command {
        RemoteCommand::Apply(args) => apply::run(args).await,
        RemoteCommand::Domain(args) => domains::domain(args).await,
        RemoteCommand::Type(args) => domains::types(args).await,
        RemoteCommand::Workflow(args) => workflows::run(args).await,
        RemoteCommand::Schedule(args) => schedules::run(args).await,
        RemoteCommand::TaskList(args) => task_lists::run(args).await,
        RemoteCommand::Batch(args) => batches::run(args).await,
        RemoteCommand::Clock(args) => clock::run(args).await,
        RemoteCommand::Export(args) => transfer::export(args).await,
        RemoteCommand::Import(args) => transfer::import(args).await,
        RemoteCommand::Modules(command) => modules::run(command).await,
    }
}

async fn demo(args: DemoArgs) -> anyhow::Result<()> {
    let options = weft_host::demo::DemoOptions {
        orders: args.orders,
        listen: args.listen,
        data_dir: args.data,
        serve: args.serve,
        quiet: args.quiet,
        time_skipping: args.time_skipping,
    };
    let shutdown = shutdown_signal().context("cannot install signal handlers")?;
    weft_host::demo::run(options, shutdown).await
}

/// Writes one of the server's start-up lines to stdout. A server goes on serving when nobody
/// reads them (a supervisor that read the address and closed the pipe).
fn announce(line: std::fmt::Arguments) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let _ = out.write_fmt(line).and_then(|()| out.write_all(b"\n"));
    let _ = out.flush();
}

/// Writes one line to stdout; exits at once, successfully, when the reader has gone (as `head`
/// expects of what it reads), and with an error on any other failure to write.
fn print_line(line: std::fmt::Arguments) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(line).and_then(|()| out.write_all(b"\n"));
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!("error: cannot write to stdout: {e}");
            std::process::exit(1);
        }
    }
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
