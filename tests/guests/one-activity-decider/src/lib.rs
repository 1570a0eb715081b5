//! A decider whose workflow is one activity, for benchmarks (`tests/benches/wasm.rs`):
//!
//! 1. the first decision task schedules the activity [`ACTIVITY_ID`], of type
//!    [`ACTIVITY_NAME`]/[`ACTIVITY_VERSION`] on that type's default task list, with the
//!    workflow's input as its input;
//! 2. once the activity completed, it completes the workflow with the activity's result;
//! 3. if the activity failed, timed out, was canceled or could not be scheduled, it fails the
//!    workflow, saying why.

use weft_guest::{Decision, History, Status};

weft_guest::decider!(decide);

/// The id the activity has in the history.
pub const ACTIVITY_ID: &str = "work";
/// The activity type's name; register it with a default task list and default timeouts.
pub const ACTIVITY_NAME: &str = "work";
/// The activity type's version.
pub const ACTIVITY_VERSION: &str = "1";

/// Schedules the activity, then closes the workflow as it ended.
pub fn decide(history: &History) -> Result<Vec<Decision>, String> {
    Ok(match history.activity(ACTIVITY_ID) {
        None => {
            let mut schedule =
                Decision::schedule_activity(ACTIVITY_ID, ACTIVITY_NAME, ACTIVITY_VERSION);
            if let Some(input) = history.input() {
                schedule = schedule.input(input);
            }
            vec![schedule.into()]
        }
        Some(status) if status.is_open() => vec![],
        Some(Status::Completed(result)) => vec![Decision::complete(result.map(str::to_owned))],
        Some(Status::Failed { reason, details }) => vec![Decision::fail(
            reason.unwrap_or("the activity failed"),
            details.map(str::to_owned),
        )],
        Some(other) => vec![Decision::fail(
            format!("the activity ended: {other:?}"),
            None,
        )],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_guest::testing::HistoryBuilder;
    use weft_guest::types::ActivityTaskTimeoutType;

    #[test]
    fn schedules_the_activity_with_the_input_then_completes_with_its_result() {
        let mut h = HistoryBuilder::new("Bench", "1", Some("wf-7"));
        let first = h.decide(decide);
        let Ok([Decision::ScheduleActivityTask(scheduled)]) = first.as_deref() else {
            panic!("the first decision schedules the activity");
        };
        assert_eq!(scheduled.activity_id, ACTIVITY_ID);
        assert_eq!(scheduled.activity_type.name, ACTIVITY_NAME);
        assert_eq!(scheduled.input.as_deref(), Some("wf-7"));
        assert_eq!(scheduled.task_list, None, "the type's default task list");

        h.activity_started(ACTIVITY_ID);
        assert_eq!(h.decide(decide), Ok(vec![]));
        h.activity_completed(ACTIVITY_ID, Some("wf-7"));
        assert_eq!(
            h.decide(decide),
            Ok(vec![Decision::complete(Some("wf-7".into()))])
        );
    }

    #[test]
    fn an_activity_that_does_not_complete_fails_the_workflow() {
        let mut h = HistoryBuilder::new("Bench", "1", None);
        h.decide(decide).unwrap();
        h.activity_failed(ACTIVITY_ID, Some("asked to fail"), Some("fail"));
        assert_eq!(
            h.decide(decide),
            Ok(vec![Decision::fail("asked to fail", Some("fail".into()))])
        );

        let mut h = HistoryBuilder::new("Bench", "1", None);
        h.decide(decide).unwrap();
        h.activity_timed_out(ACTIVITY_ID, ActivityTaskTimeoutType::StartToClose);
        let decided = h.decide(decide);
        let Ok([Decision::FailWorkflowExecution(failed)]) = decided.as_deref() else {
            panic!("a timed-out activity fails the workflow");
        };
        assert!(failed.reason.as_deref().unwrap().contains("START_TO_CLOSE"));
    }
}
