//! What a command is, for matching: the decision's type, the id it names and what it runs,
//! read alike from a decision the code issues and from the event that recorded one.

use alloc::format;
use alloc::string::{String, ToString};
use core::fmt;

use super::{Event, Members, PATCH_MARKER};
use crate::DECISIONS;

/// A command as replay compares it. Attributes that a change may alter without breaking a
/// run (inputs, timeouts, task lists, a timer's duration) are left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The decision's type, as on the wire (`ScheduleActivityTask`).
    pub decision: &'static str,
    /// The id it names: activity, timer, Lambda or child id, marker name, target workflow.
    pub id: String,
    /// What it runs, where it names something: `ChargeCreditCard 1.0`, a Lambda function's
    /// name, a patch marker's change.
    pub what: String,
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.decision)?;
        if !self.id.is_empty() {
            write!(f, " {:?}", self.id)?;
        }
        if !self.what.is_empty() {
            write!(f, " ({})", self.what)?;
        }
        Ok(())
    }
}

impl Shape {
    /// The shape of a decision of type `decision` with these attributes; `None` if SWF has no
    /// decision of that name.
    pub fn of_decision(decision: &str, members: &Members<'_>) -> Option<Shape> {
        let decision = crate::decision_named(decision)?.name;
        Some(shape(decision, members, true))
    }

    /// If `event` records a decision (accepted, or refused at once), the
    /// `DecisionTaskCompleted` event of the task that made it and the decision's shape.
    ///
    /// The `…Failed` events of children, signals and cancel requests that name their
    /// initiating event come later, from the outside: they end a command rather than record one.
    pub fn recorded(event: &Event<'_>) -> Option<(u64, Shape)> {
        let t = event.event_type;
        let d = DECISIONS
            .iter()
            .find(|d| d.recorded == t || d.refused == t)?;
        let m = &event.members;
        if d.refused == t && m.initiated_event_id != 0 {
            return None;
        }
        // A refused marker does not carry its details: nor does its shape.
        let details = d.refused != t;
        Some((
            m.decision_task_completed_event_id,
            shape(d.name, m, details),
        ))
    }
}

fn shape(decision: &'static str, m: &Members<'_>, with_details: bool) -> Shape {
    let typed = || m.type_.map_or(String::new(), |(n, v)| format!("{n} {v}"));
    let (id, what) = match decision {
        "ScheduleActivityTask" => (m.activity_id, typed()),
        "StartChildWorkflowExecution" => (m.workflow_id, typed()),
        "RequestCancelActivityTask" => (m.activity_id, String::new()),
        "RecordMarker" => {
            let patch = with_details && m.marker_name == PATCH_MARKER;
            let change = if patch {
                m.details.unwrap_or_default()
            } else {
                ""
            };
            (m.marker_name, change.to_string())
        }
        "StartTimer" | "CancelTimer" => (m.timer_id, String::new()),
        // By target only: a refused signal's event does not name the signal.
        "SignalExternalWorkflowExecution" | "RequestCancelExternalWorkflowExecution" => {
            (m.workflow_id, String::new())
        }
        "ScheduleLambdaFunction" => (m.id, m.name.to_string()),
        _ => ("", String::new()),
    };
    Shape {
        decision,
        id: id.to_string(),
        what,
    }
}
