//! The decider of the SWF developer guide's e-commerce order workflow, as a Weft guest.
//!
//! The input is the order, as JSON (see `weft_examples::order::SAMPLE_ORDER`). The workflow:
//!
//! 1. starts the cancellation window (a timer) and verifies the order;
//! 2. charges the credit card;
//! 3. once the window has closed, ships the order;
//! 4. records the completion, and completes with `{"order_id", "charge", "shipment"}`.
//!
//! If the charge fails, it cancels the order and emails the customer, then fails the workflow
//! (`payment declined`). A `cancel` signal (or a cancellation request) that arrives before the
//! window's timer fires cancels the order: once no activity is running, it cancels the order
//! (refunding the charge, if any), emails the customer, and closes the workflow as canceled.
//! A `cancel` signal after the timer fired is recorded as a `cancel-too-late` marker and
//! otherwise ignored. Any other failure fails the workflow.
//!
//! The decider is a pure function of the history: each decision task recomputes where the order
//! stands from the events, so a decision that SWF rejected is simply decided again.

use serde_json::{Value, json};
use weft_examples::TypeName;
use weft_examples::order::{
    ACTIVITY_SCHEDULE_TIMEOUT_SECS, ACTIVITY_TASK_LIST, ACTIVITY_TIMEOUT_SECS, CANCEL_ORDER,
    CANCEL_SIGNAL, CANCEL_TOO_LATE_DETAILS, CANCEL_TOO_LATE_MARKER, CANCEL_WINDOW_TIMER,
    CHARGE_CREDIT_CARD, DEFAULT_CANCEL_WINDOW_SECS, EMAIL_CUSTOMER, RECORD_COMPLETION, SHIP_ORDER,
    VERIFY_ORDER, ids,
};
use weft_guest::events::EventAttributes;
use weft_guest::{Decision, History, Status, Timer};

weft_guest::decider!(decide);

/// Decides the order workflow's next step.
pub fn decide(history: &History) -> Result<Vec<Decision>, String> {
    let input = history
        .input()
        .ok_or("the order workflow needs the order as input")?;
    let order: Value =
        serde_json::from_str(input).map_err(|e| format!("the order is not JSON: {e}"))?;
    let mut decisions = too_late_cancels(history);

    // The first decision task: open the window and verify the order.
    if history.activity(ids::VERIFY).is_none() {
        let window = order["cancel_window_seconds"]
            .as_u64()
            .unwrap_or(DEFAULT_CANCEL_WINDOW_SECS);
        decisions.push(Decision::start_timer(CANCEL_WINDOW_TIMER, window).into());
        decisions.push(activity(ids::VERIFY, VERIFY_ORDER, input.to_string()));
        return Ok(decisions);
    }

    let charge = history.activity(ids::CHARGE);
    if let Some(status @ (Status::Failed { .. } | Status::TimedOut(_) | Status::Canceled(_))) =
        charge
    {
        let why = describe(&status);
        wind_down(history, &order, None, &mut decisions, || {
            Decision::fail("payment declined", Some(why))
        });
        return Ok(decisions);
    }

    if cancel_accepted(history) {
        let running = [ids::VERIFY, ids::CHARGE]
            .iter()
            .any(|id| history.activity(id).is_some_and(|s| s.is_open()));
        if running {
            // Let the running activity finish: cancelling the order must know whether the card
            // was charged.
            if history
                .timer(CANCEL_WINDOW_TIMER)
                .is_some_and(|t| t.is_open())
            {
                decisions.push(Decision::cancel_timer(CANCEL_WINDOW_TIMER));
            }
            return Ok(decisions);
        }
        let refund = charge.and_then(|s| s.result());
        wind_down(history, &order, refund, &mut decisions, || {
            Decision::cancel(Some("canceled by the customer".to_string()))
        });
        return Ok(decisions);
    }

    let step = match history.activity(ids::VERIFY) {
        Some(Status::Completed(_)) => next_after_verify(history, input, charge),
        Some(status) if status.is_open() => Step::Wait,
        Some(status) => Step::Fail("invalid order", describe(&status)),
        None => unreachable!("the first decision task schedules the verification"),
    };
    match step {
        Step::Wait => {}
        Step::Schedule(decision) => decisions.push(*decision),
        Step::Complete(result) => decisions.push(Decision::complete(Some(result))),
        Step::Fail(reason, details) => {
            if history
                .timer(CANCEL_WINDOW_TIMER)
                .is_some_and(|t| t.is_open())
            {
                decisions.push(Decision::cancel_timer(CANCEL_WINDOW_TIMER));
            }
            decisions.push(Decision::fail(reason, Some(details)));
        }
    }
    Ok(decisions)
}

/// What the happy path does next.
enum Step {
    /// Nothing: an activity or the cancellation window is still running.
    Wait,
    /// Schedule the next activity.
    Schedule(Box<Decision>),
    /// Complete the workflow with this result.
    Complete(String),
    /// Fail the workflow with this reason and details.
    Fail(&'static str, String),
}

/// The happy path after the order was verified: charge, ship once the window closed, record,
/// complete.
fn next_after_verify(history: &History, order: &str, charge: Option<Status<'_>>) -> Step {
    let charge = match charge {
        None => {
            return Step::Schedule(Box::new(activity(
                ids::CHARGE,
                CHARGE_CREDIT_CARD,
                order.into(),
            )));
        }
        Some(Status::Completed(receipt)) => receipt.unwrap_or("null"),
        Some(_) => return Step::Wait,
    };
    let shipment = match history.activity(ids::SHIP) {
        // Ship once the window is over (it fired, or its timer could not even start).
        None if !history
            .timer(CANCEL_WINDOW_TIMER)
            .is_some_and(|t| t.is_open()) =>
        {
            return Step::Schedule(Box::new(activity(ids::SHIP, SHIP_ORDER, order.into())));
        }
        None => return Step::Wait,
        Some(Status::Completed(shipment)) => shipment.unwrap_or("null"),
        Some(status) if status.is_open() => return Step::Wait,
        Some(status) => return Step::Fail("shipping failed", describe(&status)),
    };
    let summary = json!({
        "order": parse(order),
        "charge": parse(charge),
        "shipment": parse(shipment),
    });
    match history.activity(ids::RECORD) {
        None => Step::Schedule(Box::new(activity(
            ids::RECORD,
            RECORD_COMPLETION,
            summary.to_string(),
        ))),
        Some(Status::Completed(_)) => Step::Complete(
            json!({
                "order_id": summary["order"]["order_id"],
                "charge": summary["charge"],
                "shipment": summary["shipment"],
            })
            .to_string(),
        ),
        Some(status) if status.is_open() => Step::Wait,
        Some(status) => Step::Fail("recording the order failed", describe(&status)),
    }
}

/// Cancels the order (refunding `refund`, the charge's receipt, if any) and emails the customer;
/// once both are done, closes the workflow with `close` (or fails it if the order could not be
/// canceled).
fn wind_down(
    history: &History,
    order: &Value,
    refund: Option<&str>,
    decisions: &mut Vec<Decision>,
    close: impl FnOnce() -> Decision,
) {
    if history
        .timer(CANCEL_WINDOW_TIMER)
        .is_some_and(|t| t.is_open())
    {
        decisions.push(Decision::cancel_timer(CANCEL_WINDOW_TIMER));
    }
    let cancel = history.activity(ids::CANCEL);
    let email = history.activity(ids::EMAIL);
    if cancel.is_none() {
        let input = json!({ "order": order, "refund": refund.map(parse) });
        decisions.push(activity(ids::CANCEL, CANCEL_ORDER, input.to_string()));
    }
    if email.is_none() {
        let input = json!({ "order": order, "subject": "Your order was canceled" });
        decisions.push(activity(ids::EMAIL, EMAIL_CUSTOMER, input.to_string()));
    }
    match (cancel, email) {
        (Some(Status::Completed(_)), Some(email)) if !email.is_open() => decisions.push(close()),
        (Some(cancel), Some(email)) if !cancel.is_open() && !email.is_open() => {
            decisions.push(Decision::fail(
                "the order could not be canceled",
                Some(describe(&cancel)),
            ));
        }
        _ => {}
    }
}

/// Whether a cancellation (the `cancel` signal, or a cancellation request) arrived before the
/// cancellation window's timer fired.
fn cancel_accepted(history: &History) -> bool {
    let closed_at = match history.timer(CANCEL_WINDOW_TIMER) {
        Some(Timer::Fired { event_id }) => event_id,
        _ => u64::MAX,
    };
    history.events().iter().any(|e| {
        e.event_id < closed_at
            && match &e.attributes {
                EventAttributes::WorkflowExecutionSignaled(s) => s.signal_name == CANCEL_SIGNAL,
                EventAttributes::WorkflowExecutionCancelRequested(_) => true,
                _ => false,
            }
    })
}

/// A `cancel-too-late` marker for each new `cancel` signal that arrived after the window closed.
fn too_late_cancels(history: &History) -> Vec<Decision> {
    let Some(Timer::Fired {
        event_id: closed_at,
    }) = history.timer(CANCEL_WINDOW_TIMER)
    else {
        return Vec::new();
    };
    history
        .new_signals()
        .filter(|s| s.name == CANCEL_SIGNAL && s.event_id > closed_at)
        .map(|_| {
            Decision::record_marker(CANCEL_TOO_LATE_MARKER, Some(CANCEL_TOO_LATE_DETAILS.into()))
        })
        .collect()
}

/// A `ScheduleActivityTask` decision with this decider's task list and timeouts.
fn activity(id: &str, activity_type: TypeName, input: String) -> Decision {
    Decision::schedule_activity(id, activity_type.name, activity_type.version)
        .input(input)
        .task_list(ACTIVITY_TASK_LIST)
        .schedule_to_start(ACTIVITY_SCHEDULE_TIMEOUT_SECS)
        .schedule_to_close(ACTIVITY_SCHEDULE_TIMEOUT_SECS)
        .start_to_close(ACTIVITY_TIMEOUT_SECS)
        .heartbeat(ACTIVITY_TIMEOUT_SECS)
        .into()
}

/// A closed activity's end, in words, for a failure's details.
fn describe(status: &Status<'_>) -> String {
    match status {
        Status::Failed { reason, details } => {
            let reason = reason.unwrap_or("failed");
            details.map_or_else(|| reason.to_string(), |d| format!("{reason}: {d}"))
        }
        Status::TimedOut(timeout) => format!("timed out ({timeout})"),
        Status::Canceled(_) => "canceled".to_string(),
        Status::NotStarted(cause) => format!("could not be scheduled ({cause})"),
        other => format!("{other:?}"),
    }
}

/// An activity's result as JSON (or as a JSON string if it is not JSON).
fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod input_tests {
    use super::decide;
    use weft_examples::order::WORKFLOW;
    use weft_guest::testing::HistoryBuilder;

    #[test]
    fn without_an_order_the_decision_task_fails() {
        let mut h = HistoryBuilder::new(WORKFLOW.name, WORKFLOW.version, None);
        assert!(h.decide(decide).is_err());
        let mut h = HistoryBuilder::new(WORKFLOW.name, WORKFLOW.version, Some("not json"));
        assert!(h.decide(decide).unwrap_err().contains("not JSON"));
    }
}
