// The workflow of the `steps-decider` guests, shared by path: each version's `lib.rs` sets
// `STEPS` (the order of the steps), `SAYS` (the line it logs) and `BROKEN` (whether it fails
// once its first step completed) and includes this file.

use weft_guest::{Decision, History, Status};

weft_guest::decider!(decide);

/// Runs the steps one at a time, each an activity of the type named after it, version "1", on
/// that type's default task list; then completes the workflow with the steps' results joined
/// by commas. A step that does not complete fails the workflow. A run whose input is
/// `continue` continues as new once its first step completed.
pub fn decide(history: &History) -> Result<Vec<Decision>, String> {
    weft_guest::log::info!("{SAYS}");
    let mut results = Vec::new();
    if BROKEN && matches!(history.activity(STEPS[0]), Some(Status::Completed(_))) {
        return Err(format!("{SAYS}: cannot go on after step {}", STEPS[0]));
    }
    // A run started with the input `continue` continues as new (with the input `continued`)
    // once its first step completed.
    let first_done = matches!(history.activity(STEPS[0]), Some(Status::Completed(_)));
    if history.input() == Some("continue") && first_done {
        return Ok(vec![Decision::continue_as_new().input("continued").into()]);
    }
    for step in STEPS {
        match history.activity(step) {
            None => return Ok(vec![Decision::schedule_activity(step, step, "1").into()]),
            Some(status) if status.is_open() => return Ok(vec![]),
            Some(Status::Completed(result)) => results.push(result.unwrap_or_default().to_owned()),
            Some(other) => {
                return Ok(vec![Decision::fail(
                    format!("step {step} ended: {other:?}"),
                    None,
                )]);
            }
        }
    }
    Ok(vec![Decision::complete(Some(results.join(",")))])
}
