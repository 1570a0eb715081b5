//! A readable timeline of a history: one line per event, with the time since the run started
//! and the few attributes that tell the story.

use serde::Serialize;

use crate::model::events::{Event, HistoryEvent};

/// Whether `event` is bookkeeping rather than story: left out of the timeline.
fn quiet(event: &Event) -> bool {
    matches!(
        event,
        Event::DecisionTaskScheduled(_)
            | Event::DecisionTaskStarted(_)
            | Event::DecisionTaskCompleted(_)
            | Event::ActivityTaskStarted(_)
            | Event::LambdaFunctionStarted(_)
    )
}

/// The lines of `events` (oldest first), less the bookkeeping ([`quiet`]).
pub(crate) fn lines(events: &[HistoryEvent]) -> Vec<String> {
    let start = events
        .first()
        .map(|e| e.timestamp.as_millis())
        .unwrap_or_default();
    events
        .iter()
        .filter(|e| !quiet(&e.event))
        .map(|e| {
            let at = (e.timestamp.as_millis() - start) as f64 / 1000.0;
            let kind = e.event.event_type();
            let detail = detail(&e.event)
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join("  ");
            format!("  {at:>7.3}s  {kind:<40} {detail}")
                .trim_end()
                .to_owned()
        })
        .collect()
}

/// How `value` (an enum of the wire, such as a close status) is spelled on the wire.
pub(crate) fn wire_name(value: impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        _ => "?".to_owned(),
    }
}

/// What is worth showing of an event's attributes.
fn detail(event: &Event) -> Vec<String> {
    let text = |value: &Option<String>| value.as_deref().map(short).unwrap_or_default();
    match event {
        Event::WorkflowExecutionStarted(a) => vec![text(&a.input)],
        Event::ActivityTaskScheduled(a) => {
            vec![
                a.activity_type.name.clone(),
                format!("id={}", a.activity_id),
            ]
        }
        Event::ActivityTaskCompleted(a) => vec![text(&a.result)],
        Event::WorkflowExecutionCompleted(a) => vec![text(&a.result)],
        Event::LambdaFunctionCompleted(a) => vec![text(&a.result)],
        Event::ChildWorkflowExecutionCompleted(a) => vec![text(&a.result)],
        Event::ActivityTaskFailed(a) => vec![text(&a.reason)],
        Event::WorkflowExecutionFailed(a) => vec![text(&a.reason)],
        Event::LambdaFunctionFailed(a) => vec![text(&a.reason)],
        Event::ChildWorkflowExecutionFailed(a) => vec![text(&a.reason)],
        Event::ActivityTaskTimedOut(a) => vec![wire_name(a.timeout_type)],
        Event::DecisionTaskTimedOut(a) => vec![wire_name(a.timeout_type)],
        Event::LambdaFunctionTimedOut(a) => vec![a.timeout_type.map(wire_name).unwrap_or_default()],
        Event::WorkflowExecutionSignaled(a) => vec![short(&a.signal_name), text(&a.input)],
        Event::TimerStarted(a) => vec![short(&a.timer_id), format!("{}s", a.start_to_fire_timeout)],
        Event::TimerFired(a) => vec![short(&a.timer_id)],
        Event::TimerCanceled(a) => vec![short(&a.timer_id)],
        Event::LambdaFunctionScheduled(a) => vec![short(&a.name), format!("id={}", short(&a.id))],
        Event::StartChildWorkflowExecutionInitiated(a) => vec![short(&a.workflow_id)],
        Event::ChildWorkflowExecutionStarted(a) => vec![short(&a.workflow_execution.workflow_id)],
        Event::WorkflowExecutionCanceled(a) => vec![text(&a.details)],
        Event::MarkerRecorded(a) => vec![short(&a.marker_name), text(&a.details)],
        _ => vec![],
    }
}

/// `text` on one line, cut to a readable length.
fn short(text: &str) -> String {
    const MAX: usize = 60;
    let line = text.replace(['\n', '\r'], " ");
    match line.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_line_shows_the_offset_the_type_and_what_matters() {
        let events = [
            json!({"eventId": 1, "eventTimestamp": 100.0, "eventType": "WorkflowExecutionStarted",
                   "workflowExecutionStartedEventAttributes": {"input": "{\"order\":1}",
                       "childPolicy": "TERMINATE", "taskList": {"name": "l"},
                       "workflowType": {"name": "w", "version": "1"}}}),
            json!({"eventId": 2, "eventTimestamp": 100.25, "eventType": "ActivityTaskScheduled",
                   "activityTaskScheduledEventAttributes": {
                       "activityType": {"name": "charge", "version": "1"}, "activityId": "c1",
                       "taskList": {"name": "l"}, "decisionTaskCompletedEventId": 1}}),
            json!({"eventId": 3, "eventTimestamp": 101.5, "eventType": "DecisionTaskStarted",
                   "decisionTaskStartedEventAttributes": {"scheduledEventId": 2}}),
            json!({"eventId": 4, "eventTimestamp": 102, "eventType": "ActivityTaskTimedOut",
                   "activityTaskTimedOutEventAttributes": {"timeoutType": "HEARTBEAT",
                       "scheduledEventId": 2, "startedEventId": 3}}),
        ];
        let events: Vec<HistoryEvent> = events
            .into_iter()
            .map(|e| serde_json::from_value(e).unwrap())
            .collect();
        let lines = lines(&events);
        assert!(lines[0].starts_with("    0.000s  WorkflowExecutionStarted"));
        assert!(lines[0].ends_with("{\"order\":1}"));
        assert!(lines[1].contains("  0.250s  ActivityTaskScheduled"));
        assert!(lines[1].ends_with("charge  id=c1"));
        assert!(lines[2].contains("  2.000s  ActivityTaskTimedOut"));
        assert!(lines[2].ends_with(" HEARTBEAT"), "{}", lines[2]);
        assert_eq!(lines.len(), 3, "bookkeeping events are left out");
    }

    #[test]
    fn long_values_are_cut() {
        assert_eq!(short(&"x".repeat(100)).chars().count(), 61);
        assert_eq!(short("a\nb"), "a b");
    }
}
