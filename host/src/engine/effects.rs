//! Changes one run makes to another: starting a child, signalling or asking another run to cancel,
//! telling a parent that its child closed, and applying a child policy. They are applied after the
//! run that caused them is saved, in the same transaction (spec §6.10–6.12, §8.9–8.11).

use crate::model::events::{Cause, Event, attrs};
use crate::model::{Child, ChildPolicy, Run, RunId, TypeName, WorkflowExecution, WorkflowId};
use crate::store::{ItemReads, ItemWrites, StoreError};

use super::Engine;
use super::close::terminate;
use super::start::{NewRun, start_run};

/// How a child closed, as its parent records it.
#[derive(Clone, Debug)]
pub(crate) enum ChildOutcome {
    Completed(Option<String>),
    Failed {
        reason: Option<String>,
        details: Option<String>,
    },
    Canceled(Option<String>),
    TimedOut,
    Terminated,
}

/// The decision that asked another run for something: its `*Initiated` event, the
/// `DecisionTaskCompleted` of its batch, and its `control`, for the Failed event if it fails.
#[derive(Clone, Debug)]
pub(crate) struct Initiated {
    pub(crate) sender: u64,
    pub(crate) event_id: u64,
    pub(crate) decision_task_completed_event_id: u64,
    pub(crate) control: Option<String>,
    pub(crate) workflow_id: WorkflowId,
    pub(crate) run_id: Option<RunId>,
}

/// A change to another run, or a later change to the same one.
#[derive(Clone, Debug)]
pub(crate) enum Effect {
    /// Start the child run initiated by the parent's event `initiated`.
    StartChild {
        parent: u64,
        initiated: u64,
        new: Box<NewRun>,
    },
    /// Deliver a signal from a decision.
    Signal {
        from: Initiated,
        signal_name: String,
        input: Option<String>,
    },
    /// Deliver a cancel request from a decision.
    RequestCancel { from: Initiated },
    /// Tell the parent that its child closed.
    ChildClosed {
        parent: u64,
        initiated: u64,
        child: WorkflowExecution,
        child_type: TypeName,
        outcome: ChildOutcome,
    },
    /// Apply the closed parent's child policy to its child `child` (a workflow id).
    ChildPolicy {
        parent: u64,
        child: WorkflowId,
        policy: ChildPolicy,
    },
}

/// Applies one effect.
pub(super) fn apply(eng: &mut Engine<'_, '_>, effect: Effect) -> Result<(), StoreError> {
    match effect {
        Effect::StartChild {
            parent,
            initiated,
            new,
        } => start_child(eng, parent, initiated, *new),
        Effect::Signal {
            from,
            signal_name,
            input,
        } => signal_external(eng, from, signal_name, input),
        Effect::RequestCancel { from } => cancel_external(eng, from),
        Effect::ChildClosed {
            parent,
            initiated,
            child,
            child_type,
            outcome,
        } => child_closed(eng, (parent, initiated), child, child_type, outcome),
        Effect::ChildPolicy {
            parent,
            child,
            policy,
        } => apply_child_policy(eng, parent, &child, policy),
    }
}

/// The open run an external decision names, and the execution of the run that made it, if
/// both are still there.
fn reach(
    eng: &Engine<'_, '_>,
    from: &Initiated,
) -> Result<Option<(Run, WorkflowExecution)>, StoreError> {
    let target = target(eng, from)?;
    let sender = eng.tx.run(from.sender)?.map(|s| s.execution);
    Ok(target.zip(sender))
}

/// A run's SignalExternalWorkflowExecution reaches its target, or fails for want of one.
fn signal_external(
    eng: &mut Engine<'_, '_>,
    from: Initiated,
    signal_name: String,
    input: Option<String>,
) -> Result<(), StoreError> {
    let Some((mut target, sender_execution)) = reach(eng, &from)? else {
        let event = attrs::SignalExternalWorkflowExecutionFailed {
            workflow_id: from.workflow_id,
            run_id: from.run_id,
            cause: Cause::UnknownExternalWorkflowExecution,
            initiated_event_id: from.event_id,
            decision_task_completed_event_id: from.decision_task_completed_event_id,
            control: from.control,
        };
        return tell_sender(eng, from.sender, event.into());
    };
    let external = Some((sender_execution, from.event_id));
    signal(eng, &mut target, signal_name, input, external)?;
    let event = attrs::ExternalWorkflowExecutionSignaled {
        workflow_execution: target.execution.clone(),
        initiated_event_id: from.event_id,
    };
    tell_sender(eng, from.sender, event.into())
}

/// A run's RequestCancelExternalWorkflowExecution reaches its target, or fails for want of one.
fn cancel_external(eng: &mut Engine<'_, '_>, from: Initiated) -> Result<(), StoreError> {
    let Some((mut target, sender_execution)) = reach(eng, &from)? else {
        let event = attrs::RequestCancelExternalWorkflowExecutionFailed {
            workflow_id: from.workflow_id,
            run_id: from.run_id,
            cause: Cause::UnknownExternalWorkflowExecution,
            initiated_event_id: from.event_id,
            decision_task_completed_event_id: from.decision_task_completed_event_id,
            control: from.control,
        };
        return tell_sender(eng, from.sender, event.into());
    };
    let external = Some((sender_execution, from.event_id));
    request_cancel(eng, &mut target, external, None)?;
    let event = attrs::ExternalWorkflowExecutionCancelRequested {
        workflow_execution: target.execution.clone(),
        initiated_event_id: from.event_id,
    };
    tell_sender(eng, from.sender, event.into())
}

/// The parent (`parent`, whose `StartChildWorkflowExecutionInitiated` is `initiated`) hears
/// how its child closed, if it is still open and still waits for that child.
fn child_closed(
    eng: &mut Engine<'_, '_>,
    (parent, initiated): (u64, u64),
    child: WorkflowExecution,
    child_type: TypeName,
    outcome: ChildOutcome,
) -> Result<(), StoreError> {
    let Some(mut run) = eng.open_run(parent)? else {
        return Ok(());
    };
    let Some(entry) = eng.tx.take_item::<Child>(&mut run, initiated)? else {
        return Ok(());
    };
    let started_event_id = entry.started.map_or(0, |(_, id)| id);
    let event = child_outcome_event(child, child_type, (initiated, started_event_id), outcome);
    eng.record(&mut run, event)?;
    eng.trigger(&mut run)?;
    eng.save(&mut run)
}

/// The `ChildWorkflowExecution*` event for a child that closed with `outcome`.
fn child_outcome_event(
    workflow_execution: WorkflowExecution,
    workflow_type: TypeName,
    (initiated_event_id, started_event_id): (u64, u64),
    outcome: ChildOutcome,
) -> Event {
    match outcome {
        ChildOutcome::Completed(result) => attrs::ChildWorkflowExecutionCompleted {
            workflow_execution,
            workflow_type,
            result,
            initiated_event_id,
            started_event_id,
        }
        .into(),
        ChildOutcome::Failed { reason, details } => attrs::ChildWorkflowExecutionFailed {
            workflow_execution,
            workflow_type,
            reason,
            details,
            initiated_event_id,
            started_event_id,
        }
        .into(),
        ChildOutcome::Canceled(details) => attrs::ChildWorkflowExecutionCanceled {
            workflow_execution,
            workflow_type,
            details,
            initiated_event_id,
            started_event_id,
        }
        .into(),
        ChildOutcome::TimedOut => attrs::ChildWorkflowExecutionTimedOut {
            workflow_execution,
            workflow_type,
            timeout_type: Cause::StartToClose,
            initiated_event_id,
            started_event_id,
        }
        .into(),
        ChildOutcome::Terminated => attrs::ChildWorkflowExecutionTerminated {
            workflow_execution,
            workflow_type,
            initiated_event_id,
            started_event_id,
        }
        .into(),
    }
}

/// A closing parent's child policy reaches its open child `child`.
fn apply_child_policy(
    eng: &mut Engine<'_, '_>,
    parent: u64,
    child: &WorkflowId,
    policy: ChildPolicy,
) -> Result<(), StoreError> {
    let Some(mut run) = eng.tx.open_run(eng.domain, child)? else {
        return Ok(());
    };
    // The workflow id may have been reused by an unrelated run since.
    if run.parent.as_ref().map(|p| p.seq) != Some(parent) {
        return Ok(());
    }
    match policy {
        ChildPolicy::Terminate => terminate(
            eng,
            &mut run,
            None,
            None,
            None,
            Some(Cause::ChildPolicyApplied),
        ),
        // AWS names the parent as the requester, with no initiating event.
        ChildPolicy::RequestCancel => {
            let parent = run.parent.as_ref().map(|p| (p.execution.clone(), 0));
            request_cancel(eng, &mut run, parent, Some(Cause::ChildPolicyApplied))
        }
        ChildPolicy::Abandon => Ok(()),
    }
}

/// Records a signal on the open `run` and saves it. `external` is the sender and its initiating
/// event; without one (SignalWorkflowExecution), AWS records `externalInitiatedEventId` 0.
pub(crate) fn signal(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    signal_name: String,
    input: Option<String>,
    external: Option<(WorkflowExecution, u64)>,
) -> Result<(), StoreError> {
    let (external_workflow_execution, initiated) = external.unzip();
    let event = attrs::WorkflowExecutionSignaled {
        signal_name,
        input,
        external_workflow_execution,
        external_initiated_event_id: Some(initiated.unwrap_or(0)),
    };
    eng.record(run, event)?;
    eng.trigger(run)?;
    eng.save(run)
}

/// Records a cancel request on the open `run` and saves it. `external` is the requester and its
/// initiating event (0 for a parent's child policy); without one
/// (RequestCancelWorkflowExecution), AWS records only `externalInitiatedEventId` 0.
pub(crate) fn request_cancel(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    external: Option<(WorkflowExecution, u64)>,
    cause: Option<Cause>,
) -> Result<(), StoreError> {
    let (external_workflow_execution, initiated) = external.unzip();
    let event = attrs::WorkflowExecutionCancelRequested {
        external_workflow_execution,
        external_initiated_event_id: Some(initiated.unwrap_or(0)),
        cause,
    };
    eng.record(run, event)?;
    run.cancel_requested = true;
    eng.trigger(run)?;
    eng.save(run)
}

/// The open run a signal or cancel request is for: the named run, or without a run id the
/// workflow id's open run.
fn target(eng: &Engine<'_, '_>, from: &Initiated) -> Result<Option<Run>, StoreError> {
    let run = match from.run_id.as_ref().filter(|id| !id.is_empty()) {
        Some(run_id) => eng.tx.run_named(eng.domain, &from.workflow_id, run_id)?,
        None => eng.tx.open_run(eng.domain, &from.workflow_id)?,
    };
    Ok(run.filter(Run::is_open))
}

/// Records the outcome of a request on the sender, if it is still open.
fn tell_sender(eng: &mut Engine<'_, '_>, sender: u64, event: Event) -> Result<(), StoreError> {
    let Some(mut run) = eng.open_run(sender)? else {
        return Ok(());
    };
    eng.record(&mut run, event)?;
    eng.trigger(&mut run)?;
    eng.save(&mut run)
}

fn start_child(
    eng: &mut Engine<'_, '_>,
    parent: u64,
    initiated: u64,
    new: NewRun,
) -> Result<(), StoreError> {
    if eng.tx.open_run(eng.domain, &new.workflow_id)?.is_some() {
        let Some(mut run) = eng.open_run(parent)? else {
            return Ok(());
        };
        let Some(child) = eng.tx.take_item::<Child>(&mut run, initiated)? else {
            return Ok(());
        };
        let event = attrs::StartChildWorkflowExecutionFailed {
            workflow_type: child.workflow_type,
            cause: Cause::WorkflowAlreadyRunning,
            workflow_id: child.workflow_id,
            initiated_event_id: initiated,
            decision_task_completed_event_id: child.decision_task_completed_event_id,
            control: child.control,
        };
        eng.record(&mut run, event)?;
        eng.trigger(&mut run)?;
        return eng.save(&mut run);
    }
    let child = start_run(eng, new, None)?;
    let Some(mut run) = eng.open_run(parent)? else {
        return Ok(());
    };
    let event = attrs::ChildWorkflowExecutionStarted {
        workflow_execution: child.execution.clone(),
        workflow_type: child.workflow_type.clone(),
        initiated_event_id: initiated,
    };
    let started = eng.record(&mut run, event)?;
    if let Some(mut entry) = eng.tx.open_item::<Child>(run.seq, initiated)? {
        entry.started = Some((child.execution, started));
        eng.tx.update_item(&run, initiated, &entry)?;
    }
    eng.trigger(&mut run)?;
    eng.save(&mut run)
}
