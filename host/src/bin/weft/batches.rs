//! `weft workflow batch` and `weft batch`: batch jobs, which the server runs at a bounded rate
//! over the open runs a filter picks (Weft's `/v1` extension).

use clap::{Args, Subcommand, ValueEnum};
use weft_host::client::{
    Batch, BatchAction, BatchJobRequest, Client, NamedPoint, RunFilter, RunState, Timestamp,
};

use crate::project;
use crate::remote::{Remote, print};
use crate::show;
use crate::workflows::List;

/// `weft workflow batch ...`: a job made over the open runs the filters pick.
#[derive(Args)]
pub(crate) struct WorkflowBatch {
    /// What to do to each run.
    #[arg(value_enum)]
    action: Verb,
    #[command(flatten)]
    filter: List,
    /// The signal to send (signal only).
    #[arg(long = "signal", value_name = "NAME")]
    signal_name: Option<String>,
    /// The signal's input (signal only).
    #[arg(long)]
    input: Option<String>,
    /// Why (terminate, pause and reset).
    #[arg(long)]
    reason: Option<String>,
    /// The decision task a reset decides again: the run's first, or the last before its first
    /// failure (reset only).
    #[arg(long, value_enum)]
    to: Option<Point>,
    /// Runs acted on per second (default and most: the server's max_batch_rate).
    #[arg(long, value_name = "N")]
    rate: Option<u32>,
}

/// A batch job's action, as the command line names it.
#[derive(Clone, Copy, ValueEnum)]
enum Verb {
    Terminate,
    Cancel,
    Signal,
    Pause,
    Resume,
    /// Reset each run to --to, unchecked against its decider.
    Reset,
}

/// Where a batch reset cuts each run, as `--to` names it.
#[derive(Clone, Copy, ValueEnum)]
enum Point {
    First,
    LastGood,
}

/// Makes the job `batch` asks for in `domain` and prints it (its id first).
pub(crate) async fn make(
    client: &Client,
    domain: &str,
    batch: WorkflowBatch,
    json: bool,
) -> anyhow::Result<()> {
    if batch.to.is_some() && !matches!(batch.action, Verb::Reset) {
        anyhow::bail!("--to is for the reset action");
    }
    let action = match (batch.action, batch.signal_name) {
        (Verb::Signal, None) => anyhow::bail!("a signal batch needs --signal NAME"),
        (Verb::Signal, Some(signal_name)) => BatchAction::Signal {
            signal_name,
            input: batch.input,
        },
        (_, Some(_)) => anyhow::bail!("--signal is for the signal action"),
        (Verb::Terminate, None) => BatchAction::Terminate {
            reason: batch.reason,
            details: None,
        },
        (Verb::Cancel, None) => BatchAction::RequestCancel,
        (Verb::Pause, None) => BatchAction::Pause {
            reason: batch.reason,
        },
        (Verb::Resume, None) => BatchAction::Resume,
        (Verb::Reset, None) => BatchAction::Reset {
            to: match batch.to {
                Some(Point::First) => NamedPoint::First,
                Some(Point::LastGood) => NamedPoint::LastGood,
                None => anyhow::bail!("a reset batch needs --to first|last-good"),
            },
            reason: batch.reason,
        },
    };
    let request = BatchJobRequest {
        batch: Batch {
            filter: run_filter(batch.filter),
            action,
        },
        rate: batch.rate,
        identity: None,
    };
    let job = client.create_batch_job(domain, &request).await?;
    print(json, &job, show::batch_job(&job));
    Ok(())
}

/// The run filter the list filters name.
fn run_filter(list: List) -> RunFilter {
    let started_after = match list.oldest() {
        0 => None,
        oldest => Timestamp::from_secs_f64(oldest as f64),
    };
    let (type_name, version) = match list.workflow_type {
        Some(ty) => match ty.split_once(':') {
            Some((name, version)) => (Some(name.to_owned()), Some(version.to_owned())),
            None => (Some(ty), None),
        },
        None => (None, None),
    };
    RunFilter {
        status: match (list.open, list.closed) {
            (_, true) => Some(RunState::Closed),
            _ => None,
        },
        workflow_id: list.id,
        tag: list.tag,
        type_name,
        version,
        close_status: list.status,
        started_after,
        ..RunFilter::default()
    }
}

/// `weft batch ...`.
#[derive(Args)]
pub(crate) struct BatchArgs {
    #[command(subcommand)]
    action: Action,
    /// The domain (default: the project's).
    #[arg(long, global = true)]
    domain: Option<String>,
    #[command(flatten)]
    remote: Remote,
}

#[derive(Subcommand)]
enum Action {
    /// List the domain's batch jobs, newest first.
    List,
    /// Show a batch job: its state, its progress and the runs it could not act on.
    Describe { id: String },
    /// Stop a running batch job: the runs it has not reached are left as they are.
    Cancel { id: String },
}

/// Runs `weft batch ...`.
pub(crate) async fn run(args: BatchArgs) -> anyhow::Result<()> {
    let client = args.remote.client()?;
    let json = args.remote.json;
    let domain = project::domain(args.domain)?;
    match args.action {
        Action::List => {
            let jobs = client.batch_jobs(&domain).await?;
            let lines = jobs.iter().map(show::batch_job_line);
            print(json, &serde_json::json!({ "jobs": jobs }), lines);
        }
        Action::Describe { id } => {
            let job = client.batch_job(&domain, &id).await?;
            print(json, &job, show::batch_job(&job));
        }
        Action::Cancel { id } => {
            let job = client.cancel_batch_job(&domain, &id).await?;
            print(json, &job, show::batch_job(&job));
        }
    }
    Ok(())
}
