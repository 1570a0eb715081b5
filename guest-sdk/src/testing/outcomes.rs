//! The events of the outside world a test records: activities, timers, signals, cancel
//! requests, children and Lambda functions, and the lookups they share.

use crate::events::{
    ActivityTaskCanceledEventAttributes, ActivityTaskCompletedEventAttributes,
    ActivityTaskFailedEventAttributes, ActivityTaskStartedEventAttributes,
    ActivityTaskTimedOutEventAttributes, ChildWorkflowExecutionCompletedEventAttributes,
    ChildWorkflowExecutionFailedEventAttributes, ChildWorkflowExecutionStartedEventAttributes,
    EventAttributes as E, LambdaFunctionCompletedEventAttributes,
    LambdaFunctionFailedEventAttributes, LambdaFunctionStartedEventAttributes,
    TimerFiredEventAttributes, WorkflowExecutionCancelRequestedEventAttributes,
    WorkflowExecutionSignaledEventAttributes,
};
use crate::types::{ActivityTaskTimeoutType, WorkflowExecution, WorkflowType};

use super::HistoryBuilder;

impl HistoryBuilder {
    /// `ActivityTaskStarted` for the activity `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::schedule_activity("ship", "Ship", "1.0").into()]);
    /// h.activity_started("ship");
    /// assert_eq!(h.decision_task().activity("ship"), Some(Status::Started));
    /// ```
    pub fn activity_started(&mut self, id: &str) -> &mut Self {
        let scheduled = self.activity_scheduled(id);
        self.event(E::ActivityTaskStarted(ActivityTaskStartedEventAttributes {
            identity: Some("test".into()),
            scheduled_event_id: scheduled,
        }));
        self
    }

    /// `ActivityTaskCompleted` for the activity `id`, with this result.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::schedule_activity("ship", "Ship", "1.0").into()]);
    /// h.activity_completed("ship", Some("T1"));
    /// assert_eq!(h.decision_task().activity("ship"), Some(Status::Completed(Some("T1"))));
    /// ```
    pub fn activity_completed(&mut self, id: &str, result: Option<&str>) -> &mut Self {
        let (scheduled, started) = self.activity_running(id);
        self.event(E::ActivityTaskCompleted(
            ActivityTaskCompletedEventAttributes {
                result: result.map(Into::into),
                scheduled_event_id: scheduled,
                started_event_id: started,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `ActivityTaskFailed` for the activity `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::schedule_activity("charge", "Charge", "1.0").into()]);
    /// h.activity_failed("charge", Some("card declined"), None);
    /// assert!(matches!(h.decision_task().activity("charge"), Some(Status::Failed { .. })));
    /// ```
    pub fn activity_failed(
        &mut self,
        id: &str,
        reason: Option<&str>,
        details: Option<&str>,
    ) -> &mut Self {
        let (scheduled, started) = self.activity_running(id);
        self.event(E::ActivityTaskFailed(ActivityTaskFailedEventAttributes {
            reason: reason.map(Into::into),
            details: details.map(Into::into),
            scheduled_event_id: scheduled,
            started_event_id: started,
        }));
        self.schedule_decision_task();
        self
    }

    /// `ActivityTaskTimedOut` for the activity `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// use weft_guest::types::ActivityTaskTimeoutType;
    ///
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::schedule_activity("ship", "Ship", "1.0").into()]);
    /// h.activity_timed_out("ship", ActivityTaskTimeoutType::Heartbeat);
    /// assert_eq!(h.decision_task().activity("ship"), Some(Status::TimedOut("HEARTBEAT")));
    /// ```
    pub fn activity_timed_out(&mut self, id: &str, timeout: ActivityTaskTimeoutType) -> &mut Self {
        let (scheduled, started) = self.activity_running(id);
        self.event(E::ActivityTaskTimedOut(
            ActivityTaskTimedOutEventAttributes {
                timeout_type: timeout,
                scheduled_event_id: scheduled,
                started_event_id: started,
                details: None,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `ActivityTaskCanceled` for the activity `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::schedule_activity("ship", "Ship", "1.0").into()]);
    /// h.respond(&[Decision::request_cancel_activity("ship")]);
    /// h.activity_canceled("ship", Some("stopped"));
    /// assert_eq!(h.decision_task().activity("ship"), Some(Status::Canceled(Some("stopped"))));
    /// ```
    pub fn activity_canceled(&mut self, id: &str, details: Option<&str>) -> &mut Self {
        let (scheduled, started) = self.activity_running(id);
        let requested = self.events.iter().rev().find_map(|e| match &e.attributes {
            E::ActivityTaskCancelRequested(a) if a.activity_id == id => Some(e.event_id),
            _ => None,
        });
        self.event(E::ActivityTaskCanceled(
            ActivityTaskCanceledEventAttributes {
                details: details.map(Into::into),
                scheduled_event_id: scheduled,
                started_event_id: started,
                latest_cancel_requested_event_id: requested,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `WorkflowExecutionSignaled`: the signal `name` with this input.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.signal("cancel", Some("changed my mind"));
    /// assert_eq!(h.decision_task().signals().next().unwrap().input, Some("changed my mind"));
    /// ```
    pub fn signal(&mut self, name: &str, input: Option<&str>) -> &mut Self {
        self.event(E::WorkflowExecutionSignaled(
            WorkflowExecutionSignaledEventAttributes {
                signal_name: name.into(),
                input: input.map(Into::into),
                external_workflow_execution: None,
                external_initiated_event_id: None,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `WorkflowExecutionCancelRequested`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.cancel_requested();
    /// assert!(h.decision_task().cancel_requested());
    /// ```
    pub fn cancel_requested(&mut self) -> &mut Self {
        self.event(E::WorkflowExecutionCancelRequested(
            WorkflowExecutionCancelRequestedEventAttributes {
                external_workflow_execution: None,
                external_initiated_event_id: None,
                cause: None,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `TimerFired` for the latest timer `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Timer};
    /// let mut h = HistoryBuilder::new("Order", "1.0", None);
    /// h.respond(&[Decision::start_timer("window", 30).into()]);
    /// h.timer_fired("window");
    /// assert!(matches!(h.decision_task().timer("window"), Some(Timer::Fired { .. })));
    /// ```
    pub fn timer_fired(&mut self, id: &str) -> &mut Self {
        let started = self.timer_started(id);
        self.event(E::TimerFired(TimerFiredEventAttributes {
            timer_id: id.into(),
            started_event_id: started,
        }));
        self.schedule_decision_task();
        self
    }

    /// `ChildWorkflowExecutionStarted` for the child `workflow_id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Quote", "1.0", None);
    /// h.respond(&[Decision::start_child("item-0", "PriceItem", "1.0").into()]);
    /// h.child_started("item-0");
    /// assert_eq!(h.decision_task().child("item-0"), Some(Status::Started));
    /// ```
    pub fn child_started(&mut self, workflow_id: &str) -> &mut Self {
        let initiated = self.child_initiated(workflow_id);
        let workflow_type = self.child_type(initiated);
        self.event(E::ChildWorkflowExecutionStarted(
            ChildWorkflowExecutionStartedEventAttributes {
                workflow_execution: child_execution(workflow_id, initiated),
                workflow_type,
                initiated_event_id: initiated,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `ChildWorkflowExecutionCompleted` for the child `workflow_id`, with this result.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Quote", "1.0", None);
    /// h.respond(&[Decision::start_child("item-0", "PriceItem", "1.0").into()]);
    /// h.child_completed("item-0", Some("150"));
    /// assert_eq!(h.decision_task().child("item-0"), Some(Status::Completed(Some("150"))));
    /// ```
    pub fn child_completed(&mut self, workflow_id: &str, result: Option<&str>) -> &mut Self {
        let (initiated, started) = self.child_running(workflow_id);
        let workflow_type = self.child_type(initiated);
        self.event(E::ChildWorkflowExecutionCompleted(
            ChildWorkflowExecutionCompletedEventAttributes {
                workflow_execution: child_execution(workflow_id, initiated),
                workflow_type,
                result: result.map(Into::into),
                initiated_event_id: initiated,
                started_event_id: started,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `ChildWorkflowExecutionFailed` for the child `workflow_id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("Quote", "1.0", None);
    /// h.respond(&[Decision::start_child("item-0", "PriceItem", "1.0").into()]);
    /// h.child_failed("item-0", Some("unknown sku"), None);
    /// assert!(matches!(h.decision_task().child("item-0"), Some(Status::Failed { .. })));
    /// ```
    pub fn child_failed(
        &mut self,
        workflow_id: &str,
        reason: Option<&str>,
        details: Option<&str>,
    ) -> &mut Self {
        let (initiated, started) = self.child_running(workflow_id);
        let workflow_type = self.child_type(initiated);
        self.event(E::ChildWorkflowExecutionFailed(
            ChildWorkflowExecutionFailedEventAttributes {
                workflow_execution: child_execution(workflow_id, initiated),
                workflow_type,
                reason: reason.map(Into::into),
                details: details.map(Into::into),
                initiated_event_id: initiated,
                started_event_id: started,
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `LambdaFunctionStarted` for the function `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("PriceItem", "1.0", None);
    /// h.respond(&[Decision::schedule_lambda("price", "price").into()]);
    /// h.lambda_started("price");
    /// assert_eq!(h.decision_task().lambda("price"), Some(Status::Started));
    /// ```
    pub fn lambda_started(&mut self, id: &str) -> &mut Self {
        let scheduled = self.lambda_scheduled(id);
        self.event(E::LambdaFunctionStarted(
            LambdaFunctionStartedEventAttributes {
                scheduled_event_id: scheduled,
            },
        ));
        self
    }

    /// `LambdaFunctionCompleted` for the function `id`, with this result.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("PriceItem", "1.0", None);
    /// h.respond(&[Decision::schedule_lambda("price", "price").into()]);
    /// h.lambda_completed("price", Some("150"));
    /// assert_eq!(h.decision_task().lambda("price"), Some(Status::Completed(Some("150"))));
    /// ```
    pub fn lambda_completed(&mut self, id: &str, result: Option<&str>) -> &mut Self {
        let (scheduled, started) = self.lambda_running(id);
        self.event(E::LambdaFunctionCompleted(
            LambdaFunctionCompletedEventAttributes {
                scheduled_event_id: scheduled,
                started_event_id: started,
                result: result.map(Into::into),
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// `LambdaFunctionFailed` for the function `id`.
    ///
    /// ```
    /// # use weft_guest::testing::HistoryBuilder;
    /// # use weft_guest::{Decision, Status};
    /// let mut h = HistoryBuilder::new("PriceItem", "1.0", None);
    /// h.respond(&[Decision::schedule_lambda("price", "price").into()]);
    /// h.lambda_failed("price", Some("unknown sku"), None);
    /// assert!(matches!(h.decision_task().lambda("price"), Some(Status::Failed { .. })));
    /// ```
    pub fn lambda_failed(
        &mut self,
        id: &str,
        reason: Option<&str>,
        details: Option<&str>,
    ) -> &mut Self {
        let (scheduled, started) = self.lambda_running(id);
        self.event(E::LambdaFunctionFailed(
            LambdaFunctionFailedEventAttributes {
                scheduled_event_id: scheduled,
                started_event_id: started,
                reason: reason.map(Into::into),
                details: details.map(Into::into),
            },
        ));
        self.schedule_decision_task();
        self
    }

    /// The latest event matching `pick`, or a panic naming `what`.
    fn latest(&self, what: &str, pick: impl Fn(&E) -> bool) -> u64 {
        self.events
            .iter()
            .rev()
            .find(|e| pick(&e.attributes))
            .map(|e| e.event_id)
            .unwrap_or_else(|| panic!("the history has no {what}"))
    }

    /// The first event after `after` matching `pick`, if any.
    fn following(&self, after: u64, pick: impl Fn(&E) -> bool) -> Option<u64> {
        self.events
            .iter()
            .filter(|e| e.event_id > after)
            .find(|e| pick(&e.attributes))
            .map(|e| e.event_id)
    }

    fn activity_scheduled(&self, id: &str) -> u64 {
        self.latest(
            &format!("activity {id:?}"),
            |a| matches!(a, E::ActivityTaskScheduled(a) if a.activity_id == id),
        )
    }

    /// The activity's scheduled and started events, recording its start if needed.
    fn activity_running(&mut self, id: &str) -> (u64, u64) {
        let scheduled = self.activity_scheduled(id);
        let started = self.following(
            scheduled,
            |a| matches!(a, E::ActivityTaskStarted(a) if a.scheduled_event_id == scheduled),
        );
        let started = started.unwrap_or_else(|| {
            self.event(E::ActivityTaskStarted(ActivityTaskStartedEventAttributes {
                identity: Some("test".into()),
                scheduled_event_id: scheduled,
            }))
        });
        (scheduled, started)
    }

    pub(super) fn timer_started(&self, id: &str) -> u64 {
        self.latest(
            &format!("timer {id:?}"),
            |a| matches!(a, E::TimerStarted(a) if a.timer_id == id),
        )
    }

    pub(super) fn child_initiated(&self, workflow_id: &str) -> u64 {
        self.latest(&format!("child {workflow_id:?}"), |a| {
            matches!(a, E::StartChildWorkflowExecutionInitiated(a) if a.workflow_id == workflow_id)
        })
    }

    pub(super) fn child_type(&self, initiated: u64) -> WorkflowType {
        match &self.events[initiated as usize - 1].attributes {
            E::StartChildWorkflowExecutionInitiated(a) => a.workflow_type.clone(),
            _ => unreachable!("child_initiated answers an initiated event"),
        }
    }

    /// The child's initiated and started events, recording its start if needed.
    pub(super) fn child_running(&mut self, workflow_id: &str) -> (u64, u64) {
        let initiated = self.child_initiated(workflow_id);
        let started = self.following(initiated, |a| {
            matches!(a, E::ChildWorkflowExecutionStarted(a) if a.initiated_event_id == initiated)
        });
        let started = started.unwrap_or_else(|| {
            let workflow_type = self.child_type(initiated);
            self.event(E::ChildWorkflowExecutionStarted(
                ChildWorkflowExecutionStartedEventAttributes {
                    workflow_execution: child_execution(workflow_id, initiated),
                    workflow_type,
                    initiated_event_id: initiated,
                },
            ))
        });
        (initiated, started)
    }

    fn lambda_scheduled(&self, id: &str) -> u64 {
        self.latest(
            &format!("Lambda function {id:?}"),
            |a| matches!(a, E::LambdaFunctionScheduled(a) if a.id == id),
        )
    }

    /// The function's scheduled and started events, recording its start if needed.
    pub(super) fn lambda_running(&mut self, id: &str) -> (u64, u64) {
        let scheduled = self.lambda_scheduled(id);
        let started = self.following(
            scheduled,
            |a| matches!(a, E::LambdaFunctionStarted(a) if a.scheduled_event_id == scheduled),
        );
        let started = started.unwrap_or_else(|| {
            self.event(E::LambdaFunctionStarted(
                LambdaFunctionStartedEventAttributes {
                    scheduled_event_id: scheduled,
                },
            ))
        });
        (scheduled, started)
    }
}

pub(super) fn child_execution(workflow_id: &str, initiated: u64) -> WorkflowExecution {
    WorkflowExecution {
        workflow_id: workflow_id.into(),
        run_id: format!("child-run-{initiated}"),
    }
}
