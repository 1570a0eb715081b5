//! The order workflow's histories: its async Rust decider (`order-workflow`) serving inside the
//! server, the test as its activity worker, so that every event comes in one order only. Every
//! order decider of every language must replay these without a difference.

use std::time::Duration;

use serde_json::{Value, json};
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::guests::{self, Bind, BindingKind, order};

use super::{Fixture, decided, server};
use crate::flow::{D, activity_task, signal};

/// The fixtures written here.
pub(super) const NAMES: &[&str] = &[
    "order-shipped",
    "order-declined",
    "order-canceled",
    "order-late-cancel",
];

/// How the test, as the order's activity worker, ends the next activity task.
enum Work {
    Done(Value),
    Failed(&'static str, &'static str),
    /// Taken, and left running.
    Taken,
}

/// Takes the next activity task of the order, which must be `id`, and ends it as `work` says.
async fn work(c: &Client, id: &str, work: Work) {
    let task = activity_task(c, order::ACTIVITY_TASK_LIST).await;
    assert_eq!(task.activity_id(), id);
    let token = task.task_token();
    match work {
        Work::Done(result) => {
            let answer = c.respond_activity_task_completed().task_token(token);
            answer.result(result.to_string()).send().await.unwrap();
        }
        Work::Failed(reason, details) => {
            let answer = c.respond_activity_task_failed().task_token(token);
            answer.reason(reason).details(details).send().await.unwrap();
        }
        Work::Taken => {}
    }
}

/// A server with the examples' types and the order workflow's decider; starts order
/// `workflow_id` with `input` and waits for its first decision task. The server, its client,
/// the run id and the decider's digest.
async fn ordered(workflow_id: &str, input: &str) -> (TestServer, Client, String, String) {
    let (server, c) = server().await;
    guests::register_examples(&c, D).await;
    let weft = guests::weft_client(&server);
    let decider = guests::deploy(
        &weft,
        "order-workflow",
        D,
        BindingKind::Decision,
        order::DECISION_TASK_LIST,
        Bind::default(),
    )
    .await;
    let run = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id(workflow_id)
        .workflow_type(guests::workflow_type(order::WORKFLOW))
        .input(input)
        .send()
        .await
        .unwrap()
        .run_id
        .unwrap();
    decided(&c, workflow_id, &run, 1).await;
    (server, c, run, decider)
}

/// The order's input with its cancellation window.
fn order_input(id: &str, card: &str, window: u64) -> String {
    let mut input: Value = serde_json::from_str(order::SAMPLE_ORDER).unwrap();
    input["order_id"] = id.into();
    input["card"] = card.into();
    input["cancel_window_seconds"] = window.into();
    input.to_string()
}

const CARD: &str = "4111111111111111";

fn verified(id: &str) -> Value {
    json!({"order_id": id, "verified": true})
}

fn receipt(id: &str) -> Value {
    json!({"charge_id": format!("CH-{id}"), "amount_cents": 4200})
}

/// An activity's expected answer: completed with `result`.
fn completed(result: &Value) -> Value {
    json!({"state": "completed", "result": result.to_string()})
}

/// The fixture of order `id` decided by the guest `decider` (its digest), with `expect` and the
/// answers every order history shares.
fn fixture(
    name: &'static str,
    about: &'static str,
    id: &'static str,
    decider: String,
    mut expect: Value,
) -> Fixture {
    let defaults = json!({
        "decider": "order", "cancelRequested": false, "signals": [], "markers": [],
        "children": {}, "lambdas": {},
    });
    for (key, value) in defaults.as_object().unwrap() {
        expect
            .as_object_mut()
            .unwrap()
            .entry(key)
            .or_insert(value.clone());
    }
    Fixture {
        name,
        about,
        workflow_id: id,
        expect,
        modules: vec![(decider, "order-workflow")],
    }
}

/// Verifies and charges order `id`, as its first two decision tasks ask.
async fn verify_and_charge(c: &Client, id: &str, run: &str) {
    work(c, "verify-order", Work::Done(verified(id))).await;
    decided(c, id, run, 2).await;
    work(c, "charge-credit-card", Work::Done(receipt(id))).await;
    decided(c, id, run, 3).await;
}

/// What the email activity answers.
fn emailed() -> Value {
    json!({"sent_to": "ada@example.com", "subject": "Your order was canceled"})
}

#[tokio::test]
async fn an_order_shipped_after_its_window() {
    let id = "order-shipped";
    let input = order_input(id, CARD, 1);
    let (server, c, run, decider) = ordered(id, &input).await;
    verify_and_charge(&c, id, &run).await;
    server.advance(Duration::from_secs(1)).await;
    decided(&c, id, &run, 4).await;
    let shipment = json!({"tracking": format!("TRK-{id}")});
    work(&c, "ship-order", Work::Done(shipment.clone())).await;
    decided(&c, id, &run, 5).await;
    let recorded = json!({"recorded": id});
    work(&c, "record-completion", Work::Done(recorded.clone())).await;
    decided(&c, id, &run, 6).await;

    let result = json!({"order_id": id, "charge": receipt(id), "shipment": shipment});
    let fixture = fixture(
        "order-shipped",
        "An order verified, charged, shipped once its 1 s window closed, and recorded.",
        id,
        decider,
        json!({
            "input": input,
            "decisionTasks": 6,
            "activities": {
                "verify-order": completed(&verified(id)),
                "charge-credit-card": completed(&receipt(id)),
                "ship-order": completed(&shipment),
                "record-completion": completed(&recorded),
            },
            "timers": {"cancel-window": {"state": "fired"}},
            "close": {"state": "completed", "result": result.to_string()},
        }),
    );
    fixture.check(&server, &run).await;
}

#[tokio::test]
async fn an_order_whose_card_is_declined() {
    let id = "order-declined";
    let input = order_input(id, "4111111111110000", 1);
    let (server, c, run, decider) = ordered(id, &input).await;
    work(&c, "verify-order", Work::Done(verified(id))).await;
    decided(&c, id, &run, 2).await;
    let declined = Work::Failed("card declined", "card ending 0000");
    work(&c, "charge-credit-card", declined).await;
    decided(&c, id, &run, 3).await;
    let canceled = json!({"canceled": id, "refunded": null});
    work(&c, "cancel-order", Work::Done(canceled.clone())).await;
    decided(&c, id, &run, 4).await;
    work(&c, "email-customer", Work::Done(emailed())).await;
    decided(&c, id, &run, 5).await;

    let fixture = fixture(
        "order-declined",
        "An order whose card is declined: canceled, the customer emailed, the run failed.",
        id,
        decider,
        json!({
            "input": input,
            "decisionTasks": 5,
            "activities": {
                "verify-order": completed(&verified(id)),
                "charge-credit-card": {
                    "state": "failed", "reason": "card declined", "details": "card ending 0000",
                },
                "cancel-order": completed(&canceled),
                "email-customer": completed(&emailed()),
            },
            "timers": {"cancel-window": {"state": "canceled"}},
            "close": {
                "state": "failed",
                "reason": "payment declined",
                "details": "card declined: card ending 0000",
            },
        }),
    );
    fixture.check(&server, &run).await;
}

#[tokio::test]
async fn an_order_canceled_inside_its_window() {
    let id = "order-canceled";
    let input = order_input(id, CARD, 60);
    let (server, c, run, decider) = ordered(id, &input).await;
    verify_and_charge(&c, id, &run).await;
    signal(&c, id, order::CANCEL_SIGNAL).await;
    decided(&c, id, &run, 4).await;
    let canceled = json!({"canceled": id, "refunded": format!("CH-{id}")});
    work(&c, "cancel-order", Work::Done(canceled.clone())).await;
    decided(&c, id, &run, 5).await;
    work(&c, "email-customer", Work::Done(emailed())).await;
    decided(&c, id, &run, 6).await;

    let fixture = fixture(
        "order-canceled",
        "An order charged, then canceled by the customer's signal inside its 60 s window: \
         refunded, the customer emailed, the run canceled.",
        id,
        decider,
        json!({
            "input": input,
            "decisionTasks": 6,
            "signals": [{"name": "cancel"}],
            "activities": {
                "verify-order": completed(&verified(id)),
                "charge-credit-card": completed(&receipt(id)),
                "cancel-order": completed(&canceled),
                "email-customer": completed(&emailed()),
            },
            "timers": {"cancel-window": {"state": "canceled"}},
            "close": {"state": "canceled", "details": "canceled by the customer"},
        }),
    );
    fixture.check(&server, &run).await;
}

#[tokio::test]
async fn an_order_canceled_too_late_still_open() {
    let id = "order-late-cancel";
    let input = order_input(id, CARD, 1);
    let (server, c, run, decider) = ordered(id, &input).await;
    verify_and_charge(&c, id, &run).await;
    server.advance(Duration::from_secs(1)).await;
    decided(&c, id, &run, 4).await;
    work(&c, "ship-order", Work::Taken).await;
    signal(&c, id, order::CANCEL_SIGNAL).await;
    decided(&c, id, &run, 5).await;

    let fixture = fixture(
        "order-late-cancel",
        "An order whose cancel signal came after its 1 s window closed, while it ships: a \
         cancel-too-late marker, and the run still open.",
        id,
        decider,
        json!({
            "input": input,
            "decisionTasks": 5,
            "signals": [{"name": "cancel"}],
            "markers": [{
                "name": "cancel-too-late",
                "details": order::CANCEL_TOO_LATE_DETAILS,
            }],
            "activities": {
                "verify-order": completed(&verified(id)),
                "charge-credit-card": completed(&receipt(id)),
                "ship-order": {"state": "started"},
            },
            "timers": {"cancel-window": {"state": "fired"}},
            "close": null,
        }),
    );
    fixture.check(&server, &run).await;
}
