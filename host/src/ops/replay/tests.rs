//! `weft replay` over the recorded histories every history reader is tested against
//! (`tests/fixtures/histories`, written by the end-to-end suite from the real engine): each is
//! cut into the decision tasks it expects, and the order's histories replay under both Rust
//! order deciders, strictly, until one is changed.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::recorded::recorded_tasks;
use super::{Budget, Recorded, replay_history};
use crate::runtime::{Call, GuestLimits, POOL_SIZE, Runtime};

/// Each fixture's name and document.
fn fixtures() -> Vec<(String, Value)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/histories");
    let mut fixtures: Vec<(String, Value)> = std::fs::read_dir(dir)
        .expect("tests/fixtures/histories")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            (name, serde_json::from_str(&text).unwrap())
        })
        .collect();
    fixtures.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(fixtures.len() >= 7, "the fixtures are missing");
    fixtures
}

#[test]
fn each_recorded_history_is_cut_into_the_decision_tasks_it_expects() {
    for (name, fixture) in fixtures() {
        let events = fixture["events"].as_array().unwrap();
        let tasks = recorded_tasks(events);
        assert_eq!(
            json!(tasks.len()),
            fixture["expect"]["decisionTasks"],
            "{name}"
        );
    }
}

/// Replays the example decider `guest` over `fixture`, as `weft replay` does: the decision
/// tasks replayed, and the divergence's message if there is one.
async fn replay(
    runtime: &Runtime,
    guest: &str,
    fixture: &Value,
    strict: bool,
) -> (u32, Option<String>) {
    let module = runtime
        .load(crate::examples::component(guest).unwrap())
        .unwrap();
    let call = Call {
        label: "fixture".into(),
        limits: GuestLimits::default(),
        share: Arc::new(tokio::sync::Semaphore::new(POOL_SIZE as usize)),
        http_hosts: Arc::from([]),
        tap: None,
    };
    let left = Duration::from_secs(60);
    let mut budget = Budget {
        total: left,
        left,
        tasks: 0,
    };
    let execution = json!({"workflowId": fixture["workflowId"], "runId": fixture["runId"]});
    let started = &fixture["events"][0]["workflowExecutionStartedEventAttributes"];
    let history = Recorded {
        execution: &execution,
        workflow_type: &started["workflowType"],
        events: fixture["events"].as_array().unwrap(),
    };
    let (tasks, divergence) =
        replay_history(runtime, &module, &call, &mut budget, &history, strict)
            .await
            .unwrap();
    (tasks, divergence.map(|d| d.message))
}

#[tokio::test]
async fn the_order_histories_replay_under_both_rust_order_deciders_until_one_is_changed() {
    let runtime = Runtime::new(None).unwrap();
    let orders: Vec<(String, Value)> = fixtures()
        .into_iter()
        .filter(|(_, f)| f["expect"]["decider"] == "order")
        .collect();
    assert!(orders.len() >= 4);
    for (name, fixture) in &orders {
        let expected = fixture["expect"]["decisionTasks"].as_u64().unwrap() as u32;
        for guest in ["order-decider", "order-workflow"] {
            for strict in [false, true] {
                let replayed = replay(&runtime, guest, fixture, strict).await;
                assert_eq!(
                    replayed,
                    (expected, None),
                    "{guest} over {name}, strict {strict}"
                );
            }
        }
    }

    // The same history with its first activity of another type: the first task diverges.
    let (_, mut changed) = orders[0].clone();
    let events = changed["events"].as_array_mut().unwrap();
    let scheduled = events
        .iter_mut()
        .find(|e| e["eventType"] == "ActivityTaskScheduled")
        .unwrap();
    scheduled["activityTaskScheduledEventAttributes"]["activityType"]["name"] = "Teleport".into();
    let (tasks, divergence) = replay(&runtime, "order-workflow", &changed, false).await;
    assert_eq!(tasks, 1);
    let divergence = divergence.expect("a divergence");
    assert!(divergence.contains("Teleport"), "{divergence}");
}
