//! The activity worker of the e-commerce order workflow: one component for its six activity
//! types (`weft_examples::order::ACTIVITIES`), chosen by the task's activity type.
//!
//! Nothing here touches the outside world: charging, shipping and emailing are simulated, and
//! answer small JSON documents derived from the order, so that runs are reproducible.

use serde_json::{Value, json};
use weft_examples::order::{
    CANCEL_ORDER, CHARGE_CREDIT_CARD, DECLINED_CARD_SUFFIX, EMAIL_CUSTOMER, RECORD_COMPLETION,
    SHIP_ORDER, VERIFY_ORDER,
};
use weft_guest::log::info;
use weft_guest::{ActivityTask, Failure};

weft_guest::activity_worker!(run);

/// Runs one activity task of the order workflow.
pub fn run(task: &ActivityTask) -> Result<Option<String>, Failure> {
    let input: Value = task
        .input
        .as_deref()
        .map(serde_json::from_str)
        .transpose()
        .map_err(|e| Failure::new("the input is not JSON").details(e.to_string()))?
        .ok_or_else(|| Failure::new("the activity needs an input"))?;
    let name = task.activity_type.name.as_str();
    info!(
        "{name} ({}) for {}",
        task.activity_id, task.workflow_execution.workflow_id
    );
    let result = match name {
        n if n == VERIFY_ORDER.name => verify(&input)?,
        n if n == CHARGE_CREDIT_CARD.name => charge(&input)?,
        n if n == SHIP_ORDER.name => json!({ "tracking": format!("TRK-{}", order_id(&input)) }),
        n if n == RECORD_COMPLETION.name => json!({ "recorded": order_id(&input["order"]) }),
        n if n == CANCEL_ORDER.name => json!({
            "canceled": order_id(&input["order"]),
            "refunded": input["refund"]["charge_id"],
        }),
        n if n == EMAIL_CUSTOMER.name => json!({
            "sent_to": input["order"]["customer"],
            "subject": input["subject"],
        }),
        other => return Err(Failure::new(format!("unknown activity type {other}"))),
    };
    Ok(Some(result.to_string()))
}

/// Checks that the order has an id, a customer, a card, a positive amount and items.
fn verify(order: &Value) -> Result<Value, Failure> {
    let problems: Vec<&str> = [
        (
            order["order_id"].as_str().is_none_or(str::is_empty),
            "no order_id",
        ),
        (
            order["customer"].as_str().is_none_or(str::is_empty),
            "no customer",
        ),
        (order["card"].as_str().is_none_or(str::is_empty), "no card"),
        (
            order["amount_cents"].as_u64().is_none_or(|a| a == 0),
            "no amount_cents",
        ),
        (
            order["items"].as_array().is_none_or(Vec::is_empty),
            "no items",
        ),
    ]
    .into_iter()
    .filter_map(|(bad, problem)| bad.then_some(problem))
    .collect();
    if problems.is_empty() {
        Ok(json!({ "order_id": order_id(order), "verified": true }))
    } else {
        Err(Failure::new("invalid order").details(problems.join(", ")))
    }
}

/// Charges the card, unless its number ends in the declined suffix.
fn charge(order: &Value) -> Result<Value, Failure> {
    let card = order["card"].as_str().unwrap_or_default();
    if card.ends_with(DECLINED_CARD_SUFFIX) {
        let last4 = &card[card.len().saturating_sub(4)..];
        return Err(Failure::new("card declined").details(format!("card ending {last4}")));
    }
    Ok(json!({
        "charge_id": format!("CH-{}", order_id(order)),
        "amount_cents": order["amount_cents"],
    }))
}

fn order_id(order: &Value) -> &str {
    order["order_id"].as_str().unwrap_or("unknown")
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_examples::order::{SAMPLE_DECLINED_ORDER, SAMPLE_ORDER};
    use weft_guest::types::{ActivityType, WorkflowExecution};

    /// The activity's result, as JSON.
    fn result(activity: weft_examples::TypeName, input: &str) -> Value {
        serde_json::from_str(&run(&task(activity, input)).unwrap().unwrap()).unwrap()
    }

    fn task(activity: weft_examples::TypeName, input: &str) -> ActivityTask {
        ActivityTask {
            activity_id: "a".into(),
            activity_type: ActivityType {
                name: activity.name.into(),
                version: activity.version.into(),
            },
            workflow_execution: WorkflowExecution {
                workflow_id: "w".into(),
                run_id: "r".into(),
            },
            input: Some(input.into()),
            started_event_id: 5,
        }
    }

    #[test]
    fn a_good_order_is_verified_and_charged() {
        assert_eq!(
            result(VERIFY_ORDER, SAMPLE_ORDER),
            json!({"order_id": "order-1", "verified": true})
        );
        assert_eq!(
            result(CHARGE_CREDIT_CARD, SAMPLE_ORDER),
            json!({"amount_cents": 4200, "charge_id": "CH-order-1"})
        );
    }

    #[test]
    fn a_card_ending_in_0000_is_declined() {
        let failure = run(&task(CHARGE_CREDIT_CARD, SAMPLE_DECLINED_ORDER)).unwrap_err();
        assert_eq!(
            failure,
            Failure::new("card declined").details("card ending 0000")
        );
    }

    #[test]
    fn an_order_without_items_or_amount_is_invalid() {
        let failure = run(&task(
            VERIFY_ORDER,
            r#"{"order_id":"o","customer":"c","card":"1"}"#,
        ));
        assert_eq!(
            failure.unwrap_err(),
            Failure::new("invalid order").details("no amount_cents, no items")
        );
    }

    #[test]
    fn cancel_refunds_the_charge_and_email_names_the_customer() {
        let cancel = format!(r#"{{"order":{SAMPLE_ORDER},"refund":{{"charge_id":"CH-order-1"}}}}"#);
        assert_eq!(
            result(CANCEL_ORDER, &cancel),
            json!({"canceled": "order-1", "refunded": "CH-order-1"})
        );
        let email = format!(r#"{{"order":{SAMPLE_ORDER},"subject":"Canceled"}}"#);
        assert_eq!(
            result(EMAIL_CUSTOMER, &email),
            json!({"sent_to": "ada@example.com", "subject": "Canceled"})
        );
    }

    #[test]
    fn unknown_types_and_bad_input_fail() {
        let unknown = weft_examples::TypeName {
            name: "Teleport",
            version: "1.0",
        };
        assert_eq!(
            run(&task(unknown, "{}")).unwrap_err().reason.as_deref(),
            Some("unknown activity type Teleport")
        );
        assert_eq!(
            run(&task(SHIP_ORDER, "not json"))
                .unwrap_err()
                .reason
                .as_deref(),
            Some("the input is not JSON")
        );
    }
}
