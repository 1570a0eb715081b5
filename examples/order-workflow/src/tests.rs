//! The state-machine order decider's tests (`examples/order-decider/src/tests.rs`), run against
//! this workflow: the same histories get the same decisions.

use weft_guest::testing::HistoryBuilder;
use weft_guest::{Decision, History};

/// The workflow as a decider: what `weft_guest::workflow!` exports.
fn decide(history: &History) -> Result<Vec<Decision>, String> {
    weft_guest::workflow::run(history, super::order).map(|response| response.decisions)
}

// What the shared tests take from `super::*` in the state machine's crate.
use super::parse;
use serde_json::Value;
use weft_examples::order::*;
use weft_guest::events::EventAttributes;

/// The activity ids the workflow gives its activities, as the state machine does.
mod ids {
    pub(crate) const VERIFY: &str = "verify-order";
    pub(crate) const CHARGE: &str = "charge-credit-card";
    pub(crate) const SHIP: &str = "ship-order";
    pub(crate) const RECORD: &str = "record-completion";
    pub(crate) const CANCEL: &str = "cancel-order";
    pub(crate) const EMAIL: &str = "email-customer";
}

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
    h.activity_completed("verify-order", Some("{}"));
    h.decide(decide).expect("decides");
    h.activity_completed("charge-credit-card", Some("{}"));
    h.timer_fired(CANCEL_WINDOW_TIMER);
    h.decide(decide).expect("decides");
    h.activity_completed("ship-order", Some("{}"));
    h.decide(decide).expect("decides");
    h.activity_completed("record-completion", Some("{}"));
    let closing = h.decide(decide).expect("decides");
    assert!(
        matches!(closing[..], [Decision::CompleteWorkflowExecution(_)]),
        "{closing:?}"
    );
}
