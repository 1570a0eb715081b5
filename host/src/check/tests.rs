use serde_json::{Value, json};

use super::check_history;

/// Wire JSON for event `id` of `event_type`, recorded at second `id`.
fn event(id: u64, event_type: &str, attributes: Value) -> Value {
    let mut event = json!({
        "eventId": id,
        "eventTimestamp": 1_700_000_000.0 + id as f64,
        "eventType": event_type,
    });
    event[super::attributes_member(event_type)] = attributes;
    event
}

/// A consistent history exercising most rules:
///
/// 1 WorkflowExecutionStarted, 2 DecisionTaskScheduled, 3 DecisionTaskStarted,
/// 4 DecisionTaskTimedOut, 5 DecisionTaskScheduled, 6 DecisionTaskStarted,
/// 7 WorkflowExecutionSignaled, 8 DecisionTaskCompleted, 9 ActivityTaskScheduled "a1",
/// 10 TimerStarted "t", 11 DecisionTaskScheduled, 12 DecisionTaskStarted,
/// 13 ActivityTaskTimedOut (SCHEDULE_TO_START, never started), 14 DecisionTaskCompleted,
/// 15 ActivityTaskScheduled "a2", 16 DecisionTaskScheduled, 17 ActivityTaskStarted,
/// 18 DecisionTaskStarted, 19 ActivityTaskCompleted, 20 TimerFired, 21 DecisionTaskCompleted,
/// 22 DecisionTaskScheduled, 23 DecisionTaskStarted, 24 DecisionTaskCompleted,
/// 25 WorkflowExecutionCompleted.
fn good() -> Vec<Value> {
    let list = json!({"name": "deciders"});
    let scheduled = || json!({"taskList": list, "startToCloseTimeout": "5"});
    let started = |s: u64| json!({"scheduledEventId": s, "identity": "d"});
    let completed = |s: u64, t: u64| json!({"scheduledEventId": s, "startedEventId": t});
    let activity = |id: &str, dtc: u64| {
        json!({
            "activityId": id,
            "activityType": {"name": "work", "version": "1"},
            "taskList": {"name": "workers"},
            "decisionTaskCompletedEventId": dtc,
        })
    };
    let events = [
        (
            "WorkflowExecutionStarted",
            json!({"childPolicy": "TERMINATE", "taskList": list,
                   "workflowType": {"name": "wf", "version": "1"}}),
        ),
        ("DecisionTaskScheduled", scheduled()),
        ("DecisionTaskStarted", started(2)),
        (
            "DecisionTaskTimedOut",
            json!({"timeoutType": "START_TO_CLOSE", "scheduledEventId": 2, "startedEventId": 3}),
        ),
        ("DecisionTaskScheduled", scheduled()),
        ("DecisionTaskStarted", started(5)),
        ("WorkflowExecutionSignaled", json!({"signalName": "poke"})),
        ("DecisionTaskCompleted", completed(5, 6)),
        ("ActivityTaskScheduled", activity("a1", 8)),
        (
            "TimerStarted",
            json!({"timerId": "t", "startToFireTimeout": "1", "decisionTaskCompletedEventId": 8}),
        ),
        ("DecisionTaskScheduled", scheduled()),
        ("DecisionTaskStarted", started(11)),
        (
            "ActivityTaskTimedOut",
            json!({"timeoutType": "SCHEDULE_TO_START", "scheduledEventId": 9, "startedEventId": 0}),
        ),
        ("DecisionTaskCompleted", completed(11, 12)),
        ("ActivityTaskScheduled", activity("a2", 14)),
        ("DecisionTaskScheduled", scheduled()),
        ("ActivityTaskStarted", json!({"scheduledEventId": 15})),
        ("DecisionTaskStarted", started(16)),
        (
            "ActivityTaskCompleted",
            json!({"result": "ok", "scheduledEventId": 15, "startedEventId": 17}),
        ),
        ("TimerFired", json!({"timerId": "t", "startedEventId": 10})),
        ("DecisionTaskCompleted", completed(16, 18)),
        ("DecisionTaskScheduled", scheduled()),
        ("DecisionTaskStarted", started(22)),
        ("DecisionTaskCompleted", completed(22, 23)),
        (
            "WorkflowExecutionCompleted",
            json!({"decisionTaskCompletedEventId": 24}),
        ),
    ];
    events
        .into_iter()
        .enumerate()
        .map(|(i, (event_type, attrs))| event(i as u64 + 1, event_type, attrs))
        .collect()
}

/// The attributes of event `id`, to edit.
fn attrs(events: &mut [Value], id: usize) -> &mut Value {
    let event = &mut events[id - 1];
    let member = super::attributes_member(event["eventType"].as_str().unwrap());
    &mut event[member]
}

/// Asserts that some problem contains every one of `needles`.
#[track_caller]
fn assert_problem(events: &[Value], needles: &[&str]) {
    let problems = check_history(events);
    assert!(
        problems
            .iter()
            .any(|p| needles.iter().all(|needle| p.contains(needle))),
        "no problem mentions {needles:?}; problems: {problems:#?}"
    );
}

/// The ends of the steps of [`good`]: the events of one step are recorded together, so these
/// are the histories a server can show.
const STEP_ENDS: &[usize] = &[0, 2, 3, 5, 6, 7, 11, 12, 13, 16, 17, 18, 19, 20, 22, 23, 25];

#[test]
fn a_good_history_passes_at_the_end_of_each_step() {
    let events = good();
    for &end in STEP_ENDS {
        assert_eq!(check_history(&events[..end]), Vec::<String>::new(), "{end}");
    }
}

#[test]
fn an_open_run_never_waits_for_a_decision_task_that_is_not_coming() {
    let events = good();
    // Started, and no decision task scheduled.
    assert_problem(
        &events[..1],
        &["owes event 1 a decision task, but none is open"],
    );
    // The decision task timed out, and no new one.
    assert_problem(&events[..4], &["event 4", "owes event 4 a decision task"]);
    // The signal came while the decider worked; its batch is recorded, and no new task.
    assert_problem(&events[..10], &["event 10", "owes event 7 a decision task"]);
    // The activity completed while the decider worked, and nothing after its batch.
    assert_problem(&events[..21], &["owes event 19 a decision task"]);
}

#[test]
fn a_change_the_decider_has_not_seen_keeps_the_run_open() {
    let mut events = good();
    // A signal comes while the last decision task is started, and the batch still closes.
    events.insert(
        23,
        event(
            24,
            "WorkflowExecutionSignaled",
            json!({"signalName": "late"}),
        ),
    );
    events[24] = event(
        25,
        "DecisionTaskCompleted",
        json!({"scheduledEventId": 22, "startedEventId": 23}),
    );
    events[25] = event(
        26,
        "WorkflowExecutionCompleted",
        json!({"decisionTaskCompletedEventId": 25}),
    );
    assert_problem(
        &events,
        &[
            "event 26",
            "closes the run although event 24",
            "is unhandled",
        ],
    );
}

#[test]
fn every_event_type_has_one_rule() {
    assert_eq!(super::rules::RULES.len(), 54);
    for rule in super::rules::RULES {
        let same = super::rules::RULES
            .iter()
            .filter(|r| r.event_type == rule.event_type);
        assert_eq!(same.count(), 1, "{}", rule.event_type);
    }
}

#[test]
fn ids_must_run_from_one_without_gaps() {
    let mut gap = good();
    gap.remove(6);
    assert_problem(&gap, &["event 7 (DecisionTaskCompleted)", "eventId 8"]);

    let mut swapped = good();
    swapped.swap(8, 9);
    assert_problem(&swapped, &["event 9 (TimerStarted)", "eventId 10"]);
}

#[test]
fn event_one_and_only_event_one_is_the_start() {
    let events = good();
    assert_problem(
        &events[1..],
        &["the first event is not WorkflowExecutionStarted"],
    );
    let mut twice = good();
    let start = twice[0].clone();
    twice.insert(6, start);
    for (i, e) in twice.iter_mut().enumerate() {
        e["eventId"] = json!(i + 1);
    }
    assert_problem(&twice, &["event 7", "is not the first event"]);
}

#[test]
fn timestamps_must_not_go_back() {
    let mut events = good();
    events[9]["eventTimestamp"] = json!(1_600_000_000.5);
    assert_problem(&events, &["event 10", "timestamp 1600000000.5 is before"]);
}

#[test]
fn events_carry_exactly_their_own_attributes() {
    let mut stray = good();
    stray[6]["timerStartedEventAttributes"] = json!({});
    assert_problem(
        &stray,
        &["event 7", "stray member timerStartedEventAttributes"],
    );

    let mut missing = good();
    missing[6]
        .as_object_mut()
        .unwrap()
        .remove("workflowExecutionSignaledEventAttributes");
    assert_problem(&missing, &["event 7", "is missing or not an object"]);

    let mut unknown = good();
    unknown[6]["eventType"] = json!("WorkflowExecutionPoked");
    assert_problem(
        &unknown,
        &["event 7 (WorkflowExecutionPoked): unknown eventType"],
    );

    let mut not_object = good();
    not_object[6] = json!(null);
    assert_problem(&not_object, &["event 7", "not a JSON object"]);
}

#[test]
fn references_name_earlier_events_of_the_right_type() {
    let mut later = good();
    attrs(&mut later, 17)["scheduledEventId"] = json!(20);
    assert_problem(
        &later,
        &["event 17", "scheduledEventId 20 is not an earlier event"],
    );

    let mut wrong_type = good();
    attrs(&mut wrong_type, 17)["scheduledEventId"] = json!(16);
    assert_problem(
        &wrong_type,
        &[
            "event 17 (ActivityTaskStarted)",
            "names a DecisionTaskScheduled",
        ],
    );

    let mut missing = good();
    attrs(&mut missing, 9)
        .as_object_mut()
        .unwrap()
        .remove("decisionTaskCompletedEventId");
    assert_problem(
        &missing,
        &["event 9", "decisionTaskCompletedEventId is missing"],
    );

    let mut zero = good();
    attrs(&mut zero, 19)["startedEventId"] = json!(0);
    assert_problem(&zero, &["event 19", "startedEventId is 0"]);
}

#[test]
fn a_completion_names_the_start_of_its_own_task() {
    let mut events = good();
    // Event 12 is a DecisionTaskStarted, but of the task scheduled as 11.
    attrs(&mut events, 21)["startedEventId"] = json!(12);
    assert_problem(
        &events,
        &[
            "event 21",
            "startedEventId 12 does not match event 16",
            "started as event 18",
        ],
    );
}

#[test]
fn a_timeout_of_a_started_task_names_its_start() {
    let mut events = good();
    attrs(&mut events, 4)["startedEventId"] = json!(0);
    assert_problem(
        &events,
        &["event 4", "startedEventId 0 does not match event 2"],
    );
}

#[test]
fn a_task_starts_at_most_once() {
    let mut events = good();
    // The second activity is handed out again while it runs.
    events[17] = event(18, "ActivityTaskStarted", json!({"scheduledEventId": 15}));
    assert_problem(&events, &["event 18", "already started by event 17"]);

    let mut decision = good();
    decision[5] = event(6, "DecisionTaskStarted", json!({"scheduledEventId": 2}));
    assert_problem(&decision, &["event 6", "closed by event 4"]);
}

#[test]
fn a_task_closes_at_most_once_and_only_after_it_started() {
    let mut twice = good();
    twice[19] = event(
        20,
        "ActivityTaskFailed",
        json!({"scheduledEventId": 15, "startedEventId": 17}),
    );
    assert_problem(&twice, &["event 20", "already closed by event 19"]);

    let mut unstarted = good();
    unstarted[12] = event(
        13,
        "ActivityTaskCompleted",
        json!({"scheduledEventId": 9, "startedEventId": 0}),
    );
    assert_problem(
        &unstarted,
        &["event 13", "closes event 9, which never started"],
    );
}

#[test]
fn one_decision_task_is_open_at_a_time() {
    let mut events = good();
    // A second decision task is scheduled and started while the one started as 6 is open.
    events[6] = event(
        7,
        "DecisionTaskScheduled",
        json!({"taskList": {"name": "d"}}),
    );
    assert_problem(&events, &["event 7", "scheduled as event 5 is still open"]);
}

#[test]
fn decisions_name_the_latest_completion() {
    let mut events = good();
    attrs(&mut events, 15)["decisionTaskCompletedEventId"] = json!(8);
    assert_problem(
        &events,
        &[
            "event 15",
            "decisionTaskCompletedEventId 8 is not the latest",
            "(14)",
        ],
    );
}

#[test]
fn later_events_repeat_what_opened_their_thing() {
    let mut events = good();
    attrs(&mut events, 20)["timerId"] = json!("other");
    assert_problem(
        &events,
        &["event 20", "timerId \"other\" differs from event 10's"],
    );
}

#[test]
fn the_run_closes_once_and_last() {
    let mut after = good();
    after.push(event(
        26,
        "WorkflowExecutionSignaled",
        json!({"signalName": "late"}),
    ));
    assert_problem(
        &after,
        &["event 26", "recorded after event 25 closed the run"],
    );

    let mut twice = good();
    twice.push(event(
        26,
        "WorkflowExecutionTerminated",
        json!({"childPolicy": "TERMINATE"}),
    ));
    assert_problem(
        &twice,
        &["event 26 (WorkflowExecutionTerminated)", "after event 25"],
    );
}

#[cfg(debug_assertions)]
#[tokio::test]
async fn a_broken_stored_history_stops_the_start() {
    use std::sync::Arc;

    use crate::clock::SystemClock;
    use crate::store::Store;

    let dir = tempfile::tempdir().unwrap();
    let opened = Store::open(dir.path(), Arc::new(SystemClock)).unwrap();
    let mut broken = good();
    broken.remove(6);
    let histories = [(3, good()), (7, broken)];
    opened
        .store
        .write(move |tx| {
            for (seq, events) in &histories {
                for (i, event) in events.iter().enumerate() {
                    tx.put_event(*seq, i as u64 + 1, &serde_json::to_vec(event).unwrap())?;
                }
            }
            Ok(())
        })
        .await
        .unwrap();
    drop(opened.store);
    opened.writer.join();

    let Err(crate::Error::InconsistentHistory { run, problems }) =
        crate::Weft::open(crate::Config::new(dir.path()))
    else {
        panic!("a store with a broken history opened");
    };
    assert_eq!(run, "seq 7 (no run record)");
    assert!(problems[0].contains("has eventId 8"), "{problems:?}");
    // It closed the store on the way out: the directory can be opened again.
    assert!(Store::open(dir.path(), Arc::new(SystemClock)).is_ok());
}
