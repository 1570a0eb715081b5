//! The execution engine: SWF's rules for runs, applied inside the writer's transaction.
//!
//! An [`Engine`] works on one batch job. Operations load a [`Run`], change it through the engine
//! (which appends its history events, schedules its decision tasks and queues its tasks), save it,
//! and end with [`Engine::finish`], which applies the effects on other runs (children, external
//! signals and cancel requests, parents told of a child's close), hands newly queued tasks to
//! waiting pollers, and wakes the timer loop if a deadline was set. Everything happens in the one
//! transaction, so a change and all its consequences commit together.
//!
//! The engine never touches HTTP; clients' faults are checked by the operations before they call it.

mod activities;
mod alarm;
mod batches;
mod claims;
mod close;
mod controls;
mod deadlines;
mod decide;
pub(crate) mod dispatch;
mod effects;
#[expect(
    clippy::module_inception,
    reason = "the engine's own file, named for it"
)]
mod engine;
mod gates;
mod heartbeats;
mod import;
mod lambdas;
mod pauses;
mod pins;
mod reset;
mod schedules;
mod setup;
mod start;
#[cfg(test)]
mod tests;
mod timeouts;

pub(crate) use activities::{ActivityOutcome, close_activity, record_heartbeat};
pub(crate) use alarm::Heard;
pub(crate) use batches::{KEPT_JOBS, begin_batch};
pub(crate) use claims::{
    Claimed, DecisionClaim, FunctionClaim, HistoryAsk, TaskRef, claim_for, started_decision,
    started_task,
};
#[cfg(test)]
pub(crate) use claims::{claim, claim_lambda};
pub(crate) use close::terminate;
pub(crate) use controls::{Gate, ListControls};
pub(crate) use deadlines::fire_due;
pub(crate) use decide::{Completion, complete_decision_task};
pub(crate) use effects::{request_cancel, signal};
pub(crate) use engine::{Engine, offer};
pub(crate) use import::{Imported, import_run};
pub(crate) use lambdas::{LambdaOutcome, closable_lambda, close_lambda};
pub(crate) use pauses::{pause_run, resume_run};
pub(crate) use pins::pin_run;
pub(crate) use reset::{Cut, ResetRun, cut, reset_run, reset_unchecked};
pub(crate) use schedules::{Acting, action_type, spent, start_request};
#[cfg(test)]
pub(crate) use setup::Broken;
pub(crate) use setup::{PurgeGate, Setup};
pub(crate) use start::{NewRun, StartRequest, new_run_id, resolve_start, start_run};
