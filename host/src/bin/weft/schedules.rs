//! `weft schedule`: schedules that start a workflow at times an interval or cron expressions
//! name (Weft's `/v1` extension; SWF clients see nothing of it).

use clap::{Args, Subcommand};
use weft_host::client::{
    Backfill, Overlap, ScheduleDefinition, ScheduleDescription, ScheduleSpec, StartAction,
    Timestamp,
};

use crate::clock::duration;
use crate::modules::type_ref;
use crate::project;
use crate::remote::{Remote, lines, print};
use crate::show;

/// `weft schedule ...`.
#[derive(Args)]
pub(crate) struct ScheduleArgs {
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
    /// Make a schedule: every DURATION, or at the times cron expressions name.
    Create(Box<Create>),
    /// Change a schedule: the options given replace what it had; the rest stays.
    Update(Box<Update>),
    /// List the domain's schedules.
    List,
    /// Show a schedule: its spec, its action, its next times and what it did lately.
    Describe { id: String },
    /// Stop a schedule from starting runs until it is unpaused; times that pass meanwhile are
    /// skipped.
    Pause {
        id: String,
        /// Why (shown by describe).
        #[arg(long)]
        note: Option<String>,
    },
    /// Let a paused schedule start runs again, from its next time on.
    Unpause {
        id: String,
        /// Why (shown by describe).
        #[arg(long)]
        note: Option<String>,
    },
    /// Take the schedule's action now, as its overlap policy says.
    Trigger { id: String },
    /// Act on the schedule's times between two past times (both included), whatever its
    /// catch-up window.
    Backfill {
        id: String,
        /// The first time: RFC 3339 (2026-03-01T00:00:00Z) or seconds since the epoch.
        #[arg(long, value_parser = instant)]
        from: Timestamp,
        /// The last time, as --from.
        #[arg(long, value_parser = instant)]
        to: Timestamp,
    },
    /// Remove a schedule; the runs it started run on.
    Delete { id: String },
}

#[derive(Args)]
struct Create {
    /// The schedule's id; its runs' workflow ids are ID-<time, RFC 3339>.
    #[arg(long)]
    id: String,
    /// The workflow type each run starts, as NAME:VERSION.
    #[arg(long = "type", value_parser = type_ref)]
    workflow_type: weft_host::client::TypeRef,
    #[command(flatten)]
    options: Options,
}

#[derive(Args)]
struct Update {
    id: String,
    /// The workflow type each run starts, as NAME:VERSION.
    #[arg(long = "type", value_parser = type_ref)]
    workflow_type: Option<weft_host::client::TypeRef>,
    #[command(flatten)]
    options: Options,
}

/// What create and update set.
#[derive(Args)]
struct Options {
    /// A run every DURATION (30s, 5m, 1h, 1d), at times aligned to the epoch.
    #[arg(long, value_parser = duration, conflicts_with_all = ["cron", "time_zone"])]
    every: Option<u64>,
    /// Shift the --every times by DURATION (less than --every).
    #[arg(long, value_parser = duration, requires = "every")]
    offset: Option<u64>,
    /// A cron expression (minute hour day-of-month month day-of-week); repeat for several.
    #[arg(long)]
    cron: Vec<String>,
    /// The IANA time zone the cron expressions are read in (default: UTC).
    #[arg(long)]
    time_zone: Option<String>,
    /// What a time does while a run the schedule started is open: skip, buffer-one,
    /// buffer-all, cancel-other, terminate-other or allow-all (default: skip).
    #[arg(long, value_parser = overlap)]
    overlap: Option<Overlap>,
    /// The runs' input.
    #[arg(long)]
    input: Option<String>,
    /// The runs' decision task list (default: the type's).
    #[arg(long)]
    task_list: Option<String>,
    /// A tag of the runs; repeat for several (at most 5).
    #[arg(long)]
    tag: Vec<String>,
    /// The time a run may take (default: the type's).
    #[arg(long, value_parser = duration)]
    execution_timeout: Option<u64>,
    /// The time a decision task may take (default: the type's).
    #[arg(long, value_parser = duration)]
    task_timeout: Option<u64>,
    /// What a run's close does to its open children: terminate, request-cancel or abandon
    /// (default: the type's).
    #[arg(long, value_parser = child_policy)]
    child_policy: Option<String>,
    /// The runs' task priority (default: the type's; higher first).
    #[arg(long, allow_negative_numbers = true)]
    priority: Option<i32>,
    /// The IAM role the runs' Lambda functions are invoked with.
    #[arg(long, value_name = "ARN")]
    lambda_role: Option<String>,
    /// A time missed by longer than this (the server was down) is skipped (default: 60s).
    #[arg(long, value_parser = duration)]
    catchup_window: Option<u64>,
    /// Start each run up to this much after its time, the same on every node.
    #[arg(long, value_parser = duration)]
    jitter: Option<u64>,
    /// Start at most this many runs, all told.
    #[arg(long)]
    limit: Option<u64>,
    /// No time before this: RFC 3339 or seconds since the epoch.
    #[arg(long, value_parser = instant)]
    start_at: Option<Timestamp>,
    /// No time after this.
    #[arg(long, value_parser = instant)]
    end_at: Option<Timestamp>,
}

/// Runs `weft schedule ...`.
pub(crate) async fn run(args: ScheduleArgs) -> anyhow::Result<()> {
    let client = args.remote.client()?;
    let json = args.remote.json;
    let domain = project::domain(args.domain)?;
    let described = |d: &ScheduleDescription| print(json, d, show::schedule(d));
    match args.action {
        Action::Create(create) => {
            let Create {
                id,
                workflow_type,
                options,
            } = *create;
            let mut definition = ScheduleDefinition {
                spec: ScheduleSpec::default(),
                action: start_action(workflow_type),
                overlap: Overlap::default(),
                catchup_window: None,
                limit: None,
            };
            if options.every.is_none() && options.cron.is_empty() {
                anyhow::bail!("give --every DURATION or --cron EXPR");
            }
            options.apply(&mut definition);
            described(&client.create_schedule(&domain, &id, &definition).await?);
        }
        Action::Update(update) => {
            let current = client.schedule(&domain, &update.id).await?;
            let mut definition = current.schedule;
            if let Some(ty) = update.workflow_type {
                definition.action.workflow_type = ty;
            }
            update.options.apply(&mut definition);
            described(
                &client
                    .update_schedule(&domain, &update.id, &definition)
                    .await?,
            );
        }
        Action::List => {
            let all = client.schedules(&domain).await?;
            print(json, &all, lines(&all, show::schedule_line));
        }
        Action::Describe { id } => described(&client.schedule(&domain, &id).await?),
        Action::Pause { id, note } => {
            described(&client.pause_schedule(&domain, &id, true, note).await?);
        }
        Action::Unpause { id, note } => {
            described(&client.pause_schedule(&domain, &id, false, note).await?);
        }
        Action::Trigger { id } => {
            let outcome = client.trigger_schedule(&domain, &id).await?;
            let line = format!("triggered {id}: {} run(s) started", outcome.started);
            print(json, &outcome, [line]);
        }
        Action::Backfill { id, from, to } => {
            let outcome = client
                .backfill_schedule(&domain, &id, &Backfill { from, to })
                .await?;
            let line = format!(
                "backfilled {id}: {} time(s), {} run(s) started",
                outcome.times, outcome.started
            );
            print(json, &outcome, [line]);
        }
        Action::Delete { id } => {
            client.delete_schedule(&domain, &id).await?;
            print(json, &serde_json::json!({}), [format!("deleted {id}")]);
        }
    }
    Ok(())
}

impl Options {
    /// Sets what these options give in `definition`; a new spec (--every or --cron) replaces
    /// the old one's times.
    fn apply(self, definition: &mut ScheduleDefinition) {
        let spec = &mut definition.spec;
        if let Some(every) = self.every {
            (spec.every, spec.offset, spec.cron, spec.time_zone) =
                (Some(every), None, vec![], None);
        }
        if !self.cron.is_empty() {
            (spec.every, spec.offset, spec.cron) = (None, None, self.cron);
        }
        set(&mut spec.offset, self.offset);
        set(&mut spec.time_zone, self.time_zone);
        set(&mut spec.jitter, self.jitter);
        set(&mut spec.start_at, self.start_at);
        set(&mut spec.end_at, self.end_at);
        let action = &mut definition.action;
        set(&mut action.input, self.input);
        if let Some(list) = self.task_list {
            action.task_list = Some(list);
        }
        if !self.tag.is_empty() {
            action.tag_list = self.tag;
        }
        let secs = |secs: Option<u64>| secs.map(|s| s.to_string());
        set(
            &mut action.execution_start_to_close_timeout,
            secs(self.execution_timeout),
        );
        set(
            &mut action.task_start_to_close_timeout,
            secs(self.task_timeout),
        );
        set(&mut action.child_policy, self.child_policy);
        set(
            &mut action.task_priority,
            self.priority.map(|p| p.to_string()),
        );
        set(&mut action.lambda_role, self.lambda_role);
        if let Some(overlap) = self.overlap {
            definition.overlap = overlap;
        }
        set(&mut definition.catchup_window, self.catchup_window);
        set(&mut definition.limit, self.limit);
    }
}

fn set<T>(into: &mut Option<T>, given: Option<T>) {
    if given.is_some() {
        *into = given;
    }
}

fn start_action(ty: weft_host::client::TypeRef) -> StartAction {
    StartAction {
        workflow_type: ty,
        task_list: None,
        task_priority: None,
        input: None,
        execution_start_to_close_timeout: None,
        tag_list: Vec::new(),
        task_start_to_close_timeout: None,
        child_policy: None,
        lambda_role: None,
    }
}

/// A child policy by its name (`request-cancel` or `REQUEST_CANCEL`), as SWF spells it.
fn child_policy(text: &str) -> Result<String, String> {
    let policy = text.to_ascii_uppercase().replace('-', "_");
    match policy.as_str() {
        "TERMINATE" | "REQUEST_CANCEL" | "ABANDON" => Ok(policy),
        _ => Err("expected terminate, request-cancel or abandon".into()),
    }
}

/// An overlap policy by its name (`buffer-one` or `bufferOne`).
pub(crate) fn overlap(text: &str) -> Result<Overlap, String> {
    let wanted: String = text.chars().filter(|c| *c != '-' && *c != '_').collect();
    Overlap::ALL
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(&wanted))
        .map(|(_, overlap)| *overlap)
        .ok_or_else(|| {
            "expected skip, buffer-one, buffer-all, cancel-other, terminate-other or allow-all"
                .to_owned()
        })
}

/// A time: RFC 3339 (`2026-03-01T00:00:00Z`, `2026-03-01T01:00:00+01:00`) or seconds since the
/// epoch.
pub(crate) fn instant(text: &str) -> Result<Timestamp, String> {
    if let Ok(secs) = text.parse::<f64>() {
        return Timestamp::from_secs_f64(secs).ok_or_else(|| format!("{text:?} is out of range"));
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|at| Timestamp::from_millis(at.timestamp_millis()))
        .map_err(|_| format!("{text:?} is not a time; write 2026-03-01T00:00:00Z or seconds"))
}
