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
