//! Claiming tasks: task tokens, and handing a queued decision, activity or Lambda function task
//! to a poller (or the function worker), with its start recorded (spec §4.4–4.5, §8.4, §8.8);
//! and the check that a token still names its task's current start. The workers' answers are
//! in `activities.rs` and `lambdas.rs`.

use serde_json::Value;

use crate::fault::Fault;
use crate::model::events::attrs;
use crate::model::{
    Activity, DecisionTask, Item, Lambda, ListControl, ListKey, Run, TaskKind, TaskState, TypeName,
    WorkflowExecution,
};
use crate::seal::{Purpose, Sealer};
use crate::store::{Cursor, Deadline, HistoryCell, ItemReads, ItemWrites, Reads, StoreError};

use super::gates::{pop_keyed, stored_gate};
use super::{Engine, Gate};

const TOKEN_VERSION: u8 = 1;

/// What a task token names: one start of one task. It is valid while that start is the task's
/// current one, so a token stops working the moment its task completes, fails, times out or its
/// run closes, and no later task can be reached with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TaskRef {
    pub(crate) kind: TaskKind,
    pub(crate) run: u64,
    pub(crate) scheduled: u64,
    pub(crate) started: u64,
}

impl TaskRef {
    /// The token handed to the poller.
    pub(crate) fn seal(&self, sealer: &Sealer) -> String {
        let mut payload = Vec::with_capacity(26);
        payload.push(TOKEN_VERSION);
        payload.push(self.kind as u8);
        for n in [self.run, self.scheduled, self.started] {
            payload.extend_from_slice(&n.to_le_bytes());
        }
        sealer.seal(Purpose::Task, &payload)
    }

    /// The task `token` names, if this service issued it.
    pub(crate) fn open(sealer: &Sealer, token: &str) -> Option<TaskRef> {
        let payload = sealer.open(Purpose::Task, token)?;
        let [TOKEN_VERSION, kind, rest @ ..] = payload.as_slice() else {
            return None;
        };
        let kind = match kind {
            0 => TaskKind::Decision,
            1 => TaskKind::Activity,
            2 => TaskKind::Function,
            _ => return None,
        };
        let numbers: Vec<u64> = rest
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let [run, scheduled, started] = numbers[..] else {
            return None;
        };
        Some(TaskRef {
            kind,
            run,
            scheduled,
            started,
        })
    }
}

/// A decision task handed to a poller.
#[derive(Clone, Debug)]
pub(crate) struct DecisionClaim {
    pub(crate) task: TaskRef,
    pub(crate) execution: WorkflowExecution,
    pub(crate) workflow_type: TypeName,
    pub(crate) previous_started_event_id: u64,
    /// The first page of its history, read with the claim's commit, if the poll asked.
    pub(crate) history: Option<HistoryCell>,
    /// The decider module the run is pinned to as the task starts, if one is.
    pub(crate) pin: Option<String>,
}

/// Which page of a decision task's history a poll wants with its task: from the previous
/// started event (if asked and there is one) or from the first, up to the task's start.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HistoryAsk {
    pub(crate) from_previous_started: bool,
    pub(crate) reverse: bool,
    pub(crate) limit: usize,
}

impl HistoryAsk {
    /// The first event of the page and where it starts reading, for a task whose previous
    /// started event is `previous_started`.
    pub(crate) fn bounds(&self, previous_started: u64, after: Option<u64>) -> (u64, Cursor<u64>) {
        let first = match self.from_previous_started && previous_started > 0 {
            true => previous_started,
            false => 1,
        };
        let cursor = Cursor {
            after,
            reverse: self.reverse,
            limit: self.limit,
        };
        (first, cursor)
    }
}

/// An activity task handed to a poller.
#[derive(Clone, Debug)]
pub(crate) struct ActivityClaim {
    pub(crate) task: TaskRef,
    pub(crate) activity_id: String,
    pub(crate) activity_type: TypeName,
    pub(crate) execution: WorkflowExecution,
    pub(crate) input: Option<String>,
}

/// A task handed to a poller.
#[derive(Clone, Debug)]
pub(crate) enum Claimed {
    Decision(DecisionClaim),
    Activity(ActivityClaim),
    Function(FunctionClaim),
}

impl Claimed {
    /// The start it hands out.
    pub(crate) fn task(&self) -> TaskRef {
        match self {
            Claimed::Decision(c) => c.task,
            Claimed::Activity(c) => c.task,
            Claimed::Function(c) => c.task,
        }
    }

    /// The task a worker outside holds until it answers: a decision or activity task. A
    /// function task is served in-process, whose worker is busy all along.
    pub(crate) fn held_outside(&self) -> Option<TaskRef> {
        match self {
            Claimed::Decision(c) => Some(c.task),
            Claimed::Activity(c) => Some(c.task),
            Claimed::Function(_) => None,
        }
    }
}

/// Takes the first task of a list for a poller: records its `*TaskStarted` event (for a Lambda
/// function task, `LambdaFunctionStarted`; its list is the function's name) and returns it.
/// Queue entries whose task is gone (its run closed) are dropped on the way.
#[cfg(test)]
pub(crate) fn claim(
    eng: &mut Engine<'_, '_>,
    kind: TaskKind,
    list: &str,
    identity: Option<String>,
) -> Result<Option<Claimed>, StoreError> {
    claim_for(eng, kind, list, identity, None)
}

/// Takes the first task of a list for a poller, as `claim` does; for a decision task, with
/// the page `history` of its history, if the poll asks for one, read with the commit.
pub(crate) fn claim_for(
    eng: &mut Engine<'_, '_>,
    kind: TaskKind,
    list: &str,
    identity: Option<String>,
    history: Option<HistoryAsk>,
) -> Result<Option<Claimed>, StoreError> {
    let mut gated = match eng.setup.controls.gate(eng.domain, kind, list) {
        // A paused list hands out nothing; its tasks stay queued, in order.
        Gate::Paused => return Ok(None),
        Gate::Open => None,
        Gate::Stored => match stored_gate(eng, kind, list)? {
            Some(gated) => Some(gated),
            None => return Ok(None),
        },
    };
    let read = gated.as_ref().map(|(_, control)| control.clone());
    let claimed = claim_first(eng, (kind, list), (identity, history), &mut gated)?;
    if let (Some((key, control)), Some(read)) = (gated, read)
        && control != read
    {
        // The other nodes need not read the controls again for tokens, counts and shares;
        // only when the list's keyed queues are done with.
        let quiet = control.is_keyed() == read.is_keyed();
        eng.tx.put_list_control(&key, &control, quiet)?;
        if !quiet {
            let controls = eng.setup.controls.clone();
            eng.tx
                .after_commit(Box::new(move || controls.put(key, control)));
        }
    }
    Ok(claimed)
}

/// Takes the first task of a list its `gated` controls (if it has any) let out, counting it in
/// them.
fn claim_first(
    eng: &mut Engine<'_, '_>,
    (kind, list): (TaskKind, &str),
    (identity, history): (Option<String>, Option<HistoryAsk>),
    gated: &mut Option<(ListKey, ListControl)>,
) -> Result<Option<Claimed>, StoreError> {
    loop {
        let popped = match gated {
            Some((_, control)) if control.is_keyed() => pop_keyed(eng, kind, list, control)?,
            _ => eng.tx.pop_task(eng.domain, kind, list)?,
        };
        let Some((seq, scheduled)) = popped else {
            return Ok(None);
        };
        let Some(mut run) = eng.open_run(seq)? else {
            continue;
        };
        // Held with its run, which puts it back on the list as it resumes.
        if run.paused.is_some() {
            continue;
        }
        let claimed = match kind {
            TaskKind::Decision => {
                let poller = (identity.clone(), history);
                claim_decision(eng, &mut run, scheduled, poller)?
            }
            TaskKind::Activity => claim_activity(eng, &mut run, scheduled, identity.clone())?,
            TaskKind::Function => claim_function(eng, &mut run, scheduled)?,
        };
        if let Some(claimed) = claimed {
            eng.save(&mut run)?;
            if let Some((_, control)) = gated {
                let task = claimed.task();
                control.handed_out(eng.tx.now(), [task.run, task.scheduled, task.started]);
            }
            // Its Started event may have brought the run to the event limit, which closed it.
            if run.is_open() {
                return Ok(Some(claimed));
            }
        }
    }
}

fn claim_decision(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    scheduled: u64,
    (identity, history): (Option<String>, Option<HistoryAsk>),
) -> Result<Option<Claimed>, StoreError> {
    let DecisionTask::Scheduled {
        scheduled: current,
        timeout_at,
        ..
    } = run.decision
    else {
        return Ok(None);
    };
    if current != scheduled {
        return Ok(None);
    }
    eng.disarm(
        run.seq,
        scheduled,
        Deadline::DecisionScheduleToStart,
        timeout_at,
    )?;
    let started = eng.record(
        run,
        attrs::DecisionTaskStarted {
            identity,
            scheduled_event_id: scheduled,
        },
    )?;
    let limit = run.config.task_start_to_close_timeout.limit();
    let timeout_at = eng.arm(run.seq, scheduled, Deadline::DecisionStartToClose, limit)?;
    run.decision = DecisionTask::Started {
        scheduled,
        started,
        timeout_at,
        next: None,
    };
    let history = match history {
        Some(ask) => {
            let cell = HistoryCell::default();
            let (first, cursor) = ask.bounds(run.previous_started_event_id, None);
            eng.tx
                .history_at_commit(run.seq, (first, started), cursor, cell.clone())?;
            Some(cell)
        }
        None => None,
    };
    Ok(Some(Claimed::Decision(DecisionClaim {
        task: TaskRef {
            kind: TaskKind::Decision,
            run: run.seq,
            scheduled,
            started,
        },
        execution: run.execution.clone(),
        workflow_type: run.workflow_type.clone(),
        previous_started_event_id: run.previous_started_event_id,
        history,
        pin: run.pin.as_ref().map(|pin| pin.module.clone()),
    })))
}

fn claim_activity(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    scheduled: u64,
    identity: Option<String>,
) -> Result<Option<Claimed>, StoreError> {
    let activity = eng.tx.open_item::<Activity>(run.seq, scheduled)?;
    let Some(mut activity) = activity.filter(|a| a.state.slot().is_some()) else {
        return Ok(None);
    };
    let (activity_id, activity_type) =
        (activity.activity_id.clone(), activity.activity_type.clone());
    let (start_to_close, heartbeat) = (activity.start_to_close, activity.heartbeat);
    let waited = activity.due.schedule_to_start;
    let seq = run.seq;
    eng.disarm(seq, scheduled, Deadline::ActivityScheduleToStart, waited)?;
    let started = eng.record(
        run,
        attrs::ActivityTaskStarted {
            identity,
            scheduled_event_id: scheduled,
        },
    )?;
    let start_to_close = eng.arm(
        seq,
        scheduled,
        Deadline::ActivityStartToClose,
        start_to_close,
    )?;
    let heartbeat = eng.arm(seq, scheduled, Deadline::ActivityHeartbeat, heartbeat)?;
    activity.state = TaskState::Started { event_id: started };
    activity.due.schedule_to_start = None;
    activity.due.start_to_close = start_to_close;
    activity.due.heartbeat = heartbeat;
    eng.tx.update_item(run, scheduled, &activity)?;
    let input = scheduled_input(
        eng,
        run.seq,
        scheduled,
        "activityTaskScheduledEventAttributes",
    )?;
    Ok(Some(Claimed::Activity(ActivityClaim {
        task: TaskRef {
            kind: TaskKind::Activity,
            run: run.seq,
            scheduled,
            started,
        },
        activity_id,
        activity_type,
        execution: run.execution.clone(),
        input,
    })))
}

/// The input of the task scheduled by event `scheduled` of run `seq`, whose attributes are
/// `member`. The input is in the history only, so runs stay small.
pub(super) fn scheduled_input(
    eng: &Engine<'_, '_>,
    seq: u64,
    scheduled: u64,
    member: &str,
) -> Result<Option<String>, StoreError> {
    let Some(json) = eng.tx.event(seq, scheduled)? else {
        return Ok(None);
    };
    let event: Value = serde_json::from_slice(&json).map_err(StoreError::broken)?;
    Ok(event
        .get(member)
        .and_then(|attributes| attributes.get("input"))
        .and_then(Value::as_str)
        .map(str::to_owned))
}

/// The open run of domain `domain` that `task` belongs to; for one that is closed or gone, the
/// fault AWS answers: `Unknown execution`.
pub(crate) fn task_run(tx: &dyn Reads, domain: u64, task: TaskRef) -> Result<Run, Fault> {
    match tx.run(task.run)?.filter(|run| run.domain == domain) {
        Some(run) if run.is_open() => Ok(run),
        Some(run) => Err(Fault::unknown_execution(
            &run.execution.workflow_id,
            Some(&run.execution.run_id),
        )),
        None => Err(Fault::execution_gone()),
    }
}

/// The run of the started decision task `task` names, in domain `domain`.
pub(crate) fn started_decision(tx: &dyn Reads, domain: u64, task: TaskRef) -> Result<Run, Fault> {
    let run = task_run(tx, domain, task)?;
    match run.decision {
        DecisionTask::Started {
            scheduled, started, ..
        } if task.kind == TaskKind::Decision
            && scheduled == task.scheduled
            && started == task.started =>
        {
            Ok(run)
        }
        _ => Err(Fault::unknown_task(TaskKind::Decision, task.scheduled)),
    }
}

/// What activity and Lambda function tasks share: the queue namespace they wait in, and their
/// [`TaskState`] in the run that scheduled them.
pub(crate) trait WorkerTask: Item {
    /// The kind of queue, and of task token.
    const QUEUE: TaskKind;
    /// Where it is.
    fn state(&self) -> &TaskState;
}

impl WorkerTask for Activity {
    const QUEUE: TaskKind = TaskKind::Activity;
    fn state(&self) -> &TaskState {
        &self.state
    }
}

impl WorkerTask for Lambda {
    const QUEUE: TaskKind = TaskKind::Function;
    fn state(&self) -> &TaskState {
        &self.state
    }
}

/// The run of the started task of kind `T` that `task` names, in domain `domain`, if that start
/// is still the task's current one; else the task's `UnknownResourceFault`.
pub(crate) fn started_task<T: WorkerTask>(
    tx: &dyn Reads,
    domain: u64,
    task: TaskRef,
) -> Result<Run, Fault> {
    let run = task_run(tx, domain, task)?;
    let current = tx
        .open_item::<T>(run.seq, task.scheduled)?
        .is_some_and(|t| t.state().is_start(task.started));
    if task.kind != T::QUEUE || !current {
        return Err(Fault::unknown_task(T::QUEUE, task.scheduled));
    }
    Ok(run)
}

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
    match claim(eng, TaskKind::Function, name, None)? {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_kind_survives_a_token() {
        let sealer = Sealer::new([3; 32]);
        for kind in [TaskKind::Decision, TaskKind::Activity, TaskKind::Function] {
            let task = TaskRef {
                kind,
                run: 1,
                scheduled: 2,
                started: 3,
            };
            assert_eq!(TaskRef::open(&sealer, &task.seal(&sealer)), Some(task));
        }
    }

    #[test]
    fn tokens_name_one_start_of_one_task_and_cannot_be_forged() {
        let sealer = Sealer::new([3; 32]);
        let task = TaskRef {
            kind: TaskKind::Activity,
            run: 7,
            scheduled: 5,
            started: 8,
        };
        let token = task.seal(&sealer);
        assert!(token.len() <= 1024);
        assert_eq!(TaskRef::open(&sealer, &token), Some(task));
        // Another start of the same task has another token.
        let again = TaskRef { started: 9, ..task };
        assert_ne!(again.seal(&sealer), token);
        // Altered, foreign or page tokens are not task tokens.
        let mut altered = token.clone().into_bytes();
        altered[3] = if altered[3] == b'A' { b'B' } else { b'A' };
        let altered = String::from_utf8(altered).unwrap();
        assert_eq!(TaskRef::open(&sealer, &altered), None);
        assert_eq!(TaskRef::open(&Sealer::new([4; 32]), &token), None);
        let page = sealer.seal(Purpose::Page, &[1; 26]);
        assert_eq!(TaskRef::open(&sealer, &page), None);
    }
}
