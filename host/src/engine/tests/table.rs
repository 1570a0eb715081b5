//! The engine records each decision as the workflow core's table says (`weft_workflow_core`):
//! applied, as its `recorded` event; refused at once, as its `refused` event. The host's replay
//! and every SDK read that table, so it must be what the engine does.

use serde_json::{Value, json};

use crate::model::TaskKind;
use crate::model::decisions;
use crate::store::StoreError;

use super::super::{Claimed, Completion, claim, complete_decision_task, signal, start_run};
use super::{Fixture, domain, new_run, reload};

/// Starts a run, claims its first decision task, records a signal meanwhile if `interrupted`,
/// and completes the task with `decisions` (wire JSON); answers the types of the events its
/// decisions were recorded as, in order.
async fn decided(decisions: Vec<Value>, interrupted: bool) -> Vec<String> {
    let fx = Fixture::new().await;
    let seq = fx
        .change(move |eng| {
            let run = start_run(eng, new_run(), None)?;
            let Some(Claimed::Decision(claimed)) = claim(eng, TaskKind::Decision, "dl", None)?
            else {
                return Err(StoreError::broken("no decision task"));
            };
            let mut run = reload(eng, run.seq)?;
            if interrupted {
                signal(eng, &mut run, "news".into(), None, None)?;
            }
            let decisions = decisions::parse(decisions).map_err(StoreError::broken)?;
            let completion = Completion {
                decisions,
                ..Completion::default()
            };
            complete_decision_task(eng, &domain(), &mut run, claimed.task, completion)?;
            Ok(run.seq)
        })
        .await;
    let events = fx.events(seq).await;
    let completed = events
        .iter()
        .find(|e| e["eventType"] == "DecisionTaskCompleted")
        .and_then(|e| e["eventId"].as_u64());
    events
        .iter()
        .filter(|e| {
            let kind = e["eventType"].as_str().unwrap_or_default();
            let attributes = &e[crate::model::events::event_attributes_member(kind)];
            let task = attributes["decisionTaskCompletedEventId"].as_u64();
            let initiated = attributes["initiatedEventId"].as_u64();
            task.is_some() && weft_workflow_core::made_by(task, initiated) == completed
        })
        .map(|e| e["eventType"].as_str().unwrap().to_owned())
        .collect()
}

/// A wire decision of type `kind` with `attributes`.
fn decision(kind: &str, attributes: Value) -> Value {
    let member = crate::model::events::decision_attributes_member(kind);
    json!({"decisionType": kind, member: attributes})
}

/// An activity of type `act`/`1` with every timeout given (the type has no defaults).
fn activity(name: &str) -> Value {
    decision(
        "ScheduleActivityTask",
        json!({
            "activityType": {"name": name, "version": "1"}, "activityId": "a",
            "taskList": {"name": "al"}, "scheduleToCloseTimeout": "60",
            "scheduleToStartTimeout": "60", "startToCloseTimeout": "60", "heartbeatTimeout": "60",
        }),
    )
}

/// A new run's configuration, in full (the type has no defaults).
fn run_config() -> Value {
    json!({
        "executionStartToCloseTimeout": "600", "taskStartToCloseTimeout": "60",
        "taskList": {"name": "dl"}, "childPolicy": "TERMINATE",
    })
}

/// The recorded event of the table's row for decision `kind`, and its refused one.
fn row(kind: &str) -> (String, String) {
    let row = weft_workflow_core::decision_named(kind).expect("a row");
    (row.recorded.to_owned(), row.refused.to_owned())
}

/// Every decision type but `ScheduleLambdaFunction`, which is applied only for a function bound
/// in the domain (`lambdas.rs` records it so).
#[tokio::test]
async fn each_decision_applied_is_recorded_as_the_table_says() {
    let mut child = run_config();
    child["workflowId"] = json!("child");
    child["workflowType"] = json!({"name": "wf", "version": "1"});
    let cases = [
        vec![activity("act")],
        vec![
            activity("act"),
            decision("RequestCancelActivityTask", json!({"activityId": "a"})),
        ],
        vec![decision("CompleteWorkflowExecution", json!({}))],
        vec![decision("FailWorkflowExecution", json!({}))],
        vec![decision("CancelWorkflowExecution", json!({}))],
        vec![decision("ContinueAsNewWorkflowExecution", run_config())],
        vec![decision("RecordMarker", json!({"markerName": "m"}))],
        vec![decision(
            "StartTimer",
            json!({"timerId": "t", "startToFireTimeout": "5"}),
        )],
        vec![
            decision(
                "StartTimer",
                json!({"timerId": "t", "startToFireTimeout": "5"}),
            ),
            decision("CancelTimer", json!({"timerId": "t"})),
        ],
        vec![decision(
            "SignalExternalWorkflowExecution",
            json!({"workflowId": "other", "signalName": "s"}),
        )],
        vec![decision(
            "RequestCancelExternalWorkflowExecution",
            json!({"workflowId": "other"}),
        )],
        vec![decision("StartChildWorkflowExecution", child)],
    ];
    for decisions in cases {
        let kinds: Vec<String> = (decisions.iter())
            .map(|d| d["decisionType"].as_str().unwrap().to_owned())
            .collect();
        let expected: Vec<String> = kinds.iter().map(|k| row(k).0).collect();
        assert_eq!(decided(decisions, false).await, expected, "{kinds:?}");
    }
}

#[tokio::test]
async fn each_decision_refused_at_once_is_recorded_as_the_table_says() {
    let mut unknown_child = run_config();
    unknown_child["workflowId"] = json!("child");
    unknown_child["workflowType"] = json!({"name": "nothing", "version": "1"});
    let mut unknown_version = run_config();
    unknown_version["workflowTypeVersion"] = json!("9");
    let timer = || {
        decision(
            "StartTimer",
            json!({"timerId": "t", "startToFireTimeout": "5"}),
        )
    };
    // What SWF refuses at once: an unknown type or id, an id in use, no Lambda function bound;
    // a close decision while new events wait for the decider.
    let cases = [
        (vec![activity("nothing")], false),
        (
            vec![decision(
                "RequestCancelActivityTask",
                json!({"activityId": "a"}),
            )],
            false,
        ),
        (vec![decision("CompleteWorkflowExecution", json!({}))], true),
        (vec![decision("FailWorkflowExecution", json!({}))], true),
        (vec![decision("CancelWorkflowExecution", json!({}))], true),
        (
            vec![decision("ContinueAsNewWorkflowExecution", unknown_version)],
            false,
        ),
        (vec![timer(), timer()], false),
        (
            vec![decision("CancelTimer", json!({"timerId": "t"}))],
            false,
        ),
        (
            vec![decision("StartChildWorkflowExecution", unknown_child)],
            false,
        ),
        (
            vec![decision(
                "ScheduleLambdaFunction",
                json!({"id": "f", "name": "resize"}),
            )],
            false,
        ),
    ];
    for (decisions, interrupted) in cases {
        let last = decisions.last().unwrap()["decisionType"].as_str().unwrap();
        let refused = row(last).1;
        let recorded = decided(decisions.clone(), interrupted).await;
        assert_eq!(recorded.last(), Some(&refused), "{decisions:?}");
    }
}
