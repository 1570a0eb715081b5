//! The faults Weft answers for SWF's rules, one constructor each: the table of their codes and
//! messages. Clients and frameworks match on some of these messages, so they are AWS's words
//! where recorded AWS traffic or AWS's documentation gives them; each says where its words come
//! from. Constraint violations of the model (`Value ... at ... failed to satisfy constraint`)
//! are built by [`super::Violations`]; authentication's faults are in `tenancy::verify`.

use crate::model::{Kind, TaskKind, TypeName};

use super::Fault;

/// How SWF names a type in messages: `WorkflowType=[name=N, version=V]` (recorded, 2015–2016).
fn type_label(kind: Kind, ty: &TypeName) -> String {
    format!(
        "{}=[name={}, version={}]",
        kind.label(),
        ty.name,
        ty.version
    )
}

impl Fault {
    /// A domain the caller's scope does not have (AWS documentation; spec §1.5).
    pub(crate) fn unknown_domain(name: &str) -> Fault {
        Fault::UnknownResource(format!("Unknown domain: {name}"))
    }

    /// A type the domain does not have (quoted from AWS, 2014).
    pub(crate) fn unknown_type(kind: Kind, ty: &TypeName) -> Fault {
        Fault::UnknownResource(format!("Unknown type: {}", type_label(kind, ty)))
    }

    /// A run that does not exist, is not open, or is past its retention (quoted from AWS for a
    /// heartbeat of a closed run, 2014). Without a run id, `runId=null`, as Java prints it.
    pub(crate) fn unknown_execution(workflow_id: &str, run_id: Option<&str>) -> Fault {
        let run_id = run_id.filter(|id| !id.is_empty()).unwrap_or("null");
        Fault::UnknownResource(format!(
            "Unknown execution: WorkflowExecution=[workflowId={workflow_id}, runId={run_id}]"
        ))
    }

    /// A task token whose run is gone (past its retention) or not the caller's: its ids are not
    /// known, or not to be told.
    pub(crate) fn execution_gone() -> Fault {
        Fault::UnknownResource("Unknown execution".into())
    }

    /// A task token of a task that is no longer open in its (open) run: answered, timed out,
    /// canceled. Recorded from AWS for an activity: `Unknown activity, scheduledEventId = 8`
    /// (2015); decision tasks read alike.
    pub(crate) fn unknown_task(kind: TaskKind, scheduled_event_id: u64) -> Fault {
        let what = match kind {
            TaskKind::Decision => "decision task",
            TaskKind::Activity => "activity",
            TaskKind::Function => "Lambda function",
        };
        Fault::UnknownResource(format!(
            "Unknown {what}, scheduledEventId = {scheduled_event_id}"
        ))
    }

    /// A domain ARN of no domain of the caller's scope (Weft's words).
    pub(crate) fn unknown_resource(arn: &str) -> Fault {
        Fault::UnknownResource(format!("Unknown resource: {arn}"))
    }

    /// A task token or page token that is not one this service issued: it was made up, cut or
    /// altered, or is of the other kind (Weft's words; AWS's are not recorded).
    pub(crate) fn invalid_token() -> Fault {
        Fault::Validation("Invalid token".into())
    }

    /// A page token older than its lifetime (AWS's documentation and quoted from AWS, 2017).
    pub(crate) fn expired_token() -> Fault {
        Fault::Validation("Specified token has exceeded its maximum lifetime".into())
    }

    /// A page token presented with other arguments than those of the request that got it.
    pub(crate) fn token_for_other_arguments() -> Fault {
        Fault::Validation("The nextPageToken was issued for a request with other arguments".into())
    }

    /// A domain name taken in the scope: the bare name, as AWS answers (spec §1.5).
    pub(crate) fn domain_already_exists(name: &str) -> Fault {
        Fault::DomainAlreadyExists(name.to_owned())
    }

    /// A deprecated domain, used where only a registered one will do: its name.
    pub(crate) fn domain_deprecated(name: &str) -> Fault {
        Fault::DomainDeprecated(name.to_owned())
    }

    /// A type name and version taken in the domain (recorded, 2015–2016).
    pub(crate) fn type_already_exists(kind: Kind, ty: &TypeName) -> Fault {
        Fault::TypeAlreadyExists(type_label(kind, ty))
    }

    /// A deprecated type, used where only a registered one will do.
    pub(crate) fn type_deprecated(kind: Kind, ty: &TypeName) -> Fault {
        Fault::TypeDeprecated(type_label(kind, ty))
    }

    /// A registered type, deleted: only deprecated ones can be.
    pub(crate) fn type_not_deprecated(kind: Kind, ty: &TypeName) -> Fault {
        Fault::TypeNotDeprecated(type_label(kind, ty))
    }

    /// A type name with a character names may not have: AWS answers `Invalid name: X`
    /// (quoted from AWS for `Test::HelloWorldWorkflow.hello_workflow`, 2014, 2015).
    pub(crate) fn invalid_name(name: &str) -> Fault {
        Fault::Validation(format!("Invalid name: {name}"))
    }

    /// A workflow id with an open run in the domain.
    pub(crate) fn execution_already_started(workflow_id: &str) -> Fault {
        Fault::WorkflowExecutionAlreadyStarted(format!(
            "WorkflowExecution=[workflowId={workflow_id}] is already started"
        ))
    }

    /// A start that neither gives `member` nor finds a default for it in its type.
    pub(crate) fn default_undefined(member: &str, ty: &TypeName) -> Fault {
        Fault::DefaultUndefined(format!(
            "No {member} was given and {} has no default for it",
            type_label(Kind::Workflow, ty)
        ))
    }

    /// A close decision before the last of its batch (spec §8.7, observed from AWS).
    pub(crate) fn close_not_last() -> Fault {
        Fault::Validation("Close must be last decision in list".into())
    }

    /// The request rate of a caller is used up (AWS's throttling body, spec §1.5).
    pub(crate) fn throttled() -> Fault {
        Fault::Throttling("Rate exceeded".into())
    }

    /// The scope holds as many domains as it may (spec §8.16).
    pub(crate) fn domains_limit(max: usize) -> Fault {
        Fault::LimitExceeded(format!("Limit of {max} registered domains reached"))
    }

    /// The domain holds as many types of a kind as it may (spec §8.16).
    pub(crate) fn types_limit(kind: Kind, max: u64) -> Fault {
        Fault::LimitExceeded(format!(
            "Limit of {max} {}s per domain reached",
            kind.label()
        ))
    }

    /// The domain holds as many open runs as it may (spec §8.16).
    pub(crate) fn open_runs_limit(domain: &str, max: u64) -> Fault {
        Fault::LimitExceeded(format!(
            "The domain {domain} has {max} open workflow executions"
        ))
    }

    /// A task list has as many pollers waiting as it may (spec §8.16).
    pub(crate) fn pollers_limit(max: usize) -> Fault {
        Fault::LimitExceeded(format!(
            "The number of concurrent pollers on the task list exceeds {max}"
        ))
    }

    /// A tenant (per account), or the open tenant in one region, has as many long polls
    /// waiting as it may: one client cannot hold every connection the server has.
    pub(crate) fn long_polls_limit(per: &str, max: usize) -> Fault {
        Fault::LimitExceeded(format!(
            "Limit on maximum concurrent poll requests per {per} reached ({max})"
        ))
    }

    /// A domain would carry more tags than it may (spec §8.16).
    pub(crate) fn too_many_tags(max: usize) -> Fault {
        Fault::TooManyTags(format!("A domain can have at most {max} tags"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(name: &str, version: &str) -> TypeName {
        TypeName {
            name: name.into(),
            version: version.into(),
        }
    }

    /// One test per row: the fault's `__type` code and its exact message.
    macro_rules! table {
        ($($row:ident: $fault:expr => $code:literal, $message:expr;)*) => {
            $(
                #[test]
                fn $row() {
                    let fault: Fault = $fault;
                    assert_eq!(fault.code(), $code);
                    assert_eq!(fault.client_message(), $message);
                }
            )*
        };
    }

    table! {
        unknown_domain: Fault::unknown_domain("d1")
            => "UnknownResourceFault", "Unknown domain: d1";
        unknown_workflow_type: Fault::unknown_type(Kind::Workflow, &ty("w", "1"))
            => "UnknownResourceFault", "Unknown type: WorkflowType=[name=w, version=1]";
        unknown_activity_type: Fault::unknown_type(Kind::Activity, &ty("a", "2"))
            => "UnknownResourceFault", "Unknown type: ActivityType=[name=a, version=2]";
        unknown_execution: Fault::unknown_execution("job", Some("r1"))
            => "UnknownResourceFault", "Unknown execution: WorkflowExecution=[workflowId=job, runId=r1]";
        unknown_execution_without_run_id: Fault::unknown_execution("job", None)
            => "UnknownResourceFault", "Unknown execution: WorkflowExecution=[workflowId=job, runId=null]";
        execution_gone: Fault::execution_gone()
            => "UnknownResourceFault", "Unknown execution";
        unknown_activity: Fault::unknown_task(TaskKind::Activity, 8)
            => "UnknownResourceFault", "Unknown activity, scheduledEventId = 8";
        unknown_decision_task: Fault::unknown_task(TaskKind::Decision, 2)
            => "UnknownResourceFault", "Unknown decision task, scheduledEventId = 2";
        unknown_lambda_function: Fault::unknown_task(TaskKind::Function, 5)
            => "UnknownResourceFault", "Unknown Lambda function, scheduledEventId = 5";
        unknown_resource: Fault::unknown_resource("arn:aws:swf:us-east-1:1:/domain/d")
            => "UnknownResourceFault", "Unknown resource: arn:aws:swf:us-east-1:1:/domain/d";
        invalid_token: Fault::invalid_token()
            => "ValidationException", "Invalid token";
        expired_token: Fault::expired_token()
            => "ValidationException", "Specified token has exceeded its maximum lifetime";
        token_for_other_arguments: Fault::token_for_other_arguments()
            => "ValidationException", "The nextPageToken was issued for a request with other arguments";
        domain_already_exists: Fault::domain_already_exists("d1")
            => "DomainAlreadyExistsFault", "d1";
        domain_deprecated: Fault::domain_deprecated("d1")
            => "DomainDeprecatedFault", "d1";
        type_already_exists: Fault::type_already_exists(Kind::Workflow, &ty("ExitWorkflow", "2"))
            => "TypeAlreadyExistsFault", "WorkflowType=[name=ExitWorkflow, version=2]";
        activity_type_already_exists: Fault::type_already_exists(Kind::Activity, &ty("tactivity", "2"))
            => "TypeAlreadyExistsFault", "ActivityType=[name=tactivity, version=2]";
        type_deprecated: Fault::type_deprecated(Kind::Activity, &ty("a", "1"))
            => "TypeDeprecatedFault", "ActivityType=[name=a, version=1]";
        type_not_deprecated: Fault::type_not_deprecated(Kind::Workflow, &ty("w", "1"))
            => "TypeNotDeprecatedFault", "WorkflowType=[name=w, version=1]";
        invalid_name: Fault::invalid_name("Test::HelloWorldWorkflow.hello_workflow")
            => "ValidationException", "Invalid name: Test::HelloWorldWorkflow.hello_workflow";
        execution_already_started: Fault::execution_already_started("job")
            => "WorkflowExecutionAlreadyStartedFault", "WorkflowExecution=[workflowId=job] is already started";
        default_undefined: Fault::default_undefined("taskList", &ty("w", "1"))
            => "DefaultUndefinedFault", "No taskList was given and WorkflowType=[name=w, version=1] has no default for it";
        close_not_last: Fault::close_not_last()
            => "ValidationException", "Close must be last decision in list";
        throttled: Fault::throttled()
            => "ThrottlingException", "Rate exceeded";
        domains_limit: Fault::domains_limit(100)
            => "LimitExceededFault", "Limit of 100 registered domains reached";
        types_limit: Fault::types_limit(Kind::Activity, 10_000)
            => "LimitExceededFault", "Limit of 10000 ActivityTypes per domain reached";
        open_runs_limit: Fault::open_runs_limit("d1", 100_000)
            => "LimitExceededFault", "The domain d1 has 100000 open workflow executions";
        pollers_limit: Fault::pollers_limit(1000)
            => "LimitExceededFault", "The number of concurrent pollers on the task list exceeds 1000";
        long_polls_limit: Fault::long_polls_limit("account", 1000)
            => "LimitExceededFault", "Limit on maximum concurrent poll requests per account reached (1000)";
        too_many_tags: Fault::too_many_tags(50)
            => "TooManyTagsFault", "A domain can have at most 50 tags";
    }
}
