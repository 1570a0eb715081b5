//! `weft clock`: the server's clock, and moving a time-skipping server's clock ahead by hand.

use clap::{Args, Subcommand};

use crate::manifest::seconds;
use crate::remote::{Remote, print};
use crate::show;

/// `weft clock [advance BY]`.
#[derive(Args)]
pub(crate) struct ClockArgs {
    #[command(subcommand)]
    action: Option<ClockAction>,
    #[command(flatten)]
    remote: Remote,
}

#[derive(Subcommand)]
enum ClockAction {
    /// Move the clock of a server started with --time-skipping ahead: the timers and timeouts
    /// that come due fire at once.
    Advance {
        /// How far: seconds, or 30s, 5m, 2h, 7d.
        #[arg(value_parser = duration)]
        by: u64,
    },
}

/// A duration as `weft type register` reads one, but never NONE.
pub(crate) fn duration(text: &str) -> Result<u64, String> {
    let secs = seconds(text)?;
    secs.parse()
        .map_err(|_| format!("{text:?} is not a duration; write seconds, or 30s, 5m, 2h, 7d"))
}

/// Prints the clock, after moving it if asked.
pub(crate) async fn run(args: ClockArgs) -> anyhow::Result<()> {
    let client = args.remote.client()?;
    let state = match args.action {
        None => client.clock().await?,
        Some(ClockAction::Advance { by }) => client.advance_clock(by as f64).await?,
    };
    print(args.remote.json, &state, [show::clock(&state)]);
    Ok(())
}
