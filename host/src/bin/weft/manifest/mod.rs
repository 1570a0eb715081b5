//! The app manifest, `weft-app.toml`: what a project puts on a server. `weft apply` makes the
//! server match it; the `weft domain`, `type` and `workflow` commands take their defaults from
//! it.
//!
//! ```toml
//! [domain]
//! name = "greetings"
//! retention-days = 1
//!
//! [[workflow]]
//! name = "Greeting"
//! version = "1"
//! task-list = "greeting-decisions"
//! execution-timeout = "1h"
//! task-timeout = "10s"
//!
//! [activity-defaults]  # what each [[activity]] that does not say takes
//! task-list = "greeting-activities"
//! start-to-close = "30s"
//!
//! [[activity]]
//! name = "Greet"
//! version = "1"
//!
//! [[module]]
//! name = "greetings-decider"
//! file = "target/wasm32-wasip2/release/greeting_decider.wasm"
//! decisions = "greeting-decisions"
//!
//! [[schedule]]  # a run every morning (docs/schedules.md)
//! id = "morning"
//! type = "Greeting:1"
//! cron = ["0 8 * * *"]
//! time-zone = "Europe/Berlin"
//!
//! [[task-list]]  # limits (docs/flow-control.md)
//! name = "greeting-activities"
//! kind = "activity"
//! rate = 20
//! fair-by-tag = "tenant="
//! weights = { acme = 3 }
//! ```
//!
//! `[workflow-defaults]` does for `[[workflow]]` what `[activity-defaults]` does for
//! `[[activity]]`.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Value, json};

use weft_host::client::{UpgradePolicy, check_registration};

mod schedules;
mod task_lists;
pub(crate) use schedules::{ScheduleEntry, undefined};
pub(crate) use task_lists::TaskListEntry;

/// The file name `weft apply` looks for in the current directory.
pub(crate) const FILE_NAME: &str = "weft-app.toml";

/// A parsed `weft-app.toml`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) struct Manifest {
    /// The domain everything lives in.
    pub(crate) domain: DomainSpec,
    /// Workflow types.
    #[serde(default, rename = "workflow")]
    pub(crate) workflows: Vec<WorkflowSpec>,
    /// Activity types.
    #[serde(default, rename = "activity")]
    pub(crate) activities: Vec<ActivitySpec>,
    /// Wasm modules and what each serves.
    #[serde(default, rename = "module")]
    pub(crate) modules: Vec<ModuleSpec>,
    /// Schedules that start the domain's workflows.
    #[serde(default, rename = "schedule")]
    pub(crate) schedules: Vec<ScheduleEntry>,
    /// Task lists' limits.
    #[serde(default, rename = "task-list")]
    pub(crate) task_lists: Vec<TaskListEntry>,
}

/// `[domain]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) struct DomainSpec {
    /// The domain's name.
    pub(crate) name: String,
    /// How long closed runs are kept, in days (0 to 90).
    #[serde(default = "one_day")]
    pub(crate) retention_days: u32,
    /// The domain's description.
    pub(crate) description: Option<String>,
}

fn one_day() -> u32 {
    1
}

/// A `[[workflow]]` type and its defaults.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) struct WorkflowSpec {
    /// The type's name.
    pub(crate) name: String,
    /// The type's version.
    pub(crate) version: String,
    /// The default decision task list.
    pub(crate) task_list: Option<String>,
    /// The default time a run may take (`30s`, `5m`, `1h`, `2d`, seconds, or `NONE`).
    pub(crate) execution_timeout: Option<String>,
    /// The default time a decision task may take.
    pub(crate) task_timeout: Option<String>,
    /// The default child policy: `TERMINATE`, `REQUEST_CANCEL` or `ABANDON`.
    pub(crate) child_policy: Option<String>,
    /// The default task priority.
    pub(crate) priority: Option<String>,
    /// The default IAM role for Lambda functions.
    pub(crate) lambda_role: Option<String>,
    /// The type's description.
    pub(crate) description: Option<String>,
}

/// An `[[activity]]` type and its defaults.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) struct ActivitySpec {
    /// The type's name.
    pub(crate) name: String,
    /// The type's version.
    pub(crate) version: String,
    /// The default activity task list.
    pub(crate) task_list: Option<String>,
    /// The default time from start to close.
    pub(crate) start_to_close: Option<String>,
    /// The default time from scheduled to started.
    pub(crate) schedule_to_start: Option<String>,
    /// The default time from scheduled to closed.
    pub(crate) schedule_to_close: Option<String>,
    /// The default time between heartbeats.
    pub(crate) heartbeat: Option<String>,
    /// The default task priority.
    pub(crate) priority: Option<String>,
    /// The type's description.
    pub(crate) description: Option<String>,
}

/// A `[[module]]`: a component file and the one thing it serves.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) struct ModuleSpec {
    /// The module's name on the server (default: the file's name without `.wasm`).
    pub(crate) name: Option<String>,
    /// The component's file, relative to the manifest.
    pub(crate) file: PathBuf,
    /// The decision task list it serves, as a decider.
    pub(crate) decisions: Option<String>,
    /// The activity task list it serves, as an activity worker.
    pub(crate) activities: Option<String>,
    /// The Lambda function name it serves, as a function.
    pub(crate) function: Option<String>,
    /// Tasks run at once.
    pub(crate) concurrency: Option<u32>,
    /// CPU time per call, in milliseconds.
    pub(crate) cpu_ms: Option<u64>,
    /// Memory per instance, in MiB.
    pub(crate) memory_mb: Option<u64>,
    /// Size of one answer, in KiB.
    pub(crate) output_kb: Option<u64>,
    /// Hosts an activity worker may send HTTP requests to.
    #[serde(default)]
    pub(crate) allow_http: Vec<String>,
    /// A decider's upgrade policy: `pinned`, `replay` or `all` (see `weft bind --upgrade`).
    pub(crate) upgrade: Option<UpgradePolicy>,
    /// Whether continue-as-new and child runs a pinned run starts on the decider's list start
    /// on its module (see `weft bind --inherit-pin`).
    pub(crate) inherit_pin: Option<bool>,
    /// A decider's failures in a row on one run that pause the run (see `weft bind
    /// --pause-after-failures`).
    pub(crate) pause_after_failures: Option<u32>,
}

impl ModuleSpec {
    /// What it serves: `decisions`, `activities` or `function`, and the task list or function
    /// name. (A manifest's check makes sure there is one.)
    pub(crate) fn target(&self) -> (&'static str, &str) {
        match (&self.decisions, &self.activities, &self.function) {
            (Some(name), _, _) => ("decisions", name),
            (_, Some(name), _) => ("activities", name),
            (_, _, Some(name)) => ("function", name),
            (None, None, None) => ("", ""),
        }
    }

    /// The name the module is uploaded under.
    pub(crate) fn label_name(&self) -> Option<String> {
        (self.name.clone()).or_else(|| crate::modules::default_name(&self.file))
    }
}

impl Manifest {
    /// Reads and checks the manifest at `path`; the message names the file and what to fix.
    pub(crate) fn read(path: &Path) -> Result<Manifest, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Manifest::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses and checks a manifest's text.
    pub(crate) fn parse(text: &str) -> Result<Manifest, String> {
        let mut table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
        let defaults = ["workflow-defaults", "activity-defaults"];
        let manifest: Manifest = if defaults.iter().any(|key| table.contains_key(*key)) {
            apply_defaults::<WorkflowSpec>(&mut table, "workflow-defaults", "workflow")?;
            apply_defaults::<ActivitySpec>(&mut table, "activity-defaults", "activity")?;
            table
                .try_into()
                .map_err(|e: toml::de::Error| e.to_string())?
        } else {
            // Straight from the text, so errors point at their line.
            toml::from_str(text).map_err(|e| e.to_string())?
        };
        manifest.check()?;
        Ok(manifest)
    }

    /// The one workflow type, if there is exactly one.
    pub(crate) fn only_workflow(&self) -> Option<&WorkflowSpec> {
        match &self.workflows[..] {
            [only] => Some(only),
            _ => None,
        }
    }

    fn check(&self) -> Result<(), String> {
        if self.domain.retention_days > 90 {
            return Err("[domain] retention-days is at most 90".into());
        }
        let timeouts = self.workflows.iter().flat_map(|w| {
            let named = [
                ("execution-timeout", &w.execution_timeout),
                ("task-timeout", &w.task_timeout),
            ];
            named.map(|(n, t)| (format!("workflow {}:{} {n}", w.name, w.version), t))
        });
        let activity = self.activities.iter().flat_map(|a| {
            let named = [
                ("start-to-close", &a.start_to_close),
                ("schedule-to-start", &a.schedule_to_start),
                ("schedule-to-close", &a.schedule_to_close),
                ("heartbeat", &a.heartbeat),
            ];
            named.map(|(n, t)| (format!("activity {}:{} {n}", a.name, a.version), t))
        });
        for (what, timeout) in timeouts.chain(activity) {
            if let Some(timeout) = timeout {
                seconds(timeout).map_err(|e| format!("{what}: {e}"))?;
            }
        }
        for module in &self.modules {
            let targets = [&module.decisions, &module.activities, &module.function];
            if targets.iter().filter(|t| t.is_some()).count() != 1 {
                return Err(format!(
                    "module {}: give exactly one of decisions, activities or function",
                    module.file.display()
                ));
            }
        }
        let mut ids = std::collections::HashSet::new();
        for schedule in &self.schedules {
            schedule.definition()?;
            if !ids.insert(&schedule.id) {
                return Err(format!("schedule {} is declared twice", schedule.id));
            }
        }
        let mut lists = std::collections::HashSet::new();
        for list in &self.task_lists {
            list.request()?;
            if !lists.insert((&list.kind, &list.name)) {
                return Err(format!(
                    "task-list {} ({}) is declared twice",
                    list.name, list.kind
                ));
            }
        }
        self.check_twice()?;
        self.check_registrations()
    }

    /// Refuses a type, or a binding's target, declared twice.
    fn check_twice(&self) -> Result<(), String> {
        let mut seen = std::collections::HashSet::new();
        let workflows = self
            .workflows
            .iter()
            .map(|w| ("[[workflow]]", &w.name, &w.version));
        let activities = self
            .activities
            .iter()
            .map(|a| ("[[activity]]", &a.name, &a.version));
        for (table, name, version) in workflows.chain(activities) {
            if !seen.insert((table, name.as_str(), version.as_str())) {
                return Err(format!("{table} {name}:{version} is declared twice"));
            }
        }
        for module in &self.modules {
            let (kind, target) = module.target();
            if !seen.insert(("[[module]]", kind, target)) {
                return Err(format!(
                    "[[module]] {}: {kind} = \"{target}\" is served by another module too",
                    module.file.display()
                ));
            }
        }
        Ok(())
    }

    /// Refuses the domain or a type that breaks SWF's rules (names, versions, lengths,
    /// durations), in the server's own words: what the server would refuse after registering
    /// what came before it.
    fn check_registrations(&self) -> Result<(), String> {
        let domain = &self.domain.name;
        let registrations = std::iter::once((
            "[domain]".to_owned(),
            "RegisterDomain",
            self.register_domain(),
        ))
        .chain(self.workflows.iter().map(|w| {
            let what = format!("[[workflow]] {}:{}", w.name, w.version);
            (what, "RegisterWorkflowType", w.register(domain))
        }))
        .chain(self.activities.iter().map(|a| {
            let what = format!("[[activity]] {}:{}", a.name, a.version);
            (what, "RegisterActivityType", a.register(domain))
        }));
        for (what, operation, input) in registrations {
            check_registration(operation, input).map_err(|why| format!("{what}: {why}"))?;
        }
        Ok(())
    }

    /// `RegisterDomain`'s input for the domain.
    pub(crate) fn register_domain(&self) -> Value {
        let domain = &self.domain;
        let mut input = json!({
            "name": domain.name,
            "workflowExecutionRetentionPeriodInDays": domain.retention_days.to_string(),
        });
        if let Some(description) = &domain.description {
            input["description"] = json!(description);
        }
        input
    }
}

/// Moves the `[DEFAULTS]` table out of `manifest` into each `[[LIST]]` entry, under what the
/// entry sets itself; its keys are checked as an entry's (`T`) would be, and it names no type.
fn apply_defaults<T: serde::de::DeserializeOwned>(
    manifest: &mut toml::Table,
    defaults: &str,
    list: &str,
) -> Result<(), String> {
    let Some(given) = manifest.remove(defaults) else {
        return Ok(());
    };
    let toml::Value::Table(given) = given else {
        return Err(format!("[{defaults}] must be a table"));
    };
    if let Some(key) = ["name", "version"]
        .into_iter()
        .find(|k| given.contains_key(*k))
    {
        return Err(format!(
            "[{defaults}] cannot set {key}: each [[{list}]] names its own"
        ));
    }
    let mut probe = given.clone();
    probe.insert("name".into(), "-".into());
    probe.insert("version".into(), "-".into());
    T::deserialize(probe).map_err(|e| format!("[{defaults}]: {e}"))?;
    if let Some(toml::Value::Array(entries)) = manifest.get_mut(list) {
        for entry in entries.iter_mut().filter_map(toml::Value::as_table_mut) {
            for (key, value) in &given {
                entry.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
    }
    Ok(())
}

/// A type's defaults as SWF's members name them, with SWF's values: durations in seconds,
/// task lists as `{"name": ...}`; `None` for a default not given.
type Defaults = Vec<(&'static str, Option<Value>)>;

impl WorkflowSpec {
    fn defaults(&self) -> Defaults {
        vec![
            ("defaultTaskList", task_list(&self.task_list)),
            (
                "defaultExecutionStartToCloseTimeout",
                duration(&self.execution_timeout),
            ),
            (
                "defaultTaskStartToCloseTimeout",
                duration(&self.task_timeout),
            ),
            ("defaultChildPolicy", text(&self.child_policy)),
            ("defaultTaskPriority", text(&self.priority)),
            ("defaultLambdaRole", text(&self.lambda_role)),
        ]
    }

    /// The `RegisterWorkflowType` request for this type in `domain`.
    pub(crate) fn register(&self, domain: &str) -> Value {
        let head = (&self.name, &self.version, &self.description);
        register(domain, head, self.defaults())
    }

    /// How the `configuration` that `DescribeWorkflowType` answers differs from these
    /// defaults, one line per default.
    pub(crate) fn differences(&self, configuration: &Value) -> Vec<String> {
        differences(self.defaults(), configuration)
    }
}

impl ActivitySpec {
    fn defaults(&self) -> Defaults {
        vec![
            ("defaultTaskList", task_list(&self.task_list)),
            (
                "defaultTaskStartToCloseTimeout",
                duration(&self.start_to_close),
            ),
            (
                "defaultTaskScheduleToStartTimeout",
                duration(&self.schedule_to_start),
            ),
            (
                "defaultTaskScheduleToCloseTimeout",
                duration(&self.schedule_to_close),
            ),
            ("defaultTaskHeartbeatTimeout", duration(&self.heartbeat)),
            ("defaultTaskPriority", text(&self.priority)),
        ]
    }

    /// The `RegisterActivityType` request for this type in `domain`.
    pub(crate) fn register(&self, domain: &str) -> Value {
        let head = (&self.name, &self.version, &self.description);
        register(domain, head, self.defaults())
    }

    /// How the `configuration` that `DescribeActivityType` answers differs from these
    /// defaults, one line per default.
    pub(crate) fn differences(&self, configuration: &Value) -> Vec<String> {
        differences(self.defaults(), configuration)
    }
}

fn register(
    domain: &str,
    (name, version, description): (&String, &String, &Option<String>),
    defaults: Defaults,
) -> Value {
    let mut input = json!({"domain": domain, "name": name, "version": version});
    if let Some(description) = description {
        input["description"] = json!(description);
    }
    for (member, value) in defaults {
        if let Some(value) = value {
            input[member] = value;
        }
    }
    input
}

fn differences(defaults: Defaults, configuration: &Value) -> Vec<String> {
    let shown = |v: Option<&Value>| match v {
        None | Some(Value::Null) => "none".to_owned(),
        Some(Value::Object(list)) => list.get("name").map_or("?".into(), |n| n.to_string()),
        Some(v) => v.to_string(),
    };
    defaults
        .into_iter()
        .filter(|(member, value)| configuration.get(*member) != value.as_ref())
        .map(|(member, value)| {
            let (want, have) = (shown(value.as_ref()), shown(configuration.get(member)));
            format!("{member} is {have} on the server, {want} here")
        })
        .collect()
}

fn task_list(name: &Option<String>) -> Option<Value> {
    name.as_ref().map(|name| json!({"name": name}))
}

fn duration(text: &Option<String>) -> Option<Value> {
    // `check` has read every duration; one that does not read is left out.
    text.as_deref()
        .and_then(|t| seconds(t).ok())
        .map(Value::String)
}

fn text(text: &Option<String>) -> Option<Value> {
    text.clone().map(Value::String)
}

/// A duration as SWF takes it: whole seconds as text, or `NONE`. Reads `90`, `90s`, `5m`,
/// `2h`, `1d` and `NONE`.
pub(crate) fn seconds(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok("NONE".into());
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let scale: u64 = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => 0,
    };
    let value = number.parse::<u64>().ok().filter(|_| scale > 0);
    let value = value.and_then(|n| n.checked_mul(scale));
    match value {
        Some(n) if n < 1 << 31 => Ok(n.to_string()),
        _ => Err(format!(
            "{text:?} is not a duration; write seconds, or 30s, 5m, 2h, 1d, or NONE"
        )),
    }
}

#[cfg(test)]
mod tests;
