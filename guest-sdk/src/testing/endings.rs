//! The rarer endings a test records: a child that could not start, timed out, was canceled or
//! terminated, a function that timed out, and a signal or cancel request to another workflow
//! delivered.

use crate::events::{
    ChildWorkflowExecutionCanceledEventAttributes, ChildWorkflowExecutionTerminatedEventAttributes,
    ChildWorkflowExecutionTimedOutEventAttributes, EventAttributes as E,
    ExternalWorkflowExecutionCancelRequestedEventAttributes,
    ExternalWorkflowExecutionSignaledEventAttributes, LambdaFunctionTimedOutEventAttributes,
    StartChildWorkflowExecutionFailedEventAttributes,
};
use crate::types::{
    LambdaFunctionTimeoutType, StartChildWorkflowExecutionFailedCause, WorkflowExecution,
    WorkflowExecutionTimeoutType,
};

use super::HistoryBuilder;

impl HistoryBuilder {
    /// `StartChildWorkflowExecutionFailed` for the child `workflow_id`: it could not start, for
    /// `cause`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::types::StartChildWorkflowExecutionFailedCause as Cause;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Quote", "1.0", None);
    /// h.respond(&[Decision::start_child("item-0", "PriceItem", "1.0").into()]);
    /// h.child_start_failed("item-0", Cause::WorkflowAlreadyRunning);
    /// let task = h.decision_task();
    /// assert_eq!(task.child("item-0"), Some(Status::NotStarted("WORKFLOW_ALREADY_RUNNING")));
    /// ```
    pub fn child_start_failed(
        &mut self,
        workflow_id: &str,
        cause: StartChildWorkflowExecutionFailedCause,
    ) -> &mut Self {
        let initiated = self.child_initiated(workflow_id);
        let E::StartChildWorkflowExecutionInitiated(a) =
            &self.events[initiated as usize - 1].attributes
        else {
            unreachable!("child_initiated answers an initiated event")
        };
        let failed = StartChildWorkflowExecutionFailedEventAttributes {
            workflow_type: a.workflow_type.clone(),
            cause,
            workflow_id: workflow_id.into(),
            initiated_event_id: initiated,
            decision_task_completed_event_id: a.decision_task_completed_event_id,
            control: None,
        };
        self.event(E::StartChildWorkflowExecutionFailed(failed));
        self.schedule_decision_task();
        self
    }

    /// `ChildWorkflowExecutionTimedOut` for the child `workflow_id` (START_TO_CLOSE), recording
    /// its start first if the history has none.
    pub fn child_timed_out(&mut self, workflow_id: &str) -> &mut Self {
        let (initiated, started) = self.child_running(workflow_id);
        let ended = ChildWorkflowExecutionTimedOutEventAttributes {
            workflow_execution: super::outcomes::child_execution(workflow_id, initiated),
            workflow_type: self.child_type(initiated),
            timeout_type: WorkflowExecutionTimeoutType::StartToClose,
            initiated_event_id: initiated,
            started_event_id: started,
        };
        self.event(E::ChildWorkflowExecutionTimedOut(ended));
        self.schedule_decision_task();
        self
    }

    /// `ChildWorkflowExecutionCanceled` for the child `workflow_id`, with these details.
    pub fn child_canceled(&mut self, workflow_id: &str, details: Option<&str>) -> &mut Self {
        let (initiated, started) = self.child_running(workflow_id);
        let ended = ChildWorkflowExecutionCanceledEventAttributes {
            workflow_execution: super::outcomes::child_execution(workflow_id, initiated),
            workflow_type: self.child_type(initiated),
            details: details.map(Into::into),
            initiated_event_id: initiated,
            started_event_id: started,
        };
        self.event(E::ChildWorkflowExecutionCanceled(ended));
        self.schedule_decision_task();
        self
    }

    /// `ChildWorkflowExecutionTerminated` for the child `workflow_id`.
    pub fn child_terminated(&mut self, workflow_id: &str) -> &mut Self {
        let (initiated, started) = self.child_running(workflow_id);
        let ended = ChildWorkflowExecutionTerminatedEventAttributes {
            workflow_execution: super::outcomes::child_execution(workflow_id, initiated),
            workflow_type: self.child_type(initiated),
            initiated_event_id: initiated,
            started_event_id: started,
        };
        self.event(E::ChildWorkflowExecutionTerminated(ended));
        self.schedule_decision_task();
        self
    }

    /// `LambdaFunctionTimedOut` for the function `id` (START_TO_CLOSE).
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("PriceItem", "1.0", None);
    /// h.respond(&[Decision::schedule_lambda("price", "price").into()]);
    /// h.lambda_timed_out("price");
    /// assert_eq!(h.decision_task().lambda("price"), Some(Status::TimedOut("START_TO_CLOSE")));
    /// ```
    pub fn lambda_timed_out(&mut self, id: &str) -> &mut Self {
        let (scheduled, started) = self.lambda_running(id);
        let ended = LambdaFunctionTimedOutEventAttributes {
            scheduled_event_id: scheduled,
            started_event_id: started,
            timeout_type: Some(LambdaFunctionTimeoutType::StartToClose),
        };
        self.event(E::LambdaFunctionTimedOut(ended));
        self.schedule_decision_task();
        self
    }

    /// `ExternalWorkflowExecutionSignaled`: the latest signal sent to the workflow `workflow_id`
    /// was delivered.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::Decision;
    /// # use weft_guest::events::EventAttributes;
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::signal_external("shipping", "hurry").into()]);
    /// h.external_signaled("shipping");
    /// let last = h.events().iter().rev().nth(1).map(|e| &e.attributes);
    /// assert!(matches!(last, Some(EventAttributes::ExternalWorkflowExecutionSignaled(_))));
    /// ```
    pub fn external_signaled(&mut self, workflow_id: &str) -> &mut Self {
        let (initiated, run_id) = self.latest_external(workflow_id, |a| match a {
            E::SignalExternalWorkflowExecutionInitiated(a) => Some((&a.workflow_id, &a.run_id)),
            _ => None,
        });
        let delivered = ExternalWorkflowExecutionSignaledEventAttributes {
            workflow_execution: external_execution(workflow_id, run_id),
            initiated_event_id: initiated,
        };
        self.event(E::ExternalWorkflowExecutionSignaled(delivered));
        self.schedule_decision_task();
        self
    }

    /// `ExternalWorkflowExecutionCancelRequested`: the latest cancel request sent to the
    /// workflow `workflow_id` was delivered.
    pub fn external_cancel_requested(&mut self, workflow_id: &str) -> &mut Self {
        let (initiated, run_id) = self.latest_external(workflow_id, |a| match a {
            E::RequestCancelExternalWorkflowExecutionInitiated(a) => {
                Some((&a.workflow_id, &a.run_id))
            }
            _ => None,
        });
        let delivered = ExternalWorkflowExecutionCancelRequestedEventAttributes {
            workflow_execution: external_execution(workflow_id, run_id),
            initiated_event_id: initiated,
        };
        self.event(E::ExternalWorkflowExecutionCancelRequested(delivered));
        self.schedule_decision_task();
        self
    }

    /// The latest initiated event (of the kind `initiated` reads) for the workflow
    /// `workflow_id`, and the run id it named; a panic if there is none.
    fn latest_external(
        &self,
        workflow_id: &str,
        initiated: impl Fn(&E) -> Option<(&String, &Option<String>)>,
    ) -> (u64, Option<String>) {
        let found = self.events.iter().rev().find_map(|e| {
            let (id, run_id) = initiated(&e.attributes)?;
            (id == workflow_id).then(|| (e.event_id, run_id.clone()))
        });
        found.unwrap_or_else(|| panic!("the history has no request to workflow {workflow_id:?}"))
    }
}

/// The run a signal or cancel request reached: the one it named, or else its current run.
fn external_execution(workflow_id: &str, run_id: Option<String>) -> WorkflowExecution {
    WorkflowExecution {
        workflow_id: workflow_id.into(),
        run_id: run_id.unwrap_or_else(|| format!("{workflow_id}-run")),
    }
}
