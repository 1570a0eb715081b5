//! The examples end to end, served only by their guests: the order workflow's four endings (the
//! sample order, a declined card, a cancel inside and after the window) and the quote workflow,
//! whose children run the function `price`.

use std::collections::BTreeMap;

use serde_json::json;
use weft_tests::aws_sdk_swf::types::{CloseStatus, HistoryEvent};
use weft_tests::guests::{self, Bind, BindingKind, order, quote};

use super::{
    activity_ids, children, closed, deploy_order, deploy_quote, order_with, result_json, server,
    start, start_order,
};
use crate::flow::{D, first, signal, types, wait_for_event};

/// How each activity of a history ended, by activity id: the type of its closing event.
fn outcomes(events: &[HistoryEvent]) -> BTreeMap<String, &str> {
    let ids = activity_ids(events);
    events
        .iter()
        .filter_map(|e| {
            let scheduled = e
                .activity_task_completed_event_attributes()
                .map(|a| a.scheduled_event_id())
                .or_else(|| {
                    e.activity_task_failed_event_attributes()
                        .map(|a| a.scheduled_event_id())
                })
                .or_else(|| {
                    e.activity_task_timed_out_event_attributes()
                        .map(|a| a.scheduled_event_id())
                })
                .or_else(|| {
                    e.activity_task_canceled_event_attributes()
                        .map(|a| a.scheduled_event_id())
                })?;
            Some((ids[&scheduled].clone(), e.event_type().as_str()))
        })
        .collect()
}

/// `(activity id, how it ended)` pairs as a map.
fn ended(pairs: &[(&str, &'static str)]) -> BTreeMap<String, &'static str> {
    pairs
        .iter()
        .map(|(id, end)| ((*id).to_owned(), *end))
        .collect()
}

#[tokio::test]
async fn the_sample_order_completes() {
    let (server, c, weft) = server().await;
    deploy_order(&weft).await;
    let run_id = start_order(&c, "order-1", order::SAMPLE_ORDER).await;
    let run = closed(&server, "order-1", &run_id).await;
    assert_eq!(run.status, CloseStatus::Completed, "{:?}", run.types());
    assert_eq!(
        result_json(&run),
        json!({
            "order_id": "order-1",
            "charge": {"charge_id": "CH-order-1", "amount_cents": 4200},
            "shipment": {"tracking": "TRK-order-1"},
        })
    );
    let done = "ActivityTaskCompleted";
    assert_eq!(
        outcomes(&run.events),
        ended(&[
            ("verify-order", done),
            ("charge-credit-card", done),
            ("ship-order", done),
            ("record-completion", done),
        ])
    );
    let fired = first(&run.events, "TimerFired");
    assert_eq!(
        fired.timer_fired_event_attributes().unwrap().timer_id(),
        order::CANCEL_WINDOW_TIMER
    );
    // Shipping waited for the window to close.
    let ship = activity_ids(&run.events)
        .into_iter()
        .find(|(_, id)| id == "ship-order")
        .unwrap();
    assert!(ship.0 > fired.event_id());
    // What the activity worker logged for each task is kept with the run, oldest first.
    let logged = weft.run_logs(D, "order-1", &run_id).await.unwrap();
    let lines: Vec<(&str, &str, &str)> = logged
        .iter()
        .map(|l| (l.task.as_str(), l.level.as_str(), l.message.as_str()))
        .collect();
    assert_eq!(
        lines,
        [
            (
                "activity verify-order",
                "info",
                "VerifyOrder (verify-order) for order-1"
            ),
            (
                "activity charge-credit-card",
                "info",
                "ChargeCreditCard (charge-credit-card) for order-1"
            ),
            (
                "activity ship-order",
                "info",
                "ShipOrder (ship-order) for order-1"
            ),
            (
                "activity record-completion",
                "info",
                "RecordOrderCompletion (record-completion) for order-1"
            ),
        ]
    );
    assert!(
        logged
            .iter()
            .all(|l| l.binding == order::ACTIVITY_TASK_LIST)
    );
    assert!(weft.run_logs(D, "order-1", "no-such-run").await.is_err());
    let (ok, out, err) =
        super::replay::weft_cli(&server, &["workflow", "describe", "order-1", "--domain", D]).await;
    assert!(ok, "{out}{err}");
    assert!(out.contains("latest lines its guests logged (4):"), "{out}");
    let line = format!(
        "  info   activity {}  activity ship-order: ShipOrder (ship-order) for order-1",
        order::ACTIVITY_TASK_LIST
    );
    assert!(out.lines().any(|l| l.ends_with(&line)), "{out}");
}

#[tokio::test]
async fn a_declined_card_cancels_the_order_emails_the_customer_and_fails() {
    let (server, c, weft) = server().await;
    deploy_order(&weft).await;
    let run = start_order(&c, "order-2", order::SAMPLE_DECLINED_ORDER).await;
    let run = closed(&server, "order-2", &run).await;
    assert_eq!(run.status, CloseStatus::Failed, "{:?}", run.types());
    let failed = first(&run.events, "WorkflowExecutionFailed")
        .workflow_execution_failed_event_attributes()
        .unwrap();
    assert_eq!(failed.reason(), Some("payment declined"));
    assert_eq!(failed.details(), Some("card declined: card ending 0000"));
    let done = "ActivityTaskCompleted";
    assert_eq!(
        outcomes(&run.events),
        ended(&[
            ("verify-order", done),
            ("charge-credit-card", "ActivityTaskFailed"),
            ("cancel-order", done),
            ("email-customer", done),
        ])
    );
}

#[tokio::test]
async fn a_cancel_signal_inside_the_window_cancels_the_order() {
    let (server, c, weft) = server().await;
    deploy_order(&weft).await;
    // A window long enough that the signal surely comes inside it.
    let input = order_with(json!({"cancel_window_seconds": 60}));
    let run = start_order(&c, "order-3", &input).await;
    signal(&c, "order-3", order::CANCEL_SIGNAL).await;
    let run = closed(&server, "order-3", &run).await;
    assert_eq!(run.status, CloseStatus::Canceled, "{:?}", run.types());
    let canceled = first(&run.events, "WorkflowExecutionCanceled")
        .workflow_execution_canceled_event_attributes()
        .unwrap();
    assert_eq!(canceled.details(), Some("canceled by the customer"));
    let outcomes = outcomes(&run.events);
    assert_eq!(outcomes["cancel-order"], "ActivityTaskCompleted");
    assert_eq!(outcomes["email-customer"], "ActivityTaskCompleted");
    assert!(!outcomes.contains_key("ship-order"), "{outcomes:?}");
    let timer = first(&run.events, "TimerCanceled");
    assert_eq!(
        timer.timer_canceled_event_attributes().unwrap().timer_id(),
        order::CANCEL_WINDOW_TIMER
    );
}

#[tokio::test]
async fn a_cancel_signal_after_the_window_is_marked_too_late_and_the_order_completes() {
    let (server, c, weft) = server().await;
    // Only the decider at first: the order waits for its first activity while the 1 s window
    // closes, so that the signal surely comes after it and before the order completes.
    guests::deploy(
        &weft,
        "order-decider",
        D,
        BindingKind::Decision,
        order::DECISION_TASK_LIST,
        Bind::default(),
    )
    .await;
    let input = order_with(json!({"cancel_window_seconds": 1}));
    let run = start_order(&c, "order-4", &input).await;
    let events = wait_for_event(&c, "order-4", &run, "TimerFired").await;
    let fired = first(&events, "TimerFired").event_id();
    signal(&c, "order-4", order::CANCEL_SIGNAL).await;
    let events = wait_for_event(&c, "order-4", &run, "MarkerRecorded").await;
    let signaled = first(&events, "WorkflowExecutionSignaled").event_id();
    assert!(signaled > fired);
    let marker = first(&events, "MarkerRecorded")
        .marker_recorded_event_attributes()
        .unwrap();
    assert_eq!(marker.marker_name(), order::CANCEL_TOO_LATE_MARKER);
    assert_eq!(marker.details(), Some(order::CANCEL_TOO_LATE_DETAILS));

    guests::deploy(
        &weft,
        "order-activities",
        D,
        BindingKind::Activity,
        order::ACTIVITY_TASK_LIST,
        Bind::default(),
    )
    .await;
    let run = closed(&server, "order-4", &run).await;
    assert_eq!(run.status, CloseStatus::Completed, "{:?}", run.types());
    assert_eq!(result_json(&run)["shipment"]["tracking"], "TRK-order-1");
    assert_eq!(
        types(&run.events)
            .iter()
            .filter(|t| **t == "MarkerRecorded")
            .count(),
        1
    );
}

#[tokio::test]
async fn a_quote_prices_each_item_in_a_child_with_the_function() {
    let (server, c, weft) = server().await;
    deploy_quote(&weft).await;
    let run = start(
        &c,
        "quote-1",
        quote::QUOTE_WORKFLOW.name,
        quote::QUOTE_WORKFLOW.version,
        quote::SAMPLE_QUOTE,
    )
    .await;
    let run = closed(&server, "quote-1", &run).await;
    assert_eq!(run.status, CloseStatus::Completed, "{:?}", run.types());
    let lines = [
        json!({"sku": "teapot", "quantity": 1, "unit_cents": 2500, "line_cents": 2500}),
        json!({"sku": "tea", "quantity": 3, "unit_cents": 450, "line_cents": 1350}),
    ];
    assert_eq!(
        result_json(&run),
        json!({"lines": lines, "total_cents": 3850})
    );

    let kids = children(&run.events);
    assert_eq!(kids.len(), 2);
    for (n, kid) in kids.iter().enumerate() {
        assert_eq!(kid.workflow_id(), format!("quote-1-item-{n}"));
        let child = closed(&server, kid.workflow_id(), kid.run_id()).await;
        assert_eq!(child.status, CloseStatus::Completed, "{:?}", child.types());
        assert_eq!(
            types(&child.events)
                .into_iter()
                .filter(|t| t.starts_with("LambdaFunction"))
                .collect::<Vec<_>>(),
            [
                "LambdaFunctionScheduled",
                "LambdaFunctionStarted",
                "LambdaFunctionCompleted"
            ]
        );
        let scheduled = first(&child.events, "LambdaFunctionScheduled")
            .lambda_function_scheduled_event_attributes()
            .unwrap();
        assert_eq!(scheduled.name(), quote::PRICE_FUNCTION);
        let item = &lines[n];
        let input: serde_json::Value = serde_json::from_str(scheduled.input().unwrap()).unwrap();
        assert_eq!(
            input,
            json!({"sku": item["sku"], "quantity": item["quantity"]})
        );
        let completed = first(&child.events, "LambdaFunctionCompleted")
            .lambda_function_completed_event_attributes()
            .unwrap();
        let line: serde_json::Value = serde_json::from_str(completed.result().unwrap()).unwrap();
        assert_eq!(&line, item);
        assert_eq!(result_json(&child), *item);
    }
}
