//! The 39 SWF operations and the table that routes each to its implementation.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::fault::{Fault, echo};
use crate::model::{ActivityKind, Empty, WorkflowKind};
use crate::ops::{
    Ctx, Service, activity_tasks, decision_tasks, domains, executions, history, listings, tags,
    types,
};

macro_rules! operations {
    (
        implemented { $($op:ident => $handler:expr,)* }
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
                    $(Operation::$op => encode(&$handler(svc, ctx, decode(input)?).await?),)*
                }
            }
        }
    };
}

operations! {
    implemented {
        RegisterDomain => domains::register_domain,
        DescribeDomain => domains::describe_domain,
        ListDomains => domains::list_domains,
        DeprecateDomain => domains::deprecate_domain,
        UndeprecateDomain => domains::undeprecate_domain,
        RegisterWorkflowType => types::register::<WorkflowKind>,
        DescribeWorkflowType => types::describe::<WorkflowKind>,
        ListWorkflowTypes => types::list::<WorkflowKind>,
        DeprecateWorkflowType => types::deprecate::<WorkflowKind>,
        UndeprecateWorkflowType => types::undeprecate::<WorkflowKind>,
        DeleteWorkflowType => types::delete::<WorkflowKind>,
        RegisterActivityType => types::register::<ActivityKind>,
        DescribeActivityType => types::describe::<ActivityKind>,
        ListActivityTypes => types::list::<ActivityKind>,
        DeprecateActivityType => types::deprecate::<ActivityKind>,
        UndeprecateActivityType => types::undeprecate::<ActivityKind>,
        DeleteActivityType => types::delete::<ActivityKind>,
        TagResource => tags::tag_resource,
        UntagResource => tags::untag_resource,
        ListTagsForResource => tags::list_tags_for_resource,
        StartWorkflowExecution => executions::start,
        SignalWorkflowExecution => executions::signal_execution,
        RequestCancelWorkflowExecution => executions::request_cancel_execution,
        TerminateWorkflowExecution => executions::terminate_execution,
        DescribeWorkflowExecution => history::describe,
        GetWorkflowExecutionHistory => history::get_history,
        ListOpenWorkflowExecutions => listings::list_open,
        ListClosedWorkflowExecutions => listings::list_closed,
        CountOpenWorkflowExecutions => listings::count_open,
        CountClosedWorkflowExecutions => listings::count_closed,
        CountPendingDecisionTasks => listings::count_pending_decisions,
        CountPendingActivityTasks => listings::count_pending_activities,
        PollForDecisionTask => decision_tasks::poll,
        RespondDecisionTaskCompleted => decision_tasks::respond_completed,
        PollForActivityTask => activity_tasks::poll,
        RecordActivityTaskHeartbeat => activity_tasks::heartbeat,
        RespondActivityTaskCompleted => activity_tasks::completed,
        RespondActivityTaskFailed => activity_tasks::failed,
        RespondActivityTaskCanceled => activity_tasks::canceled,
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

fn decode<T: DeserializeOwned>(input: Value) -> Result<T, Fault> {
    serde_json::from_value(input).map_err(|e| Fault::Serialization(echo(&e.to_string())))
}

/// The output as the response body. Operations without output answer an empty body (with
/// `Content-Length: 0`), as AWS does, rather than `{}`.
fn encode<T: Serialize + 'static>(output: &T) -> Result<Vec<u8>, Fault> {
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<Empty>() {
        return Ok(Vec::new());
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
