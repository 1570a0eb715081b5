use alloc::vec;
use alloc::vec::Vec;

use super::*;

fn event(id: u64, event_type: &'static str, members: Members<'static>) -> Event<'static> {
    Event {
        id,
        event_type,
        timestamp: id as f64,
        members,
    }
}

/// A run that scheduled activity `Greet-1` at its first task, which completed.
fn greeted() -> Vec<Event<'static>> {
    let m = Members::default;
    vec![
        event(1, "WorkflowExecutionStarted", m()),
        event(2, "DecisionTaskScheduled", m()),
        event(3, "DecisionTaskStarted", m()),
        event(
            4,
            "DecisionTaskCompleted",
            Members {
                started_event_id: 3,
                ..m()
            },
        ),
        event(
            5,
            "ActivityTaskScheduled",
            Members {
                decision_task_completed_event_id: 4,
                activity_id: "Greet-1",
                type_: Some(("Greet", "1.0")),
                ..m()
            },
        ),
        event(
            6,
            "ActivityTaskStarted",
            Members {
                scheduled_event_id: 5,
                ..m()
            },
        ),
        event(
            7,
            "ActivityTaskCompleted",
            Members {
                scheduled_event_id: 5,
                result: Some("hi"),
                ..m()
            },
        ),
        event(8, "DecisionTaskScheduled", m()),
        event(9, "DecisionTaskStarted", m()),
    ]
}

/// Code that awaits activity `name` (by default id) and returns its result: the slot it
/// awaits, issued on its first run.
fn run_code(events: &[Event<'_>], name: &str) -> Result<Vec<&'static str>, String> {
    let mut state = State::new("w", "r", None);
    let mut replay = Replay::new(events, 9);
    let mut slot = None;
    while replay.next(events, &mut state)? {
        let slot = *slot.get_or_insert_with(|| {
            let id = state.default_id("ScheduleActivityTask", name);
            let members = Members {
                activity_id: &id,
                type_: Some((name, "1.0")),
                ..Members::default()
            };
            let shape = Shape::of_decision("ScheduleActivityTask", &members).unwrap();
            state.issue("schedule", shape, true).unwrap()
        });
        if let Some(Ok(_)) = state.outcome(slot) {
            let shape = Shape::of_decision("CompleteWorkflowExecution", &Members::default());
            state.close("complete", shape.unwrap());
        }
    }
    Ok(state.answer())
}

#[test]
fn code_that_issues_what_the_history_recorded_answers_the_current_task() {
    assert_eq!(run_code(&greeted(), "Greet"), Ok(vec!["complete"]));
}

#[test]
fn code_that_issues_other_commands_is_a_nondeterminism_naming_both() {
    assert_eq!(
        run_code(&greeted(), "Wave"),
        Err(String::from(
            "nondeterminism at event 5: the history has ScheduleActivityTask \"Greet-1\" \
             (Greet 1.0) where the workflow code now decides ScheduleActivityTask \"Wave-1\" \
             (Wave 1.0)"
        ))
    );
}

#[test]
fn the_seeded_sequence_is_every_sdks() {
    let mut state: State<()> = State::new("w", "run-1", None);
    let first = state.random();
    assert_eq!(State::<()>::new("w", "run-1", None).random(), first);
    assert_ne!(State::<()>::new("w", "run-2", None).random(), first);
}

#[test]
fn a_failure_is_said_in_every_sdks_words() {
    let words = |ending, reason, details| Failure::new(ending, reason, details).to_string();
    assert_eq!(
        words(Ending::Failed, Some("declined"), Some("0000")),
        "declined: 0000"
    );
    assert_eq!(words(Ending::Failed, None, None), "failed");
    assert_eq!(
        words(Ending::TimedOut, Some("START_TO_CLOSE"), None),
        "timed out (START_TO_CLOSE)"
    );
    assert_eq!(
        words(
            Ending::NotStarted,
            Some("ACTIVITY_TYPE_DOES_NOT_EXIST"),
            None
        ),
        "could not be scheduled (ACTIVITY_TYPE_DOES_NOT_EXIST)"
    );
    assert_eq!(words(Ending::Canceled, None, Some("x")), "canceled");
    assert_eq!(words(Ending::Terminated, None, None), "terminated");
}

#[cfg(feature = "json")]
mod json {
    use alloc::string::{String, ToString};
    use serde_json::{Value, json};

    use crate::replay::json::{Session, call};

    fn ask(session: &mut Option<Session>, request: Value) -> Value {
        let answer: Value = serde_json::from_str(&call(session, &request.to_string())).unwrap();
        answer
    }

    fn event(id: u64, event_type: &str, attributes: Value) -> Value {
        let key = alloc::format!(
            "{}{}EventAttributes",
            event_type[..1].to_lowercase(),
            &event_type[1..]
        );
        json!({"eventId": id, "eventTimestamp": 1700000000.0 + id as f64, "eventType": event_type, key: attributes})
    }

    #[test]
    fn a_replay_through_json_hands_over_outcomes_once_per_task_and_answers_the_current_one() {
        let events = [
            event(
                1,
                "WorkflowExecutionStarted",
                json!({"input": "Ada", "workflowType": {"name": "Hello", "version": "1"}}),
            ),
            event(2, "DecisionTaskScheduled", json!({})),
            event(3, "DecisionTaskStarted", json!({"scheduledEventId": 2})),
            event(4, "DecisionTaskCompleted", json!({"startedEventId": 3})),
            event(
                5,
                "ActivityTaskScheduled",
                json!({"decisionTaskCompletedEventId": 4,
                "activityId": "Greet-1", "activityType": {"name": "Greet", "version": "1.0"}}),
            ),
            event(
                6,
                "ActivityTaskCompleted",
                json!({"scheduledEventId": 5, "result": "hi"}),
            ),
            event(7, "DecisionTaskScheduled", json!({})),
            event(8, "DecisionTaskStarted", json!({"scheduledEventId": 7})),
        ];
        let task = json!({"events": events, "startedEventId": 8,
            "workflowExecution": {"workflowId": "w", "runId": "r"}});
        let mut session = None;
        assert_eq!(
            ask(&mut session, json!({"op": "next"}))["err"],
            "no replay begun: `begin` first"
        );
        let begun = ask(&mut session, json!({"op": "begin", "task": task}));
        assert_eq!(
            begun["ok"],
            json!({"input": "Ada", "workflowId": "w", "runId": "r",
                "workflowType": {"name": "Hello", "version": "1"}})
        );
        let first = ask(&mut session, json!({"op": "next"}));
        assert_eq!(first["ok"]["replaying"], true);
        assert_eq!(first["ok"]["outcomes"], json!([]));
        let greet = json!({"decisionType": "ScheduleActivityTask",
            "scheduleActivityTaskDecisionAttributes": {"activityType": {"name": "Greet", "version": "1.0"}}});
        let issued = ask(
            &mut session,
            json!({"op": "issue", "decision": greet, "awaited": true}),
        );
        assert_eq!(issued["ok"], json!({"slot": 0, "id": "Greet-1"}));
        let second = ask(&mut session, json!({"op": "next"}));
        assert_eq!(second["ok"]["replaying"], false);
        assert_eq!(second["ok"]["outcomes"], json!([[0, {"result": "hi"}]]));
        let complete = json!({"decisionType": "CompleteWorkflowExecution",
            "completeWorkflowExecutionDecisionAttributes": {"result": "hi"}});
        let close = json!({"op": "close", "decision": complete.clone()});
        // The close goes in the batch of the next request, applied before it.
        let done = ask(&mut session, json!({"op": "next", "batch": [close]}));
        assert_eq!(done["ok"], Value::Null);
        assert_eq!(
            ask(&mut session, json!({"op": "answer"}))["ok"],
            json!([complete])
        );
        let unknown = ask(&mut session, json!({"op": "dance"}));
        assert_eq!(unknown["err"], String::from("no operation \"dance\""));
    }
}

#[cfg(feature = "json")]
#[test]
fn a_nondeterminism_through_json_says_so() {
    use serde_json::{Value, json};
    let events = json!([
        {"eventId": 1, "eventType": "WorkflowExecutionStarted", "eventTimestamp": 1.0,
         "workflowExecutionStartedEventAttributes": {}},
        {"eventId": 2, "eventType": "DecisionTaskStarted", "eventTimestamp": 1.0,
         "decisionTaskStartedEventAttributes": {}},
        {"eventId": 3, "eventType": "DecisionTaskCompleted", "eventTimestamp": 1.0,
         "decisionTaskCompletedEventAttributes": {"startedEventId": 2}},
        {"eventId": 4, "eventType": "TimerStarted", "eventTimestamp": 1.0,
         "timerStartedEventAttributes": {"timerId": "t", "decisionTaskCompletedEventId": 3}},
        {"eventId": 5, "eventType": "DecisionTaskStarted", "eventTimestamp": 2.0,
         "decisionTaskStartedEventAttributes": {}},
    ]);
    let mut session = None;
    let task = json!({"op": "begin", "task": {"events": events, "startedEventId": 5}});
    crate::replay::json::call(&mut session, &task.to_string());
    crate::replay::json::call(&mut session, r#"{"op":"next"}"#);
    let answer: Value =
        serde_json::from_str(&crate::replay::json::call(&mut session, r#"{"op":"next"}"#)).unwrap();
    assert_eq!(answer["nondeterminism"], true);
    assert_eq!(
        answer["err"],
        "nondeterminism at event 4: the history has StartTimer \"t\", which the workflow code no \
         longer decides there"
    );
    let unknown: Value = serde_json::from_str(&crate::replay::json::call(
        &mut session,
        r#"{"op":"next","batch":[{"op":"x"}]}"#,
    ))
    .unwrap();
    assert_eq!(unknown, json!({"err": "no operation \"x\""}));
}

#[cfg(feature = "json")]
#[test]
fn requests_of_any_shape_are_answered_without_a_panic() {
    use alloc::string::ToString;
    use serde_json::{Value, json};
    let mut session = None;
    let ask = |session: &mut _, request: Value| -> Value {
        serde_json::from_str(&crate::replay::json::call(session, &request.to_string())).unwrap()
    };
    for request in [
        json!([1, 2]),
        json!("begin"),
        json!(5),
        json!({"op": "begin", "task": 5}),
    ] {
        let answer = ask(&mut session, request.clone());
        assert!(answer["err"].is_string(), "{request} -> {answer}");
    }
    ask(&mut session, json!({"op": "begin", "task": {"events": []}}));
    for batch in [
        json!([3]),
        json!([{"op": "issue", "decision": 7}]),
        json!(["x"]),
    ] {
        let answer = ask(&mut session, json!({"op": "next", "batch": batch}));
        assert!(answer["err"].is_string(), "{batch} -> {answer}");
    }
}

#[test]
fn a_cancel_is_issued_once_for_what_swf_can_cancel_and_not_after_it_ended() {
    let mut state: State<String> = State::new("w", "r", None);
    let shape = |decision, id: &str| {
        let members = Members {
            activity_id: id,
            timer_id: id,
            workflow_id: id,
            id,
            name: "f",
            type_: Some(("T", "1")),
            ..Members::default()
        };
        Shape::of_decision(decision, &members).unwrap()
    };
    let issue = |state: &mut State<String>, decision, id| {
        state
            .issue(alloc::format!("{decision} {id}"), shape(decision, id), true)
            .unwrap()
    };
    let made = |target: Cancel<'_>| alloc::format!("{target:?}");
    let activity = issue(&mut state, "ScheduleActivityTask", "a");
    let child = issue(&mut state, "StartChildWorkflowExecution", "c");
    let lambda = issue(&mut state, "ScheduleLambdaFunction", "l");
    assert_eq!(state.slot_of("ScheduleActivityTask", "a"), Some(activity));
    state.cancel(activity, made).unwrap();
    state.cancel(activity, made).unwrap();
    state.cancel(child, made).unwrap();
    let refused = state.cancel(lambda, made).unwrap_err();
    assert!(
        refused.contains("cannot cancel a ScheduleLambdaFunction"),
        "{refused}"
    );
    assert_eq!(
        state.answer(),
        [
            "ScheduleActivityTask a",
            "StartChildWorkflowExecution c",
            "ScheduleLambdaFunction l",
            "Activity(\"a\")",
            "Child(\"c\", None)",
        ]
    );
}
