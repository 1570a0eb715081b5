use serde_json::{Value, json};

use super::*;

/// An event in wire JSON: `kind` with these attributes.
fn event(id: u64, kind: &str, attributes: Value) -> Value {
    let mut event = json!({"eventId": id, "eventTimestamp": 1000.0 + id as f64, "eventType": kind});
    event[event_attributes_member(kind)] = attributes;
    event
}

/// Two decision tasks: the first scheduled an activity, started a timer and signalled another
/// run (which failed later); the second completed the run.
fn history() -> Vec<Value> {
    vec![
        event(
            1,
            "WorkflowExecutionStarted",
            json!({"taskList": {"name": "d"}}),
        ),
        event(
            2,
            "DecisionTaskScheduled",
            json!({"taskList": {"name": "d"}}),
        ),
        event(3, "DecisionTaskStarted", json!({"scheduledEventId": 2})),
        event(
            4,
            "DecisionTaskCompleted",
            json!({"scheduledEventId": 2, "startedEventId": 3}),
        ),
        event(
            5,
            "ActivityTaskScheduled",
            json!({"activityId": "a", "activityType": {"name": "A", "version": "1"},
                   "input": "x", "taskList": {"name": "default-list"},
                   "decisionTaskCompletedEventId": 4}),
        ),
        event(
            6,
            "TimerStarted",
            json!({"timerId": "t", "startToFireTimeout": "5", "decisionTaskCompletedEventId": 4}),
        ),
        event(
            7,
            "SignalExternalWorkflowExecutionInitiated",
            json!({"workflowId": "other", "signalName": "s", "decisionTaskCompletedEventId": 4}),
        ),
        event(
            8,
            "SignalExternalWorkflowExecutionFailed",
            json!({"workflowId": "other", "cause": "UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION",
                   "initiatedEventId": 7, "decisionTaskCompletedEventId": 4}),
        ),
        event(
            9,
            "DecisionTaskScheduled",
            json!({"taskList": {"name": "d"}}),
        ),
        event(10, "DecisionTaskStarted", json!({"scheduledEventId": 9})),
        event(
            11,
            "DecisionTaskCompleted",
            json!({"scheduledEventId": 9, "startedEventId": 10}),
        ),
        event(
            12,
            "WorkflowExecutionCompleted",
            json!({"result": "r", "decisionTaskCompletedEventId": 11}),
        ),
    ]
}

fn tasks() -> Vec<RecordedTask> {
    recorded_tasks(&history())
}

/// The task as its decider got it.
fn handed_out(task: &RecordedTask) -> Value {
    let execution = json!({"workflowId": "w", "runId": "r"});
    let workflow_type = json!({"name": "W", "version": "1"});
    task.task(&execution, &workflow_type, &history())
}

fn decision(kind: &str, attributes: Value) -> Value {
    let mut decision = json!({"decisionType": kind});
    decision[decision_attributes_member(kind)] = attributes;
    decision
}

/// What the first task decided, as a decider would answer it (leaving the task list to the
/// type's default).
fn first_answer() -> Vec<Value> {
    vec![
        decision(
            "ScheduleActivityTask",
            json!({"activityId": "a", "activityType": {"name": "A", "version": "1"}, "input": "x"}),
        ),
        decision(
            "StartTimer",
            json!({"timerId": "t", "startToFireTimeout": "5", "control": null}),
        ),
        decision(
            "SignalExternalWorkflowExecution",
            json!({"workflowId": "other", "signalName": "s"}),
        ),
    ]
}

fn ids(events: &[Value]) -> Vec<u64> {
    events.iter().map(event_id).collect()
}

#[test]
fn a_history_is_cut_into_its_decision_tasks_with_their_decisions_events() {
    let tasks = tasks();
    assert_eq!(tasks.len(), 2);
    let [first, second] = &tasks[..] else {
        unreachable!()
    };
    assert_eq!(first.started_event_id, 3);
    let task = handed_out(first);
    assert_eq!(task["previousStartedEventId"], 0);
    assert_eq!(task["startedEventId"], 3);
    assert_eq!(task["workflowExecution"]["runId"], "r");
    assert_eq!(task["workflowType"]["name"], "W");
    assert_eq!(ids(task["events"].as_array().unwrap()), [1, 2, 3]);
    // The signal's later failure came of its Initiated event, not of a decision.
    assert_eq!(ids(&first.recorded), [5, 6, 7]);
    let task = handed_out(second);
    assert_eq!(task["previousStartedEventId"], 3);
    assert_eq!(
        ids(task["events"].as_array().unwrap()),
        (1..=10).collect::<Vec<_>>()
    );
    assert_eq!(ids(&second.recorded), [12]);
}

#[test]
fn the_same_decisions_agree_with_their_events() {
    let tasks = tasks();
    assert_eq!(compare(&tasks[0], &first_answer(), false), None);
    let complete = decision("CompleteWorkflowExecution", json!({"result": "r"}));
    assert_eq!(
        compare(&tasks[1], std::slice::from_ref(&complete), false),
        None
    );
    // SWF records nothing after a decision that closed the run.
    let timer = decision(
        "StartTimer",
        json!({"timerId": "late", "startToFireTimeout": "1"}),
    );
    assert_eq!(compare(&tasks[1], &[complete, timer], false), None);
}

#[test]
fn a_changed_duration_or_input_agrees_unless_strict() {
    let tasks = tasks();
    let mut answer = first_answer();
    answer[1]["startTimerDecisionAttributes"]["startToFireTimeout"] = json!("50");
    answer[0]["scheduleActivityTaskDecisionAttributes"]["input"] = json!("other");
    assert_eq!(compare(&tasks[0], &answer, false), None);
    assert!(compare(&tasks[0], &answer, true).is_some());
}

#[test]
fn a_changed_id_is_the_divergence() {
    let tasks = tasks();
    let mut answer = first_answer();
    answer[1]["startTimerDecisionAttributes"]["timerId"] = json!("other");
    let divergence = compare(&tasks[0], &answer, false).unwrap();
    assert_eq!(divergence.decision, 1);
    assert!(
        divergence
            .message
            .starts_with("StartTimer's timerId is \"other\""),
        "{}",
        divergence.message
    );
}

#[test]
fn a_changed_member_is_the_strict_divergence() {
    let tasks = tasks();
    let mut answer = first_answer();
    answer[1]["startTimerDecisionAttributes"]["startToFireTimeout"] = json!("50");
    let divergence = compare(&tasks[0], &answer, true).unwrap();
    assert_eq!(divergence.started_event_id, 3);
    assert_eq!(divergence.decision, 1);
    assert_eq!(
        divergence.message,
        r#"StartTimer's startToFireTimeout is "50" in the replay, "5" in the history (event 6)"#
    );
    assert_eq!(divergence.replayed.as_ref(), Some(&answer[1]));
    assert_eq!(divergence.recorded.map(|e| event_id(&e)), Some(6));
}

#[test]
fn another_decision_or_one_more_or_less_is_the_divergence() {
    let tasks = tasks();
    let mut swapped = first_answer();
    swapped.swap(0, 1);
    let divergence = compare(&tasks[0], &swapped, false).unwrap();
    assert_eq!(
        (divergence.decision, divergence.message.as_str()),
        (
            0,
            "the replay decided StartTimer, but ActivityTaskScheduled was recorded then (event 5)"
        )
    );

    let fewer = &first_answer()[..2];
    let divergence = compare(&tasks[0], fewer, false).unwrap();
    assert_eq!(divergence.decision, 2);
    assert_eq!(
        divergence.message,
        "the replay decided nothing more, but SignalExternalWorkflowExecutionInitiated was \
         decided then (event 7)"
    );
    assert_eq!(divergence.replayed, None);

    let mut more = first_answer();
    more.push(decision("RecordMarker", json!({"markerName": "m"})));
    let divergence = compare(&tasks[0], &more, false).unwrap();
    assert_eq!(
        (divergence.decision, divergence.message.as_str()),
        (
            3,
            "the replay decided RecordMarker, which was not decided then"
        )
    );
}

#[test]
fn a_decision_that_failed_then_agrees_with_its_failure() {
    let task = RecordedTask {
        seen: 3,
        previous_started_event_id: 0,
        started_event_id: 3,
        recorded: vec![event(
            5,
            "ScheduleActivityTaskFailed",
            json!({"activityId": "a", "activityType": {"name": "A", "version": "1"},
                   "cause": "ACTIVITY_TYPE_DOES_NOT_EXIST", "decisionTaskCompletedEventId": 4}),
        )],
    };
    assert_eq!(compare(&task, &first_answer()[..1], false), None);
    let mut other = first_answer();
    other[0]["scheduleActivityTaskDecisionAttributes"]["activityId"] = json!("b");
    assert!(compare(&task, &other[..1], false).is_some());
}
