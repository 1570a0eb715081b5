//! The 39 SWF operations and the table that routes each to its implementation.

use std::any::Any;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::fault::{Fault, decode, echo};
use crate::model::{ActivityKind, Empty, TypeKind, WorkflowKind};
use crate::ops::{
    Ctx, Service, activity_tasks, decision_tasks, domains, executions, history, listings, tags,
    types,
};

macro_rules! operations {
    (
        implemented { $($op:ident($input:ty => $output:ty) => $handler:expr,)* }
    ) => {
        /// An SWF operation, named as in `X-Amz-Target: SimpleWorkflowService.<Operation>`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Operation {
            $($op,)*
        }

        impl Operation {
            /// Every operation.
            #[cfg(test)]
            pub(crate) const ALL: &[Operation] = &[$(Operation::$op,)*];

            /// The operation's name.
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(Operation::$op => stringify!($op),)*
                }
            }

            /// The operation called `name`, if any.
            pub(crate) fn from_name(name: &str) -> Option<Self> {
                match name {
                    $(stringify!($op) => Some(Operation::$op),)*
                    _ => None,
                }
            }

            /// Runs the operation on a validated body and encodes its output.
            pub(crate) async fn call(
                self,
                svc: &Service,
                ctx: &Ctx,
                input: Value,
            ) -> Result<Vec<u8>, Fault> {
                match self {
                    $(Operation::$op => encode(&op::$op::run(svc, ctx, decode(input)?).await?),)*
                }
            }
        }

        /// Each operation as a type, binding it to its input, output and handler: what
        /// in-process callers name to call it with typed values (`api::call::<op::X>`).
        pub(crate) mod op {
            use super::*;

            $(
                #[doc = concat!("`", stringify!($op), "`.")]
                pub(crate) struct $op;

                impl Op for $op {
                    const OPERATION: Operation = Operation::$op;
                    type Input = $input;
                    type Output = $output;

                    fn run<'a>(
                        svc: &'a Service,
                        ctx: &'a Ctx,
                        input: $input,
                    ) -> impl Future<Output = Result<$output, Fault>> + Send + 'a {
                        $handler(svc, ctx, input)
                    }
                }
            )*
        }
    };
}

/// An operation with the types the HTTP layer reads its body into and writes its answer from.
pub(crate) trait Op {
    /// The operation, for its name in the schema and in faults.
    const OPERATION: Operation;
    /// Its input (`<Operation>Input` in the model).
    type Input: DeserializeOwned;
    /// Its output; `Empty` for operations that answer nothing.
    type Output: Serialize + 'static;

    /// Runs the operation's handler on an input already checked.
    fn run<'a>(
        svc: &'a Service,
        ctx: &'a Ctx,
        input: Self::Input,
    ) -> impl Future<Output = Result<Self::Output, Fault>> + Send + 'a;
}

operations! {
    implemented {
        RegisterDomain(domains::RegisterDomainInput => Empty) => domains::register_domain,
        DescribeDomain(domains::DomainNameInput => domains::DomainDetail)
            => domains::describe_domain,
        ListDomains(domains::ListDomainsInput => domains::DomainInfos) => domains::list_domains,
        DeprecateDomain(domains::DomainNameInput => Empty) => domains::deprecate_domain,
        UndeprecateDomain(domains::DomainNameInput => Empty) => domains::undeprecate_domain,
        RegisterWorkflowType(types::RegisterTypeInput<WorkflowKind> => Empty)
            => types::register::<WorkflowKind>,
        DescribeWorkflowType(types::TypeInput<WorkflowKind>
            => types::TypeDetail<<WorkflowKind as TypeKind>::Config>)
            => types::describe::<WorkflowKind>,
        ListWorkflowTypes(types::ListTypesInput => types::TypeInfos)
            => types::list::<WorkflowKind>,
        DeprecateWorkflowType(types::TypeInput<WorkflowKind> => Empty)
            => types::deprecate::<WorkflowKind>,
        UndeprecateWorkflowType(types::TypeInput<WorkflowKind> => Empty)
            => types::undeprecate::<WorkflowKind>,
        DeleteWorkflowType(types::TypeInput<WorkflowKind> => Empty)
            => types::delete::<WorkflowKind>,
        RegisterActivityType(types::RegisterTypeInput<ActivityKind> => Empty)
            => types::register::<ActivityKind>,
        DescribeActivityType(types::TypeInput<ActivityKind>
            => types::TypeDetail<<ActivityKind as TypeKind>::Config>)
            => types::describe::<ActivityKind>,
        ListActivityTypes(types::ListTypesInput => types::TypeInfos)
            => types::list::<ActivityKind>,
        DeprecateActivityType(types::TypeInput<ActivityKind> => Empty)
            => types::deprecate::<ActivityKind>,
        UndeprecateActivityType(types::TypeInput<ActivityKind> => Empty)
            => types::undeprecate::<ActivityKind>,
        DeleteActivityType(types::TypeInput<ActivityKind> => Empty)
            => types::delete::<ActivityKind>,
        TagResource(tags::TagResourceInput => Empty) => tags::tag_resource,
        UntagResource(tags::UntagResourceInput => Empty) => tags::untag_resource,
        ListTagsForResource(tags::ListTagsForResourceInput => tags::ListTagsForResourceOutput)
            => tags::list_tags_for_resource,
        StartWorkflowExecution(executions::StartInput => executions::RunOutput)
            => executions::start,
        SignalWorkflowExecution(executions::SignalInput => Empty) => executions::signal_execution,
        RequestCancelWorkflowExecution(executions::RequestCancelInput => Empty)
            => executions::request_cancel_execution,
        TerminateWorkflowExecution(executions::TerminateInput => Empty)
            => executions::terminate_execution,
        DescribeWorkflowExecution(history::DescribeInput => history::ExecutionDetail)
            => history::describe,
        GetWorkflowExecutionHistory(history::HistoryInput => history::HistoryOutput)
            => history::get_history,
        ListOpenWorkflowExecutions(listings::ListInput => listings::ExecutionInfos)
            => listings::list_open,
        ListClosedWorkflowExecutions(listings::ListInput => listings::ExecutionInfos)
            => listings::list_closed,
        CountOpenWorkflowExecutions(listings::Filters => listings::CountOutput)
            => listings::count_open,
        CountClosedWorkflowExecutions(listings::Filters => listings::CountOutput)
            => listings::count_closed,
        CountPendingDecisionTasks(listings::PendingInput => listings::CountOutput)
            => listings::count_pending_decisions,
        CountPendingActivityTasks(listings::PendingInput => listings::CountOutput)
            => listings::count_pending_activities,
        PollForDecisionTask(decision_tasks::PollInput => decision_tasks::DecisionTaskOutput)
            => decision_tasks::poll,
        RespondDecisionTaskCompleted(decision_tasks::RespondInput => Empty)
            => decision_tasks::respond_completed,
        PollForActivityTask(activity_tasks::PollInput => activity_tasks::ActivityTaskOutput)
            => activity_tasks::poll,
        RecordActivityTaskHeartbeat(activity_tasks::HeartbeatInput
            => activity_tasks::ActivityTaskStatus) => activity_tasks::heartbeat,
        RespondActivityTaskCompleted(activity_tasks::CompletedInput => Empty)
            => activity_tasks::completed,
        RespondActivityTaskFailed(activity_tasks::FailedInput => Empty) => activity_tasks::failed,
        RespondActivityTaskCanceled(activity_tasks::CanceledInput => Empty)
            => activity_tasks::canceled,
    }
}

impl Operation {
    /// The operation an `X-Amz-Target` header names: `SimpleWorkflowService.<Operation>`, or the
    /// legacy `com.amazonaws.swf.service.model.SimpleWorkflowService.<Operation>`.
    pub(crate) fn from_target(target: &str) -> Result<Self, Fault> {
        let unknown = || Fault::UnknownOperation(format!("Unknown operation: {}", echo(target)));
        let (service, name) = target.rsplit_once('.').ok_or_else(unknown)?;
        if service != "SimpleWorkflowService"
            && service != "com.amazonaws.swf.service.model.SimpleWorkflowService"
        {
            return Err(unknown());
        }
        Operation::from_name(name).ok_or_else(unknown)
    }
}

/// The output as the response body. Operations without output answer an empty body (with
/// `Content-Length: 0`), as AWS does, rather than `{}`; history pages carry their events as
/// stored (`ops::stored_events`).
fn encode<T: Serialize + 'static>(output: &T) -> Result<Vec<u8>, Fault> {
    let any: &dyn Any = output;
    if any.is::<Empty>() {
        return Ok(Vec::new());
    }
    if let Some(page) = any.downcast_ref::<history::HistoryOutput>() {
        return page.to_json();
    }
    if let Some(task) = any.downcast_ref::<decision_tasks::DecisionTaskOutput>() {
        return task.to_json();
    }
    serde_json::to_vec(output).map_err(Fault::internal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::schema::Schema;

    #[test]
    fn the_table_names_every_operation_of_the_model_once() {
        assert_eq!(Operation::ALL.len(), 39);
        for op in Operation::ALL {
            assert!(Schema::get().has_input(op.name()), "{op:?}");
            assert_eq!(Operation::from_name(op.name()), Some(*op));
        }
    }

    #[test]
    fn targets() {
        assert_eq!(
            Operation::from_target("SimpleWorkflowService.ListDomains"),
            Ok(Operation::ListDomains)
        );
        assert_eq!(
            Operation::from_target(
                "com.amazonaws.swf.service.model.SimpleWorkflowService.PollForDecisionTask"
            ),
            Ok(Operation::PollForDecisionTask)
        );
        for bad in [
            "SimpleWorkflowService.listDomains",
            "SimpleWorkflowService.",
            "AmazonSQS.ListDomains",
            "ListDomains",
            "",
        ] {
            assert!(
                matches!(Operation::from_target(bad), Err(Fault::UnknownOperation(_))),
                "{bad}"
            );
        }
    }
}
