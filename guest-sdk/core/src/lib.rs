//! What SWF records for each decision, once: the host's replay (`weft replay`, upgrades,
//! resets) and the workflow SDKs' replay of exported histories read this table rather than keep
//! copies of it. `no_std` and without dependencies, so that a Wasm guest may link it.
//!
//! The Python and JavaScript SDKs read the same table from files generated from it
//! (`weft_guest/_swf.py`, `js/src/swf.js`); a test here keeps them in step.
//!
//! [`replay`] is the workflow core itself: how workflow code is replayed over a history,
//! matched with what the history recorded, and answered with its decisions (ARCHITECTURE.md).

#![no_std]

extern crate alloc;

pub mod replay;

/// A decision type and the events SWF records for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The decision's type, as `decisionType` names it.
    pub name: &'static str,
    /// The event SWF records when it applies the decision.
    pub recorded: &'static str,
    /// The event SWF records when it refuses the decision at once (`...Failed`, with a cause).
    pub refused: &'static str,
    /// Whether applying it closes the run.
    pub closes_run: bool,
}

const fn decision(
    name: &'static str,
    recorded: &'static str,
    refused: &'static str,
    closes_run: bool,
) -> Decision {
    Decision {
        name,
        recorded,
        refused,
        closes_run,
    }
}

/// Every decision type SWF takes (spec §6), with the events it records.
pub const DECISIONS: [Decision; 13] = [
    decision(
        "ScheduleActivityTask",
        "ActivityTaskScheduled",
        "ScheduleActivityTaskFailed",
        false,
    ),
    decision(
        "RequestCancelActivityTask",
        "ActivityTaskCancelRequested",
        "RequestCancelActivityTaskFailed",
        false,
    ),
    decision(
        "CompleteWorkflowExecution",
        "WorkflowExecutionCompleted",
        "CompleteWorkflowExecutionFailed",
        true,
    ),
    decision(
        "FailWorkflowExecution",
        "WorkflowExecutionFailed",
        "FailWorkflowExecutionFailed",
        true,
    ),
    decision(
        "CancelWorkflowExecution",
        "WorkflowExecutionCanceled",
        "CancelWorkflowExecutionFailed",
        true,
    ),
    decision(
        "ContinueAsNewWorkflowExecution",
        "WorkflowExecutionContinuedAsNew",
        "ContinueAsNewWorkflowExecutionFailed",
        true,
    ),
    decision(
        "RecordMarker",
        "MarkerRecorded",
        "RecordMarkerFailed",
        false,
    ),
    decision("StartTimer", "TimerStarted", "StartTimerFailed", false),
    decision("CancelTimer", "TimerCanceled", "CancelTimerFailed", false),
    decision(
        "SignalExternalWorkflowExecution",
        "SignalExternalWorkflowExecutionInitiated",
        "SignalExternalWorkflowExecutionFailed",
        false,
    ),
    decision(
        "RequestCancelExternalWorkflowExecution",
        "RequestCancelExternalWorkflowExecutionInitiated",
        "RequestCancelExternalWorkflowExecutionFailed",
        false,
    ),
    decision(
        "StartChildWorkflowExecution",
        "StartChildWorkflowExecutionInitiated",
        "StartChildWorkflowExecutionFailed",
        false,
    ),
    decision(
        "ScheduleLambdaFunction",
        "LambdaFunctionScheduled",
        "ScheduleLambdaFunctionFailed",
        false,
    ),
];

/// The decision type `name`, if SWF has one of that name.
pub fn decision_named(name: &str) -> Option<&'static Decision> {
    DECISIONS.iter().find(|d| d.name == name)
}

/// Whether an event of type `event_type` is one a decision records when it closes its run.
/// (A termination or a timeout closes a run too, but no decision records them.)
pub fn closes_run(event_type: &str) -> bool {
    DECISIONS
        .iter()
        .any(|d| d.closes_run && d.recorded == event_type)
}

/// The `DecisionTaskCompleted` event whose decision recorded an event with these members, if
/// a decision recorded it: an event a decision records names its task's `DecisionTaskCompleted`
/// (`decisionTaskCompletedEventId`), and a later outcome of an `...Initiated` event, which
/// names that task too, also names the initiating event (`initiatedEventId`): it is no decision's.
pub fn made_by(decision_task_completed: Option<u64>, initiated: Option<u64>) -> Option<u64> {
    decision_task_completed.filter(|_| initiated.unwrap_or(0) == 0)
}

#[cfg(test)]
mod generated;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_decision_is_recorded_and_refused_by_its_own_events() {
        for d in DECISIONS {
            assert!(
                d.refused.starts_with(d.name) && d.refused.ends_with("Failed"),
                "{d:?}"
            );
            assert_eq!(decision_named(d.name), Some(&d));
            let others = DECISIONS.iter().filter(|o| o.name != d.name);
            assert!(others.clone().all(|o| o.recorded != d.recorded), "{d:?}");
        }
        assert!(closes_run("WorkflowExecutionContinuedAsNew"));
        assert!(!closes_run("WorkflowExecutionTerminated"));
        assert!(!closes_run("TimerStarted"));
        assert_eq!(decision_named("Sleep"), None);
    }

    #[test]
    fn a_later_outcome_of_an_initiated_event_is_no_decisions() {
        assert_eq!(made_by(Some(4), None), Some(4));
        assert_eq!(made_by(Some(4), Some(0)), Some(4));
        assert_eq!(made_by(Some(4), Some(5)), None);
        assert_eq!(made_by(None, None), None);
    }
}
