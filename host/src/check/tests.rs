use serde_json::{Value, json};

use super::check_history;

/// Wire JSON for event `id` of `event_type`, recorded at second `id`.
fn event(id: u64, event_type: &str, attributes: Value) -> Value {
    let mut event = json!({
        "eventId": id,
        "eventTimestamp": 1_700_000_000.0 + id as f64,
        "eventType": event_type,
    });
    event[super::event_attributes_member(event_type)] = attributes;
    event
}

/// A consistent history exercising most rules:
///
/// 1 WorkflowExecutionStarted, 2 DecisionTaskScheduled, 3 DecisionTaskStarted,
/// 4 DecisionTaskTimedOut, 5 DecisionTaskScheduled, 6 DecisionTaskStarted,
/// 7 WorkflowExecutionSignaled, 8 DecisionTaskScheduled (the next, while 5 is started),
/// 9 DecisionTaskCompleted, 10 ActivityTaskScheduled "a1", 11 TimerStarted "t",
/// 12 DecisionTaskStarted (of 8), 13 ActivityTaskTimedOut (SCHEDULE_TO_START, never started),
/// 14 DecisionTaskScheduled, 15 DecisionTaskCompleted, 16 ActivityTaskScheduled "a2",
/// 17 ActivityTaskStarted, 18 DecisionTaskStarted (of 14), 19 ActivityTaskCompleted,
/// 20 DecisionTaskScheduled, 21 TimerFired, 22 DecisionTaskCompleted, 23 DecisionTaskStarted
/// (of 20), 24 DecisionTaskCompleted, 25 WorkflowExecutionCompleted.
fn good() -> Vec<Value> {
    let list = json!({"name": "deciders"});
    let scheduled = || json!({"taskList": list, "startToCloseTimeout": "5"});
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
        ("DecisionTaskScheduled", scheduled()),
        ("DecisionTaskCompleted", completed(5, 6)),
        ("ActivityTaskScheduled", activity("a1", 9)),
        (
            "TimerStarted",
            json!({"timerId": "t", "startToFireTimeout": "1", "decisionTaskCompletedEventId": 9}),
        ),
        ("DecisionTaskStarted", started(8)),
        (
            "ActivityTaskTimedOut",
            json!({"timeoutType": "SCHEDULE_TO_START", "scheduledEventId": 10, "startedEventId": 0}),
        ),
        ("DecisionTaskScheduled", scheduled()),
        ("DecisionTaskCompleted", completed(8, 12)),
        ("ActivityTaskScheduled", activity("a2", 15)),
        ("ActivityTaskStarted", json!({"scheduledEventId": 16})),
        ("DecisionTaskStarted", started(14)),
        (
            "ActivityTaskCompleted",
            json!({"result": "ok", "scheduledEventId": 16, "startedEventId": 17}),
        ),
        ("DecisionTaskScheduled", scheduled()),
        ("TimerFired", json!({"timerId": "t", "startedEventId": 11})),
        ("DecisionTaskCompleted", completed(14, 18)),
        ("DecisionTaskStarted", started(20)),
        ("DecisionTaskCompleted", completed(20, 23)),
        (
            "WorkflowExecutionCompleted",
            json!({"decisionTaskCompletedEventId": 24}),
        ),
    ];
    numbered(events)
}

/// Events numbered from 1 in order.
fn numbered<const N: usize>(events: [(&str, Value); N]) -> Vec<Value> {
    events
        .into_iter()
        .enumerate()
        .map(|(i, (event_type, attrs))| event(i as u64 + 1, event_type, attrs))
        .collect()
}

fn started(scheduled: u64) -> Value {
    json!({"scheduledEventId": scheduled, "identity": "d"})
}

fn completed(scheduled: u64, started: u64) -> Value {
    json!({"scheduledEventId": scheduled, "startedEventId": started})
}

fn decision_scheduled() -> Value {
    json!({"taskList": {"name": "deciders"}})
}

fn workflow_started() -> Value {
    json!({"childPolicy": "TERMINATE", "taskList": {"name": "deciders"},
           "workflowType": {"name": "wf", "version": "1"}})
}

/// The attributes of event `id`, to edit.
fn attrs(events: &mut [Value], id: usize) -> &mut Value {
    let event = &mut events[id - 1];
    let member = super::event_attributes_member(event["eventType"].as_str().unwrap());
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
const STEP_ENDS: &[usize] = &[0, 2, 3, 5, 6, 8, 11, 12, 14, 16, 17, 18, 20, 21, 22, 23, 25];

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
        &["owes event 1 a decision task, but none was scheduled after it"],
    );
    // The decision task timed out, and no new one.
    assert_problem(&events[..4], &["event 4", "owes event 4 a decision task"]);
    // The signal came while the decider worked, and no next task was scheduled.
    assert_problem(&events[..7], &["event 7", "owes event 7 a decision task"]);
    // The activity timed out while the decider worked, and likewise.
    assert_problem(&events[..13], &["owes event 13 a decision task"]);
}

/// The history AWS records when a change comes while a decision task is started (spec §8.2
/// rule 4): the next `DecisionTaskScheduled` follows the change at once, before the started
/// task's `DecisionTaskCompleted`. Events 7 to 14 are the shape of events 33 to 39 of a real
/// AWS history (2016): TimerFired while a task is scheduled, then a child completing while it
/// is started.
#[test]
fn the_next_decision_task_is_scheduled_right_after_a_change_during_a_started_one() {
    let child = json!({"workflowId": "c", "workflowType": {"name": "wf", "version": "1"},
                       "taskList": {"name": "deciders"}, "childPolicy": "TERMINATE",
                       "decisionTaskCompletedEventId": 4});
    let run = json!({"workflowId": "c", "runId": "r"});
    let wf = json!({"name": "wf", "version": "1"});
    let events = numbered([
        ("WorkflowExecutionStarted", workflow_started()),
        ("DecisionTaskScheduled", decision_scheduled()),
        ("DecisionTaskStarted", started(2)),
        ("DecisionTaskCompleted", completed(2, 3)),
        (
            "TimerStarted",
            json!({"timerId": "delayed_task-0-0:t", "startToFireTimeout": "0",
                   "decisionTaskCompletedEventId": 4}),
        ),
        ("StartChildWorkflowExecutionInitiated", child.clone()),
        (
            "ChildWorkflowExecutionStarted",
            json!({"workflowExecution": run, "workflowType": wf, "initiatedEventId": 6}),
        ),
        ("DecisionTaskScheduled", decision_scheduled()),
        (
            "TimerFired",
            json!({"timerId": "delayed_task-0-0:t", "startedEventId": 5}),
        ),
        ("DecisionTaskStarted", started(8)),
        (
            "ChildWorkflowExecutionCompleted",
            json!({"workflowExecution": run, "workflowType": wf, "initiatedEventId": 6,
                   "startedEventId": 7}),
        ),
        ("DecisionTaskScheduled", decision_scheduled()),
        ("DecisionTaskCompleted", completed(8, 10)),
        (
            "StartChildWorkflowExecutionInitiated",
            json!({"workflowId": "c2", "workflowType": wf, "taskList": {"name": "deciders"},
                   "childPolicy": "TERMINATE", "decisionTaskCompletedEventId": 13}),
        ),
        ("DecisionTaskStarted", started(12)),
    ]);
    assert_eq!(check_history(&events), Vec::<String>::new());
}

/// The order Weft recorded before: the next `DecisionTaskScheduled` only after the started
/// task's completion and its batch.
#[test]
fn a_next_decision_task_scheduled_only_after_the_batch_is_refused() {
    let old = numbered([
        ("WorkflowExecutionStarted", workflow_started()),
        ("DecisionTaskScheduled", decision_scheduled()),
        ("DecisionTaskStarted", started(2)),
        ("WorkflowExecutionSignaled", json!({"signalName": "late"})),
        ("DecisionTaskCompleted", completed(2, 3)),
        (
            "MarkerRecorded",
            json!({"markerName": "m", "decisionTaskCompletedEventId": 5}),
        ),
        ("DecisionTaskScheduled", decision_scheduled()),
    ]);
    assert_problem(
        &old,
        &[
            "event 5 (DecisionTaskCompleted)",
            "event 4 changed the run while this decision task was started",
        ],
    );
    let mut timed_out = old[..4].to_vec();
    timed_out.push(event(
        5,
        "DecisionTaskTimedOut",
        json!({"timeoutType": "START_TO_CLOSE", "scheduledEventId": 2, "startedEventId": 3}),
    ));
    timed_out.push(event(6, "DecisionTaskScheduled", decision_scheduled()));
    assert_problem(
        &timed_out,
        &["event 5 (DecisionTaskTimedOut)", "event 4 changed the run"],
    );
}

/// A started task that times out while the next is scheduled lets that one be handed out; a
/// third is not scheduled.
#[test]
fn a_timeout_with_a_next_task_scheduled_schedules_no_third() {
    let mut events = numbered([
        ("WorkflowExecutionStarted", workflow_started()),
        ("DecisionTaskScheduled", decision_scheduled()),
        ("DecisionTaskStarted", started(2)),
        ("WorkflowExecutionSignaled", json!({"signalName": "late"})),
        ("DecisionTaskScheduled", decision_scheduled()),
        (
            "DecisionTaskTimedOut",
            json!({"timeoutType": "START_TO_CLOSE", "scheduledEventId": 2, "startedEventId": 3}),
        ),
        ("DecisionTaskStarted", started(5)),
    ]);
    assert_eq!(check_history(&events), Vec::<String>::new());
    events[6] = event(7, "DecisionTaskScheduled", decision_scheduled());
    assert_problem(
        &events,
        &[
            "event 7",
            "the decision task scheduled as event 5 is not started yet",
        ],
    );
}

#[test]
fn a_change_the_decider_has_not_seen_keeps_the_run_open() {
    let mut events = good();
    // A signal comes while the last decision task is started, and the batch still closes.
    events.truncate(23);
    events.push(event(
        24,
        "WorkflowExecutionSignaled",
        json!({"signalName": "late"}),
    ));
    events.push(event(25, "DecisionTaskScheduled", decision_scheduled()));
    events.push(event(26, "DecisionTaskCompleted", completed(20, 23)));
    events.push(event(
        27,
        "WorkflowExecutionCompleted",
        json!({"decisionTaskCompletedEventId": 26}),
    ));
    assert_problem(
        &events,
        &[
            "event 27",
            "closes the run although decision task 25 was scheduled while its own was started",
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
    assert_problem(&gap, &["event 7 (DecisionTaskScheduled)", "eventId 8"]);

    let mut swapped = good();
    swapped.swap(9, 10);
    assert_problem(&swapped, &["event 10 (TimerStarted)", "eventId 11"]);
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
    attrs(&mut wrong_type, 17)["scheduledEventId"] = json!(14);
    assert_problem(
        &wrong_type,
        &[
            "event 17 (ActivityTaskStarted)",
            "names a DecisionTaskScheduled",
        ],
    );

    let mut missing = good();
    attrs(&mut missing, 10)
        .as_object_mut()
        .unwrap()
        .remove("decisionTaskCompletedEventId");
    assert_problem(
        &missing,
        &["event 10", "decisionTaskCompletedEventId is missing"],
    );

    let mut zero = good();
    attrs(&mut zero, 19)["startedEventId"] = json!(0);
    assert_problem(&zero, &["event 19", "startedEventId is 0"]);
}

#[test]
fn a_completion_names_the_start_of_its_own_task() {
    let mut events = good();
    // Event 12 is a DecisionTaskStarted, but of the task scheduled as 8.
    attrs(&mut events, 22)["startedEventId"] = json!(12);
    assert_problem(
        &events,
        &[
            "event 22",
            "startedEventId 12 does not match event 14",
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
    events[17] = event(18, "ActivityTaskStarted", json!({"scheduledEventId": 16}));
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
        json!({"scheduledEventId": 16, "startedEventId": 17}),
    );
    assert_problem(&twice, &["event 20", "already closed by event 19"]);

    let mut unstarted = good();
    unstarted[12] = event(
        13,
        "ActivityTaskCompleted",
        json!({"scheduledEventId": 10, "startedEventId": 0}),
    );
    assert_problem(
        &unstarted,
        &["event 13", "closes event 10, which never started"],
    );
}

#[test]
fn one_decision_task_waits_and_one_is_started_at_most() {
    let mut waiting = good();
    // A third decision task is scheduled while the one scheduled as 7 waits.
    waiting[6] = event(7, "DecisionTaskScheduled", decision_scheduled());
    assert_problem(
        &waiting,
        &["event 8", "scheduled as event 7 is not started yet"],
    );

    let mut started_twice = good();
    // The next task is handed out while the one started as 6 is still open.
    started_twice[8] = event(9, "DecisionTaskStarted", started(8));
    assert_problem(
        &started_twice,
        &[
            "event 9",
            "handed out while the decision task scheduled as event 5 is started",
        ],
    );
}

#[test]
fn decisions_name_the_latest_completion() {
    let mut events = good();
    attrs(&mut events, 16)["decisionTaskCompletedEventId"] = json!(9);
    assert_problem(
        &events,
        &[
            "event 16",
            "decisionTaskCompletedEventId 9 is not the latest",
            "(15)",
        ],
    );
}

#[test]
fn later_events_repeat_what_opened_their_thing() {
    let mut events = good();
    attrs(&mut events, 21)["timerId"] = json!("other");
    assert_problem(
        &events,
        &["event 21", "timerId \"other\" differs from event 11's"],
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
    let opened = Store::open_dir(dir.path(), Arc::new(SystemClock)).unwrap();
    let mut broken = good();
    broken.remove(6);
    let histories = [(3, good()), (7, broken)];
    opened
        .store
        .apply(move |tx| {
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
    assert!(Store::open_dir(dir.path(), Arc::new(SystemClock)).is_ok());
}
