//! `weft export` and `weft import`: runs read out of any SWF endpoint (AWS's with the usual
//! credentials, or another Weft) through SWF's listings, describe and history, written one
//! JSON file per run, and stored in Weft exactly as recorded.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Args;
use serde_json::{Value, json};
use weft_host::client::{
    Client, ClientError, ExportedRun, RunSelection, TypeRef, export_file_name,
};

use crate::modules::type_ref;
use crate::remote::Remote;

/// Which runs, besides open or closed.
#[derive(Args)]
struct Filter {
    /// Only runs started on or after this day (YYYY-MM-DD, UTC) or time (seconds since the
    /// epoch).
    #[arg(long, value_parser = since)]
    since: Option<f64>,
    /// Only runs of this workflow type (NAME:VERSION).
    #[arg(long = "type", value_parser = type_ref)]
    workflow_type: Option<TypeRef>,
}

/// `weft export`.
#[derive(Args)]
pub(crate) struct ExportArgs {
    /// The domain whose closed runs to write.
    #[arg(long)]
    domain: String,
    /// The directory to write them into, one JSON file per run; created if missing.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    filter: Filter,
    #[command(flatten)]
    remote: Remote,
}

/// `weft import`.
#[derive(Args)]
pub(crate) struct ImportArgs {
    /// Where the runs are: an SWF endpoint (AWS's, such as
    /// https://swf.us-east-1.amazonaws.com, or another Weft), or a directory `weft export`
    /// wrote.
    #[arg(long)]
    from: String,
    /// The domain to read there. A directory `weft export` wrote names its domain itself
    /// (`domain.json`): this, if given, must be that one.
    #[arg(long)]
    domain: Option<String>,
    /// The domain to store them in here (default: the source's name); registered if missing,
    /// with the source's retention.
    #[arg(long)]
    to_domain: Option<String>,
    /// Only closed runs.
    #[arg(long, conflicts_with = "open")]
    closed: bool,
    /// Only open runs.
    #[arg(long)]
    open: bool,
    #[command(flatten)]
    filter: Filter,
    #[command(flatten)]
    remote: Remote,
}

/// `YYYY-MM-DD` (midnight UTC) or seconds since the epoch.
fn since(text: &str) -> Result<f64, String> {
    if let Ok(secs) = text.parse::<f64>() {
        return Ok(secs);
    }
    let parts: Vec<i64> = text.split('-').filter_map(|n| n.parse().ok()).collect();
    match parts[..] {
        [year, month @ 1..=12, day @ 1..=31] if text.len() == 10 => {
            Ok(days_from_civil(year, month, day) as f64 * 86_400.0)
        }
        _ => Err(format!(
            "{text:?} is not a date: write YYYY-MM-DD, or seconds since the epoch"
        )),
    }
}

/// The days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

impl Filter {
    fn selection(&self, closed: bool, open: bool) -> RunSelection {
        RunSelection {
            closed,
            open,
            since: self.since,
            workflow_type: (self.workflow_type.as_ref())
                .map(|t| (t.name.clone(), t.version.clone())),
        }
    }
}

/// Whether `info` (an `executionInfo`) is one `selection` takes.
fn selected(info: &Value, selection: &RunSelection) -> bool {
    let open = info["executionStatus"] == "OPEN";
    let started = info["startTimestamp"].as_f64().unwrap_or(0.0);
    let ty = &info["workflowType"];
    (if open {
        selection.open
    } else {
        selection.closed
    }) && selection.since.is_none_or(|since| started >= since)
        && (selection.workflow_type.as_ref())
            .is_none_or(|(name, version)| ty["name"] == **name && ty["version"] == **version)
}

/// The file of run `execution` in an export.
fn file_name(execution: &Value) -> String {
    let id = |member: &str| execution[member].as_str().unwrap_or_default();
    export_file_name(id("workflowId"), id("runId"))
}

/// Writes the closed runs of the domain to the directory.
pub(crate) async fn export(args: ExportArgs) -> anyhow::Result<()> {
    let client = args.remote.client()?;
    let selection = args.filter.selection(true, false);
    let infos = client.select_runs(&args.domain, &selection).await?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    // The domain itself, so that an import knows which domain the runs are from and keeps its
    // retention.
    let domain = client
        .swf("DescribeDomain", json!({"name": args.domain}))
        .await?;
    let path = args.out.join(DOMAIN_FILE);
    std::fs::write(&path, serde_json::to_vec(&domain)?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    for (n, info) in infos.iter().enumerate() {
        let run = client.export_run(&args.domain, &info["execution"]).await?;
        let path = args.out.join(file_name(run.execution()));
        let json = serde_json::to_vec(&run)?;
        std::fs::write(&path, json).with_context(|| format!("cannot write {}", path.display()))?;
        if (n + 1) % 100 == 0 {
            println!("exported {} of {} runs", n + 1, infos.len());
        }
    }
    println!("exported {} runs to {}", infos.len(), args.out.display());
    Ok(())
}

/// The file of an export that holds `DescribeDomain`'s answer for its domain.
const DOMAIN_FILE: &str = "domain.json";

/// Where `weft import` reads runs.
enum Source {
    Endpoint(Client),
    /// A directory `weft export` wrote: its runs, read, oldest start first.
    Dir(Vec<ExportedRun>),
}

/// Stores the runs the source holds in the domain here, as they were recorded.
pub(crate) async fn import(args: ImportArgs) -> anyhow::Result<()> {
    let here = args.remote.client()?;
    let both = !args.closed && !args.open;
    let selection = args
        .filter
        .selection(args.closed || both, args.open || both);
    let (source, from, described) = if Path::new(&args.from).is_dir() {
        let dir = Path::new(&args.from);
        let (from, described) = exported_domain(dir, args.domain.as_deref())?;
        (Source::Dir(read_export(dir, &selection)?), from, described)
    } else if args.from.contains("://") {
        let there = args.remote.client_for(&args.from)?;
        let from = args.domain.clone().with_context(|| {
            format!(
                "--from {}: name the domain to read there with --domain",
                args.from
            )
        })?;
        let described = there.swf("DescribeDomain", json!({"name": from})).await?;
        (Source::Endpoint(there), from, Some(described))
    } else {
        anyhow::bail!(
            "--from {}: no such directory, nor an http:// or https:// endpoint",
            args.from
        );
    };
    let to = args.to_domain.clone().unwrap_or_else(|| from.clone());
    let retention = match &described {
        Some(domain) => domain["configuration"]["workflowExecutionRetentionPeriodInDays"].clone(),
        None => {
            println!(
                "{} does not say the domain's retention: 30 days if {to} is new",
                args.from
            );
            json!("30")
        }
    };
    let runs: Vec<Value> = match &source {
        Source::Endpoint(there) => {
            let infos = there.select_runs(&from, &selection).await?;
            infos
                .into_iter()
                .map(|info| info["execution"].clone())
                .collect()
        }
        Source::Dir(runs) => runs.iter().map(|run| run.execution().clone()).collect(),
    };
    let mut types = HashSet::new();
    let (mut added, total) = (0, runs.len());
    for (n, execution) in runs.iter().enumerate() {
        let run = match &source {
            Source::Endpoint(there) => there.export_run(&from, execution).await?,
            Source::Dir(runs) => runs[n].clone(),
        };
        let import = run
            .to_import()
            .with_context(|| format!("run {execution} has no workflowId and runId"))?;
        // Refused before anything is registered for it; its types registered once it is in.
        if let Some(problem) = import.problem() {
            anyhow::bail!("run {execution} cannot be imported: {problem}");
        }
        if n == 0 {
            ensure_domain(&here, &to, retention.clone()).await?;
        }
        let stored = here.import_run(&to, &import).await;
        if stored.with_context(|| format!("importing run {execution}"))? {
            added += 1;
        }
        register_types(&here, &to, &run, &mut types).await?;
        if (n + 1) % 100 == 0 {
            println!("{} of {total} runs: {added} imported", n + 1);
        }
    }
    println!(
        "imported {added} of {total} runs into {to} ({} already here)",
        total - added
    );
    Ok(())
}

/// The name of the domain whose runs `dir` holds, and its `DescribeDomain` answer, from the
/// export's `domain.json`; without one (an archive's folder, an older export), `named`, unchecked.
fn exported_domain(dir: &Path, named: Option<&str>) -> anyhow::Result<(String, Option<Value>)> {
    let path = dir.join(DOMAIN_FILE);
    let described: Value = match std::fs::read(&path) {
        Ok(text) => serde_json::from_slice(&text)
            .with_context(|| format!("{} is not what weft export wrote", path.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let name = named.with_context(|| {
                format!(
                    "{} has no {DOMAIN_FILE}: name the domain its runs are from with --domain",
                    dir.display()
                )
            })?;
            return Ok((name.to_owned(), None));
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let name = described["domainInfo"]["name"]
        .as_str()
        .with_context(|| format!("{} names no domain", path.display()))?
        .to_owned();
    if let Some(named) = named.filter(|named| *named != name) {
        anyhow::bail!(
            "--domain {named}: {} holds the runs of domain {name}; --domain names the domain \
             they are from, --to-domain the one to store them in here",
            dir.display()
        );
    }
    Ok((name, Some(described)))
}

/// The runs of an export in `dir` that `selection` takes, oldest start first.
fn read_export(dir: &Path, selection: &RunSelection) -> anyhow::Result<Vec<ExportedRun>> {
    let mut runs = Vec::new();
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.extension().is_none_or(|e| e != "json") || path.ends_with(DOMAIN_FILE) {
            continue;
        }
        let text =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let run: ExportedRun = serde_json::from_slice(&text)
            .with_context(|| format!("{} is not a run weft export wrote", path.display()))?;
        if selected(&run.describe["executionInfo"], selection) {
            runs.push(run);
        }
    }
    let start = |run: &ExportedRun| run.describe["executionInfo"]["startTimestamp"].as_f64();
    runs.sort_by(|a, b| start(a).unwrap_or(0.0).total_cmp(&start(b).unwrap_or(0.0)));
    Ok(runs)
}

/// Registers `domain` here with `retention` days, unless it is registered.
async fn ensure_domain(here: &Client, domain: &str, retention: Value) -> anyhow::Result<()> {
    match here.swf("DescribeDomain", json!({"name": domain})).await {
        Ok(_) => Ok(()),
        Err(ClientError::Refused { code, .. }) if code == "UnknownResourceFault" => {
            let register = json!({
                "name": domain,
                "workflowExecutionRetentionPeriodInDays": retention,
            });
            here.swf("RegisterDomain", register).await?;
            println!("registered domain {domain}");
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

/// Registers here, without defaults, the workflow and activity types `run`'s history runs
/// that were not registered yet; `done` holds those seen before.
async fn register_types(
    here: &Client,
    domain: &str,
    run: &ExportedRun,
    done: &mut HashSet<(bool, String, String)>,
) -> anyhow::Result<()> {
    for key in run.types_run() {
        if done.contains(&key) {
            continue;
        }
        let (workflow, name, version) = &key;
        let operation = match workflow {
            true => "RegisterWorkflowType",
            false => "RegisterActivityType",
        };
        let input = json!({"domain": domain, "name": name, "version": version});
        match here.swf(operation, input).await {
            Ok(_) => {}
            Err(ClientError::Refused { code, .. }) if code == "TypeAlreadyExistsFault" => {}
            Err(e) => return Err(e.into()),
        }
        done.insert(key);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_and_times_are_read_as_utc() {
        assert_eq!(since("1970-01-01"), Ok(0.0));
        assert_eq!(since("2026-11-27"), Ok(1_795_737_600.0));
        assert_eq!(since("1795737600.5"), Ok(1_795_737_600.5));
        assert!(since("27/11/2026").unwrap_err().contains("YYYY-MM-DD"));
    }
}
