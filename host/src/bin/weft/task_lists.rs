//! `weft tasklist`: a domain's task lists, what waits on them, their pauses and limits (Weft's
//! `/v1` extension; SWF clients see nothing of it but the wait).

use clap::{Args, Subcommand, ValueEnum};
use weft_host::client::{
    BindingKind, Fairness, ListLimitReport, ListLimitRequest, ListPauseReport, ListPauseRequest,
    TaskListInfo,
};

use crate::project;
use crate::remote::{Remote, print};
use crate::show;

/// `weft tasklist ...`.
#[derive(Args)]
pub(crate) struct TaskListArgs {
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
    /// List the domain's task lists that have tasks or polls waiting, a binding, a pause, a
    /// rate or a cap.
    List,
    /// Show a task list: tasks and polls waiting, its binding, pause, rate and cap.
    Describe {
        /// The task list.
        name: String,
        /// Its kind (default: both the decision and the activity list of that name).
        #[arg(long, value_enum)]
        kind: Option<Kind>,
    },
    /// Hold a task list: none of its tasks is handed to any poller (over HTTP or in-process,
    /// at any node) until it resumes. Tasks keep being queued; started tasks run on.
    Pause {
        /// The task list (for functions, the function's name).
        name: String,
        /// Its kind (default: both the decision and the activity list of that name).
        #[arg(long, value_enum)]
        kind: Option<Kind>,
        /// Why, shown by list and the console.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Limit a task list's tasks, across every node and poller: at most --rate handed out a
    /// second, at most --concurrency started and not finished, and shares by fairness key
    /// (--fair-by-tag, --weight); `none` removes one, one left out stays as it is.
    #[command(group = clap::ArgGroup::new("limits").required(true).multiple(true))]
    Limit {
        /// The task list.
        name: String,
        /// Its kind (default: both the decision and the activity list of that name).
        #[arg(long, value_enum)]
        kind: Option<Kind>,
        /// Tasks handed out per second (`0.5` is one every 2 s), or `none`.
        #[arg(long, value_parser = rate, group = "limits")]
        rate: Option<Rate>,
        /// Tasks started and not finished at most (1 to 10000), or `none`.
        #[arg(long, value_parser = concurrency, group = "limits")]
        concurrency: Option<Cap>,
        /// Share the list between keys: a run's key is the rest of its first tag that starts
        /// with PREFIX (`tenant=` keys the tag `tenant=acme` as `acme`), or `none`.
        #[arg(long, value_name = "PREFIX", group = "limits")]
        fair_by_tag: Option<String>,
        /// A key's weight, as KEY=WEIGHT (1 to 1000; repeat for more keys): its share of the
        /// hand-outs against the other keys' (with --fair-by-tag).
        #[arg(long = "weight", value_name = "KEY=WEIGHT", value_parser = weight, requires = "fair_by_tag")]
        weights: Vec<(String, u32)>,
        /// The weight of the keys --weight does not name, and of the runs without a key
        /// (default 1; with --fair-by-tag).
        #[arg(long, requires = "fair_by_tag")]
        default_weight: Option<u32>,
    },
    /// Resume a paused task list: its tasks are handed out again, in order.
    Resume {
        /// The task list.
        name: String,
        /// Its kind (default: both the decision and the activity list of that name).
        #[arg(long, value_enum)]
        kind: Option<Kind>,
    },
}

/// A `--rate`: tasks per second, or none.
#[derive(Clone, Copy)]
struct Rate(Option<f64>);

fn rate(text: &str) -> Result<Rate, String> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(Rate(None));
    }
    match text.parse::<f64>() {
        Ok(rate) if rate > 0.0 && rate.is_finite() => Ok(Rate(Some(rate))),
        _ => Err("expected tasks per second (more than 0, such as 20 or 0.5), or none".into()),
    }
}

/// A `--concurrency`: tasks started and not finished at most, or none.
#[derive(Clone, Copy)]
struct Cap(Option<u32>);

fn concurrency(text: &str) -> Result<Cap, String> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(Cap(None));
    }
    match text.parse::<u32>() {
        Ok(cap) if cap > 0 => Ok(Cap(Some(cap))),
        _ => {
            Err("expected the tasks started and not finished at most (such as 10), or none".into())
        }
    }
}

fn weight(text: &str) -> Result<(String, u32), String> {
    let (key, weight) =
        (text.rsplit_once('=')).ok_or_else(|| "expected KEY=WEIGHT, such as acme=3".to_owned())?;
    let weight = (weight.parse::<u32>().ok().filter(|w| *w > 0))
        .ok_or_else(|| format!("{weight:?} is no weight: expected 1 to 1000"))?;
    Ok((key.to_owned(), weight))
}

/// What `--fair-by-tag` and its weights ask for: `None` to leave the keys as they are.
fn fairness(
    prefix: Option<String>,
    weights: Vec<(String, u32)>,
    default_weight: Option<u32>,
) -> Option<Option<Fairness>> {
    let prefix = prefix?;
    if prefix.eq_ignore_ascii_case("none") {
        return Some(None);
    }
    Some(Some(Fairness {
        tag_prefix: prefix,
        weights: weights.into_iter().collect(),
        default_weight: default_weight.unwrap_or(1),
    }))
}

/// A task list's kind, as `--kind` names it.
#[derive(Clone, Copy, ValueEnum)]
enum Kind {
    Decision,
    Activity,
    Function,
}

impl Kind {
    /// The kinds `kind` names: the one given, else decision and activity.
    fn named(kind: Option<Kind>) -> Vec<BindingKind> {
        match kind {
            Some(Kind::Decision) => vec![BindingKind::Decision],
            Some(Kind::Activity) => vec![BindingKind::Activity],
            Some(Kind::Function) => vec![BindingKind::Function],
            None => vec![BindingKind::Decision, BindingKind::Activity],
        }
    }
}

/// Runs `weft tasklist ...`.
pub(crate) async fn run(args: TaskListArgs) -> anyhow::Result<()> {
    let client = args.remote.client()?;
    let json = args.remote.json;
    let domain = project::domain(args.domain)?;
    match args.action {
        Action::List => {
            let lists = client.task_lists(&domain).await?;
            let lines = lists.iter().map(show::task_list);
            print(json, &serde_json::json!({ "taskLists": lists }), lines);
        }
        Action::Describe { name, kind } => {
            let kinds = Kind::named(kind);
            let lists: Vec<TaskListInfo> = (client.task_lists(&domain).await?.into_iter())
                .filter(|l| l.name == name && kinds.contains(&l.kind))
                .collect();
            let lines = match lists.is_empty() {
                true => vec![format!(
                    "{name}: nothing waits there, and it has no binding, pause, rate, cap or keys"
                )],
                false => lists.iter().flat_map(show::task_list_described).collect(),
            };
            print(json, &serde_json::json!({ "taskLists": lists }), lines);
        }
        Action::Pause { name, kind, reason } => {
            let request = ListPauseRequest {
                reason,
                identity: None,
            };
            let mut reports: Vec<ListPauseReport> = Vec::new();
            for kind in Kind::named(kind) {
                let list = (kind, name.as_str());
                reports.push(client.pause_task_list(&domain, list, &request).await?);
            }
            print(json, &reports, reports.iter().map(show::list_paused));
        }
        Action::Limit {
            name,
            kind,
            rate,
            concurrency,
            fair_by_tag,
            weights,
            default_weight,
        } => {
            let request = ListLimitRequest {
                rate: rate.map(|r| r.0),
                concurrency: concurrency.map(|c| c.0),
                fairness: fairness(fair_by_tag, weights, default_weight),
            };
            let mut reports: Vec<ListLimitReport> = Vec::new();
            for kind in Kind::named(kind) {
                let list = (kind, name.as_str());
                reports.push(client.limit_task_list(&domain, list, &request).await?);
            }
            print(json, &reports, reports.iter().map(show::list_limited));
        }
        Action::Resume { name, kind } => {
            let request = ListPauseRequest::default();
            let mut reports: Vec<ListPauseReport> = Vec::new();
            for kind in Kind::named(kind) {
                let list = (kind, name.as_str());
                reports.push(client.resume_task_list(&domain, list, &request).await?);
            }
            print(json, &reports, reports.iter().map(show::list_paused));
        }
    }
    Ok(())
}
