//! The activity worker of the e-commerce order workflow: one component for its six activity
//! types (`weft_examples::order::ACTIVITIES`), each registered with the function that runs it.
//!
//! Nothing here touches the outside world: charging, shipping and emailing are simulated, and
//! answer small JSON documents derived from the order, so that runs are reproducible.

use serde_json::{Value, json};
use weft_examples::TypeName;
use weft_examples::order::{
    CANCEL_ORDER, CHARGE_CREDIT_CARD, DECLINED_CARD_SUFFIX, EMAIL_CUSTOMER, RECORD_COMPLETION,
    SHIP_ORDER, VERIFY_ORDER,
};
use weft_guest::log::info;
use weft_guest::{Activities, ActivityTask, Failure, Json, Outcome};

weft_guest::activity_worker!(run);

/// Runs one activity task of the order workflow.
pub fn run(task: &ActivityTask) -> Outcome {
    info!(
        "{} ({}) for {}",
        task.activity_type.name, task.activity_id, task.workflow_execution.workflow_id
    );
    activities().run(task)
}

/// The six activity types, each registered with what it answers for its input.
fn activities() -> Activities {
    let answers: [(TypeName, Answer); 6] = [
        (VERIFY_ORDER, verify),
        (CHARGE_CREDIT_CARD, charge),
        (SHIP_ORDER, ship),
        (RECORD_COMPLETION, record),
        (CANCEL_ORDER, cancel),
        (EMAIL_CUSTOMER, email),
    ];
    answers
        .into_iter()
        .fold(Activities::new(), |activities, (ty, answer)| {
            activities.activity(ty.name, ty.version, move |task: &ActivityTask| {
                answer(&task.input_json()?).map(Json)
            })
        })
}

/// What an activity answers for its input, both JSON.
type Answer = fn(&Value) -> Result<Value, Failure>;

fn ship(order: &Value) -> Result<Value, Failure> {
    Ok(json!({ "tracking": format!("TRK-{}", order_id(order)) }))
}

fn record(input: &Value) -> Result<Value, Failure> {
    Ok(json!({ "recorded": order_id(&input["order"]) }))
}

fn cancel(input: &Value) -> Result<Value, Failure> {
    Ok(json!({
        "canceled": order_id(&input["order"]),
        "refunded": input["refund"]["charge_id"],
    }))
}

fn email(input: &Value) -> Result<Value, Failure> {
    Ok(json!({
        "sent_to": input["order"]["customer"],
        "subject": input["subject"],
    }))
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
        let Outcome::Completed(Some(result)) = run(&task(activity, input)) else {
            panic!("{} did not complete with a result", activity.name);
        };
        serde_json::from_str(&result).unwrap()
    }

    /// How the activity failed.
    fn failure(activity: weft_examples::TypeName, input: &str) -> Failure {
        match run(&task(activity, input)) {
            Outcome::Failed(failure) => failure,
            other => panic!("{} did not fail: {other:?}", activity.name),
        }
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
        assert_eq!(
            failure(CHARGE_CREDIT_CARD, SAMPLE_DECLINED_ORDER),
            Failure::new("card declined").details("card ending 0000")
        );
    }

    #[test]
    fn an_order_without_items_or_amount_is_invalid() {
        assert_eq!(
            failure(
                VERIFY_ORDER,
                r#"{"order_id":"o","customer":"c","card":"1"}"#
            ),
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
            failure(unknown, "not json"),
            Failure::new("unknown activity type Teleport")
        );
        assert_eq!(
            failure(SHIP_ORDER, "not json"),
            Failure::new("the input is not JSON").details("expected ident at line 1 column 2")
        );
    }
}
