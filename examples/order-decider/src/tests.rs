//! The order decider on hand-built histories: the happy path, a declined card, and cancellation
//! inside and outside the window. `examples/order-workflow` runs these same tests against the
//! order workflow written as async code, which decides exactly the same.

use super::*;
use serde_json::json;
use weft_examples::order::{SAMPLE_DECLINED_ORDER, SAMPLE_ORDER, WORKFLOW};
use weft_guest::testing::HistoryBuilder;

/// A decision in a few words: its type and what it is about.
fn summary(decision: &Decision) -> String {
    match decision {
        Decision::ScheduleActivityTask(a) => format!("schedule {}", a.activity_id),
        Decision::StartTimer(t) => {
            format!("start timer {} {}s", t.timer_id, t.start_to_fire_timeout)
        }
        Decision::CancelTimer(t) => format!("cancel timer {}", t.timer_id),
        Decision::RecordMarker(m) => format!("marker {}", m.marker_name),
        Decision::CompleteWorkflowExecution(_) => "complete".into(),
        Decision::FailWorkflowExecution(f) => {
            format!("fail: {}", f.reason.as_deref().unwrap_or(""))
        }
        Decision::CancelWorkflowExecution(_) => "cancel workflow".into(),
        other => format!("{other:?}"),
    }
}

/// Runs the decider on the next decision task and answers its decisions in a few words.
fn step(h: &mut HistoryBuilder) -> Vec<String> {
    h.decide(decide).unwrap().iter().map(summary).collect()
}

fn order(input: &str) -> HistoryBuilder {
    HistoryBuilder::new(WORKFLOW.name, WORKFLOW.version, Some(input))
}

/// The input of the activity `id`'s latest `ActivityTaskScheduled` event, as JSON.
fn scheduled_input(h: &HistoryBuilder, id: &str) -> Value {
    h.events()
        .iter()
        .rev()
        .find_map(|e| match &e.attributes {
            EventAttributes::ActivityTaskScheduled(a) if a.activity_id == id => a.input.as_deref(),
            _ => None,
        })
        .map(parse)
        .unwrap_or_else(|| panic!("{id} was never scheduled"))
}

fn close_details(decisions: &[Decision]) -> (Option<&str>, Option<&str>) {
    match decisions.last() {
        Some(Decision::CompleteWorkflowExecution(c)) => (c.result.as_deref(), None),
        Some(Decision::FailWorkflowExecution(f)) => (f.reason.as_deref(), f.details.as_deref()),
        Some(Decision::CancelWorkflowExecution(c)) => (c.details.as_deref(), None),
        other => panic!("not a close decision: {other:?}"),
    }
}

#[test]
fn the_happy_path_verifies_charges_waits_for_the_window_ships_and_records() {
    let mut h = order(SAMPLE_ORDER);
    assert_eq!(
        step(&mut h),
        ["start timer cancel-window 1s", "schedule verify-order"]
    );
    assert_eq!(scheduled_input(&h, ids::VERIFY), parse(SAMPLE_ORDER));

    h.activity_completed(ids::VERIFY, Some(r#"{"verified":true}"#));
    assert_eq!(step(&mut h), ["schedule charge-credit-card"]);

    h.activity_completed(ids::CHARGE, Some(r#"{"charge_id":"CH-1"}"#));
    assert!(
        step(&mut h).is_empty(),
        "ships only once the window is over"
    );

    h.timer_fired(CANCEL_WINDOW_TIMER);
    assert_eq!(step(&mut h), ["schedule ship-order"]);

    h.activity_completed(ids::SHIP, Some(r#"{"tracking":"TRK-1"}"#));
    assert_eq!(step(&mut h), ["schedule record-completion"]);
    assert_eq!(
        scheduled_input(&h, ids::RECORD),
        json!({
            "order": parse(SAMPLE_ORDER),
            "charge": {"charge_id": "CH-1"},
            "shipment": {"tracking": "TRK-1"},
        })
    );

    h.activity_completed(ids::RECORD, Some("{}"));
    let decisions = h.decide(decide).unwrap();
    let (result, _) = close_details(&decisions);
    assert_eq!(
        parse(result.unwrap()),
        json!({"order_id": "order-1", "charge": {"charge_id": "CH-1"}, "shipment": {"tracking": "TRK-1"}})
    );
}

#[test]
fn every_activity_gets_the_task_list_and_timeouts_the_host_registers_nothing_for() {
    let mut h = order(SAMPLE_ORDER);
    let decisions = h.decide(decide).unwrap();
    let Some(Decision::ScheduleActivityTask(verify)) = decisions.last() else {
        panic!("expected the verification: {decisions:?}");
    };
    assert_eq!(verify.activity_type.name, VERIFY_ORDER.name);
    assert_eq!(
        verify.task_list.as_ref().map(|t| t.name.as_str()),
        Some(ACTIVITY_TASK_LIST)
    );
    for timeout in [
        &verify.schedule_to_start_timeout,
        &verify.schedule_to_close_timeout,
        &verify.start_to_close_timeout,
        &verify.heartbeat_timeout,
    ] {
        assert!(timeout.is_some());
    }
}

#[test]
fn the_window_defaults_when_the_order_does_not_give_one() {
    let mut h = order(r#"{"order_id":"o"}"#);
    assert_eq!(
        step(&mut h)[0],
        format!("start timer cancel-window {DEFAULT_CANCEL_WINDOW_SECS}s")
    );
}

#[test]
fn a_declined_card_cancels_the_order_emails_the_customer_and_fails() {
    let mut h = order(SAMPLE_DECLINED_ORDER);
    step(&mut h);
    h.activity_completed(ids::VERIFY, Some("{}"));
    step(&mut h);
    h.activity_failed(ids::CHARGE, Some("card declined"), Some("card ending 0000"));
    assert_eq!(
        step(&mut h),
        [
            "cancel timer cancel-window",
            "schedule cancel-order",
            "schedule email-customer"
        ]
    );
    assert_eq!(scheduled_input(&h, ids::CANCEL)["refund"], Value::Null);

    h.activity_completed(ids::CANCEL, Some("{}"));
    assert!(step(&mut h).is_empty(), "waits for the email");
    h.activity_completed(ids::EMAIL, Some("{}"));
    let decisions = h.decide(decide).unwrap();
    assert_eq!(
        close_details(&decisions),
        (
            Some("payment declined"),
            Some("card declined: card ending 0000")
        )
    );
}

#[test]
fn a_cancel_signal_inside_the_window_waits_for_the_running_activity_then_cancels() {
    let mut h = order(SAMPLE_ORDER);
    step(&mut h);
    h.signal(CANCEL_SIGNAL, None);
    assert_eq!(
        step(&mut h),
        ["cancel timer cancel-window"],
        "the verification still runs"
    );

    h.activity_completed(ids::VERIFY, Some("{}"));
    assert_eq!(
        step(&mut h),
        ["schedule cancel-order", "schedule email-customer"]
    );
    h.activity_completed(ids::CANCEL, Some("{}"));
    h.activity_completed(ids::EMAIL, Some("{}"));
    let decisions = h.decide(decide).unwrap();
    assert_eq!(
        close_details(&decisions),
        (Some("canceled by the customer"), None)
    );
    assert!(
        h.decision_task().activity(ids::CHARGE).is_none(),
        "the card was never charged"
    );
}

#[test]
fn a_cancel_inside_the_window_after_the_charge_refunds_it() {
    let mut h = order(SAMPLE_ORDER);
    step(&mut h);
    h.activity_completed(ids::VERIFY, Some("{}"));
    step(&mut h);
    h.activity_completed(ids::CHARGE, Some(r#"{"charge_id":"CH-1"}"#));
    step(&mut h);
    h.signal(CANCEL_SIGNAL, Some("changed my mind"));
    assert_eq!(
        step(&mut h),
        [
            "cancel timer cancel-window",
            "schedule cancel-order",
            "schedule email-customer"
        ]
    );
    assert_eq!(
        scheduled_input(&h, ids::CANCEL)["refund"],
        json!({"charge_id": "CH-1"})
    );
}

#[test]
fn a_cancellation_request_counts_as_a_cancel_inside_the_window() {
    let mut h = order(SAMPLE_ORDER);
    step(&mut h);
    h.activity_completed(ids::VERIFY, Some("{}"));
    h.cancel_requested();
    assert_eq!(
        step(&mut h),
        [
            "cancel timer cancel-window",
            "schedule cancel-order",
            "schedule email-customer"
        ]
    );
}

#[test]
fn a_cancel_signal_after_the_window_is_recorded_as_too_late_and_ignored() {
    let mut h = order(SAMPLE_ORDER);
    step(&mut h);
    h.activity_completed(ids::VERIFY, Some("{}"));
    step(&mut h);
    h.timer_fired(CANCEL_WINDOW_TIMER);
    assert!(step(&mut h).is_empty(), "the charge still runs");

    h.signal(CANCEL_SIGNAL, None);
    h.activity_completed(ids::CHARGE, Some("{}"));
    assert_eq!(
        step(&mut h),
        ["marker cancel-too-late", "schedule ship-order"]
    );
    let marker = h.events().iter().find_map(|e| match &e.attributes {
        EventAttributes::MarkerRecorded(m) if m.marker_name == CANCEL_TOO_LATE_MARKER => {
            m.details.as_deref()
        }
        _ => None,
    });
    assert!(marker.unwrap().contains("after the window closed"));

    h.activity_completed(ids::SHIP, Some("{}"));
    assert_eq!(
        step(&mut h),
        ["schedule record-completion"],
        "the marker is not repeated"
    );
}

#[test]
fn an_invalid_order_fails_the_workflow_and_closes_the_window() {
    let mut h = order(r#"{"order_id":"o"}"#);
    step(&mut h);
    h.activity_failed(ids::VERIFY, Some("invalid order"), Some("no items"));
    assert_eq!(
        step(&mut h),
        ["cancel timer cancel-window", "fail: invalid order"]
    );
}

#[test]
fn a_failed_shipment_fails_the_workflow() {
    let mut h = order(SAMPLE_ORDER);
    step(&mut h);
    h.activity_completed(ids::VERIFY, Some("{}"));
    step(&mut h);
    h.activity_completed(ids::CHARGE, Some("{}"));
    h.timer_fired(CANCEL_WINDOW_TIMER);
    step(&mut h);
    h.activity_timed_out(
        ids::SHIP,
        weft_guest::types::ActivityTaskTimeoutType::StartToClose,
    );
    let decisions = h.decide(decide).unwrap();
    assert_eq!(
        close_details(&decisions),
        (Some("shipping failed"), Some("timed out (START_TO_CLOSE)"))
    );
}

/// The order's recorded histories (`tests/fixtures/histories`, written by the end-to-end suite
/// from the real engine) replay without a difference: this decider decides each of their
/// decision tasks as it was decided then.
#[test]
fn the_recorded_order_histories_replay() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/histories"
    );
    let mut replayed = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let fixture: serde_json::Value = serde_json::from_str(&text).unwrap();
        if fixture["expect"]["decider"] != "order" {
            continue;
        }
        let (id, run) = (&fixture["workflowId"], &fixture["runId"]);
        let recorded = weft_guest::testing::Recorded::from_json(&text)
            .unwrap()
            .execution(id.as_str().unwrap(), run.as_str().unwrap());
        assert_eq!(recorded.replay(decide), Vec::<String>::new(), "{id}");
        replayed += 1;
    }
    assert!(replayed >= 4, "{replayed} order histories");
}
