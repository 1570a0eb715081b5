//! Constructors for the 13 decisions, builders for those with optional parts, and the response.
//!
//! Durations are whole seconds. A timeout left unset takes the default registered with the type
//! (or given when the execution started), as in SWF.

pub mod builders;
mod response;

use crate::decisions::{
    CancelTimerDecisionAttributes, CancelWorkflowExecutionDecisionAttributes,
    CompleteWorkflowExecutionDecisionAttributes, Decision, FailWorkflowExecutionDecisionAttributes,
    RecordMarkerDecisionAttributes, RequestCancelActivityTaskDecisionAttributes,
};
use builders::{
    ContinueAsNew, RequestCancelExternal, ScheduleActivity, ScheduleLambda, SignalExternal,
    StartChild, StartTimer,
};

impl Decision {
    /// `ScheduleActivityTask`: runs an activity of type `name`/`version` under the id `id`,
    /// which names it in the history (see [`History::activity`](crate::History::activity)).
    ///
    /// ```
    /// use weft_guest::Decision;
    ///
    /// let d: Decision = Decision::schedule_activity("charge", "ChargeCreditCard", "1.0")
    ///     .input(r#"{"amount_cents":1999}"#)
    ///     .task_list("order-activities")
    ///     .start_to_close(30)
    ///     .into();
    /// # assert!(matches!(d, Decision::ScheduleActivityTask(_)));
    /// ```
    pub fn schedule_activity(
        id: impl Into<String>,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> ScheduleActivity {
        ScheduleActivity::new(id.into(), name.into(), version.into())
    }

    /// `RequestCancelActivityTask`: asks the activity `id` to stop (its worker learns it from its
    /// next heartbeat).
    ///
    /// ```
    /// # use weft_guest::Decision;
    /// let d = Decision::request_cancel_activity("ship");
    /// # assert!(matches!(d, Decision::RequestCancelActivityTask(_)));
    /// ```
    pub fn request_cancel_activity(id: impl Into<String>) -> Decision {
        Decision::RequestCancelActivityTask(RequestCancelActivityTaskDecisionAttributes {
            activity_id: id.into(),
        })
    }

    /// `CompleteWorkflowExecution`: closes the execution as completed, with an optional result.
    ///
    /// ```
    /// # use weft_guest::Decision;
    /// let d = Decision::complete(Some(r#"{"tracking":"T1"}"#.to_string()));
    /// # assert!(matches!(d, Decision::CompleteWorkflowExecution(_)));
    /// ```
    pub fn complete(result: Option<String>) -> Decision {
        Decision::CompleteWorkflowExecution(CompleteWorkflowExecutionDecisionAttributes { result })
    }

    /// `FailWorkflowExecution`: closes the execution as failed, with a reason and optional
    /// details.
    ///
    /// ```
    /// # use weft_guest::Decision;
    /// let d = Decision::fail("payment declined", Some("card ending 0000".to_string()));
    /// # assert!(matches!(d, Decision::FailWorkflowExecution(_)));
    /// ```
    pub fn fail(reason: impl Into<String>, details: Option<String>) -> Decision {
        Decision::FailWorkflowExecution(FailWorkflowExecutionDecisionAttributes {
            reason: Some(reason.into()),
            details,
        })
    }

    /// `CancelWorkflowExecution`: closes the execution as canceled, with optional details.
    ///
    /// ```
    /// # use weft_guest::Decision;
    /// let d = Decision::cancel(Some("canceled by the customer".to_string()));
    /// # assert!(matches!(d, Decision::CancelWorkflowExecution(_)));
    /// ```
    pub fn cancel(details: Option<String>) -> Decision {
        Decision::CancelWorkflowExecution(CancelWorkflowExecutionDecisionAttributes { details })
    }

    /// `ContinueAsNewWorkflowExecution`: closes this run and starts a new run of the same
    /// execution, by default with the same settings and no input.
    ///
    /// ```
    /// # use weft_guest::Decision;
    /// let d: Decision = Decision::continue_as_new().input("page 2").into();
    /// # assert!(matches!(d, Decision::ContinueAsNewWorkflowExecution(_)));
    /// ```
    pub fn continue_as_new() -> ContinueAsNew {
        ContinueAsNew::new()
    }

    /// `RecordMarker`: writes a marker into the history, for the decider's later turns or for
    /// people reading it (see [`History::markers`](crate::History::markers)).
    ///
    /// ```
    /// # use weft_guest::Decision;
    /// let d = Decision::record_marker("cancel-too-late", None);
    /// # assert!(matches!(d, Decision::RecordMarker(_)));
    /// ```
    pub fn record_marker(name: impl Into<String>, details: Option<String>) -> Decision {
        Decision::RecordMarker(RecordMarkerDecisionAttributes {
            marker_name: name.into(),
            details,
        })
    }

    /// `StartTimer`: starts the timer `id`, which fires after `seconds` (see
    /// [`History::timer`](crate::History::timer)).
    ///
    /// ```
    /// # use weft_guest::Decision;
    /// let d: Decision = Decision::start_timer("cancel-window", 30).into();
    /// # assert!(matches!(d, Decision::StartTimer(_)));
    /// ```
    pub fn start_timer(id: impl Into<String>, seconds: u64) -> StartTimer {
        StartTimer::new(id.into(), seconds)
    }

    /// `CancelTimer`: cancels the open timer `id`.
    ///
    /// ```
    /// # use weft_guest::Decision;
    /// let d = Decision::cancel_timer("cancel-window");
    /// # assert!(matches!(d, Decision::CancelTimer(_)));
    /// ```
    pub fn cancel_timer(id: impl Into<String>) -> Decision {
        Decision::CancelTimer(CancelTimerDecisionAttributes {
            timer_id: id.into(),
        })
    }

    /// `SignalExternalWorkflowExecution`: sends the signal `signal_name` to the execution
    /// `workflow_id` (its current run unless a run id is given).
    ///
    /// ```
    /// # use weft_guest::Decision;
    /// let d: Decision = Decision::signal_external("order-17", "cancel").input("too slow").into();
    /// # assert!(matches!(d, Decision::SignalExternalWorkflowExecution(_)));
    /// ```
    pub fn signal_external(
        workflow_id: impl Into<String>,
        signal_name: impl Into<String>,
    ) -> SignalExternal {
        SignalExternal::new(workflow_id.into(), signal_name.into())
    }

    /// `RequestCancelExternalWorkflowExecution`: asks the execution `workflow_id` to cancel.
    ///
    /// ```
    /// # use weft_guest::Decision;
    /// let d: Decision = Decision::request_cancel_external("order-17").into();
    /// # assert!(matches!(d, Decision::RequestCancelExternalWorkflowExecution(_)));
    /// ```
    pub fn request_cancel_external(workflow_id: impl Into<String>) -> RequestCancelExternal {
        RequestCancelExternal::new(workflow_id.into())
    }

    /// `StartChildWorkflowExecution`: starts a child execution `workflow_id` of the workflow
    /// type `name`/`version` (see [`History::child`](crate::History::child)).
    ///
    /// ```
    /// # use weft_guest::Decision;
    /// let d: Decision = Decision::start_child("quote-1-item-0", "PriceItem", "1.0")
    ///     .input(r#"{"sku":"apple","quantity":3}"#)
    ///     .into();
    /// # assert!(matches!(d, Decision::StartChildWorkflowExecution(_)));
    /// ```
    pub fn start_child(
        workflow_id: impl Into<String>,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> StartChild {
        StartChild::new(workflow_id.into(), name.into(), version.into())
    }

    /// `ScheduleLambdaFunction`: runs the function `name` under the id `id` (see
    /// [`History::lambda`](crate::History::lambda)).
    ///
    /// ```
    /// # use weft_guest::Decision;
    /// let d: Decision = Decision::schedule_lambda("price", "price").input("{}").into();
    /// # assert!(matches!(d, Decision::ScheduleLambdaFunction(_)));
    /// ```
    pub fn schedule_lambda(id: impl Into<String>, name: impl Into<String>) -> ScheduleLambda {
        ScheduleLambda::new(id.into(), name.into())
    }
}
