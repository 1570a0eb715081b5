//! A readable timeline of a history: one line per event, with the time since the run started
//! and the few attributes that tell the story.

use serde_json::Value;

/// Events that are bookkeeping rather than story: left out of the timeline.
const QUIET: [&str; 5] = [
    "DecisionTaskScheduled",
    "DecisionTaskStarted",
    "DecisionTaskCompleted",
    "ActivityTaskStarted",
    "LambdaFunctionStarted",
];

/// The lines of `events` (wire JSON, oldest first), less the bookkeeping ([`QUIET`]).
pub(crate) fn lines(events: &[Value]) -> Vec<String> {
    let start = events
        .first()
        .and_then(|e| e["eventTimestamp"].as_f64())
        .unwrap_or_default();
    events
        .iter()
        .filter(|event| !QUIET.contains(&event["eventType"].as_str().unwrap_or_default()))
        .map(|event| {
            let at = event["eventTimestamp"].as_f64().unwrap_or(start) - start;
            let kind = event["eventType"].as_str().unwrap_or("?");
            let detail = detail(kind, attributes(event, kind));
            format!("  {:>7.3}s  {kind:<40} {detail}", at)
                .trim_end()
                .to_owned()
        })
        .collect()
}

/// The `<eventType>EventAttributes` member of `event`.
fn attributes<'a>(event: &'a Value, kind: &str) -> &'a Value {
    let mut member = String::with_capacity(kind.len() + 15);
    let mut chars = kind.chars();
    if let Some(first) = chars.next() {
        member.push(first.to_ascii_lowercase());
    }
    member.extend(chars);
    member.push_str("EventAttributes");
    &event[member]
}

/// What is worth showing of an event's attributes.
fn detail(kind: &str, a: &Value) -> String {
    let text = |key: &str| a[key].as_str().map(short);
    let parts: Vec<String> = match kind {
        "WorkflowExecutionStarted" => vec![text("input").unwrap_or_default()],
        "ActivityTaskScheduled" => vec![
            a["activityType"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            format!("id={}", a["activityId"].as_str().unwrap_or_default()),
        ],
        "ActivityTaskCompleted"
        | "WorkflowExecutionCompleted"
        | "LambdaFunctionCompleted"
        | "ChildWorkflowExecutionCompleted" => vec![text("result").unwrap_or_default()],
        "ActivityTaskFailed"
        | "WorkflowExecutionFailed"
        | "LambdaFunctionFailed"
        | "ChildWorkflowExecutionFailed" => vec![text("reason").unwrap_or_default()],
        "ActivityTaskTimedOut" | "DecisionTaskTimedOut" | "LambdaFunctionTimedOut" => {
            vec![text("timeoutType").unwrap_or_default()]
        }
        "WorkflowExecutionSignaled" => vec![
            text("signalName").unwrap_or_default(),
            text("input").unwrap_or_default(),
        ],
        "TimerStarted" => vec![
            text("timerId").unwrap_or_default(),
            format!("{}s", text("startToFireTimeout").unwrap_or_default()),
        ],
        "TimerFired" | "TimerCanceled" => vec![text("timerId").unwrap_or_default()],
        "LambdaFunctionScheduled" => vec![
            text("name").unwrap_or_default(),
            format!("id={}", text("id").unwrap_or_default()),
        ],
        "StartChildWorkflowExecutionInitiated" | "ChildWorkflowExecutionStarted" => {
            vec![
                text("workflowId")
                    .or_else(|| a["workflowExecution"]["workflowId"].as_str().map(short))
                    .unwrap_or_default(),
            ]
        }
        "WorkflowExecutionCanceled" => vec![text("details").unwrap_or_default()],
        "MarkerRecorded" => vec![
            text("markerName").unwrap_or_default(),
            text("details").unwrap_or_default(),
        ],
        _ => vec![],
    };
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("  ")
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
                   "workflowExecutionStartedEventAttributes": {"input": "{\"order\":1}"}}),
            json!({"eventId": 2, "eventTimestamp": 100.25, "eventType": "ActivityTaskScheduled",
                   "activityTaskScheduledEventAttributes": {
                       "activityType": {"name": "charge", "version": "1"}, "activityId": "c1"}}),
            json!({"eventId": 3, "eventTimestamp": 101.5, "eventType": "DecisionTaskStarted",
                   "decisionTaskStartedEventAttributes": {"scheduledEventId": 2}}),
        ];
        let lines = lines(&events);
        assert!(lines[0].starts_with("    0.000s  WorkflowExecutionStarted"));
        assert!(lines[0].ends_with("{\"order\":1}"));
        assert!(lines[1].contains("  0.250s  ActivityTaskScheduled"));
        assert!(lines[1].ends_with("charge  id=c1"));
        assert_eq!(lines.len(), 2, "bookkeeping events are left out");
    }

    #[test]
    fn long_values_are_cut() {
        assert_eq!(short(&"x".repeat(100)).chars().count(), 61);
        assert_eq!(short("a\nb"), "a b");
    }
}
