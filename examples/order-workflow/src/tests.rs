//! The state-machine order decider's tests (`examples/order-decider/src/tests.rs`), run against
//! this workflow: the same histories get the same decisions.

use weft_guest::testing::HistoryBuilder;
use weft_guest::{Decision, History};

/// The workflow as a decider: what `weft_guest::workflow!` exports.
fn decide(history: &History) -> Result<Vec<Decision>, String> {
    weft_guest::workflow::run(history, super::order).map(|response| response.decisions)
}

// What the shared tests take from `super::*` in the state machine's crate.
/// Text as JSON, as the state machine's `parse` reads it.
fn parse(text: &str) -> Value {
    super::result_json(Some(text.into()))
}
use serde_json::Value;
use weft_examples::order::*;
use weft_guest::events::EventAttributes;

#[path = "../../order-decider/src/tests.rs"]
mod shared;

#[test]
fn without_an_order_the_run_fails_saying_why() {
    let mut h = HistoryBuilder::new(WORKFLOW.name, WORKFLOW.version, Some("not json"));
    let decisions = h.decide(decide).expect("decides");
    let [Decision::FailWorkflowExecution(failed)] = &decisions[..] else {
        panic!("{decisions:?}")
    };
    assert!(
        failed
            .reason
            .as_deref()
            .unwrap_or_default()
            .contains("JSON"),
        "{failed:?}"
    );
}

#[test]
fn a_replay_of_a_whole_run_decides_nothing_new() {
    let mut h = HistoryBuilder::new(WORKFLOW.name, WORKFLOW.version, Some(SAMPLE_ORDER));
    h.decide(decide).expect("decides");
    h.activity_completed(ids::VERIFY, Some("{}"));
    h.decide(decide).expect("decides");
    h.activity_completed(ids::CHARGE, Some("{}"));
    h.timer_fired(CANCEL_WINDOW_TIMER);
    h.decide(decide).expect("decides");
    h.activity_completed(ids::SHIP, Some("{}"));
    h.decide(decide).expect("decides");
    h.activity_completed(ids::RECORD, Some("{}"));
    let closing = h.decide(decide).expect("decides");
    assert!(
        matches!(closing[..], [Decision::CompleteWorkflowExecution(_)]),
        "{closing:?}"
    );
}

/// The order's activities, answering as `order-activities` does for a good card.
fn environment(input: &str) -> weft_guest::testing::Environment {
    let ok = |result: &'static str| move |_: Option<&str>| Ok(Some(result.to_owned()));
    weft_guest::testing::Environment::new(WORKFLOW.name, WORKFLOW.version, Some(input))
        .activity(VERIFY_ORDER.name, ok("{}"))
        .activity(CHARGE_CREDIT_CARD.name, ok(r#"{"charge_id":"CH-1"}"#))
        .activity(SHIP_ORDER.name, ok(r#"{"tracking":"TRK-1"}"#))
        .activity(RECORD_COMPLETION.name, ok("{}"))
        .activity(CANCEL_ORDER.name, ok("{}"))
        .activity(EMAIL_CUSTOMER.name, ok("{}"))
}

fn run_order(h: &History) -> Result<weft_guest::Response, String> {
    weft_guest::workflow::run(h, super::order)
}

#[test]
fn a_whole_order_runs_without_a_server_skipping_its_window() {
    let order = r#"{"order_id":"o-1","cancel_window_seconds":86400}"#;
    let run = environment(order).run(run_order);
    assert_eq!(
        run.result(),
        Some(r#"{"charge":{"charge_id":"CH-1"},"order_id":"o-1","shipment":{"tracking":"TRK-1"}}"#)
    );
    assert!(run.elapsed() >= std::time::Duration::from_secs(86400));
    assert_eq!(run.events("TimerFired").len(), 1);
}

#[test]
fn a_cancel_signal_an_hour_into_the_window_cancels_the_order() {
    let hour = std::time::Duration::from_secs(3600);
    let order = r#"{"order_id":"o-2","cancel_window_seconds":7200}"#;
    let canceled = environment(order)
        .signal(hour, CANCEL_SIGNAL, None)
        .run(run_order);
    assert!(matches!(
        canceled.close,
        Some(Decision::CancelWorkflowExecution(_))
    ));
    assert_eq!(
        canceled.events("ActivityTaskScheduled").len(),
        4,
        "verify, charge, cancel, email"
    );
}

#[test]
fn a_declined_card_fails_the_order_after_cancelling_it() {
    // A window still open when the charge is declined (each event takes a second, and what
    // comes due happens between decision tasks), so that winding down cancels its timer.
    let order = SAMPLE_ORDER.replace(
        r#""cancel_window_seconds":1"#,
        r#""cancel_window_seconds":3600"#,
    );
    let run = environment(&order)
        .activity(CHARGE_CREDIT_CARD.name, |_| {
            Err(weft_guest::Failure::new("card declined").details("card ending 0000"))
        })
        .run(run_order);
    assert_eq!(
        run.failure(),
        Some((
            Some("payment declined"),
            Some("card declined: card ending 0000")
        ))
    );
    assert_eq!(run.events("TimerCanceled").len(), 1);
}
