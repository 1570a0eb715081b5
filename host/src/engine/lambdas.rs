//! Lambda function tasks once scheduled (spec §6.13): the in-process function worker claims one
//! from the queue named after its function (`LambdaFunctionStarted`, START_TO_CLOSE armed), runs
//! it, and answers with [`close_lambda`]. Each end (completed, failed, timed out) is a state change
//! the decider hears about (spec §7 [REC]). A function task has the life cycle of an activity task
//! without cancellation, heartbeats or other timeouts.

use crate::fault::Fault;
use crate::model::events::{Event, attrs};
use crate::model::{Lambda, Run, TaskKind, TaskState, WorkflowExecution};
use crate::store::{Deadline, ItemReads, ItemWrites, Reads, StoreError};

use super::Engine;
use super::tasks::{Claimed, TaskRef, scheduled_input, started_task};

/// The longest `result` and `details` the history takes (the model's `Data`).
const MAX_DATA_CHARS: usize = 32_768;
/// The longest failure `reason` the history takes (the model's `FailureReason`).
const MAX_REASON_CHARS: usize = 256;

/// A Lambda function task handed to the function worker.
#[derive(Clone, Debug)]
pub(crate) struct FunctionClaim {
    /// This start of the task: the worker gives it back with the outcome.
    pub(crate) task: TaskRef,
    /// The decider's id for the task.
    pub(crate) id: String,
    /// The function to run, as bound in the domain.
    pub(crate) name: String,
    /// What the decider passed to it.
    pub(crate) input: Option<String>,
    /// The run that scheduled the task.
    pub(crate) execution: WorkflowExecution,
}

/// Takes the first queued task of function `name` in the engine's domain for the function worker:
/// records `LambdaFunctionStarted` and arms its start-to-close timeout. `None` if none waits.
#[cfg(test)]
pub(crate) fn claim_lambda(
    eng: &mut Engine<'_, '_>,
    name: &str,
) -> Result<Option<FunctionClaim>, StoreError> {
    match super::tasks::claim(eng, TaskKind::Function, name, None)? {
        Some(Claimed::Function(claimed)) => Ok(Some(claimed)),
        Some(_) => Err(StoreError::broken(
            "another kind of task in a function's queue",
        )),
        None => Ok(None),
    }
}

/// Starts the queued Lambda task scheduled by event `scheduled` of `run`, if it still waits.
pub(super) fn claim_function(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    scheduled: u64,
) -> Result<Option<Claimed>, StoreError> {
    let lambda = eng.tx.open_item::<Lambda>(run.seq, scheduled)?;
    let Some(mut lambda) = lambda.filter(|l| l.state.slot().is_some()) else {
        return Ok(None);
    };
    let (id, name, secs) = (
        lambda.id.clone(),
        lambda.name.clone(),
        lambda.start_to_close,
    );
    let started = eng.record(
        run,
        attrs::LambdaFunctionStarted {
            scheduled_event_id: scheduled,
        },
    )?;
    let timeout_at = eng.arm(run.seq, scheduled, Deadline::LambdaStartToClose, Some(secs))?;
    lambda.state = TaskState::Started { event_id: started };
    lambda.timeout_at = timeout_at;
    eng.tx.update_item(run, scheduled, &lambda)?;
    let member = "lambdaFunctionScheduledEventAttributes";
    let input = scheduled_input(eng, run.seq, scheduled, member)?;
    Ok(Some(Claimed::Function(FunctionClaim {
        task: TaskRef {
            kind: TaskKind::Function,
            run: run.seq,
            scheduled,
            started,
        },
        id,
        name,
        input,
        execution: run.execution.clone(),
    })))
}

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
