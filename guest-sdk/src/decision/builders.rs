//! The builders that [`Decision`]'s constructors return for the decisions with optional parts.
//! Each converts into a [`Decision`] with `.into()`.

use crate::decisions::{
    ContinueAsNewWorkflowExecutionDecisionAttributes, Decision,
    RequestCancelExternalWorkflowExecutionDecisionAttributes,
    ScheduleActivityTaskDecisionAttributes, ScheduleLambdaFunctionDecisionAttributes,
    SignalExternalWorkflowExecutionDecisionAttributes,
    StartChildWorkflowExecutionDecisionAttributes, StartTimerDecisionAttributes,
};
use crate::types::{ActivityType, ChildPolicy, TaskList, WorkflowType};

fn secs(seconds: u64) -> Option<String> {
    Some(seconds.to_string())
}

fn task_list(name: impl Into<String>) -> Option<TaskList> {
    Some(TaskList { name: name.into() })
}

/// Declares a builder: a newtype over the decision's attributes that converts into the
/// decision.
macro_rules! builder {
    ($(#[$doc:meta])* $name:ident($attributes:ident) => $variant:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        #[must_use = "a builder does nothing until it is turned into a Decision with .into()"]
        pub struct $name($attributes);

        impl From<$name> for Decision {
            fn from(builder: $name) -> Self {
                Decision::$variant(builder.0)
            }
        }

    };
}

/// Declares builder methods that set one optional field each, with a doc example that
/// calls each on the builder `$start` with the argument after `e.g.`.
macro_rules! setters {
    ($name:ident($attributes:ident) from $start:expr; {
        $($(#[$doc:meta])* $method:ident($arg:ident: $ty:ty) => $field:ident = $value:expr, e.g. $example:expr;)*
    }) => {
        impl $name {
            /// The decision's attributes, as built so far.
            ///
            #[doc = concat!(
                "```\nlet builder = ", stringify!($start), ";\n",
                "println!(\"{:?}\", builder.attributes());\n```"
            )]
            pub fn attributes(&self) -> &$attributes {
                &self.0
            }

            $(
                $(#[$doc])*
                ///
                #[doc = concat!(
                    "```\nlet builder = ", stringify!($start), ".", stringify!($method),
                    "(", stringify!($example), ");\nassert!(builder.attributes().",
                    stringify!($field), ".is_some());\nlet decision: weft_guest::Decision = ",
                    "builder.into();\n```"
                )]
                pub fn $method(mut self, $arg: $ty) -> Self {
                    self.0.$field = $value;
                    self
                }
            )*
        }
    };
}

builder! {
    /// A `ScheduleActivityTask` decision, from
    /// [`Decision::schedule_activity`](crate::Decision::schedule_activity).
    ///
    /// ```
    /// use weft_guest::Decision;
    ///
    /// let d: Decision = Decision::schedule_activity("ship", "ShipOrder", "1.0")
    ///     .input("{}")
    ///     .control("attempt 1")
    ///     .task_list("order-activities")
    ///     .task_priority(5)
    ///     .schedule_to_close(600)
    ///     .schedule_to_start(300)
    ///     .start_to_close(300)
    ///     .heartbeat(60)
    ///     .into();
    /// ```
    ScheduleActivity(ScheduleActivityTaskDecisionAttributes) => ScheduleActivityTask
}

impl ScheduleActivity {
    pub(crate) fn new(id: String, name: String, version: String) -> Self {
        ScheduleActivity(ScheduleActivityTaskDecisionAttributes {
            activity_type: ActivityType { name, version },
            activity_id: id,
            control: None,
            input: None,
            schedule_to_close_timeout: None,
            task_list: None,
            task_priority: None,
            schedule_to_start_timeout: None,
            start_to_close_timeout: None,
            heartbeat_timeout: None,
        })
    }
}

setters!(ScheduleActivity(ScheduleActivityTaskDecisionAttributes) from weft_guest::Decision::schedule_activity("ship", "ShipOrder", "1.0"); {
    /// The input the worker gets.
    input(input: impl Into<String>) => input = Some(input.into()), e.g. "{}";
    /// Data for the decider's later turns, kept in the `ActivityTaskScheduled` event.
    control(control: impl Into<String>) => control = Some(control.into()), e.g. "attempt 2";
    /// The task list to schedule it on, instead of the type's default.
    task_list(name: impl Into<String>) => task_list = task_list(name), e.g. "order-activities";
    /// Its priority on that task list (higher first).
    task_priority(priority: i32) => task_priority = Some(priority.to_string()), e.g. 5;
    /// Seconds from scheduling to closing.
    schedule_to_close(seconds: u64) => schedule_to_close_timeout = secs(seconds), e.g. 600;
    /// Seconds it may wait for a worker.
    schedule_to_start(seconds: u64) => schedule_to_start_timeout = secs(seconds), e.g. 300;
    /// Seconds a worker may take.
    start_to_close(seconds: u64) => start_to_close_timeout = secs(seconds), e.g. 30;
    /// Seconds allowed between two heartbeats.
    heartbeat(seconds: u64) => heartbeat_timeout = secs(seconds), e.g. 60;
});

builder! {
    /// A `StartTimer` decision, from [`Decision::start_timer`](crate::Decision::start_timer).
    ///
    /// ```
    /// use weft_guest::Decision;
    ///
    /// let d: Decision = Decision::start_timer("retry", 10).control("attempt 2").into();
    /// ```
    StartTimer(StartTimerDecisionAttributes) => StartTimer
}

impl StartTimer {
    pub(crate) fn new(id: String, seconds: u64) -> Self {
        StartTimer(StartTimerDecisionAttributes {
            timer_id: id,
            control: None,
            start_to_fire_timeout: seconds.to_string(),
        })
    }
}

setters!(StartTimer(StartTimerDecisionAttributes) from weft_guest::Decision::start_timer("retry", 10); {
    /// Data for the decider's later turns, kept in the `TimerStarted` event.
    control(control: impl Into<String>) => control = Some(control.into()), e.g. "attempt 2";
});

builder! {
    /// A `ContinueAsNewWorkflowExecution` decision, from
    /// [`Decision::continue_as_new`](crate::Decision::continue_as_new).
    ///
    /// ```
    /// use weft_guest::{types::ChildPolicy, Decision};
    ///
    /// let d: Decision = Decision::continue_as_new()
    ///     .input("page 2")
    ///     .execution_start_to_close(3600)
    ///     .task_list("order-decisions")
    ///     .task_priority(0)
    ///     .task_start_to_close(30)
    ///     .child_policy(ChildPolicy::Terminate)
    ///     .tags(["batch"])
    ///     .workflow_type_version("2.0")
    ///     .lambda_role("weft")
    ///     .into();
    /// ```
    ContinueAsNew(ContinueAsNewWorkflowExecutionDecisionAttributes) => ContinueAsNewWorkflowExecution
}

impl ContinueAsNew {
    pub(crate) fn new() -> Self {
        ContinueAsNew(ContinueAsNewWorkflowExecutionDecisionAttributes {
            input: None,
            execution_start_to_close_timeout: None,
            task_list: None,
            task_priority: None,
            task_start_to_close_timeout: None,
            child_policy: None,
            tag_list: None,
            workflow_type_version: None,
            lambda_role: None,
        })
    }
}

setters!(ContinueAsNew(ContinueAsNewWorkflowExecutionDecisionAttributes) from weft_guest::Decision::continue_as_new(); {
    /// The new run's input.
    input(input: impl Into<String>) => input = Some(input.into()), e.g. "{}";
    /// Seconds the new run may take.
    execution_start_to_close(seconds: u64) => execution_start_to_close_timeout = secs(seconds), e.g. 3600;
    /// The new run's decision task list.
    task_list(name: impl Into<String>) => task_list = task_list(name), e.g. "order-activities";
    /// The priority of the new run's decision tasks.
    task_priority(priority: i32) => task_priority = Some(priority.to_string()), e.g. 5;
    /// Seconds a decider may take on one of the new run's decision tasks.
    task_start_to_close(seconds: u64) => task_start_to_close_timeout = secs(seconds), e.g. 30;
    /// What happens to the new run's children if it is terminated or times out.
    child_policy(policy: ChildPolicy) => child_policy = Some(policy), e.g. weft_guest::types::ChildPolicy::Abandon;
    /// The new run's tags (at most 5).
    tags(tags: impl IntoIterator<Item = impl Into<String>>) => tag_list = Some(tags.into_iter().map(Into::into).collect()), e.g. ["batch"];
    /// The version of the workflow type the new run uses.
    workflow_type_version(version: impl Into<String>) => workflow_type_version = Some(version.into()), e.g. "2.0";
    /// The role the new run's Lambda functions run with.
    lambda_role(role: impl Into<String>) => lambda_role = Some(role.into()), e.g. "weft";
});

builder! {
    /// A `SignalExternalWorkflowExecution` decision, from
    /// [`Decision::signal_external`](crate::Decision::signal_external).
    ///
    /// ```
    /// use weft_guest::Decision;
    ///
    /// let d: Decision = Decision::signal_external("order-17", "cancel")
    ///     .run_id("run-1")
    ///     .input("too slow")
    ///     .control("sent once")
    ///     .into();
    /// ```
    SignalExternal(SignalExternalWorkflowExecutionDecisionAttributes) => SignalExternalWorkflowExecution
}

impl SignalExternal {
    pub(crate) fn new(workflow_id: String, signal_name: String) -> Self {
        SignalExternal(SignalExternalWorkflowExecutionDecisionAttributes {
            workflow_id,
            run_id: None,
            signal_name,
            input: None,
            control: None,
        })
    }
}

setters!(SignalExternal(SignalExternalWorkflowExecutionDecisionAttributes) from weft_guest::Decision::signal_external("order-17", "cancel"); {
    /// The run to signal, instead of the execution's current run.
    run_id(run_id: impl Into<String>) => run_id = Some(run_id.into()), e.g. "run-1";
    /// The signal's input.
    input(input: impl Into<String>) => input = Some(input.into()), e.g. "{}";
    /// Data for the decider's later turns.
    control(control: impl Into<String>) => control = Some(control.into()), e.g. "attempt 2";
});

builder! {
    /// A `RequestCancelExternalWorkflowExecution` decision, from
    /// [`Decision::request_cancel_external`](crate::Decision::request_cancel_external).
    ///
    /// ```
    /// use weft_guest::Decision;
    ///
    /// let d: Decision = Decision::request_cancel_external("order-17")
    ///     .run_id("run-1")
    ///     .control("asked once")
    ///     .into();
    /// ```
    RequestCancelExternal(RequestCancelExternalWorkflowExecutionDecisionAttributes) => RequestCancelExternalWorkflowExecution
}

impl RequestCancelExternal {
    pub(crate) fn new(workflow_id: String) -> Self {
        RequestCancelExternal(RequestCancelExternalWorkflowExecutionDecisionAttributes {
            workflow_id,
            run_id: None,
            control: None,
        })
    }
}

setters!(RequestCancelExternal(RequestCancelExternalWorkflowExecutionDecisionAttributes) from weft_guest::Decision::request_cancel_external("order-17"); {
    /// The run to cancel, instead of the execution's current run.
    run_id(run_id: impl Into<String>) => run_id = Some(run_id.into()), e.g. "run-1";
    /// Data for the decider's later turns.
    control(control: impl Into<String>) => control = Some(control.into()), e.g. "attempt 2";
});

builder! {
    /// A `StartChildWorkflowExecution` decision, from
    /// [`Decision::start_child`](crate::Decision::start_child).
    ///
    /// ```
    /// use weft_guest::{types::ChildPolicy, Decision};
    ///
    /// let d: Decision = Decision::start_child("quote-1-item-0", "PriceItem", "1.0")
    ///     .input("{}")
    ///     .control("line 0")
    ///     .execution_start_to_close(300)
    ///     .task_list("quote-decisions")
    ///     .task_priority(0)
    ///     .task_start_to_close(30)
    ///     .child_policy(ChildPolicy::Terminate)
    ///     .tags(["quote"])
    ///     .lambda_role("weft")
    ///     .into();
    /// ```
    StartChild(StartChildWorkflowExecutionDecisionAttributes) => StartChildWorkflowExecution
}

impl StartChild {
    pub(crate) fn new(workflow_id: String, name: String, version: String) -> Self {
        StartChild(StartChildWorkflowExecutionDecisionAttributes {
            workflow_type: WorkflowType { name, version },
            workflow_id,
            control: None,
            input: None,
            execution_start_to_close_timeout: None,
            task_list: None,
            task_priority: None,
            task_start_to_close_timeout: None,
            child_policy: None,
            tag_list: None,
            lambda_role: None,
        })
    }
}

setters!(StartChild(StartChildWorkflowExecutionDecisionAttributes) from weft_guest::Decision::start_child("quote-1-item-0", "PriceItem", "1.0"); {
    /// The child's input.
    input(input: impl Into<String>) => input = Some(input.into()), e.g. "{}";
    /// Data for the decider's later turns.
    control(control: impl Into<String>) => control = Some(control.into()), e.g. "attempt 2";
    /// Seconds the child may take.
    execution_start_to_close(seconds: u64) => execution_start_to_close_timeout = secs(seconds), e.g. 3600;
    /// The child's decision task list.
    task_list(name: impl Into<String>) => task_list = task_list(name), e.g. "order-activities";
    /// The priority of the child's decision tasks.
    task_priority(priority: i32) => task_priority = Some(priority.to_string()), e.g. 5;
    /// Seconds a decider may take on one of the child's decision tasks.
    task_start_to_close(seconds: u64) => task_start_to_close_timeout = secs(seconds), e.g. 30;
    /// What happens to the child's own children if it is terminated or times out.
    child_policy(policy: ChildPolicy) => child_policy = Some(policy), e.g. weft_guest::types::ChildPolicy::Abandon;
    /// The child's tags (at most 5).
    tags(tags: impl IntoIterator<Item = impl Into<String>>) => tag_list = Some(tags.into_iter().map(Into::into).collect()), e.g. ["batch"];
    /// The role the child's Lambda functions run with.
    lambda_role(role: impl Into<String>) => lambda_role = Some(role.into()), e.g. "weft";
});

builder! {
    /// A `ScheduleLambdaFunction` decision, from
    /// [`Decision::schedule_lambda`](crate::Decision::schedule_lambda).
    ///
    /// ```
    /// use weft_guest::Decision;
    ///
    /// let d: Decision = Decision::schedule_lambda("price", "price")
    ///     .input("{}")
    ///     .control("line 0")
    ///     .start_to_close(5)
    ///     .into();
    /// ```
    ScheduleLambda(ScheduleLambdaFunctionDecisionAttributes) => ScheduleLambdaFunction
}

impl ScheduleLambda {
    pub(crate) fn new(id: String, name: String) -> Self {
        ScheduleLambda(ScheduleLambdaFunctionDecisionAttributes {
            id,
            name,
            control: None,
            input: None,
            start_to_close_timeout: None,
        })
    }
}

setters!(ScheduleLambda(ScheduleLambdaFunctionDecisionAttributes) from weft_guest::Decision::schedule_lambda("price", "price"); {
    /// The function's input.
    input(input: impl Into<String>) => input = Some(input.into()), e.g. "{}";
    /// Data for the decider's later turns.
    control(control: impl Into<String>) => control = Some(control.into()), e.g. "attempt 2";
    /// Seconds the function may take.
    start_to_close(seconds: u64) => start_to_close_timeout = secs(seconds), e.g. 30;
});
