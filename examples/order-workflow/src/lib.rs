//! The SWF developer guide's order workflow as ordinary async code: the same behaviour as
//! `order-decider`'s state machine (see its documentation), replayed by `weft_guest::workflow`.

use std::cell::Cell;
use std::time::Duration;

use serde_json::{Value, json};
use weft_examples::TypeName;
use weft_examples::order::*; // the order's names: types, task lists, timeouts, ids
use weft_guest::workflow::{Activity, Either, Error, Workflow, join, select, wait_until};

weft_guest::workflow!(order);

/// How the order ends: its result, or how it failed or was canceled.
type Outcome = Result<String, Error>;

/// Verifies the order, charges the card, ships once the cancellation window closed, records the
/// order and completes with `{"order_id", "charge", "shipment"}`; a cancel within the window
/// (once no activity runs), or a failed charge, cancels the order and emails the customer.
pub async fn order(wf: Workflow) -> Outcome {
    let input = wf.input().unwrap_or_default();
    let order: Value = wf.input_json()?;
    let seconds = order["cancel_window_seconds"].as_u64();
    let seconds = Duration::from_secs(seconds.unwrap_or(DEFAULT_CANCEL_WINDOW_SECS));
    let mut window = wf.sleep(seconds).id(CANCEL_WINDOW_TIMER);
    let (closed, canceled) = (Cell::new(false), Cell::new(false));
    let by_customer = || Error::canceled().with_details("canceled by the customer");
    // The window's timer first, as the first decision task starts it before verifying.
    let watch = async {
        let cancel = select(wf.signal(CANCEL_SIGNAL), wf.cancellation());
        match select(&mut window, cancel).await {
            Either::Left(_) => closed.set(true),
            Either::Right(_) => {
                canceled.set(true);
                window.cancel();
            }
        }
        loop {
            wf.signal(CANCEL_SIGNAL).await;
            wf.record_marker(CANCEL_TOO_LATE_MARKER, Some(CANCEL_TOO_LATE_DETAILS.into()));
        }
    };
    let steps = async {
        let verified = activity(&wf, ids::VERIFY, VERIFY_ORDER, &input).await;
        if canceled.get() {
            return wind_down(&wf, &order, Value::Null, by_customer()).await;
        }
        verified.map_err(failed("invalid order"))?;
        let charged = activity(&wf, ids::CHARGE, CHARGE_CREDIT_CARD, &input).await;
        let charge = match charged.map_err(failed("payment declined")) {
            Ok(receipt) => result_json(receipt),
            Err(declined) => return wind_down(&wf, &order, Value::Null, declined).await,
        };
        wait_until(|| closed.get() || canceled.get()).await;
        if canceled.get() {
            return wind_down(&wf, &order, charge, by_customer()).await;
        }
        let shipped = activity(&wf, ids::SHIP, SHIP_ORDER, &input).await;
        let shipment = result_json(shipped.map_err(failed("shipping failed"))?);
        let summary = json!({ "order": order, "charge": charge, "shipment": shipment });
        let recorded = activity(&wf, ids::RECORD, RECORD_COMPLETION, summary.to_string()).await;
        recorded.map_err(failed("recording the order failed"))?;
        let order_id = &order["order_id"];
        Ok(json!({ "order_id": order_id, "charge": charge, "shipment": shipment }).to_string())
    };
    let result = match select(watch, steps).await {
        Either::Left(never) => match never {},
        Either::Right(result) => result,
    };
    wf.cancel_timer(CANCEL_WINDOW_TIMER);
    result
}

/// Closes the window, cancels the order (refunding `charge`) and emails the customer, then ends
/// the run with `end`.
async fn wind_down(wf: &Workflow, order: &Value, charge: Value, end: Error) -> Outcome {
    wf.cancel_timer(CANCEL_WINDOW_TIMER);
    let cancel = json!({ "order": order, "refund": charge });
    let email = json!({ "order": order, "subject": "Your order was canceled" });
    let cancel = activity(wf, ids::CANCEL, CANCEL_ORDER, cancel.to_string());
    let email = activity(wf, ids::EMAIL, EMAIL_CUSTOMER, email.to_string());
    match join(cancel, email).await {
        (Ok(_), _) => Err(end),
        (Err(e), _) => Err(failed("the order could not be canceled")(e)),
    }
}

/// An activity of the order's, on its task list with its timeouts.
fn activity(wf: &Workflow, id: &str, kind: TypeName, input: impl Into<String>) -> Activity {
    let (run, queued) = (ACTIVITY_TIMEOUT_SECS, ACTIVITY_SCHEDULE_TIMEOUT_SECS);
    let activity = wf.activity(kind.name, kind.version).id(id).input(input);
    let activity = activity.task_list(ACTIVITY_TASK_LIST).heartbeat(run);
    let activity = activity.start_to_close(run).schedule_to_start(queued);
    activity.schedule_to_close(queued)
}

/// Fails the run for `why`, with how the activity ended (in words) as its details.
fn failed(why: &str) -> impl Fn(Error) -> Error + '_ {
    move |error| Error::failed(why).with_details(error.to_string())
}

/// An activity's result as JSON (a JSON string if it is not JSON, null if there is none).
fn result_json(result: Option<String>) -> Value {
    let text = result.unwrap_or_else(|| "null".into());
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

#[cfg(test)]
mod tests;
