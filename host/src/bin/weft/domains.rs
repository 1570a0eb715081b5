//! `weft domain` and `weft type`: SWF's domains and types, without the AWS CLI.

use clap::{Args, Subcommand};
use serde_json::{Value, json};
use weft_host::client::{ClientError, TypeRef};

use crate::manifest::{ActivitySpec, WorkflowSpec, seconds};
use crate::modules::type_ref;
use crate::project;
use crate::remote::{Remote, print};
use crate::show;

/// `weft domain ...`.
#[derive(Args)]
pub(crate) struct DomainArgs {
    #[command(subcommand)]
    action: DomainAction,
    #[command(flatten)]
    remote: Remote,
}

#[derive(Subcommand)]
enum DomainAction {
    /// List the registered domains (or the deprecated ones).
    List {
        /// The deprecated domains instead.
        #[arg(long)]
        deprecated: bool,
    },
    /// Register a domain.
    Register {
        /// The domain (default: the project's).
        name: Option<String>,
        /// How long closed runs are kept, in days (0 to 90).
        #[arg(long, default_value_t = 1)]
        retention_days: u32,
        /// A description.
        #[arg(long)]
        description: Option<String>,
    },
    /// Show a domain's configuration and status.
    Describe {
        /// The domain (default: the project's).
        name: Option<String>,
    },
}

/// `weft type ...`.
#[derive(Args)]
pub(crate) struct TypeArgs {
    #[command(subcommand)]
    action: TypeAction,
    #[command(flatten)]
    remote: Remote,
}

#[derive(Subcommand)]
enum TypeAction {
    /// List a domain's workflow and activity types.
    List {
        /// The domain (default: the project's).
        #[arg(long)]
        domain: Option<String>,
        /// The deprecated types instead.
        #[arg(long)]
        deprecated: bool,
    },
    /// Register a workflow or activity type with its defaults.
    #[command(subcommand)]
    Register(Register),
}

#[derive(Subcommand)]
enum Register {
    /// A workflow type.
    Workflow {
        /// NAME:VERSION.
        #[arg(value_parser = type_ref)]
        id: TypeRef,
        /// The domain (default: the project's).
        #[arg(long)]
        domain: Option<String>,
        /// The default decision task list.
        #[arg(long)]
        task_list: Option<String>,
        /// The default time a run may take (`30s`, `5m`, `1h`, `2d`, seconds, or NONE).
        #[arg(long, value_parser = seconds)]
        execution_timeout: Option<String>,
        /// The default time a decision task may take.
        #[arg(long, value_parser = seconds)]
        task_timeout: Option<String>,
        /// The default child policy: TERMINATE, REQUEST_CANCEL or ABANDON (SWF requires one
        /// on the type or on every start).
        #[arg(long, default_value = "TERMINATE")]
        child_policy: Option<String>,
        /// A description.
        #[arg(long)]
        description: Option<String>,
    },
    /// An activity type.
    Activity {
        /// NAME:VERSION.
        #[arg(value_parser = type_ref)]
        id: TypeRef,
        /// The domain (default: the project's).
        #[arg(long)]
        domain: Option<String>,
        /// The default activity task list.
        #[arg(long)]
        task_list: Option<String>,
        /// The default time from start to close.
        #[arg(long, value_parser = seconds)]
        start_to_close: Option<String>,
        /// The default time from scheduled to started.
        #[arg(long, value_parser = seconds)]
        schedule_to_start: Option<String>,
        /// The default time from scheduled to closed.
        #[arg(long, value_parser = seconds)]
        schedule_to_close: Option<String>,
        /// The default time between heartbeats.
        #[arg(long, value_parser = seconds)]
        heartbeat: Option<String>,
        /// A description.
        #[arg(long)]
        description: Option<String>,
    },
}

/// Runs `weft domain ...`.
pub(crate) async fn domain(args: DomainArgs) -> anyhow::Result<()> {
    let client = args.remote.client()?;
    let json = args.remote.json;
    match args.action {
        DomainAction::List { deprecated } => {
            let status = if deprecated {
                "DEPRECATED"
            } else {
                "REGISTERED"
            };
            let input = json!({"registrationStatus": status});
            let infos = client
                .swf_pages("ListDomains", input, "domainInfos")
                .await?;
            let lines = infos.iter().map(show::domain);
            print(json, &json!({"domainInfos": infos}), lines);
        }
        DomainAction::Register {
            name,
            retention_days,
            description,
        } => {
            let name = project::domain(name)?;
            let mut input = json!({
                "name": name,
                "workflowExecutionRetentionPeriodInDays": retention_days.to_string(),
            });
            if let Some(description) = description {
                input["description"] = json!(description);
            }
            client
                .swf("RegisterDomain", input)
                .await
                .map_err(|e| already(e, &format!("domain {name}")))?;
            print(json, &json!({}), [format!("registered domain {name}")]);
        }
        DomainAction::Describe { name } => {
            let name = project::domain(name)?;
            let answer = client.swf("DescribeDomain", json!({"name": name})).await?;
            let days = &answer["configuration"]["workflowExecutionRetentionPeriodInDays"];
            let lines = [
                show::domain(&answer["domainInfo"]),
                format!("retention {} days", days.as_str().unwrap_or("?")),
            ];
            print(json, &answer, lines);
        }
    }
    Ok(())
}

/// Runs `weft type ...`.
pub(crate) async fn types(args: TypeArgs) -> anyhow::Result<()> {
    let client = args.remote.client()?;
    let json = args.remote.json;
    match args.action {
        TypeAction::List { domain, deprecated } => {
            let domain = project::domain(domain)?;
            let status = if deprecated {
                "DEPRECATED"
            } else {
                "REGISTERED"
            };
            let input = json!({"domain": domain, "registrationStatus": status});
            let workflows = client
                .swf_pages("ListWorkflowTypes", input.clone(), "typeInfos")
                .await?;
            let activities = client
                .swf_pages("ListActivityTypes", input, "typeInfos")
                .await?;
            let lines = (workflows.iter().map(|t| show::type_info("workflow", t)))
                .chain(activities.iter().map(|t| show::type_info("activity", t)));
            let all = json!({"workflowTypes": workflows, "activityTypes": activities});
            print(json, &all, lines);
        }
        TypeAction::Register(register) => {
            let (operation, kind, domain, id, input) = register.input()?;
            let named = format!("{kind} type {}:{} in {domain}", id.name, id.version);
            (client.swf(operation, input).await).map_err(|e| already(e, &named))?;
            let line = format!("registered {kind} {}:{} in {domain}", id.name, id.version);
            print(json, &json!({}), [line]);
        }
    }
    Ok(())
}

impl Register {
    /// The operation, the kind's name, the domain, the type and the request, built as the
    /// manifest's types are.
    fn input(self) -> anyhow::Result<(&'static str, &'static str, String, TypeRef, Value)> {
        Ok(match self {
            Register::Workflow {
                id,
                domain,
                task_list,
                execution_timeout,
                task_timeout,
                child_policy,
                description,
            } => {
                let domain = project::domain(domain)?;
                let spec = WorkflowSpec {
                    name: id.name.clone(),
                    version: id.version.clone(),
                    task_list,
                    execution_timeout,
                    task_timeout,
                    child_policy,
                    priority: None,
                    lambda_role: None,
                    description,
                };
                let input = spec.register(&domain);
                ("RegisterWorkflowType", "workflow", domain, id, input)
            }
            Register::Activity {
                id,
                domain,
                task_list,
                start_to_close,
                schedule_to_start,
                schedule_to_close,
                heartbeat,
                description,
            } => {
                let domain = project::domain(domain)?;
                let spec = ActivitySpec {
                    name: id.name.clone(),
                    version: id.version.clone(),
                    task_list,
                    start_to_close,
                    schedule_to_start,
                    schedule_to_close,
                    heartbeat,
                    priority: None,
                    description,
                };
                let input = spec.register(&domain);
                ("RegisterActivityType", "activity", domain, id, input)
            }
        })
    }
}

/// `error`, said plainly if it is that `what` exists already.
fn already(error: ClientError, what: &str) -> anyhow::Error {
    match &error {
        ClientError::Refused { code, .. } if code.ends_with("AlreadyExistsFault") => {
            anyhow::anyhow!("{what} is already registered ({code})")
        }
        _ => error.into(),
    }
}
