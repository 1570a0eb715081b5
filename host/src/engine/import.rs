//! Importing a run recorded elsewhere (AWS's SWF, another Weft): its workflow id, run id and
//! events are kept exactly, timestamps included, and the run's record is read off its history.
//! It is listed, described and replayed as any other, and marked imported: it never gets a
//! task, and no timeout of its own comes. An open one's describe counts what its history left
//! open, though the items themselves (what a decision could cancel) are not rebuilt. A closed one is kept for its domain's retention from
//! when it closed or, if that is past, from its import.

use std::collections::BTreeSet;

use crate::clock::Timestamp;
use crate::fault::Fault;
use crate::model::events::{Event, HistoryEvent, attrs};
use crate::model::{
    CloseStatus, Closed, DecisionTask, Domain, ExecutionConfig, ItemKind, OpenItems, Parent, Run,
    Timeout, WorkflowExecution,
};
use crate::store::{Counter, Deadline, Listing, StoreError};

use super::Engine;
use super::close::kept_until;

/// How a run's import went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Imported {
    /// The run is stored now.
    Added,
    /// A run of that workflow id and run id was there already: nothing changed.
    AlreadyThere,
}

/// Stores the run `execution` of `domain` with `events`, its whole history, which the caller
/// has checked against SWF's rules ([`crate::check::check_history`]).
pub(crate) fn import_run(
    eng: &mut Engine<'_, '_>,
    domain: &Domain,
    account: String,
    execution: WorkflowExecution,
    events: &[HistoryEvent],
) -> Result<Result<Imported, Fault>, StoreError> {
    let (workflow_id, run_id) = (&execution.workflow_id, &execution.run_id);
    if eng.tx.run_named(domain.id, workflow_id, run_id)?.is_some() {
        return Ok(Ok(Imported::AlreadyThere));
    }
    let (Some(first), Some(last)) = (events.first(), events.last()) else {
        return Ok(Err(Fault::Validation("The history has no events".into())));
    };
    let Event::WorkflowExecutionStarted(started) = &first.event else {
        return Ok(Err(Fault::Validation(
            "The history must begin with WorkflowExecutionStarted".into(),
        )));
    };
    let closed = close_status(&last.event).map(|status| Closed {
        at: last.timestamp,
        status,
        open_counts: None,
    });
    if closed.is_none() {
        if eng.tx.open_run(domain.id, workflow_id)?.is_some() {
            return Ok(Err(Fault::execution_already_started(workflow_id)));
        }
        if eng.open_runs_full()? {
            let max = eng.setup.max_open_runs;
            return Ok(Err(Fault::open_runs_limit(&domain.name, max)));
        }
    }
    let parent = parent_here(eng, domain, started)?;
    let folded = Folded::of(events);
    let run = Run {
        seq: eng.tx.next_id()?,
        domain: domain.id,
        account,
        domain_name: domain.name.clone(),
        execution,
        workflow_type: started.workflow_type.clone(),
        config: config_of(started),
        tags: started.tag_list.clone().unwrap_or_default(),
        started_at: first.timestamp,
        timeout_at: None,
        retention_days: domain.retention_days(),
        closed,
        parent,
        cancel_requested: folded.cancel_requested,
        next_event_id: last.event_id + 1,
        decision: DecisionTask::Idle,
        legacy_decision_owed: false,
        previous_started_event_id: folded.previous_started_event_id,
        decision_task_list: started.task_list.name.clone(),
        decision_schedule_to_start: None,
        latest_execution_context: folded.latest_execution_context,
        latest_activity_task_at: folded.latest_activity_task_at,
        last_event_at: Some(last.timestamp),
        open: match closed {
            Some(_) => OpenItems::default(),
            None => open_items(events),
        },
        imported: true,
        pin: None,
        schedule: None,
        paused: None,
    };
    store(eng, &run, events)?;
    Ok(Ok(Imported::Added))
}

/// The run's parent, if it is here too (imported before its child, as listings give them).
fn parent_here(
    eng: &Engine<'_, '_>,
    domain: &Domain,
    started: &attrs::WorkflowExecutionStarted,
) -> Result<Option<Parent>, StoreError> {
    let (Some(parent), Some(initiated)) = (
        &started.parent_workflow_execution,
        started.parent_initiated_event_id,
    ) else {
        return Ok(None);
    };
    let found = (eng.tx).run_named(domain.id, &parent.workflow_id, &parent.run_id)?;
    Ok(found.map(|run| Parent {
        seq: run.seq,
        execution: parent.clone(),
        initiated_event_id: initiated,
    }))
}

/// The configuration a run's `WorkflowExecutionStarted` recorded.
fn config_of(started: &attrs::WorkflowExecutionStarted) -> ExecutionConfig {
    ExecutionConfig {
        task_start_to_close_timeout: (started.task_start_to_close_timeout).unwrap_or(Timeout::None),
        execution_start_to_close_timeout: (started.execution_start_to_close_timeout)
            .unwrap_or(Timeout::None),
        task_list: started.task_list.clone(),
        task_priority: started.task_priority,
        child_policy: started.child_policy,
        lambda_role: started.lambda_role.clone(),
    }
}

/// Stores the imported `run` with its `events`, named and listed; a closed one's purge armed.
fn store(eng: &mut Engine<'_, '_>, run: &Run, events: &[HistoryEvent]) -> Result<(), StoreError> {
    for event in events {
        let json = serde_json::to_vec(event).map_err(StoreError::broken)?;
        eng.tx.put_event(run.seq, event.event_id, &json)?;
    }
    eng.tx.name_run(run)?;
    match run.closed {
        Some(closed) => {
            eng.tx
                .list_run(run, Listing::ClosedByStart, run.started_at)?;
            eng.tx.list_run(run, Listing::ClosedByClose, closed.at)?;
            let kept_until = kept_until(eng, run, closed.at.max(eng.tx.now()));
            let closed_by = run.next_event_id - 1;
            eng.set_deadline(kept_until, run.seq, closed_by, Deadline::Purge)?;
        }
        None => {
            eng.tx.list_run(run, Listing::Open, run.started_at)?;
            eng.tx.add_count(run.domain, Counter::OpenRuns, 1)?;
        }
    }
    eng.tx.put_run(run)
}

/// What a run's record keeps of its history, read off the events.
#[derive(Clone)]
pub(super) struct Folded {
    /// The `DecisionTaskStarted` of the last completed decision task; 0 if none.
    pub(super) previous_started_event_id: u64,
    /// The last completed decision task's execution context.
    pub(super) latest_execution_context: Option<String>,
    /// When an activity task last changed.
    pub(super) latest_activity_task_at: Option<Timestamp>,
    /// Whether cancellation was requested.
    pub(super) cancel_requested: bool,
}

impl Folded {
    /// What `events` leave in a run's record.
    pub(super) fn of(events: &[HistoryEvent]) -> Folded {
        let completed = events.iter().rev().find_map(|e| match &e.event {
            Event::DecisionTaskCompleted(a) => Some(a),
            _ => None,
        });
        Folded {
            previous_started_event_id: completed.map_or(0, |c| c.started_event_id),
            latest_execution_context: completed.and_then(|c| c.execution_context.clone()),
            latest_activity_task_at: (events.iter().rev())
                .find(|e| e.event.is_activity_task())
                .map(|e| e.timestamp),
            cancel_requested: (events.iter())
                .any(|e| matches!(e.event, Event::WorkflowExecutionCancelRequested(_))),
        }
    }
}

/// What an open run's history leaves open: the activities, timers, children and functions it
/// began and did not end, counted as its describe shows them.
fn open_items(events: &[HistoryEvent]) -> OpenItems {
    let [activities, timers, children, lambdas] = left_open(events).map(|open| open.len());
    OpenItems {
        activities,
        timers,
        children,
        lambdas,
    }
}

/// The ids of the events that began what `events` leave open, by [`ItemKind`] (activities,
/// timers, children, Lambda functions).
pub(super) fn left_open(events: &[HistoryEvent]) -> [BTreeSet<u64>; 4] {
    use ItemKind::{Activity, Child, Lambda, Timer};
    let mut open: [BTreeSet<u64>; 4] = Default::default();
    for event in events {
        let (kind, begins, id) = match &event.event {
            Event::ActivityTaskScheduled(_) => (Activity, true, event.event_id),
            Event::ActivityTaskCompleted(a) => (Activity, false, a.scheduled_event_id),
            Event::ActivityTaskFailed(a) => (Activity, false, a.scheduled_event_id),
            Event::ActivityTaskTimedOut(a) => (Activity, false, a.scheduled_event_id),
            Event::ActivityTaskCanceled(a) => (Activity, false, a.scheduled_event_id),
            Event::TimerStarted(_) => (Timer, true, event.event_id),
            Event::TimerFired(a) => (Timer, false, a.started_event_id),
            Event::TimerCanceled(a) => (Timer, false, a.started_event_id),
            Event::StartChildWorkflowExecutionInitiated(_) => (Child, true, event.event_id),
            Event::StartChildWorkflowExecutionFailed(a) => (Child, false, a.initiated_event_id),
            Event::ChildWorkflowExecutionCompleted(a) => (Child, false, a.initiated_event_id),
            Event::ChildWorkflowExecutionFailed(a) => (Child, false, a.initiated_event_id),
            Event::ChildWorkflowExecutionTimedOut(a) => (Child, false, a.initiated_event_id),
            Event::ChildWorkflowExecutionCanceled(a) => (Child, false, a.initiated_event_id),
            Event::ChildWorkflowExecutionTerminated(a) => (Child, false, a.initiated_event_id),
            Event::LambdaFunctionScheduled(_) => (Lambda, true, event.event_id),
            Event::LambdaFunctionCompleted(a) => (Lambda, false, a.scheduled_event_id),
            Event::LambdaFunctionFailed(a) => (Lambda, false, a.scheduled_event_id),
            Event::LambdaFunctionTimedOut(a) => (Lambda, false, a.scheduled_event_id),
            Event::StartLambdaFunctionFailed(a) => match a.scheduled_event_id {
                Some(scheduled) => (Lambda, false, scheduled),
                None => continue,
            },
            _ => continue,
        };
        match begins {
            true => open[kind as usize].insert(id),
            false => open[kind as usize].remove(&id),
        };
    }
    open
}

/// How a run whose last event is `event` closed, if that event closed it.
fn close_status(event: &Event) -> Option<CloseStatus> {
    Some(match event {
        Event::WorkflowExecutionCompleted(_) => CloseStatus::Completed,
        Event::WorkflowExecutionFailed(_) => CloseStatus::Failed,
        Event::WorkflowExecutionCanceled(_) => CloseStatus::Canceled,
        Event::WorkflowExecutionTerminated(_) => CloseStatus::Terminated,
        Event::WorkflowExecutionContinuedAsNew(_) => CloseStatus::ContinuedAsNew,
        Event::WorkflowExecutionTimedOut(_) => CloseStatus::TimedOut,
        _ => return None,
    })
}
