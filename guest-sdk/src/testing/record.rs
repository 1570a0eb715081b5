//! The events SWF records for a decider's decisions.

use crate::decisions::{
    ContinueAsNewWorkflowExecutionDecisionAttributes, Decision,
    ScheduleActivityTaskDecisionAttributes, ScheduleLambdaFunctionDecisionAttributes,
    SignalExternalWorkflowExecutionDecisionAttributes,
    StartChildWorkflowExecutionDecisionAttributes,
};
use crate::events::{
    ActivityTaskCancelRequestedEventAttributes, ActivityTaskScheduledEventAttributes,
    CancelWorkflowExecutionFailedEventAttributes, CompleteWorkflowExecutionFailedEventAttributes,
    ContinueAsNewWorkflowExecutionFailedEventAttributes, EventAttributes as E,
    FailWorkflowExecutionFailedEventAttributes, LambdaFunctionScheduledEventAttributes,
    MarkerRecordedEventAttributes, RequestCancelExternalWorkflowExecutionInitiatedEventAttributes,
    SignalExternalWorkflowExecutionInitiatedEventAttributes,
    StartChildWorkflowExecutionInitiatedEventAttributes, TimerCanceledEventAttributes,
    TimerStartedEventAttributes, WorkflowExecutionCanceledEventAttributes,
    WorkflowExecutionCompletedEventAttributes, WorkflowExecutionContinuedAsNewEventAttributes,
    WorkflowExecutionFailedEventAttributes,
};
use crate::types::{
    CancelWorkflowExecutionFailedCause, ChildPolicy, CompleteWorkflowExecutionFailedCause,
    ContinueAsNewWorkflowExecutionFailedCause, FailWorkflowExecutionFailedCause, TaskList,
    WorkflowType,
};

use super::{DEFAULT_TASK_LIST, HistoryBuilder};

impl HistoryBuilder {
    /// Records the failure SWF records for a close decision made while a decision task was
    /// scheduled after the decider's own: `UNHANDLED_DECISION`.
    pub(super) fn close_failed(&mut self, decision: &Decision, completed: u64) {
        let attributes = match decision {
            Decision::CompleteWorkflowExecution(_) => {
                E::CompleteWorkflowExecutionFailed(CompleteWorkflowExecutionFailedEventAttributes {
                    cause: CompleteWorkflowExecutionFailedCause::UnhandledDecision,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::FailWorkflowExecution(_) => {
                E::FailWorkflowExecutionFailed(FailWorkflowExecutionFailedEventAttributes {
                    cause: FailWorkflowExecutionFailedCause::UnhandledDecision,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::CancelWorkflowExecution(_) => {
                E::CancelWorkflowExecutionFailed(CancelWorkflowExecutionFailedEventAttributes {
                    cause: CancelWorkflowExecutionFailedCause::UnhandledDecision,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::ContinueAsNewWorkflowExecution(_) => E::ContinueAsNewWorkflowExecutionFailed(
                ContinueAsNewWorkflowExecutionFailedEventAttributes {
                    cause: ContinueAsNewWorkflowExecutionFailedCause::UnhandledDecision,
                    decision_task_completed_event_id: completed,
                },
            ),
            _ => unreachable!("only close decisions fail as unhandled"),
        };
        self.event(attributes);
    }

    /// Records the event SWF records for an accepted decision.
    pub(super) fn record(&mut self, decision: &Decision, completed: u64) {
        let attributes = match decision.clone() {
            Decision::ScheduleActivityTask(d) => activity_scheduled(d, completed),
            Decision::RequestCancelActivityTask(d) => {
                E::ActivityTaskCancelRequested(ActivityTaskCancelRequestedEventAttributes {
                    decision_task_completed_event_id: completed,
                    activity_id: d.activity_id,
                })
            }
            Decision::CompleteWorkflowExecution(d) => {
                E::WorkflowExecutionCompleted(WorkflowExecutionCompletedEventAttributes {
                    result: d.result,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::FailWorkflowExecution(d) => {
                E::WorkflowExecutionFailed(WorkflowExecutionFailedEventAttributes {
                    reason: d.reason,
                    details: d.details,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::CancelWorkflowExecution(d) => {
                E::WorkflowExecutionCanceled(WorkflowExecutionCanceledEventAttributes {
                    details: d.details,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::ContinueAsNewWorkflowExecution(d) => self.continued_as_new(d, completed),
            Decision::RecordMarker(d) => E::MarkerRecorded(MarkerRecordedEventAttributes {
                marker_name: d.marker_name,
                details: d.details,
                decision_task_completed_event_id: completed,
            }),
            Decision::StartTimer(d) => E::TimerStarted(TimerStartedEventAttributes {
                timer_id: d.timer_id,
                control: d.control,
                start_to_fire_timeout: d.start_to_fire_timeout,
                decision_task_completed_event_id: completed,
            }),
            Decision::CancelTimer(d) => {
                let started = self.timer_started(&d.timer_id);
                E::TimerCanceled(TimerCanceledEventAttributes {
                    timer_id: d.timer_id,
                    started_event_id: started,
                    decision_task_completed_event_id: completed,
                })
            }
            Decision::SignalExternalWorkflowExecution(d) => signal_initiated(d, completed),
            Decision::RequestCancelExternalWorkflowExecution(d) => {
                E::RequestCancelExternalWorkflowExecutionInitiated(
                    RequestCancelExternalWorkflowExecutionInitiatedEventAttributes {
                        workflow_id: d.workflow_id,
                        run_id: d.run_id,
                        decision_task_completed_event_id: completed,
                        control: d.control,
                    },
                )
            }
            Decision::StartChildWorkflowExecution(d) => child_initiated(d, completed),
            Decision::ScheduleLambdaFunction(d) => lambda_scheduled(d, completed),
        };
        self.event(attributes);
    }

    /// `WorkflowExecutionContinuedAsNew`: the new run keeps this execution's workflow type name,
    /// at the version the decision names or else this run's.
    fn continued_as_new(
        &self,
        d: ContinueAsNewWorkflowExecutionDecisionAttributes,
        completed: u64,
    ) -> E {
        let workflow_type = WorkflowType {
            name: self.workflow_type.name.clone(),
            version: d
                .workflow_type_version
                .unwrap_or_else(|| self.workflow_type.version.clone()),
        };
        E::WorkflowExecutionContinuedAsNew(WorkflowExecutionContinuedAsNewEventAttributes {
            input: d.input,
            decision_task_completed_event_id: completed,
            new_execution_run_id: format!("{}-next", self.execution.run_id),
            execution_start_to_close_timeout: d.execution_start_to_close_timeout,
            task_list: task_list_or_default(d.task_list),
            task_priority: d.task_priority,
            task_start_to_close_timeout: d.task_start_to_close_timeout,
            child_policy: d.child_policy.unwrap_or(ChildPolicy::Terminate),
            tag_list: d.tag_list,
            workflow_type,
            lambda_role: d.lambda_role,
        })
    }
}

/// `ActivityTaskScheduled`, on the default task list unless the decision names one.
fn activity_scheduled(d: ScheduleActivityTaskDecisionAttributes, completed: u64) -> E {
    E::ActivityTaskScheduled(ActivityTaskScheduledEventAttributes {
        activity_type: d.activity_type,
        activity_id: d.activity_id,
        input: d.input,
        control: d.control,
        schedule_to_start_timeout: d.schedule_to_start_timeout,
        schedule_to_close_timeout: d.schedule_to_close_timeout,
        start_to_close_timeout: d.start_to_close_timeout,
        task_list: task_list_or_default(d.task_list),
        task_priority: d.task_priority,
        decision_task_completed_event_id: completed,
        heartbeat_timeout: d.heartbeat_timeout,
    })
}

/// `SignalExternalWorkflowExecutionInitiated`.
fn signal_initiated(d: SignalExternalWorkflowExecutionDecisionAttributes, completed: u64) -> E {
    E::SignalExternalWorkflowExecutionInitiated(
        SignalExternalWorkflowExecutionInitiatedEventAttributes {
            workflow_id: d.workflow_id,
            run_id: d.run_id,
            signal_name: d.signal_name,
            input: d.input,
            decision_task_completed_event_id: completed,
            control: d.control,
        },
    )
}

/// `StartChildWorkflowExecutionInitiated`, on the default task list unless the decision names
/// one, and terminated with its parent unless it says otherwise.
fn child_initiated(d: StartChildWorkflowExecutionDecisionAttributes, completed: u64) -> E {
    E::StartChildWorkflowExecutionInitiated(StartChildWorkflowExecutionInitiatedEventAttributes {
        workflow_id: d.workflow_id,
        workflow_type: d.workflow_type,
        control: d.control,
        input: d.input,
        execution_start_to_close_timeout: d.execution_start_to_close_timeout,
        task_list: task_list_or_default(d.task_list),
        task_priority: d.task_priority,
        decision_task_completed_event_id: completed,
        child_policy: d.child_policy.unwrap_or(ChildPolicy::Terminate),
        task_start_to_close_timeout: d.task_start_to_close_timeout,
        tag_list: d.tag_list,
        lambda_role: d.lambda_role,
    })
}

/// `LambdaFunctionScheduled`.
fn lambda_scheduled(d: ScheduleLambdaFunctionDecisionAttributes, completed: u64) -> E {
    E::LambdaFunctionScheduled(LambdaFunctionScheduledEventAttributes {
        id: d.id,
        name: d.name,
        control: d.control,
        input: d.input,
        start_to_close_timeout: d.start_to_close_timeout,
        decision_task_completed_event_id: completed,
    })
}

/// Whether `decision` closes the execution.
pub(super) fn is_close(decision: &Decision) -> bool {
    matches!(
        decision,
        Decision::CompleteWorkflowExecution(_)
            | Decision::FailWorkflowExecution(_)
            | Decision::CancelWorkflowExecution(_)
            | Decision::ContinueAsNewWorkflowExecution(_)
    )
}

fn task_list_or_default(task_list: Option<TaskList>) -> TaskList {
    task_list.unwrap_or_else(|| TaskList {
        name: DEFAULT_TASK_LIST.into(),
    })
}
