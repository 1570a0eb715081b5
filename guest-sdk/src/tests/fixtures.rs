//! The recorded histories every history reader is tested against (`tests/fixtures/histories`,
//! written by the end-to-end suite from the real engine): the queries answer of each what its
//! fixture expects.

use serde_json::{Value, json};

use crate::tasks::DecisionTask;
use crate::testing::Recorded;
use crate::{History, Status, Timer};

/// Each fixture's name and document.
pub(super) fn fixtures() -> Vec<(String, Value)> {
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

/// The fixture as an exported history, of its own run.
pub(super) fn recorded(fixture: &Value) -> Recorded {
    let (id, run) = (&fixture["workflowId"], &fixture["runId"]);
    Recorded::from_json(&fixture.to_string())
        .unwrap()
        .execution(id.as_str().unwrap(), run.as_str().unwrap())
}

/// The first decision task of the history.
fn first_task(recorded: &Recorded) -> History {
    let started = recorded.events().iter().find_map(|e| match e.attributes {
        crate::events::EventAttributes::DecisionTaskStarted(_) => Some(e.event_id),
        _ => None,
    });
    recorded.decision_task(started.unwrap()).unwrap()
}

/// The whole history, as a decider would read it if it saw every event.
fn whole(recorded: &Recorded) -> History {
    let events = recorded.events().to_vec();
    let last = events.last().unwrap().event_id;
    let task = first_task(recorded).into_task();
    History::new(DecisionTask {
        events,
        started_event_id: last,
        ..task
    })
}

/// A status as the fixtures write it.
fn status(status: Option<Status<'_>>) -> Value {
    let Some(status) = status else {
        return Value::Null;
    };
    let (state, member, value) = match status {
        Status::Scheduled => ("scheduled", "", None),
        Status::Started => ("started", "", None),
        Status::CancelRequested => ("cancelRequested", "", None),
        Status::Completed(result) => ("completed", "result", result),
        Status::Failed { reason, details } => {
            let mut failed = json!({"state": "failed"});
            put(&mut failed, "reason", reason);
            put(&mut failed, "details", details);
            return failed;
        }
        Status::TimedOut(kind) => ("timedOut", "timeoutType", Some(kind)),
        Status::Canceled(details) => ("canceled", "details", details),
        Status::Terminated => ("terminated", "", None),
        Status::NotStarted(cause) => ("notStarted", "cause", Some(cause)),
    };
    let mut answer = json!({ "state": state });
    put(&mut answer, member, value);
    answer
}

fn timer(timer: Option<Timer>) -> Value {
    match timer {
        None => Value::Null,
        Some(Timer::Started { .. }) => json!({"state": "started"}),
        Some(Timer::Fired { .. }) => json!({"state": "fired"}),
        Some(Timer::Canceled { .. }) => json!({"state": "canceled"}),
        Some(Timer::StartFailed { cause, .. }) => json!({"state": "startFailed", "cause": cause}),
    }
}

/// Sets `member` of `object` to `value`, if there is one.
fn put(object: &mut Value, member: &str, value: Option<&str>) {
    if let Some(value) = value {
        object[member] = value.into();
    }
}

/// Every id the fixture's events of `kinds` give in their attribute `member`, in order.
fn named(fixture: &Value, kinds: &[&str], member: &str) -> Vec<String> {
    let events = fixture["events"].as_array().unwrap();
    let mut ids: Vec<String> = events
        .iter()
        .filter(|e| kinds.contains(&e["eventType"].as_str().unwrap_or("")))
        .filter_map(|e| e.as_object()?.values().find_map(|a| a[member].as_str()))
        .map(str::to_string)
        .collect();
    ids.dedup();
    ids
}

#[test]
fn the_queries_answer_what_each_recorded_history_expects() {
    for (name, fixture) in fixtures() {
        let expect = &fixture["expect"];
        let history = whole(&recorded(&fixture));
        let answers = json!({
            "input": history.input(),
            "cancelRequested": history.cancel_requested(),
            "activities": answer(&expect["activities"], |id| status(history.activity(id))),
            "timers": answer(&expect["timers"], |id| timer(history.timer(id))),
            "children": answer(&expect["children"], |id| status(history.child(id))),
            "lambdas": answer(&expect["lambdas"], |id| status(history.lambda(id))),
            "signals": history.signals().map(|s| {
                let mut signal = json!({"name": s.name});
                put(&mut signal, "input", s.input);
                signal
            }).collect::<Vec<_>>(),
            "markers": history.markers().map(|m| {
                let mut marker = json!({"name": m.name});
                put(&mut marker, "details", m.details);
                marker
            }).collect::<Vec<_>>(),
        });
        for (member, answer) in answers.as_object().unwrap() {
            assert_eq!(answer, &expect[member], "{name}: {member}");
        }
        // The fixture answers for every id its history names.
        let listed = [
            (
                "activities",
                &["ActivityTaskScheduled", "ScheduleActivityTaskFailed"][..],
                "activityId",
            ),
            ("timers", &["TimerStarted", "StartTimerFailed"], "timerId"),
            (
                "lambdas",
                &["LambdaFunctionScheduled", "ScheduleLambdaFunctionFailed"],
                "id",
            ),
        ];
        for (member, kinds, key) in listed {
            for id in named(&fixture, kinds, key) {
                assert!(
                    expect[member].get(&id).is_some(),
                    "{name}: no {member} answer for {id}"
                );
            }
        }
    }
}

/// The answer for each id `expected` lists.
fn answer(expected: &Value, query: impl Fn(&str) -> Value) -> Value {
    let ids = expected.as_object().unwrap().keys();
    Value::Object(ids.map(|id| (id.clone(), query(id))).collect())
}

#[test]
fn each_recorded_history_has_the_decision_tasks_it_expects() {
    for (name, fixture) in fixtures() {
        let recorded = recorded(&fixture);
        let completed = recorded
            .events()
            .iter()
            .filter(|e| {
                matches!(
                    e.attributes,
                    crate::events::EventAttributes::DecisionTaskCompleted(_)
                )
            })
            .count();
        assert_eq!(
            json!(completed),
            fixture["expect"]["decisionTasks"],
            "{name}"
        );
        // Each task's history ends with its own DecisionTaskStarted.
        let task = first_task(&recorded);
        assert_eq!(task.task().previous_started_event_id, 0, "{name}");
        assert_eq!(task.workflow_execution().run_id, "run-1", "{name}");
    }
}
