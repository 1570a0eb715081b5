//! The `weft` command: clap → config → `Weft::serve`. Nothing else lives here.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use tokio::net::TcpListener;
use weft_host::{Config, Weft};

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

#[derive(Subcommand)]
enum Command {
    /// Serve the SWF API over HTTP.
    Serve(ServeArgs),
}

#[derive(Args)]
struct ServeArgs {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, env = "WEFT_LISTEN", default_value = "127.0.0.1:8080")]
    listen: String,
    /// Directory holding the database; created if missing.
    #[arg(long, env = "WEFT_DATA", default_value = "./weft-data")]
    data: PathBuf,
    /// Seconds a long poll waits for a task before answering empty.
    #[arg(long, env = "WEFT_POLL_TIMEOUT", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    poll_timeout: u64,
    /// The 12-digit account id in ARNs.
    #[arg(long, env = "WEFT_ACCOUNT_ID", default_value = weft_host::DEFAULT_ACCOUNT_ID)]
    account_id: String,
    /// Keep closed executions this many seconds instead of their domain's retention period
    /// (for testing; SWF counts retention in days).
    #[arg(long, env = "WEFT_RETAIN_CLOSED_FOR", value_name = "SECS")]
    retain_closed_for: Option<u64>,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let cli = Cli::parse();
    let outcome = tokio::runtime::Runtime::new()
        .context("cannot start the async runtime")
        .and_then(|runtime| match cli.command {
            Command::Serve(args) => runtime.block_on(serve(args)),
        });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let mut config = Config::new(args.data);
    config.poll_timeout = Duration::from_secs(args.poll_timeout);
    config.account_id = args.account_id;
    config.retention_override = args.retain_closed_for.map(Duration::from_secs);
    let weft = Weft::open(config)?;
    let listener = TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    // Handlers go in before the address is announced: whoever reads it may signal at once.
    let shutdown = shutdown_signal().context("cannot install signal handlers")?;
    let addr = listener.local_addr()?;
    println!("listening on http://{addr}");
    tracing::info!(%addr, "serving SWF");
    weft.serve(listener, shutdown).await?;
    tracing::info!("stopped");
    Ok(())
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
