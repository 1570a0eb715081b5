//! `weft workflow reset`: a run started again from one of its decision tasks.

use clap::Args;
use weft_host::client::{Client, NamedPoint, ResetPoint, ResetRequest};

use super::Run;
use crate::remote::print;
use crate::show;

#[derive(Args)]
#[command(group = clap::ArgGroup::new("point").required(true))]
pub(super) struct Reset {
    #[command(flatten)]
    run: Run,
    /// Decide again the decision task this event belongs to (its DecisionTaskScheduled,
    /// DecisionTaskStarted or DecisionTaskCompleted event's id).
    #[arg(long, value_name = "EVENT_ID", group = "point")]
    to: Option<u64>,
    /// Decide again the last decision task started before the run's first failure.
    #[arg(long, group = "point")]
    last_good: bool,
    /// Decide again the run's first decision task.
    #[arg(long, group = "point")]
    first: bool,
    /// Why: the old run's termination reason.
    #[arg(long)]
    reason: Option<String>,
    /// Reset even if the bound decider decides the carried events otherwise than recorded.
    #[arg(long)]
    force: bool,
    /// Do not record again the signals the run received after that decision task.
    #[arg(long)]
    no_signals: bool,
}

/// Resets the run `reset` names in `domain` and prints what the reset did.
pub(super) async fn run(
    client: &Client,
    domain: &str,
    reset: Reset,
    json: bool,
) -> anyhow::Result<()> {
    let workflow_id = reset.run.workflow_id.clone();
    let report = client.reset(domain, &workflow_id, &reset.into()).await?;
    print(json, &report, show::reset(&report));
    Ok(())
}

impl From<Reset> for ResetRequest {
    fn from(reset: Reset) -> ResetRequest {
        let to = match (reset.to, reset.first) {
            (Some(event), _) => ResetPoint::Event(event),
            (None, true) => ResetPoint::Named(NamedPoint::First),
            (None, false) => ResetPoint::Named(NamedPoint::LastGood),
        };
        ResetRequest {
            run_id: reset.run.run,
            to,
            reason: reset.reason,
            force: reset.force,
            reapply_signals: !reset.no_signals,
        }
    }
}
