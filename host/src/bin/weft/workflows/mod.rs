//! `weft workflow`: start runs, wait for their results, read their histories, signal, cancel,
//! terminate, reset, pause, resume and list them, without the AWS CLI.

mod reset;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use serde_json::{Value, json};
use weft_host::client::swf::{attributes, execution, is_closing};
use weft_host::client::{Client, PauseRequest, TypeRef};

use self::reset::Reset;
use crate::batches::{self, WorkflowBatch};
use crate::manifest::seconds;
use crate::modules::type_ref;
use crate::project;
use crate::remote::{Remote, print};
use crate::show;

/// How often `--wait` and `--follow` look again.
const POLL_EVERY: Duration = Duration::from_millis(250);

/// `weft workflow ...`.
#[derive(Args)]
pub(crate) struct WorkflowArgs {
    #[command(subcommand)]
    action: Action,
    /// The domain (default: the project's).
    #[arg(long, global = true)]
    domain: Option<String>,
    #[command(flatten)]
    remote: Remote,
}

/// A run: its workflow id, and the run id (default: the newest run).
#[derive(Args)]
struct Run {
    /// The workflow id.
    workflow_id: String,
    /// The run id (default: the workflow id's newest run). Run ids may begin with `-`.
    #[arg(long, allow_hyphen_values = true)]
    run: Option<String>,
}

#[derive(Subcommand)]
enum Action {
    /// Start a run; prints its workflow and run ids (with --wait, its result).
    Start(Box<Start>),
    /// Show a run's status, type, times and what is open in it.
    Describe(Run),
    /// Print a closed run's result (following continue-as-new); fails if the run did not
    /// complete.
    Result {
        #[command(flatten)]
        run: Run,
        /// Wait for the run to close.
        #[arg(long)]
        wait: bool,
    },
    /// Print a run's history, one event per line.
    History {
        #[command(flatten)]
        run: Run,
        /// Keep printing events as they are recorded, until the run closes.
        #[arg(long)]
        follow: bool,
    },
    /// Send a signal to an open run.
    Signal {
        #[command(flatten)]
        run: Run,
        /// The signal's name.
        #[arg(long)]
        name: String,
        /// The signal's input.
        #[arg(long)]
        input: Option<String>,
    },
    /// Ask an open run to cancel itself (its decider decides how).
    Cancel(Run),
    /// End an open run at once.
    Terminate {
        #[command(flatten)]
        run: Run,
        /// Why.
        #[arg(long)]
        reason: Option<String>,
        /// More about why.
        #[arg(long)]
        details: Option<String>,
        /// What happens to its children: TERMINATE, REQUEST_CANCEL or ABANDON.
        #[arg(long)]
        child_policy: Option<String>,
    },
    /// Hold an open run: none of its queued tasks (decision, activity, Lambda) is handed to
    /// any poller until it resumes; started tasks run on, timers and timeouts keep firing.
    Pause {
        #[command(flatten)]
        run: Run,
        /// Why, shown by describe and the console.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Resume a paused run: its held tasks go back on their lists, in their places.
    Resume(Run),
    /// List runs, open and closed, newest first.
    List(List),
    /// Make a batch job: the server terminates, cancels, signals, pauses or resumes every open
    /// run the filters pick, at a bounded rate; prints the job (`weft batch describe ID`).
    Batch(Box<WorkflowBatch>),
    /// Start a run again from one of its decision tasks: a new run of the workflow id carries
    /// the run's events up to that task, which is decided again (by the decider bound now),
    /// and the run, if open, is terminated.
    Reset(Reset),
}

#[derive(Args)]
struct Start {
    /// The workflow type, NAME:VERSION (default: the project's only one).
    #[arg(long = "type", value_name = "NAME:VERSION", value_parser = type_ref)]
    workflow_type: Option<TypeRef>,
    /// The workflow id (default: the type's name and a random suffix).
    #[arg(long)]
    id: Option<String>,
    /// The run's input.
    #[arg(long, conflicts_with = "input_file")]
    input: Option<String>,
    /// Read the run's input from this file.
    #[arg(long, value_name = "FILE")]
    input_file: Option<PathBuf>,
    /// A tag; repeat for up to five.
    #[arg(long = "tag", value_name = "TAG")]
    tags: Vec<String>,
    /// The decision task list (default: the type's).
    #[arg(long)]
    task_list: Option<String>,
    /// How long the run may take (default: the type's).
    #[arg(long, value_parser = seconds)]
    execution_timeout: Option<String>,
    /// How long a decision task may take (default: the type's).
    #[arg(long, value_parser = seconds)]
    task_timeout: Option<String>,
    /// What happens to children when the run is terminated (default: the type's).
    #[arg(long)]
    child_policy: Option<String>,
    /// Wait for the run to close and print its result.
    #[arg(long)]
    wait: bool,
}

/// The filters of `weft workflow list`.
#[derive(Args)]
pub(crate) struct List {
    /// Only open runs.
    #[arg(long, conflicts_with = "closed")]
    pub(crate) open: bool,
    /// Only closed runs.
    #[arg(long)]
    pub(crate) closed: bool,
    /// Only runs of this type (NAME or NAME:VERSION).
    #[arg(long = "type", value_name = "NAME[:VERSION]")]
    pub(crate) workflow_type: Option<String>,
    /// Only runs with this tag.
    #[arg(long)]
    pub(crate) tag: Option<String>,
    /// Only runs of this workflow id.
    #[arg(long)]
    pub(crate) id: Option<String>,
    /// Only closed runs that closed so: COMPLETED, FAILED, CANCELED, TERMINATED,
    /// CONTINUED_AS_NEW or TIMED_OUT.
    #[arg(long, conflicts_with = "open")]
    pub(crate) status: Option<String>,
    /// Only runs started in this last while (`30m`, `2h`, `7d`).
    #[arg(long, value_parser = seconds)]
    pub(crate) since: Option<String>,
}

impl List {
    /// The earliest start `--since` lets through, in seconds since the epoch; 0 without it.
    pub(crate) fn oldest(&self) -> u64 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        match &self.since {
            Some(secs) if secs != "NONE" => now.saturating_sub(secs.parse().unwrap_or(0)),
            _ => 0,
        }
    }
}

/// Runs `weft workflow ...`.
pub(crate) async fn run(args: WorkflowArgs) -> anyhow::Result<()> {
    let client = args.remote.client()?;
    let json = args.remote.json;
    let domain = project::domain(args.domain)?;
    let at = |run: Run| Target::resolve(&client, &domain, run);
    match args.action {
        Action::Start(start) => self::start(&client, &domain, *start, json).await?,
        Action::Describe(run) => describe_run(&client, &domain, run, json).await?,
        Action::Result { run, wait } => {
            let target = at(run).await?;
            result(&client, &domain, target.execution, wait, json).await?;
        }
        Action::History { run, follow } => {
            let target = at(run).await?;
            history(&client, &domain, &target.execution, follow, json).await?;
        }
        Action::Signal { run, name, input } => {
            let Run { workflow_id, run } = run;
            let mut request = json!({"domain": domain, "workflowId": workflow_id,
                "signalName": name});
            set(&mut request, "runId", run);
            set(&mut request, "input", input);
            client.swf("SignalWorkflowExecution", request).await?;
            print(
                json,
                &json!({}),
                [format!("signaled {workflow_id}: {name}")],
            );
        }
        Action::Cancel(Run { workflow_id, run }) => {
            let mut request = json!({"domain": domain, "workflowId": workflow_id});
            set(&mut request, "runId", run);
            client
                .swf("RequestCancelWorkflowExecution", request)
                .await?;
            print(json, &json!({}), [format!("asked {workflow_id} to cancel")]);
        }
        Action::Terminate {
            run: Run { workflow_id, run },
            reason,
            details,
            child_policy,
        } => {
            let mut request = json!({"domain": domain, "workflowId": workflow_id});
            set(&mut request, "runId", run);
            set(&mut request, "reason", reason);
            set(&mut request, "details", details);
            set(&mut request, "childPolicy", child_policy);
            client.swf("TerminateWorkflowExecution", request).await?;
            print(json, &json!({}), [format!("terminated {workflow_id}")]);
        }
        Action::Pause { run, reason } => {
            let request = PauseRequest {
                run_id: run.run,
                reason,
                identity: None,
            };
            let report = client.pause(&domain, &run.workflow_id, &request).await?;
            print(json, &report, [show::paused(&run.workflow_id, &report)]);
        }
        Action::Resume(run) => {
            let request = PauseRequest {
                run_id: run.run,
                ..PauseRequest::default()
            };
            let report = client.resume(&domain, &run.workflow_id, &request).await?;
            print(json, &report, [show::paused(&run.workflow_id, &report)]);
        }
        Action::List(filter) => {
            let infos = list(&client, &domain, filter).await?;
            let lines = infos.iter().map(show::execution);
            print(json, &json!({"executionInfos": infos}), lines);
        }
        Action::Reset(reset) => reset::run(&client, &domain, reset, json).await?,
        Action::Batch(batch) => batches::make(&client, &domain, *batch, json).await?,
    }
    Ok(())
}

/// A run, its run id found.
struct Target {
    execution: Value,
}

impl Target {
    async fn resolve(client: &Client, domain: &str, run: Run) -> anyhow::Result<Target> {
        let run_id = match run.run {
            Some(run_id) => run_id,
            None => client.latest_run(domain, &run.workflow_id).await?,
        };
        Ok(Target {
            execution: execution(&run.workflow_id, &run_id),
        })
    }
}

/// `weft workflow describe`: the run as SWF describes it, with its decider, its guests' latest
/// failures and log lines from Weft's own API.
async fn describe_run(client: &Client, domain: &str, run: Run, json: bool) -> anyhow::Result<()> {
    let target = Target::resolve(client, domain, run).await?;
    let input = json!({"domain": domain, "execution": target.execution});
    let mut answer = client.swf("DescribeWorkflowExecution", input).await?;
    let (id, run) = (&target.execution["workflowId"], &target.execution["runId"]);
    let (id, run) = (id.as_str().unwrap_or(""), run.as_str().unwrap_or(""));
    // Why a stuck run is stuck: its guests' latest failures, from Weft's own API.
    let failures = client.run_failures(domain, id, run).await?;
    let mut lines = describe(&answer);
    // Which Wasm decider decides it, from Weft's own API.
    let summary = client.run_summary(domain, id, run).await?;
    // SWF's describe answers false for every closed run; Weft's own record keeps the request.
    answer["executionInfo"]["cancelRequested"] = json!(summary.cancel_requested);
    if summary.cancel_requested {
        lines.push("cancellation was requested".to_owned());
    }
    if let Some(pause) = &summary.paused {
        lines.push(show::pause_line(pause));
    }
    if let Some(decider) = &summary.decider {
        lines.push(show::decider(decider));
    }
    if !failures.is_empty() {
        lines.push(format!(
            "latest failures of its guests ({}):",
            failures.len()
        ));
        lines.extend(
            failures
                .iter()
                .map(|f| format!("  {}", show::run_failure(f))),
        );
    }
    let logged = client.run_logs(domain, id, run).await?;
    if !logged.is_empty() {
        lines.push(format!(
            "latest lines its guests logged ({}):",
            logged.len()
        ));
        lines.extend(
            logged
                .iter()
                .map(|l| format!("  {}", show::run_log_line(l))),
        );
    }
    answer["decider"] = serde_json::to_value(&summary.decider)?;
    answer["paused"] = serde_json::to_value(&summary.paused)?;
    answer["failures"] = serde_json::to_value(&failures)?;
    answer["logs"] = serde_json::to_value(&logged)?;
    print(json, &answer, lines);
    Ok(())
}

fn set(request: &mut Value, member: &str, value: Option<String>) {
    if let Some(value) = value {
        request[member] = json!(value);
    }
}

async fn start(client: &Client, domain: &str, start: Start, json: bool) -> anyhow::Result<()> {
    let workflow_type = project::workflow_type(start.workflow_type)?;
    let workflow_id = start
        .id
        .unwrap_or_else(|| format!("{}-{}", workflow_type.name.to_lowercase(), suffix()));
    let input = match (start.input, start.input_file) {
        (_, Some(file)) => Some(
            std::fs::read_to_string(&file)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?,
        ),
        (input, None) => input,
    };
    let mut request = json!({
        "domain": domain,
        "workflowId": workflow_id,
        "workflowType": {"name": workflow_type.name, "version": workflow_type.version},
    });
    set(&mut request, "input", input);
    set(
        &mut request,
        "executionStartToCloseTimeout",
        start.execution_timeout,
    );
    set(&mut request, "taskStartToCloseTimeout", start.task_timeout);
    set(&mut request, "childPolicy", start.child_policy);
    if let Some(list) = start.task_list {
        request["taskList"] = json!({"name": list});
    }
    if !start.tags.is_empty() {
        request["tagList"] = json!(start.tags);
    }
    let answer = client.swf("StartWorkflowExecution", request).await?;
    let run_id = answer["runId"].as_str().unwrap_or_default().to_owned();
    if !start.wait {
        let started = json!({"workflowId": workflow_id, "runId": run_id});
        print(json, &started, [format!("started {workflow_id} {run_id}")]);
        return Ok(());
    }
    if !json {
        eprintln!("started {workflow_id} {run_id}; waiting for it to close...");
    }
    result(client, domain, execution(&workflow_id, &run_id), true, json).await
}

/// A random suffix for workflow ids: 8 hex digits.
fn suffix() -> String {
    let mut bytes = [0u8; 4];
    // Without randomness the time makes a suffix unique enough for one person's runs.
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        bytes = nanos.to_be_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Prints the result of the run `execution` (or of the run it continued as), waiting for it
/// to close if `wait`; fails unless it completed.
async fn result(
    client: &Client,
    domain: &str,
    mut execution: Value,
    wait: bool,
    json: bool,
) -> anyhow::Result<()> {
    let closing = loop {
        let Some(event) = client.closing_event(domain, &execution).await? else {
            if !wait {
                anyhow::bail!(
                    "{} is still open (--wait waits for it to close)",
                    execution["workflowId"].as_str().unwrap_or_default()
                );
            }
            tokio::time::sleep(POLL_EVERY).await;
            continue;
        };
        let next = attributes(&event)["newExecutionRunId"].as_str();
        match next {
            Some(run_id) => {
                let workflow_id = execution["workflowId"].as_str().unwrap_or_default();
                execution = self::execution(workflow_id, run_id);
            }
            None => break event,
        }
    };
    let attributes = attributes(&closing);
    let status = match closing["eventType"].as_str().unwrap_or_default() {
        "WorkflowExecutionCompleted" => "COMPLETED",
        "WorkflowExecutionFailed" => "FAILED",
        "WorkflowExecutionCanceled" => "CANCELED",
        "WorkflowExecutionTerminated" => "TERMINATED",
        _ => "TIMED_OUT",
    };
    let mut answer = json!({"execution": execution, "closeStatus": status});
    for member in ["result", "reason", "details", "timeoutType"] {
        if let Some(value) = attributes.get(member) {
            answer[member] = value.clone();
        }
    }
    if status == "COMPLETED" {
        let result = attributes["result"].as_str().unwrap_or_default();
        print(json, &answer, [result.to_owned()]);
        return Ok(());
    }
    print(json, &answer, []);
    let why = ["reason", "details", "timeoutType"]
        .iter()
        .filter_map(|m| attributes[*m].as_str())
        .collect::<Vec<_>>()
        .join(": ");
    let workflow_id = execution["workflowId"].as_str().unwrap_or_default();
    match why.is_empty() {
        true => anyhow::bail!("{workflow_id} closed {status}"),
        false => anyhow::bail!("{workflow_id} closed {status}: {why}"),
    }
}

/// Prints the run's history; with `follow`, keeps printing until the run closes.
async fn history(
    client: &Client,
    domain: &str,
    execution: &Value,
    follow: bool,
    json: bool,
) -> anyhow::Result<()> {
    let mut seen = 0;
    let mut all = Vec::new();
    loop {
        let events = events_after(client, domain, execution, seen).await?;
        let closed = events.iter().any(is_closing);
        for event in events {
            seen = event["eventId"].as_u64().unwrap_or(seen);
            match (follow, json) {
                (true, true) => println!("{event}"),
                (_, false) => println!("{}", show::event(&event)),
                (false, true) => all.push(event),
            }
        }
        if !follow || closed {
            break;
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
    if json && !follow {
        println!("{}", json!({"events": all}));
    }
    Ok(())
}

/// The run's events after event `seen`, oldest first. It reads newest first and stops at
/// `seen`, so that each look of `--follow` reads what is new rather than the whole history.
async fn events_after(
    client: &Client,
    domain: &str,
    execution: &Value,
    seen: u64,
) -> anyhow::Result<Vec<Value>> {
    let mut newest_first = Vec::new();
    let mut token = None;
    'pages: loop {
        let page = client
            .history_page(domain, execution, token.as_deref(), true)
            .await?;
        for event in page.events {
            if event["eventId"].as_u64().unwrap_or(0) <= seen {
                break 'pages;
            }
            newest_first.push(event);
        }
        token = page.next_page_token;
        if token.is_none() {
            break;
        }
    }
    newest_first.reverse();
    Ok(newest_first)
}

/// What `weft workflow describe` prints for `DescribeWorkflowExecution`'s answer.
fn describe(answer: &Value) -> Vec<String> {
    let info = &answer["executionInfo"];
    let open = &answer["openCounts"];
    let count = |name: &str| open[name].as_u64().unwrap_or(0);
    let mut lines = vec![show::execution(info)];
    let configuration = &answer["executionConfiguration"];
    lines.push(format!(
        "task list {}, execution timeout {} s, task timeout {} s, child policy {}",
        configuration["taskList"]["name"].as_str().unwrap_or("?"),
        configuration["executionStartToCloseTimeout"]
            .as_str()
            .unwrap_or("?"),
        configuration["taskStartToCloseTimeout"]
            .as_str()
            .unwrap_or("?"),
        configuration["childPolicy"].as_str().unwrap_or("?"),
    ));
    if info.get("closeStatus").is_none() {
        lines.push(format!(
            "open: {} decision tasks, {} activity tasks, {} timers, {} child workflows, {} \
             Lambda functions",
            count("openDecisionTasks"),
            count("openActivityTasks"),
            count("openTimers"),
            count("openChildWorkflowExecutions"),
            count("openLambdaFunctions"),
        ));
    }
    if let Some(tags) = info["tagList"].as_array().filter(|t| !t.is_empty()) {
        let tags: Vec<_> = tags.iter().filter_map(Value::as_str).collect();
        lines.push(format!("tags: {}", tags.join(", ")));
    }
    lines
}

/// The runs `filter` picks, open then closed as asked, newest first.
async fn list(client: &Client, domain: &str, filter: List) -> anyhow::Result<Vec<Value>> {
    let mut input = json!({"domain": domain, "startTimeFilter": {"oldestDate": filter.oldest()}});
    if let Some(id) = &filter.id {
        input["executionFilter"] = json!({"workflowId": id});
    }
    if let Some(kind) = &filter.workflow_type {
        input["typeFilter"] = match kind.split_once(':') {
            Some((name, version)) => json!({"name": name, "version": version}),
            None => json!({"name": kind}),
        };
    }
    if let Some(tag) = &filter.tag {
        input["tagFilter"] = json!({"tag": tag});
    }
    let mut runs = Vec::new();
    if !filter.closed && filter.status.is_none() {
        runs.extend(
            client
                .swf_pages(
                    "ListOpenWorkflowExecutions",
                    input.clone(),
                    "executionInfos",
                )
                .await?,
        );
    }
    if !filter.open {
        if let Some(status) = &filter.status {
            input["closeStatusFilter"] = json!({"status": status});
        }
        runs.extend(
            client
                .swf_pages("ListClosedWorkflowExecutions", input, "executionInfos")
                .await?,
        );
    }
    let started = |run: &Value| run["startTimestamp"].as_f64().unwrap_or(0.0);
    runs.sort_by(|a, b| started(b).total_cmp(&started(a)));
    Ok(runs)
}
