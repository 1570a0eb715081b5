//! The rule of each event type (spec §7): which events it names, what it does to the task,
//! timer, child or external request it belongs to, and whether it closes the run.

/// How an event names another event.
#[derive(Clone, Copy)]
pub(super) enum Need {
    /// Always present, never 0.
    Event,
    /// Always present; 0 means "none".
    EventOrZero,
    /// May be absent; absent or 0 means "none".
    Optional,
}

/// A member of an event's attributes that holds an event id, with the types it may name.
#[derive(Clone, Copy)]
pub(super) struct Ref {
    pub(super) member: &'static str,
    pub(super) to: &'static [&'static str],
    pub(super) need: Need,
}

/// What an event does to the thing (task, timer, child, external request) it belongs to. The
/// member named in `Starts` and `Closes` is one of the rule's references.
#[derive(Clone, Copy)]
pub(super) enum Role {
    /// Nothing.
    Other,
    /// Opens a new one, named by this event's id.
    Opens,
    /// Starts the one the member names.
    Starts(&'static str),
    /// Closes the one the member names.
    Closes(&'static str, Start),
}

/// How a closing event names the start of what it closes.
#[derive(Clone, Copy)]
pub(super) enum Start {
    /// It does not: timers and external requests have no start, and some failures come first.
    Unnamed,
    /// It must have started, and `startedEventId` names that start.
    Required,
    /// `startedEventId` names the start, or is 0 if there was none (timeouts, cancellations).
    IfAny,
}

/// The rule of one event type.
pub(super) struct Rule {
    pub(super) event_type: &'static str,
    pub(super) role: Role,
    pub(super) refs: &'static [Ref],
    /// Recorded for a decision in the same step as its `DecisionTaskCompleted`, so it names the
    /// latest one. Failures recorded later (a child or external run that could not be reached)
    /// are not.
    pub(super) decided: bool,
    pub(super) closes_run: bool,
    /// A change the decider must hear about: the run owes a decision task (spec §7's
    /// "decision task" column, §8.2).
    pub(super) triggers: bool,
}

impl Rule {
    const fn new(event_type: &'static str, role: Role, refs: &'static [Ref]) -> Rule {
        Rule {
            event_type,
            role,
            refs,
            decided: false,
            closes_run: false,
            triggers: false,
        }
    }

    const fn decided(self) -> Rule {
        Rule {
            decided: true,
            ..self
        }
    }

    const fn closes_run(self) -> Rule {
        Rule {
            closes_run: true,
            ..self
        }
    }

    const fn triggers(self) -> Rule {
        Rule {
            triggers: true,
            ..self
        }
    }
}

/// Members that the event opening a thing and the events that start or close it may both carry;
/// where both do, the values must agree.
pub(super) const SHARED: &[&str] = &["timerId", "workflowId", "workflowType", "runId", "control"];

/// The rule of `event_type`, if it is one of the model's.
pub(super) fn find(event_type: &str) -> Option<&'static Rule> {
    RULES.iter().find(|rule| rule.event_type == event_type)
}

const fn event(member: &'static str, to: &'static [&'static str], need: Need) -> Ref {
    Ref { member, to, need }
}

const DECISION: Ref = event(
    "decisionTaskCompletedEventId",
    &["DecisionTaskCompleted"],
    Need::Event,
);
const DECISION_TASK: Ref = event("scheduledEventId", &["DecisionTaskScheduled"], Need::Event);
const DECISION_START: Ref = event("startedEventId", &["DecisionTaskStarted"], Need::Event);
const DECISION_START_IF_ANY: Ref = event(
    "startedEventId",
    &["DecisionTaskStarted"],
    Need::EventOrZero,
);
const ACTIVITY: Ref = event("scheduledEventId", &["ActivityTaskScheduled"], Need::Event);
const ACTIVITY_START: Ref = event("startedEventId", &["ActivityTaskStarted"], Need::Event);
const ACTIVITY_START_IF_ANY: Ref = event(
    "startedEventId",
    &["ActivityTaskStarted"],
    Need::EventOrZero,
);
const CANCEL_REQUESTED: Ref = event(
    "latestCancelRequestedEventId",
    &["ActivityTaskCancelRequested"],
    Need::Optional,
);
const TIMER: Ref = event("startedEventId", &["TimerStarted"], Need::Event);
const CHILD_INITIATED: &[&str] = &["StartChildWorkflowExecutionInitiated"];
const CHILD: Ref = event("initiatedEventId", CHILD_INITIATED, Need::Event);
/// A child start can fail before anything is initiated (spec §6.12).
const CHILD_IF_ANY: Ref = event("initiatedEventId", CHILD_INITIATED, Need::EventOrZero);
const CHILD_START: Ref = event(
    "startedEventId",
    &["ChildWorkflowExecutionStarted"],
    Need::Event,
);
const SIGNAL: Ref = event(
    "initiatedEventId",
    &["SignalExternalWorkflowExecutionInitiated"],
    Need::Event,
);
const CANCEL: Ref = event(
    "initiatedEventId",
    &["RequestCancelExternalWorkflowExecutionInitiated"],
    Need::Event,
);
const LAMBDA: Ref = event(
    "scheduledEventId",
    &["LambdaFunctionScheduled"],
    Need::Event,
);
const LAMBDA_IF_ANY: Ref = event(
    "scheduledEventId",
    &["LambdaFunctionScheduled"],
    Need::Optional,
);
const LAMBDA_START: Ref = event("startedEventId", &["LambdaFunctionStarted"], Need::Event);

use Role::{Opens, Other};
use Start::{IfAny, Required, Unnamed};

const BY_SCHEDULED: &str = "scheduledEventId";
const BY_INITIATED: &str = "initiatedEventId";

/// Every event type of the model, with its rule.
pub(super) static RULES: &[Rule] = &[
    // Workflow execution.
    Rule::new("WorkflowExecutionStarted", Other, &[]).triggers(),
    Rule::new("WorkflowExecutionSignaled", Other, &[]).triggers(),
    Rule::new("WorkflowExecutionCancelRequested", Other, &[]).triggers(),
    Rule::new("WorkflowExecutionCompleted", Other, &[DECISION])
        .decided()
        .closes_run(),
    Rule::new("CompleteWorkflowExecutionFailed", Other, &[DECISION])
        .decided()
        .triggers(),
    Rule::new("WorkflowExecutionFailed", Other, &[DECISION])
        .decided()
        .closes_run(),
    Rule::new("FailWorkflowExecutionFailed", Other, &[DECISION])
        .decided()
        .triggers(),
    Rule::new("WorkflowExecutionCanceled", Other, &[DECISION])
        .decided()
        .closes_run(),
    Rule::new("CancelWorkflowExecutionFailed", Other, &[DECISION])
        .decided()
        .triggers(),
    Rule::new("WorkflowExecutionContinuedAsNew", Other, &[DECISION])
        .decided()
        .closes_run(),
    Rule::new("ContinueAsNewWorkflowExecutionFailed", Other, &[DECISION])
        .decided()
        .triggers(),
    Rule::new("WorkflowExecutionTimedOut", Other, &[]).closes_run(),
    Rule::new("WorkflowExecutionTerminated", Other, &[]).closes_run(),
    // Decision tasks.
    Rule::new("DecisionTaskScheduled", Opens, &[]),
    Rule::new(
        "DecisionTaskStarted",
        Role::Starts(BY_SCHEDULED),
        &[DECISION_TASK],
    ),
    Rule::new(
        "DecisionTaskCompleted",
        Role::Closes(BY_SCHEDULED, Required),
        &[DECISION_TASK, DECISION_START],
    ),
    Rule::new(
        "DecisionTaskTimedOut",
        Role::Closes(BY_SCHEDULED, IfAny),
        &[DECISION_TASK, DECISION_START_IF_ANY],
    )
    .triggers(),
    // Activity tasks.
    Rule::new("ActivityTaskScheduled", Opens, &[DECISION]).decided(),
    Rule::new("ScheduleActivityTaskFailed", Other, &[DECISION])
        .decided()
        .triggers(),
    Rule::new(
        "ActivityTaskStarted",
        Role::Starts(BY_SCHEDULED),
        &[ACTIVITY],
    ),
    Rule::new(
        "ActivityTaskCompleted",
        Role::Closes(BY_SCHEDULED, Required),
        &[ACTIVITY, ACTIVITY_START],
    )
    .triggers(),
    Rule::new(
        "ActivityTaskFailed",
        Role::Closes(BY_SCHEDULED, Required),
        &[ACTIVITY, ACTIVITY_START],
    )
    .triggers(),
    Rule::new(
        "ActivityTaskTimedOut",
        Role::Closes(BY_SCHEDULED, IfAny),
        &[ACTIVITY, ACTIVITY_START_IF_ANY],
    )
    .triggers(),
    Rule::new(
        "ActivityTaskCanceled",
        Role::Closes(BY_SCHEDULED, IfAny),
        &[ACTIVITY, ACTIVITY_START_IF_ANY, CANCEL_REQUESTED],
    )
    .triggers(),
    Rule::new("ActivityTaskCancelRequested", Other, &[DECISION]).decided(),
    Rule::new("RequestCancelActivityTaskFailed", Other, &[DECISION])
        .decided()
        .triggers(),
    // Markers and timers.
    Rule::new("MarkerRecorded", Other, &[DECISION]).decided(),
    Rule::new("RecordMarkerFailed", Other, &[DECISION])
        .decided()
        .triggers(),
    Rule::new("TimerStarted", Opens, &[DECISION]).decided(),
    Rule::new("StartTimerFailed", Other, &[DECISION])
        .decided()
        .triggers(),
    Rule::new(
        "TimerFired",
        Role::Closes("startedEventId", Unnamed),
        &[TIMER],
    )
    .triggers(),
    Rule::new(
        "TimerCanceled",
        Role::Closes("startedEventId", Unnamed),
        &[TIMER, DECISION],
    )
    .decided(),
    Rule::new("CancelTimerFailed", Other, &[DECISION])
        .decided()
        .triggers(),
    // Child workflows.
    Rule::new("StartChildWorkflowExecutionInitiated", Opens, &[DECISION]).decided(),
    Rule::new(
        "StartChildWorkflowExecutionFailed",
        Role::Closes(BY_INITIATED, Unnamed),
        &[CHILD_IF_ANY, DECISION],
    )
    .triggers(),
    Rule::new(
        "ChildWorkflowExecutionStarted",
        Role::Starts(BY_INITIATED),
        &[CHILD],
    )
    .triggers(),
    Rule::new(
        "ChildWorkflowExecutionCompleted",
        Role::Closes(BY_INITIATED, Required),
        &[CHILD, CHILD_START],
    )
    .triggers(),
    Rule::new(
        "ChildWorkflowExecutionFailed",
        Role::Closes(BY_INITIATED, Required),
        &[CHILD, CHILD_START],
    )
    .triggers(),
    Rule::new(
        "ChildWorkflowExecutionTimedOut",
        Role::Closes(BY_INITIATED, Required),
        &[CHILD, CHILD_START],
    )
    .triggers(),
    Rule::new(
        "ChildWorkflowExecutionCanceled",
        Role::Closes(BY_INITIATED, Required),
        &[CHILD, CHILD_START],
    )
    .triggers(),
    Rule::new(
        "ChildWorkflowExecutionTerminated",
        Role::Closes(BY_INITIATED, Required),
        &[CHILD, CHILD_START],
    )
    .triggers(),
    // External signals and cancel requests.
    Rule::new(
        "SignalExternalWorkflowExecutionInitiated",
        Opens,
        &[DECISION],
    )
    .decided(),
    Rule::new(
        "SignalExternalWorkflowExecutionFailed",
        Role::Closes(BY_INITIATED, Unnamed),
        &[SIGNAL, DECISION],
    )
    .triggers(),
    Rule::new(
        "ExternalWorkflowExecutionSignaled",
        Role::Closes(BY_INITIATED, Unnamed),
        &[SIGNAL],
    )
    .triggers(),
    Rule::new(
        "RequestCancelExternalWorkflowExecutionInitiated",
        Opens,
        &[DECISION],
    )
    .decided(),
    Rule::new(
        "RequestCancelExternalWorkflowExecutionFailed",
        Role::Closes(BY_INITIATED, Unnamed),
        &[CANCEL, DECISION],
    )
    .triggers(),
    Rule::new(
        "ExternalWorkflowExecutionCancelRequested",
        Role::Closes(BY_INITIATED, Unnamed),
        &[CANCEL],
    )
    .triggers(),
    // Lambda functions.
    Rule::new("LambdaFunctionScheduled", Opens, &[DECISION]).decided(),
    Rule::new(
        "LambdaFunctionStarted",
        Role::Starts(BY_SCHEDULED),
        &[LAMBDA],
    ),
    Rule::new(
        "LambdaFunctionCompleted",
        Role::Closes(BY_SCHEDULED, Required),
        &[LAMBDA, LAMBDA_START],
    )
    .triggers(),
    Rule::new(
        "LambdaFunctionFailed",
        Role::Closes(BY_SCHEDULED, Required),
        &[LAMBDA, LAMBDA_START],
    )
    .triggers(),
    Rule::new(
        "LambdaFunctionTimedOut",
        Role::Closes(BY_SCHEDULED, Required),
        &[LAMBDA, LAMBDA_START],
    )
    .triggers(),
    Rule::new("ScheduleLambdaFunctionFailed", Other, &[DECISION])
        .decided()
        .triggers(),
    Rule::new(
        "StartLambdaFunctionFailed",
        Role::Closes(BY_SCHEDULED, Unnamed),
        &[LAMBDA_IF_ANY],
    )
    .triggers(),
];
