//! The 25,000-event cap as AWS applies it (spec §8.16). AWS terminated a run whose decider kept
//! scheduling activities past the open-activity limit at event **25,044** (G in FIDELITY.md):
//! the cap is not a cut at event 25,000. The change that crosses it is recorded whole, and the
//! run is terminated right after, so a history ends past 25,000 by at most one change (a
//! decision batch, bounded by the 1 MB request size). This test reaches the real cap.

use serde_json::json;

use crate::flow::{
    D, DECIDERS, decision_task, marker, register_workflow, respond, server, signal, start,
};

use super::{assert_consistent, raw_history};

/// Markers in each batch that fills the history; with the batch's DecisionTaskCompleted and
/// the signal, scheduled and started events of the next task, a round adds 1,000 events.
const FILLER: usize = 996;

#[tokio::test]
async fn a_batch_crossing_the_cap_is_recorded_whole_then_the_run_is_terminated() {
    let (server, c) = server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "chatty", "w").await;
    // Events 1–3: started, its decision task scheduled and started.
    let mut task = decision_task(&c, DECIDERS).await;
    for round in 0..24 {
        let markers = (0..FILLER)
            .map(|n| marker(&format!("r{round}m{n}"), ""))
            .collect();
        respond(&c, task.task_token(), markers).await;
        signal(&c, "chatty", "more").await;
        task = decision_task(&c, DECIDERS).await;
    }
    assert_eq!(task.started_event_id(), 24_003);
    // 1,100 markers: DecisionTaskCompleted is event 24,004, the markers 24,005 to 25,104.
    let markers = (0..1_100)
        .map(|n| marker(&format!("last{n}"), ""))
        .collect();
    respond(&c, task.task_token(), markers).await;

    let events = raw_history(&server, "chatty", &run).await;
    assert_eq!(events.len(), 25_105);
    assert_consistent(&events);
    let crossing = &events[24_003..25_104];
    assert_eq!(crossing[0]["eventType"], "DecisionTaskCompleted");
    assert!(
        crossing[1..]
            .iter()
            .all(|e| e["eventType"] == "MarkerRecorded")
    );
    assert_eq!(
        crossing[1_100]["markerRecordedEventAttributes"]["markerName"],
        "last1099"
    );
    // The termination follows the batch, with exactly the members AWS recorded.
    let terminated = &events[25_104];
    assert_eq!(terminated["eventId"], 25_105);
    assert_eq!(terminated["eventType"], "WorkflowExecutionTerminated");
    assert_eq!(
        terminated["workflowExecutionTerminatedEventAttributes"],
        json!({"childPolicy": "TERMINATE", "cause": "EVENT_LIMIT_EXCEEDED"})
    );
    let refused = c
        .signal_workflow_execution()
        .domain(D)
        .workflow_id("chatty")
        .signal_name("late")
        .send()
        .await;
    assert!(refused.is_err(), "the terminated run took a signal");
}
