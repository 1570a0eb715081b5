//! History's queries on an execution's events: the new events, input, signals, markers and
//! cancellation requests.

use crate::events::{EventAttributes as E, *};
use crate::{Marker, Signal};

use super::{
    decision_completed, decision_scheduled, decision_started, first_decision, history, signaled,
    started,
};

#[test]
fn new_events_are_those_after_the_previous_decision_task() {
    let mut events = first_decision();
    events.extend([
        signaled("a", None),
        decision_scheduled(),
        decision_started(6),
    ]);
    let h = history(3, events.clone());
    assert_eq!(
        h.new_events()
            .iter()
            .map(|e| e.event_id)
            .collect::<Vec<_>>(),
        [4, 5, 6, 7]
    );
    assert!(h.is_new(4) && !h.is_new(3));
    assert!(!h.is_first_decision());

    let first = history(0, events);
    assert_eq!(first.new_events().len(), 7);
    assert!(first.is_first_decision());
}

#[test]
fn input_and_started_come_from_the_first_event() {
    let h = history(0, first_decision());
    assert_eq!(h.input(), Some("order"));
    assert_eq!(h.started().unwrap().task_list.name, "d");
    assert_eq!(h.workflow_type().name, "Order");
    assert_eq!(h.workflow_execution().workflow_id, "w");
    assert_eq!(history(0, vec![]).input(), None);
}

#[test]
fn the_last_event_skips_decision_task_bookkeeping() {
    let mut events = first_decision();
    events.extend([
        signaled("go", None),
        decision_scheduled(),
        decision_started(6),
    ]);
    let h = history(3, events);
    assert_eq!(h.last_event().map(|e| e.event_id), Some(5));
    assert_eq!(h.events().last().map(|e| e.event_id), Some(7));
    let only_start = history(
        0,
        vec![started(None), decision_scheduled(), decision_started(2)],
    );
    assert_eq!(only_start.last_event().map(|e| e.event_id), Some(1));
}

#[test]
fn signals_and_new_signals() {
    let mut events = vec![started(None), signaled("early", Some("1"))];
    events.extend([
        decision_scheduled(),
        decision_started(3),
        decision_completed(3),
    ]);
    events.extend([
        signaled("late", None),
        decision_scheduled(),
        decision_started(7),
    ]);
    let h = history(4, events);
    assert_eq!(
        h.signals().collect::<Vec<_>>(),
        [
            Signal {
                name: "early",
                input: Some("1"),
                event_id: 2
            },
            Signal {
                name: "late",
                input: None,
                event_id: 6
            },
        ]
    );
    assert_eq!(
        h.new_signals().map(|s| s.name).collect::<Vec<_>>(),
        ["late"]
    );
}

#[test]
fn markers_and_the_latest_by_name() {
    let marker = |name: &str, details: &str| {
        E::MarkerRecorded(MarkerRecordedEventAttributes {
            marker_name: name.into(),
            details: Some(details.into()),
            decision_task_completed_event_id: 4,
        })
    };
    let mut events = first_decision();
    events.extend([
        marker("step", "1"),
        marker("other", "x"),
        marker("step", "2"),
    ]);
    let h = history(3, events);
    assert_eq!(h.markers().count(), 3);
    assert_eq!(
        h.marker("step"),
        Some(Marker {
            name: "step",
            details: Some("2"),
            event_id: 7
        })
    );
    assert_eq!(h.marker("none"), None);
}

#[test]
fn cancel_requested() {
    let mut events = first_decision();
    assert!(!history(3, events.clone()).cancel_requested());
    events.push(E::WorkflowExecutionCancelRequested(
        WorkflowExecutionCancelRequestedEventAttributes {
            external_workflow_execution: None,
            external_initiated_event_id: None,
            cause: None,
        },
    ));
    assert!(history(3, events).cancel_requested());
}
