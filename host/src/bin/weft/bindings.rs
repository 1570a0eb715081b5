//! `weft binding`: a domain's bindings on a running server, their versions, ramps, upgrades and
//! rollbacks, through the server's `/v1` API.

use clap::{Args, Subcommand};
use serde_json::json;
use weft_host::client::{Binding, BindingList, FailureList, UpgradeQuery, UpgradeReport};

use crate::modules::Target;
use crate::remote::{Remote, lines, print};
use crate::show;

#[derive(Args)]
pub(crate) struct BindingArgs {
    #[command(subcommand)]
    action: BindingAction,
    #[command(flatten)]
    remote: Remote,
}

#[derive(Subcommand)]
pub(crate) enum BindingAction {
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
    /// Bind a binding back to the module it ran before its module last changed; a second
    /// rollback restores the module the first replaced.
    Rollback {
        /// The domain.
        #[arg(long)]
        domain: String,
        #[command(flatten)]
        target: Target,
    },
    /// Show a binding and, for a decision binding, its versions: every module bound to it,
    /// with the open runs pinned to each.
    Describe {
        /// The domain.
        #[arg(long)]
        domain: String,
        #[command(flatten)]
        target: Target,
    },
    /// End a decision binding's ramp: its module takes every new run.
    Promote {
        /// The domain.
        #[arg(long)]
        domain: String,
        /// The decision task list.
        #[arg(long, value_name = "TASK_LIST")]
        decisions: String,
    },
    /// Replay the open runs of a decision task list pinned to older modules with its current
    /// one, and move those it decides as recorded to it; prints each run, moved or kept.
    Upgrade {
        /// The domain.
        #[arg(long)]
        domain: String,
        /// The decision task list.
        #[arg(long, value_name = "TASK_LIST")]
        decisions: String,
        /// Say what would move, and move nothing.
        #[arg(long)]
        dry_run: bool,
        /// Move every run, unreplayed: for emergencies (needs --force).
        #[arg(long)]
        all: bool,
        /// Allow --all.
        #[arg(long, requires = "all")]
        force: bool,
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

/// Runs `weft binding ACTION` against a running server and prints what it answers.
pub(crate) async fn run(BindingArgs { action, remote }: BindingArgs) -> anyhow::Result<()> {
    let (client, json) = (remote.client()?, remote.json);
    match action {
        BindingAction::List { domain } => {
            let bindings = client.list_bindings(&domain).await?;
            let lines = bindings.iter().flat_map(described).collect::<Vec<_>>();
            print(json, &BindingList { bindings }, lines);
        }
        BindingAction::Describe { domain, target } => {
            let (kind, name) = target.get();
            let bindings = client.list_bindings(&domain).await?;
            let found = bindings
                .into_iter()
                .find(|b| b.kind == kind && b.name == name);
            let Some(binding) = found else {
                anyhow::bail!("no {} binding {name} in domain {domain}", kind.name());
            };
            print(json, &binding, described(&binding));
        }
        BindingAction::Promote { domain, decisions } => {
            let binding = client.promote(&domain, &decisions).await?;
            print(json, &binding, [show::binding(&binding)]);
        }
        BindingAction::Upgrade {
            domain,
            decisions,
            dry_run,
            all,
            force,
        } => {
            let query = UpgradeQuery {
                dry_run,
                all,
                force,
            };
            let report = client.upgrade(&domain, &decisions, &query).await?;
            print(json, &report, upgraded(&report));
        }
        BindingAction::Remove { domain, target } => {
            let (kind, name) = target.get();
            client.unbind(&domain, kind, name).await?;
            let line = format!("removed {} {name} in {domain}", kind.name());
            print(json, &json!({}), [line]);
        }
        BindingAction::Rollback { domain, target } => {
            let (kind, name) = target.get();
            let binding = client.rollback(&domain, kind, name).await?;
            print(json, &binding, bound(&binding));
        }
        BindingAction::Failures { domain, target } => {
            let (kind, name) = target.get();
            let failures = client.failures(&domain, kind, name).await?;
            let lines = lines(&failures, show::failure);
            print(json, &FailureList { failures }, lines);
        }
    }
    Ok(())
}

/// What `weft bind` and `deploy` print of a binding: its line, then each run its upgrade
/// policy moved or kept.
pub(crate) fn bound(binding: &Binding) -> Vec<String> {
    let mut lines = vec![show::binding(binding)];
    if let Some(report) = binding.upgraded.as_ref().filter(|r| !r.runs.is_empty()) {
        lines.extend(upgraded(report));
    }
    lines
}

/// A binding's line, then its versions.
fn described(binding: &Binding) -> Vec<String> {
    [vec![show::binding(binding)], show::versions(binding)].concat()
}

/// An upgrade's lines: each run, then a count of those moved.
fn upgraded(report: &UpgradeReport) -> Vec<String> {
    let mut lines: Vec<String> = report
        .runs
        .iter()
        .map(|run| show::upgrade(report, run))
        .collect();
    let moved = report.runs.iter().filter(|r| r.moved).count();
    let verb = if report.dry_run {
        "would move"
    } else {
        "moved"
    };
    lines.push(format!(
        "{verb} {moved} of {} runs pinned to older modules to {}",
        report.runs.len(),
        report.module
    ));
    lines
}
