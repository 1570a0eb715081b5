//! Lambda function tasks once scheduled (spec §6.13): the in-process function worker claims one
//! from the queue named after its function (`LambdaFunctionStarted`, START_TO_CLOSE armed), runs
//! it, and answers with [`close_lambda`]. Each end (completed, failed, timed out) is a state change
//! the decider hears about (spec §7 [REC]). A function task has the life cycle of an activity task
//! without cancellation, heartbeats or other timeouts.

use crate::fault::Fault;
use crate::model::events::{Event, attrs};
use crate::model::{Lambda, Run};
use crate::store::{Reads, StoreError};

use super::Engine;
use super::claims::{TaskRef, started_task};

/// The longest `result` and `details` the history takes (the model's `Data`).
const MAX_DATA_CHARS: usize = 32_768;
/// The longest failure `reason` the history takes (the model's `FailureReason`).
const MAX_REASON_CHARS: usize = 256;

/// How a function run ended.
#[derive(Clone, Debug)]
pub(crate) enum LambdaOutcome {
    /// `result`: at most 32,768 characters.
    Completed { result: Option<String> },
    /// `reason`: at most 256 characters; `details`: at most 32,768.
    Failed {
        reason: Option<String>,
        details: Option<String>,
    },
}

/// The run of the Lambda function task `task` that `outcome` may close: a task that is not open
/// (answered, timed out, its run closed) is an `UnknownResourceFault`; an outcome too long for
/// the history is a `ValidationException`.
pub(crate) fn closable_lambda(
    tx: &dyn Reads,
    domain: u64,
    task: TaskRef,
    outcome: &LambdaOutcome,
) -> Result<Run, Fault> {
    let run = started_task::<Lambda>(tx, domain, task)?;
    check_outcome(outcome)?;
    Ok(run)
}

/// Closes the started Lambda function task `task` of `run` (see [`closable_lambda`]) with the
/// function's outcome: records `LambdaFunctionCompleted` or `LambdaFunctionFailed`, disarms its
/// timeout, triggers a decision task and saves the run.
pub(crate) fn close_lambda(
    eng: &mut Engine<'_, '_>,
    mut run: Run,
    task: TaskRef,
    outcome: LambdaOutcome,
) -> Result<(), StoreError> {
    eng.drop_lambda(&mut run, task.scheduled)?;
    let (scheduled_event_id, started_event_id) = (task.scheduled, task.started);
    let event: Event = match outcome {
        LambdaOutcome::Completed { result } => attrs::LambdaFunctionCompleted {
            scheduled_event_id,
            started_event_id,
            result,
        }
        .into(),
        LambdaOutcome::Failed { reason, details } => attrs::LambdaFunctionFailed {
            scheduled_event_id,
            started_event_id,
            reason,
            details,
        }
        .into(),
    };
    eng.record(&mut run, event)?;
    eng.trigger(&mut run)?;
    eng.save(&mut run)
}

/// Refuses an outcome whose members exceed what the model lets a history hold: the function
/// worker is not behind the API's schema check.
fn check_outcome(outcome: &LambdaOutcome) -> Result<(), Fault> {
    let too_long = |value: &Option<String>, max: usize| {
        value.as_deref().is_some_and(|v| v.chars().count() > max)
    };
    let (member, max) = match outcome {
        LambdaOutcome::Completed { result } if too_long(result, MAX_DATA_CHARS) => {
            ("result", MAX_DATA_CHARS)
        }
        LambdaOutcome::Failed { reason, .. } if too_long(reason, MAX_REASON_CHARS) => {
            ("reason", MAX_REASON_CHARS)
        }
        LambdaOutcome::Failed { details, .. } if too_long(details, MAX_DATA_CHARS) => {
            ("details", MAX_DATA_CHARS)
        }
        _ => return Ok(()),
    };
    Err(Fault::Validation(format!(
        "A Lambda function's {member} must be at most {max} characters"
    )))
}
