//! Exported histories read back (feature `serde`): the JavaScript SDK's fixture, exported newest
//! first and holding members the WIT does not have, as AWS's answers do.

use crate::testing::Recorded;
use crate::{Decision, History, Status};

const HELLO: &str = include_str!("../../js/test/fixtures/hello-history.json");

/// The decider that made the fixture: greets, then completes with the greeting.
fn hello(history: &History, start_to_close: u64) -> Result<Vec<Decision>, String> {
    Ok(match history.activity("greet") {
        None => vec![
            Decision::schedule_activity("greet", "Greet", "1.0")
                .input(history.input().unwrap_or_default())
                .task_list("hello-activities")
                .start_to_close(start_to_close)
                .into(),
        ],
        Some(status) if status.is_open() => vec![],
        Some(Status::Completed(result)) => vec![Decision::complete(result.map(Into::into))],
        Some(_) => vec![Decision::fail("greet failed", None)],
    })
}

#[test]
fn an_exported_history_gives_each_decision_task_as_it_was_handed_out() {
    let recorded = Recorded::from_json(HELLO)
        .unwrap()
        .execution("hello-1", "r-1");
    let ids: Vec<u64> = recorded.events().iter().map(|e| e.event_id).collect();
    assert_eq!(ids, (1..=11).collect::<Vec<_>>(), "oldest first");
    let second = recorded.decision_task(9).unwrap();
    assert_eq!(second.task().previous_started_event_id, 3);
    assert_eq!(second.events().len(), 9);
    assert_eq!(second.workflow_execution().workflow_id, "hello-1");
    assert_eq!(second.workflow_type().name, "Hello");
    assert_eq!(
        second.activity("greet"),
        Some(Status::Completed(Some("\"hello, world\"")))
    );
    assert!(
        recorded.decision_task(4).is_none(),
        "not a DecisionTaskStarted"
    );
}

#[test]
fn the_decider_that_made_it_replays_it_and_a_changed_one_is_caught() {
    let recorded = Recorded::from_json(HELLO).unwrap();
    assert_eq!(recorded.replay(|h| hello(h, 30)), Vec::<String>::new());
    assert_eq!(
        recorded.replay(|h| hello(h, 60)),
        [
            r#"decision task 3, decision 0: ScheduleActivityTask's startToCloseTimeout is "60" in the replay, "30" in the history (event 5)"#
        ]
    );
    assert_eq!(
        recorded.replay(|_| Err::<Vec<Decision>, _>("broken")),
        [
            "decision task 3: the decider failed: broken",
            "decision task 9: the decider failed: broken"
        ]
    );
}

#[test]
fn what_is_not_a_history_is_refused() {
    for (json, expected) in [
        ("nope", "not JSON"),
        (r#"{"nextPageToken": "x"}"#, "not a history"),
        (
            r#"[{"eventId": 1, "eventType": "DecisionTaskScheduled"}]"#,
            "event 1",
        ),
    ] {
        let error = Recorded::from_json(json).unwrap_err();
        assert!(error.starts_with(expected), "{json}: {error}");
    }
}
