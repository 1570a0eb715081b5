//! Made-up histories to import (`POST /v1/domains/{domain}/imports`), of any size.

use serde_json::{Value, json};

/// A closed run's history as SWF's wire JSON: started, its first decision task scheduled,
/// `signals` signals carrying `input`, then terminated; `2 + signals + 1` events.
pub fn signalled_history(signals: usize, input: &str) -> Vec<Value> {
    let event = |id: usize, kind: &str, attributes: Value| {
        let member = format!("{}{}EventAttributes", kind[..1].to_lowercase(), &kind[1..]);
        json!({
            "eventId": id,
            "eventType": kind,
            "eventTimestamp": 1_700_000_000.0 + id as f64 / 1000.0,
            member: attributes,
        })
    };
    let mut events = vec![
        event(
            1,
            "WorkflowExecutionStarted",
            json!({
                "childPolicy": "TERMINATE",
                "taskList": {"name": "deciders"},
                "workflowType": {"name": "w", "version": "1"},
                "executionStartToCloseTimeout": "3600",
                "taskStartToCloseTimeout": "60",
            }),
        ),
        event(
            2,
            "DecisionTaskScheduled",
            json!({"taskList": {"name": "deciders"}, "startToCloseTimeout": "60"}),
        ),
    ];
    for n in 0..signals {
        let signal = json!({"signalName": "s", "input": input});
        events.push(event(3 + n, "WorkflowExecutionSignaled", signal));
    }
    let terminated = json!({"childPolicy": "TERMINATE", "cause": "OPERATOR_INITIATED"});
    events.push(event(
        3 + signals,
        "WorkflowExecutionTerminated",
        terminated,
    ));
    events
}

/// The body that imports `events` as run `workflow_id`/`run_id`.
pub fn import_body(workflow_id: &str, run_id: &str, events: Vec<Value>) -> Vec<u8> {
    let body = json!({"workflowId": workflow_id, "runId": run_id, "events": events});
    serde_json::to_vec(&body).expect("JSON")
}
