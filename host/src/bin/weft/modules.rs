//! `weft module`, `bind`, `deploy` and `replay`: Wasm modules and bindings through
//! the server's `/v1` API (`weft binding` is `bindings.rs`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use serde_json::json;
use weft_host::client::{
    Bind, BindingKind, Client, ClientError, Limits, ModuleLabel, ModuleList, ModuleRecord, Replay,
    ReplayReport, TypeRef, UpgradePolicy,
};

use crate::bindings::{self, BindingArgs, bound};
use crate::manifest::ModuleSpec;
use crate::remote::{Remote, lines, print, read};
use crate::show;

/// The commands on modules and bindings.
#[derive(Subcommand)]
pub(crate) enum ModulesCommand {
    /// Upload, list or delete Wasm modules on a running server.
    Module(ModuleArgs),
    /// Bind a module to a domain's decision or activity task list, or to a function name.
    Bind(BindArgs),
    /// List, remove or inspect a domain's bindings on a running server.
    Binding(BindingArgs),
    /// Upload a module and bind it, in one step.
    Deploy(DeployArgs),
    /// Replay a decider over a domain's recorded histories and report, run by run, the first
    /// decision it makes differently; fails if an open run diverges (or no run matches).
    Replay(ReplayArgs),
}

#[derive(Args)]
pub(crate) struct ModuleArgs {
    #[command(subcommand)]
    action: ModuleAction,
    #[command(flatten)]
    remote: Remote,
}

#[derive(Subcommand)]
pub(crate) enum ModuleAction {
    /// Upload a component (.wasm built for wasm32-wasip2); prints its digest.
    Upload {
        /// The component's file.
        file: PathBuf,
        #[command(flatten)]
        label: Label,
    },
    /// List the modules.
    List,
    /// Delete a module that no binding uses.
    Delete {
        /// The module's digest, or its first 8 or more hex digits.
        digest: String,
    },
    /// Delete every module that no binding in any domain uses.
    Prune {
        /// Print what would be deleted, and delete nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

/// The name and version label an upload gives its module.
#[derive(Args)]
pub(crate) struct Label {
    /// The module's name, shown beside its digest (default: the file's name without `.wasm`).
    #[arg(long)]
    name: Option<String>,
    /// A version label for it, such as `1.4.0` or a commit.
    #[arg(long)]
    version: Option<String>,
}

impl Label {
    /// The label of an upload of `file`.
    fn of(&self, file: &Path) -> ModuleLabel {
        ModuleLabel {
            name: self.name.clone().or_else(|| default_name(file)),
            version: self.version.clone(),
        }
    }
}

/// A module's name when its upload gives none: its file's name without `.wasm`.
pub(crate) fn default_name(file: &Path) -> Option<String> {
    let stem = file.file_stem()?.to_str()?;
    (!stem.is_empty()).then(|| stem.to_owned())
}

/// What a binding serves: exactly one of a decision task list, an activity task list or a
/// function name.
#[derive(Args)]
#[group(required = true, multiple = false)]
pub(crate) struct Target {
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
    pub(crate) fn get(&self) -> (BindingKind, &str) {
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
pub(crate) struct Tuning {
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
    /// What binding a new decider does to the open runs pinned to older ones: `pinned` (they
    /// stay; the default), `replay` (those whose histories it replays as recorded move to it)
    /// or `all` (all move, unchecked; needs --force). Kept by the binding.
    #[arg(long, value_name = "POLICY", value_parser = upgrade_policy)]
    upgrade: Option<UpgradePolicy>,
    /// Ramp a new decider up: it takes this share of new runs (`10%`), the module it replaces
    /// the rest, until `weft binding promote`.
    #[arg(long, value_name = "PERCENT", value_parser = percent)]
    ramp: Option<u8>,
    /// Start continue-as-new and child runs that a pinned run starts on this decider's list on
    /// the pinned run's module, not the current one (`--inherit-pin=false` to stop). Kept by
    /// the binding.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    inherit_pin: Option<bool>,
    /// Pause a run (`weft workflow resume` resumes it) once this decider has failed N times in
    /// a row on its decision task, so a crashing decider stops using CPU until someone looks.
    /// Off by default.
    #[arg(long, value_name = "N")]
    pause_after_failures: Option<u32>,
}

/// A share such as `10%` (or `10`): 1 to 99.
fn percent(text: &str) -> Result<u8, String> {
    let number = text.strip_suffix('%').unwrap_or(text);
    match number.parse() {
        Ok(share @ 1..=99) => Ok(share),
        _ => Err("expected a share of new runs from 1% to 99%, such as 10%".into()),
    }
}

/// An upgrade policy by name.
pub(crate) fn upgrade_policy(text: &str) -> Result<UpgradePolicy, String> {
    [
        UpgradePolicy::Pinned,
        UpgradePolicy::Replay,
        UpgradePolicy::All,
    ]
    .into_iter()
    .find(|p| p.name() == text)
    .ok_or_else(|| "expected pinned, replay or all".into())
}

impl Tuning {
    /// A module spec's tuning, as the flags would give it.
    pub(crate) fn of(spec: &ModuleSpec) -> Tuning {
        Tuning {
            concurrency: spec.concurrency,
            cpu_ms: spec.cpu_ms,
            memory_mb: spec.memory_mb,
            output_kb: spec.output_kb,
            allow_http: spec.allow_http.clone(),
            upgrade: spec.upgrade,
            ramp: None,
            inherit_pin: spec.inherit_pin,
            pause_after_failures: spec.pause_after_failures,
        }
    }

    /// The binding of module `digest` with this tuning.
    pub(crate) fn bind(&self, digest: &str) -> Bind {
        Bind {
            concurrency: self.concurrency,
            limits: Limits {
                cpu_ms: self.cpu_ms,
                memory_bytes: self.memory_mb.map(|mb| mb.saturating_mul(1 << 20)),
                output_bytes: self.output_kb.map(|kb| kb.saturating_mul(1 << 10)),
            },
            http_hosts: self.allow_http.clone(),
            upgrade: self.upgrade,
            ramp: self.ramp,
            inherit_pin: self.inherit_pin,
            pause_after_failures: self.pause_after_failures,
            ..Bind::module(digest)
        }
    }
}

#[derive(Args)]
pub(crate) struct BindArgs {
    /// The domain.
    #[arg(long)]
    domain: String,
    #[command(flatten)]
    target: Target,
    /// The module's digest, or its first 8 or more hex digits.
    #[arg(long)]
    module: String,
    #[command(flatten)]
    tuning: Tuning,
    /// Allow `--upgrade all`.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    remote: Remote,
}

#[derive(Args)]
pub(crate) struct DeployArgs {
    /// The component's file.
    file: PathBuf,
    #[command(flatten)]
    label: Label,
    /// The domain.
    #[arg(long)]
    domain: String,
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    tuning: Tuning,
    /// Before binding a decider, replay it over the newest N runs of its task list, and refuse
    /// to bind it if it decides an open one differently.
    #[arg(long, value_name = "N", requires = "decisions")]
    verify: Option<u32>,
    /// With --verify: compare every attribute of every decision, not only its type, ids and
    /// the types it runs.
    #[arg(long, requires = "verify")]
    strict: bool,
    /// Bind even if the replay diverges; allow `--upgrade all`.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    remote: Remote,
}

#[derive(Args)]
pub(crate) struct ReplayArgs {
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
    /// Compare every attribute of every decision, not only its type, ids and the types it
    /// runs.
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    remote: Remote,
}

/// `NAME:VERSION` as a workflow type (SWF's names and versions hold no `:`).
pub(crate) fn type_ref(text: &str) -> Result<TypeRef, String> {
    match text.split_once(':') {
        Some((name, version)) if !name.is_empty() && !version.is_empty() => Ok(TypeRef {
            name: name.to_owned(),
            version: version.to_owned(),
        }),
        _ => Err("expected NAME:VERSION, such as OrderWorkflow:1.0".into()),
    }
}

/// Runs a command against a running server's `/v1` API and prints what it answers.
pub(crate) async fn run(command: ModulesCommand) -> anyhow::Result<()> {
    let connect = Remote::client;
    match command {
        ModulesCommand::Module(ModuleArgs { action, remote }) => {
            let client = connect(&remote)?;
            match action {
                ModuleAction::Upload { file, label } => {
                    let module = upload_file(&client, &file, &label.of(&file), remote.json).await?;
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
                ModuleAction::Prune { dry_run } => prune(&client, dry_run, remote.json).await?,
            }
        }
        ModulesCommand::Bind(args) => {
            let client = connect(&args.remote)?;
            let (kind, name) = args.target.get();
            let bind = Bind {
                force: args.force,
                ..args.tuning.bind(&args.module)
            };
            let binding = client.bind(&args.domain, kind, name, &bind).await?;
            print(args.remote.json, &binding, bound(&binding));
        }
        ModulesCommand::Binding(args) => bindings::run(args).await?,
        ModulesCommand::Deploy(args) => deploy(args).await?,
        ModulesCommand::Replay(args) => replay(args).await?,
    }
    Ok(())
}

/// `weft deploy`: uploads the module and binds it, after replaying it (`--verify`) if asked.
async fn deploy(args: DeployArgs) -> anyhow::Result<()> {
    let client = args.remote.client()?;
    let (kind, name) = args.target.get();
    let label = args.label.of(&args.file);
    let module = upload_file(&client, &args.file, &label, args.remote.json).await?;
    let verified = match args.verify {
        Some(last) => {
            let report = verify(&client, &args.domain, name, &module, last, args.strict);
            Some(report.await?)
        }
        None => None,
    };
    if let Some(report) = verified.as_ref().filter(|_| !args.remote.json) {
        print(false, report, lines(&report.runs, show::replay));
    }
    if let Some(report) = &verified {
        let refused = verdict(report, &format!("task list {name}"), args.force);
        if let Some(why) = refused.filter(|_| !args.force) {
            print(args.remote.json, report, []);
            anyhow::bail!("not bound: {why} (--force binds it anyway)");
        }
    }
    let bind = Bind {
        force: args.force,
        ..args.tuning.bind(&module.digest)
    };
    let binding = client.bind(&args.domain, kind, name, &bind).await?;
    let lines = [vec![show::module(&module)], bound(&binding)].concat();
    let mut all = json!({"module": module, "binding": binding});
    if let Some(report) = verified {
        all["replay"] = json!(report);
    }
    print(args.remote.json, &all, lines);
    Ok(())
}

/// `weft replay`: uploads the decider and replays it over the domain's recorded histories.
async fn replay(args: ReplayArgs) -> anyhow::Result<()> {
    let client = args.remote.client()?;
    let label = ModuleLabel {
        name: default_name(&args.module),
        version: None,
    };
    let module = upload_file(&client, &args.module, &label, args.remote.json).await?;
    let replay = Replay {
        module: module.digest,
        workflow_type: args.workflow_type,
        task_list: args.task_list,
        last: args.last,
        strict: args.strict,
    };
    let report = client.replay(&args.domain, &replay).await?;
    if report.runs.is_empty() {
        let mut filter = format!("domain {}", args.domain);
        if let Some(ty) = &replay.workflow_type {
            filter += &format!(", type {}:{}", ty.name, ty.version);
        }
        if let Some(list) = &replay.task_list {
            filter += &format!(", task list {list}");
        }
        anyhow::bail!("no runs to replay: none match {filter}");
    }
    print(args.remote.json, &report, lines(&report.runs, show::replay));
    if let Some(why) = verdict(&report, &format!("domain {}", args.domain), false) {
        anyhow::bail!("{why}");
    }
    Ok(())
}

/// Deletes (or with `dry_run` lists) the modules no binding in any domain uses.
async fn prune(client: &Client, dry_run: bool, json: bool) -> anyhow::Result<()> {
    let mut used = std::collections::HashSet::new();
    for status in ["REGISTERED", "DEPRECATED"] {
        let input = json!({"registrationStatus": status});
        for domain in client
            .swf_pages("ListDomains", input, "domainInfos")
            .await?
        {
            let name = domain["name"].as_str().unwrap_or_default();
            let bindings = client.list_bindings(name).await?;
            for binding in bindings {
                // A ramp's module before it takes its share of new runs.
                if let Some(previous) = binding.previous_module.filter(|_| binding.ramp.is_some()) {
                    used.insert(previous);
                }
                used.insert(binding.module);
            }
        }
    }
    let unused = client.list_modules().await?.into_iter();
    let unused: Vec<_> = unused.filter(|m| !used.contains(&m.digest)).collect();
    let mut lines = Vec::new();
    let mut deleted = Vec::new();
    for module in unused {
        let line = show::module(&module);
        if module.pinned_runs > 0 {
            lines.push(format!("kept {line} (open runs are pinned to it)"));
            continue;
        }
        if dry_run {
            lines.push(format!("would delete {line}"));
            continue;
        }
        match client.delete_module(&module.digest).await {
            Ok(()) => lines.push(format!("deleted {line}")),
            // Bound (or pinned) since the listing: it is in use after all.
            Err(ClientError::Refused { code, message, .. }) if code == "ResourceInUseException" => {
                lines.push(format!("kept {line} ({message})"));
                continue;
            }
            Err(e) => return Err(e.into()),
        }
        deleted.push(module);
    }
    if lines.is_empty() {
        lines.push("no unused modules".into());
    }
    print(json, &json!({"deleted": deleted, "dryRun": dry_run}), lines);
    Ok(())
}

/// Uploads the module in `file`, saying on stderr (unless `quiet`) how long the server has been
/// compiling it.
async fn upload_file(
    client: &Client,
    file: &Path,
    label: &ModuleLabel,
    quiet: bool,
) -> anyhow::Result<ModuleRecord> {
    let name = file.display().to_string();
    upload(client, &name, read(file)?, label, quiet).await
}

/// Uploads `code` as `label` names it, saying on stderr (unless `quiet`) how long the server
/// has been compiling.
pub(crate) async fn upload(
    client: &Client,
    file: &str,
    code: Vec<u8>,
    label: &ModuleLabel,
    quiet: bool,
) -> anyhow::Result<ModuleRecord> {
    let size = code.len();
    let (sent, uploaded) = tokio::sync::oneshot::channel();
    let call = client.upload_module_telling(code, label, Some(sent));
    let mut call = std::pin::pin!(call);
    let mut uploaded = Some(uploaded);
    let mut compiling = None::<Instant>;
    let mut tick = tokio::time::interval(Duration::from_secs(5));
    tick.tick().await;
    loop {
        tokio::select! {
            answer = &mut call => return Ok(answer?),
            _ = async { uploaded.as_mut().unwrap().await }, if uploaded.is_some() => {
                uploaded = None;
                compiling = Some(Instant::now());
                if !quiet {
                    eprintln!("uploaded {file} ({} KiB); the server is compiling it...", size >> 10);
                }
            }
            _ = tick.tick(), if compiling.is_some() => {
                if let (false, Some(since)) = (quiet, compiling) {
                    eprintln!("  still compiling {file}: {} s", since.elapsed().as_secs());
                }
            }
        }
    }
}

/// Replays the uploaded decider `module` over the newest `last` runs of the task list `name`;
/// `strict` compares every attribute of every decision.
pub(crate) async fn verify(
    client: &Client,
    domain: &str,
    name: &str,
    module: &ModuleRecord,
    last: u32,
    strict: bool,
) -> anyhow::Result<ReplayReport> {
    let replay = Replay {
        module: module.digest.clone(),
        task_list: Some(name.to_owned()),
        last: Some(last),
        strict,
        ..Replay::default()
    };
    Ok(client.replay(domain, &replay).await?)
}

/// Says on stderr what a verifying replay over the runs of `what` found, and answers why it
/// refuses the decider, if it does: a divergence on an open run, which the decider would get
/// the next decision task of. A closed run's divergence is information: it gets no more tasks.
/// `forced`: it is bound anyway, and says so.
pub(crate) fn verdict(report: &ReplayReport, what: &str, forced: bool) -> Option<String> {
    let total = report.runs.len();
    let open = report.diverged_open().count();
    let closed = report.diverged().count() - open;
    if total == 0 {
        eprintln!("verified 0 runs: {what} has none yet");
    } else if open + closed == 0 {
        eprintln!("verified {total} runs: none diverges");
    }
    if closed > 0 {
        eprintln!(
            "{closed} closed run(s) of {total} diverge: information only, a closed run gets no \
             more decision tasks"
        );
    }
    if open == 0 {
        return None;
    }
    if forced {
        eprintln!("{open} open run(s) of {total} diverge: bound anyway (--force)");
    }
    Some(format!(
        "the decider diverges on {open} open run(s) of the {total} replayed of {what}: it would \
         decide them differently"
    ))
}
