//! `weft apply`: makes a server hold what a project's `weft-app.toml` declares. It first works
//! out every step and every refusal (the manifest's own mistakes, what SWF cannot change, and
//! what the server would refuse, asked as dry runs), and changes nothing if there is one;
//! then, unless `--dry-run`, takes the steps in order: the domain, the types, then each module
//! (uploaded, verified, bound; deleted again if it was new and could not be bound). What
//! already matches is left alone, so a second run changes nothing.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;
use serde_json::{Value, json};
use weft_host::client::{
    Bind, Binding, BindingKind, Client, ClientError, GuestLimits, ListLimitRequest, ModuleLabel,
    ModuleRecord, ScheduleDefinition, World, module_digest,
};

use crate::manifest::{ActivitySpec, FILE_NAME, Manifest, ModuleSpec, WorkflowSpec};
use crate::modules::{Tuning, upload, verdict, verify};
use crate::project::Project;
use crate::remote::{Remote, print};

/// `weft apply`.
#[derive(Args)]
pub(crate) struct ApplyArgs {
    /// The manifest (default: weft-app.toml in the current directory).
    #[arg(long, short = 'f', value_name = "FILE")]
    file: Option<PathBuf>,
    /// Before binding a changed decider, replay it over the newest N runs of its task list,
    /// and refuse to bind it if it decides an open one differently.
    #[arg(long, value_name = "N")]
    verify: Option<u32>,
    /// With --verify: compare every attribute of every decision, not only its type, ids and
    /// the types it runs.
    #[arg(long, requires = "verify")]
    strict: bool,
    /// Bind even if the replay diverges; allow `upgrade = "all"`.
    #[arg(long)]
    force: bool,
    /// Print what would change, and change nothing.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    remote: Remote,
}

/// One line of what `apply` did or would do.
#[derive(Serialize)]
struct Step {
    /// `registered`, `uploaded`, `bound`, `unchanged`, or `would register`/`would bind`.
    done: String,
    /// What: `domain greetings`, `workflow type Greeting:1`, `decisions greeting-decisions`.
    what: String,
}

/// A type the manifest declares.
#[derive(Clone, Copy)]
enum Declared<'a> {
    Workflow(&'a WorkflowSpec),
    Activity(&'a ActivitySpec),
}

impl Declared<'_> {
    /// `workflow type NAME:VERSION` or `activity type NAME:VERSION`.
    fn what(self) -> String {
        match self {
            Declared::Workflow(w) => format!("workflow type {}:{}", w.name, w.version),
            Declared::Activity(a) => format!("activity type {}:{}", a.name, a.version),
        }
    }

    /// Its registration, and the request that describes it.
    fn requests(self, domain: &str) -> (&'static str, Value, &'static str, Value) {
        let key = |name: &str, version: &str| json!({"name": name, "version": version});
        match self {
            Declared::Workflow(w) => (
                "RegisterWorkflowType",
                w.register(domain),
                "DescribeWorkflowType",
                json!({"domain": domain, "workflowType": key(&w.name, &w.version)}),
            ),
            Declared::Activity(a) => (
                "RegisterActivityType",
                a.register(domain),
                "DescribeActivityType",
                json!({"domain": domain, "activityType": key(&a.name, &a.version)}),
            ),
        }
    }

    fn differences(self, configuration: &Value) -> Vec<String> {
        match self {
            Declared::Workflow(w) => w.differences(configuration),
            Declared::Activity(a) => a.differences(configuration),
        }
    }
}

/// A change to make, in order.
enum Change {
    Register {
        what: String,
        operation: &'static str,
        input: Value,
    },
    Deploy(Box<Deploy>),
    /// A schedule made (`exists` false) or changed.
    Schedule {
        what: String,
        id: String,
        definition: Box<ScheduleDefinition>,
        exists: bool,
    },
    /// A task list's limits set as declared.
    Limit {
        what: String,
        list: (BindingKind, String),
        request: ListLimitRequest,
    },
}

struct Deploy {
    what: String,
    spec: ModuleSpec,
    kind: BindingKind,
    name: String,
    code: Vec<u8>,
    digest: String,
    /// Whether the server holds no module of these bytes yet: then one this apply uploads
    /// and cannot bind is deleted again.
    new: bool,
}

/// Runs `weft apply`.
pub(crate) async fn run(args: ApplyArgs) -> anyhow::Result<()> {
    let Some(project) = Project::find(args.file.as_deref())? else {
        anyhow::bail!("no {FILE_NAME} here: run this in a project directory, or give --file");
    };
    let client = args.remote.client()?;
    let (changes, mut steps) = plan(&client, &project).await?;
    if !args.remote.json && !args.dry_run {
        for step in &steps {
            println!("{}  {}", step.done, step.what);
        }
    }
    let verb = |change: &Change| match change {
        Change::Register { what, .. } => ("register", what.clone()),
        Change::Deploy(deploy) => ("upload and bind", deploy.what.clone()),
        Change::Schedule { what, exists, .. } => match exists {
            true => ("change", what.clone()),
            false => ("make", what.clone()),
        },
        Change::Limit { what, .. } => ("limit", what.clone()),
    };
    if args.dry_run {
        for change in &changes {
            let (verb, what) = verb(change);
            steps.push(Step {
                done: format!("would {verb}"),
                what,
            });
        }
        return finish(args.remote.json, steps);
    }
    for change in changes {
        let step = match change {
            Change::Register {
                what,
                operation,
                input,
            } => {
                client.swf(operation, input).await?;
                let done = "registered".into();
                Step { done, what }
            }
            Change::Deploy(deploy) => apply_module(&client, &project, *deploy, &args).await?,
            Change::Schedule {
                what,
                id,
                definition,
                exists,
            } => {
                let domain = &project.manifest.domain.name;
                let done = match exists {
                    true => client
                        .update_schedule(domain, &id, &definition)
                        .await
                        .map(|_| "changed"),
                    false => client
                        .create_schedule(domain, &id, &definition)
                        .await
                        .map(|_| "made"),
                };
                Step {
                    done: done?.into(),
                    what,
                }
            }
            Change::Limit {
                what,
                list: (kind, name),
                request,
            } => {
                let domain = &project.manifest.domain.name;
                let list = (kind, name.as_str());
                client.limit_task_list(domain, list, &request).await?;
                let done = "limited".into();
                Step { done, what }
            }
        };
        if !args.remote.json {
            println!("{}  {}", step.done, step.what);
        }
        steps.push(step);
    }
    if !args.remote.json && steps.iter().all(|s| s.done == "unchanged") {
        println!("nothing to change");
    }
    if args.remote.json {
        print(true, &json!({"steps": steps}), []);
    }
    Ok(())
}

/// Prints `steps` (as JSON, or a line each).
fn finish(json: bool, steps: Vec<Step>) -> anyhow::Result<()> {
    let lines = steps.iter().map(|s| format!("{}  {}", s.done, s.what));
    let lines: Vec<_> = lines.collect();
    print(json, &json!({"steps": steps}), lines);
    Ok(())
}

/// What must change, in order, and the steps for what already matches; or every refusal.
async fn plan(client: &Client, project: &Project) -> anyhow::Result<(Vec<Change>, Vec<Step>)> {
    let mut plan = Plan::default();
    let domain_exists = plan.domain(client, &project.manifest).await?;
    plan.types(client, &project.manifest, domain_exists).await?;
    plan.modules(client, project, domain_exists).await?;
    plan.schedules(client, &project.manifest, domain_exists)
        .await?;
    plan.task_lists(client, &project.manifest, domain_exists)
        .await?;
    if !plan.refusals.is_empty() {
        for refusal in &plan.refusals {
            eprintln!("refused: {refusal}");
        }
        anyhow::bail!(
            "nothing applied: {} of {FILE_NAME}'s declarations cannot be applied",
            plan.refusals.len()
        );
    }
    Ok((plan.changes, plan.same))
}

/// What `apply` found: what to change, what matches, and what cannot be applied.
#[derive(Default)]
struct Plan {
    changes: Vec<Change>,
    same: Vec<Step>,
    refusals: Vec<String>,
}

impl Plan {
    fn unchanged(&mut self, what: String) {
        let done = "unchanged".into();
        self.same.push(Step { done, what });
    }

    /// Plans the domain; answers whether it exists.
    async fn domain(&mut self, client: &Client, manifest: &Manifest) -> anyhow::Result<bool> {
        let domain = &manifest.domain.name;
        let described = found(client.swf("DescribeDomain", json!({"name": domain})).await)?;
        let Some(described) = described else {
            self.changes.push(Change::Register {
                what: format!("domain {domain}"),
                operation: "RegisterDomain",
                input: manifest.register_domain(),
            });
            return Ok(false);
        };
        let days = &described["configuration"]["workflowExecutionRetentionPeriodInDays"];
        let days = days.as_str().unwrap_or("?");
        let want = manifest.domain.retention_days.to_string();
        if described["domainInfo"]["status"] == "DEPRECATED" {
            let refusal = format!("domain {domain} is deprecated: name another domain");
            self.refusals.push(refusal);
        } else if days != want {
            self.refusals.push(format!(
                "domain {domain} keeps closed runs {days} days on the server, {want} here: SWF \
                 cannot change that; set retention-days = {days} or name another domain",
            ));
        } else {
            self.unchanged(format!("domain {domain}"));
        }
        Ok(true)
    }

    async fn types(
        &mut self,
        client: &Client,
        manifest: &Manifest,
        domain_exists: bool,
    ) -> anyhow::Result<()> {
        let workflows = manifest.workflows.iter().map(Declared::Workflow);
        let activities = manifest.activities.iter().map(Declared::Activity);
        for declared in workflows.chain(activities) {
            let what = declared.what();
            let (operation, input, describe, key) = declared.requests(&manifest.domain.name);
            let described = match domain_exists {
                true => found(client.swf(describe, key).await)?,
                false => None,
            };
            let Some(described) = described else {
                let change = Change::Register {
                    what,
                    operation,
                    input,
                };
                self.changes.push(change);
                continue;
            };
            let differences = declared.differences(&described["configuration"]);
            if described["typeInfo"]["status"] == "DEPRECATED" {
                self.refusals
                    .push(format!("{what} is deprecated: bump its version"));
            } else if !differences.is_empty() {
                self.refusals.push(format!(
                    "{what} is registered with other defaults ({}); SWF cannot change a type: \
                     bump its version",
                    differences.join("; ")
                ));
            } else {
                self.unchanged(what);
            }
        }
        Ok(())
    }

    /// Plans the schedules: made where missing, changed where they differ. A schedule the
    /// manifest no longer declares stays (`weft schedule delete` removes it).
    async fn schedules(
        &mut self,
        client: &Client,
        manifest: &Manifest,
        domain_exists: bool,
    ) -> anyhow::Result<()> {
        let held = match domain_exists {
            true => client.schedules(&manifest.domain.name).await?,
            false => Vec::new(),
        };
        for entry in &manifest.schedules {
            // Checked when the manifest was read.
            let definition = entry.definition().map_err(anyhow::Error::msg)?;
            let what = format!("schedule {}", entry.id);
            let ty = &definition.action.workflow_type;
            let declared =
                (manifest.workflows.iter()).find(|w| w.name == ty.name && w.version == ty.version);
            let missing = declared.map(|w| crate::manifest::undefined(entry, w));
            if let Some(missing) = missing.filter(|m| !m.is_empty()) {
                self.refusals.push(format!(
                    "{what}: neither it nor workflow {}:{} gives {}",
                    ty.name,
                    ty.version,
                    missing.join(", ")
                ));
                continue;
            }
            match held.iter().find(|s| s.id == entry.id) {
                Some(held) if held.schedule == definition => self.unchanged(what),
                held => self.changes.push(Change::Schedule {
                    what,
                    id: entry.id.clone(),
                    definition: Box::new(definition),
                    exists: held.is_some(),
                }),
            }
        }
        Ok(())
    }

    /// Plans the task lists' limits: set where they differ from the declared ones. A list the
    /// manifest no longer declares keeps its limits (`weft tasklist limit` changes them).
    async fn task_lists(
        &mut self,
        client: &Client,
        manifest: &Manifest,
        domain_exists: bool,
    ) -> anyhow::Result<()> {
        let held = match domain_exists {
            true => client.task_lists(&manifest.domain.name).await?,
            false => Vec::new(),
        };
        for entry in &manifest.task_lists {
            // Checked when the manifest was read.
            let kind = entry.binding_kind().map_err(anyhow::Error::msg)?;
            let request = entry.request().map_err(anyhow::Error::msg)?;
            let what = format!("task list {} ({})", entry.name, entry.kind);
            let list = held.iter().find(|l| l.kind == kind && l.name == entry.name);
            match entry.matches(list) {
                true => self.unchanged(what),
                false => self.changes.push(Change::Limit {
                    what,
                    list: (kind, entry.name.clone()),
                    request,
                }),
            }
        }
        Ok(())
    }

    async fn modules(
        &mut self,
        client: &Client,
        project: &Project,
        domain_exists: bool,
    ) -> anyhow::Result<()> {
        let domain = &project.manifest.domain.name;
        let bindings = match domain_exists {
            true => client.list_bindings(domain).await?,
            false => Vec::new(),
        };
        let held: Vec<String> = (client.list_modules().await?.into_iter())
            .map(|module| module.digest)
            .collect();
        for spec in &project.manifest.modules {
            let (kind, name) = target(spec);
            let what = format!("{} {name}", kind_flag(kind));
            let path = project.module_file(&spec.file);
            let code = match std::fs::read(&path) {
                Ok(code) => code,
                Err(e) => {
                    self.refusals.push(format!(
                        "module {}: cannot read it ({e}); build the project first",
                        path.display()
                    ));
                    continue;
                }
            };
            let digest = module_digest(&code);
            let bound = bindings.iter().find(|b| b.kind == kind && b.name == name);
            if bound.is_some_and(|b| matches(b, spec, &digest)) {
                self.unchanged(format!("{what} -> {}", &digest[..12]));
                continue;
            }
            if let Some(refusal) = refusal(client, domain, spec, &code, &digest).await? {
                self.refusals.push(refusal);
                continue;
            }
            self.changes.push(Change::Deploy(Box::new(Deploy {
                what,
                spec: spec.clone(),
                kind,
                name: name.to_owned(),
                new: !held.contains(&digest),
                code,
                digest,
            })));
        }
        Ok(())
    }
}

/// Why the server would refuse to upload and bind `spec`'s module, if it would: what only it
/// can tell (that the file is a component of the world the binding needs, that the tenant
/// may bind it with these limits and grants), asked as dry runs that change nothing.
async fn refusal(
    client: &Client,
    domain: &str,
    spec: &ModuleSpec,
    code: &[u8],
    digest: &str,
) -> Result<Option<String>, ClientError> {
    let (kind, name) = target(spec);
    let file = spec.file.display();
    let label = ModuleLabel {
        name: spec.label_name(),
        version: None,
    };
    let module = match client.check_module(code.to_vec(), &label).await {
        Ok(module) => module,
        Err(ClientError::Refused { message, .. }) => {
            return Ok(Some(format!("{FILE_NAME}: [[module]] {file}: {message}")));
        }
        Err(e) => return Err(e),
    };
    if module.world != kind.world() {
        return Ok(Some(format!(
            "{FILE_NAME}: [[module]] {file} is built for the {} world, and `{} = \"{name}\"` \
             needs the {} world: serve {} with it, or give a {} there",
            module.world.name(),
            kind_flag(kind),
            kind.world().name(),
            served_by(module.world),
            kind.world().name(),
        )));
    }
    // Whether `upgrade = "all"` has its --force is the bind's to say, with the flags.
    let bind = Bind {
        force: true,
        ..Tuning::of(spec).bind(digest)
    };
    match client.check_bind(domain, kind, name, &bind).await {
        Ok(()) => Ok(None),
        Err(ClientError::Refused { message, .. }) => Ok(Some(format!(
            "{FILE_NAME}: [[module]] {file} ({} {name}): {message}",
            kind_flag(kind)
        ))),
        Err(e) => Err(e),
    }
}

/// What a module of `world` serves, as the manifest says it.
fn served_by(world: World) -> &'static str {
    match world {
        World::Decider => "decisions",
        World::ActivityWorker => "activities",
        World::Function => "a function",
    }
}

/// The server's answer, or `None` if it answered that the thing is unknown.
fn found(answer: Result<Value, ClientError>) -> Result<Option<Value>, ClientError> {
    match answer {
        Ok(value) => Ok(Some(value)),
        Err(ClientError::Refused { code, .. }) if code == "UnknownResourceFault" => Ok(None),
        Err(e) => Err(e),
    }
}

/// Uploads a module (the server answers the stored one if it has these bytes), verifies a
/// decider if asked, and binds it. A module this apply uploaded new and did not bind is
/// deleted again, so that nothing unbound is left counting in the tenant's quota.
async fn apply_module(
    client: &Client,
    project: &Project,
    deploy: Deploy,
    args: &ApplyArgs,
) -> anyhow::Result<Step> {
    let file = deploy.spec.file.display().to_string();
    let label = ModuleLabel {
        name: deploy.spec.label_name(),
        version: None,
    };
    let module = upload(client, &file, deploy.code.clone(), &label, args.remote.json).await?;
    debug_assert_eq!(module.digest, deploy.digest);
    let bound = bind_module(client, project, &deploy, &module, args).await;
    if bound.is_err() && deploy.new {
        // Bound meanwhile by someone else, it stays: the server refuses to delete it.
        let _ = client.delete_module(&module.digest).await;
    }
    bound
}

/// Verifies `module` if asked (a decider), then binds it as `deploy` says.
async fn bind_module(
    client: &Client,
    project: &Project,
    deploy: &Deploy,
    module: &ModuleRecord,
    args: &ApplyArgs,
) -> anyhow::Result<Step> {
    let domain = &project.manifest.domain.name;
    let file = deploy.spec.file.display();
    if let (Some(last), BindingKind::Decision) = (args.verify, deploy.kind) {
        let report = verify(client, domain, &deploy.name, module, last, args.strict).await?;
        for run in report.diverged() {
            eprintln!("{}", crate::show::replay(run));
        }
        let what = format!("task list {}", deploy.name);
        if let Some(why) = verdict(&report, &what, args.force).filter(|_| !args.force) {
            anyhow::bail!("not bound: in {file}, {why} (--force binds it anyway)");
        }
    }
    let bind = Bind {
        force: args.force,
        ..Tuning::of(&deploy.spec).bind(&module.digest)
    };
    let binding = client
        .bind(domain, deploy.kind, &deploy.name, &bind)
        .await?;
    if let Some(report) = &binding.upgraded {
        for run in &report.runs {
            eprintln!("{}", crate::show::upgrade(report, run));
        }
    }
    Ok(Step {
        done: "bound".into(),
        what: format!("{} -> {}", deploy.what, &binding.module[..12]),
    })
}

fn target(spec: &ModuleSpec) -> (BindingKind, &str) {
    match spec.target() {
        ("decisions", name) => (BindingKind::Decision, name),
        ("activities", name) => (BindingKind::Activity, name),
        (_, name) => (BindingKind::Function, name),
    }
}

/// How the manifest and the CLI name a binding's kind.
fn kind_flag(kind: BindingKind) -> &'static str {
    match kind {
        BindingKind::Decision => "decisions",
        BindingKind::Activity => "activities",
        BindingKind::Function => "function",
    }
}

/// Whether `binding` already is what `spec` asks for, with the server's defaults for what it
/// leaves out.
fn matches(binding: &Binding, spec: &ModuleSpec, digest: &str) -> bool {
    let defaults = GuestLimits::default();
    let bind = Tuning::of(spec).bind(digest);
    let limits = &binding.limits;
    binding.module == digest
        && binding.concurrency == bind.concurrency.unwrap_or(Binding::DEFAULT_CONCURRENCY)
        && limits.cpu_ms == bind.limits.cpu_ms.unwrap_or(defaults.cpu_ms)
        && limits.memory_bytes == bind.limits.memory_bytes.unwrap_or(defaults.memory_bytes)
        && limits.output_bytes == bind.limits.output_bytes.unwrap_or(defaults.output_bytes)
        && binding.http_hosts == bind.http_hosts
        && bind
            .upgrade
            .is_none_or(|upgrade| upgrade == binding.upgrade)
        && bind
            .inherit_pin
            .is_none_or(|inherit| inherit == binding.inherit_pin)
        && bind.pause_after_failures == binding.pause_after_failures
        // A manifest ramps nothing up: applying it promotes a ramp.
        && binding.ramp.is_none()
}
