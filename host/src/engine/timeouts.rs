//! The eight timeouts (spec §8.5: the run's, two of decision tasks, four of activity tasks, a
//! Lambda function task's start-to-close): arming them as tasks and runs change state, and what
//! happens when one comes. Each armed deadline is kept in the run as well as in the store, so it is
//! disarmed when its subject ends in time, and a deadline that comes is acted on only if the run
//! still holds it: a stale one changes nothing.

use crate::clock::Timestamp;
use crate::model::events::{Cause, attrs};
use crate::model::{Activity, CloseStatus, DecisionTask, Lambda, Run, TaskKind, Timer};
use crate::store::{Deadline, ItemReads, ItemWrites, StoreError};

use super::Engine;
use super::close::{Closing, close};
use super::effects::ChildOutcome;

impl Engine<'_, '_> {
    /// Arms the run's execution start-to-close timeout.
    pub(super) fn arm_run_timeout(&mut self, run: &mut Run) -> Result<(), StoreError> {
        let limit = run.config.execution_start_to_close_timeout.limit();
        run.timeout_at = self.arm(run.seq, 1, Deadline::RunStartToClose, limit)?;
        Ok(())
    }

    /// Disarms every deadline of the open run and takes its tasks off their lists: it is
    /// closing.
    pub(super) fn disarm_all(&mut self, run: &mut Run) -> Result<(), StoreError> {
        let seq = run.seq;
        self.disarm(seq, 1, Deadline::RunStartToClose, run.timeout_at.take())?;
        self.drop_decision(run)?;
        for id in self.tx.open_keys::<Activity>(seq)? {
            self.drop_activity(run, id)?;
        }
        for id in self.tx.open_keys::<Lambda>(seq)? {
            self.drop_lambda(run, id)?;
        }
        for started in self.tx.open_keys::<Timer>(seq)? {
            if let Some(timer) = self.tx.take_item::<Timer>(run, started)? {
                self.disarm(seq, started, Deadline::Timer, Some(timer.fires_at))?;
            }
        }
        Ok(())
    }

    /// Ends the run's open decision task, whatever its state: off its list, timeouts disarmed.
    fn drop_decision(&mut self, run: &mut Run) -> Result<(), StoreError> {
        match std::mem::take(&mut run.decision) {
            DecisionTask::Idle => {}
            DecisionTask::Scheduled {
                scheduled,
                slot,
                timeout_at,
            } => {
                self.tx.remove_task(run.domain, TaskKind::Decision, &slot)?;
                let kind = Deadline::DecisionScheduleToStart;
                self.disarm(run.seq, scheduled, kind, timeout_at)?;
            }
            // A next task held back was never queued nor armed.
            DecisionTask::Started {
                scheduled,
                timeout_at,
                ..
            } => {
                let kind = Deadline::DecisionStartToClose;
                self.disarm(run.seq, scheduled, kind, timeout_at)?;
            }
            DecisionTask::Completing { .. } => {}
        }
        Ok(())
    }

    /// Removes the activity task scheduled by event `scheduled` from the run: off its list,
    /// timeouts disarmed. Returns it, if it was open.
    pub(super) fn drop_activity(
        &mut self,
        run: &mut Run,
        scheduled: u64,
    ) -> Result<Option<Activity>, StoreError> {
        self.setup.heartbeats.forget(run.seq, scheduled);
        let Some(activity) = self.tx.take_item::<Activity>(run, scheduled)? else {
            return Ok(None);
        };
        if let Some(slot) = activity.state.slot() {
            self.tx.remove_task(run.domain, TaskKind::Activity, slot)?;
        }
        let due = activity.due;
        for (kind, at) in [
            (Deadline::ActivityScheduleToStart, due.schedule_to_start),
            (Deadline::ActivityScheduleToClose, due.schedule_to_close),
            (Deadline::ActivityStartToClose, due.start_to_close),
            (Deadline::ActivityHeartbeat, due.heartbeat),
        ] {
            self.disarm(run.seq, scheduled, kind, at)?;
        }
        Ok(Some(activity))
    }

    /// Removes the Lambda function task scheduled by event `scheduled` from the run: off its
    /// function's queue, timeout disarmed. Returns it, if it was open.
    pub(super) fn drop_lambda(
        &mut self,
        run: &mut Run,
        scheduled: u64,
    ) -> Result<Option<Lambda>, StoreError> {
        let Some(lambda) = self.tx.take_item::<Lambda>(run, scheduled)? else {
            return Ok(None);
        };
        if let Some(slot) = lambda.state.slot() {
            self.tx.remove_task(run.domain, TaskKind::Function, slot)?;
        }
        let kind = Deadline::LambdaStartToClose;
        self.disarm(run.seq, scheduled, kind, lambda.timeout_at)?;
        Ok(Some(lambda))
    }
}

/// An activity timeout of the task scheduled by event `scheduled` came at `at`: the task closes
/// with `ActivityTaskTimedOut` and the decider hears of it. Answers whether anything changed.
pub(super) fn activity_timed_out(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    scheduled: u64,
    kind: Deadline,
    at: Timestamp,
) -> Result<bool, StoreError> {
    let Some(activity) = eng.tx.open_item::<Activity>(run.seq, scheduled)? else {
        return Ok(false);
    };
    let (armed, timeout_type) = match kind {
        Deadline::ActivityScheduleToStart => {
            (activity.due.schedule_to_start, Cause::ScheduleToStart)
        }
        Deadline::ActivityScheduleToClose => {
            (activity.due.schedule_to_close, Cause::ScheduleToClose)
        }
        Deadline::ActivityStartToClose => (activity.due.start_to_close, Cause::StartToClose),
        Deadline::ActivityHeartbeat => (activity.due.heartbeat, Cause::Heartbeat),
        _ => return Err(StoreError::broken("not an activity timeout")),
    };
    if armed != Some(at) {
        return Ok(false);
    }
    if kind == Deadline::ActivityHeartbeat && heartbeat_since(eng, run, scheduled, activity, at)? {
        return Ok(true);
    }
    let Some(activity) = eng.drop_activity(run, scheduled)? else {
        return Ok(false);
    };
    let event = attrs::ActivityTaskTimedOut {
        timeout_type,
        scheduled_event_id: scheduled,
        started_event_id: activity.state.started_event_id(),
        details: activity.heartbeat_details,
    };
    eng.record(run, event)?;
    eng.trigger(run)?;
    Ok(true)
}

/// Whether a heartbeat without details came since the heartbeat timeout that fired at `at` was
/// armed, within the timeout: if so, the timeout is re-armed from that heartbeat instead.
fn heartbeat_since(
    eng: &mut Engine<'_, '_>,
    run: &Run,
    scheduled: u64,
    mut activity: Activity,
    at: Timestamp,
) -> Result<bool, StoreError> {
    let seq = run.seq;
    let (Some(last), Some(limit)) = (
        eng.setup.heartbeats.last(seq, scheduled),
        activity.heartbeat,
    ) else {
        return Ok(false);
    };
    let due = last.plus_secs(u64::from(limit));
    if due <= at {
        return Ok(false);
    }
    eng.set_deadline(due, seq, scheduled, Deadline::ActivityHeartbeat)?;
    activity.due.heartbeat = Some(due);
    eng.tx.update_item(run, scheduled, &activity)?;
    Ok(true)
}

/// The start-to-close timeout of the Lambda function task scheduled by event `scheduled` came at
/// `at`: the task closes with `LambdaFunctionTimedOut` and the decider hears of it. Answers
/// whether anything changed.
pub(super) fn lambda_timed_out(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    scheduled: u64,
    at: Timestamp,
) -> Result<bool, StoreError> {
    let lambda = eng.tx.open_item::<Lambda>(run.seq, scheduled)?;
    let armed = lambda.and_then(|l| l.timeout_at);
    if armed != Some(at) {
        return Ok(false);
    }
    let Some(lambda) = eng.drop_lambda(run, scheduled)? else {
        return Ok(false);
    };
    let event = attrs::LambdaFunctionTimedOut {
        scheduled_event_id: scheduled,
        started_event_id: lambda.state.started_event_id(),
        timeout_type: Some(Cause::StartToClose),
    };
    eng.record(run, event)?;
    eng.trigger(run)?;
    Ok(true)
}

/// A decision task timeout came at `at` for the task scheduled by event `scheduled`:
/// `DecisionTaskTimedOut`, then the next decision task: the one already scheduled while the
/// timed-out task was started, or a new one. A task that was never picked up from the decider's
/// task-list override goes back to the run's own list (spec §8.5).
pub(super) fn decision_timed_out(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    scheduled: u64,
    kind: Deadline,
    at: Timestamp,
) -> Result<bool, StoreError> {
    let (timeout_type, started_event_id) = match (&run.decision, kind) {
        (
            DecisionTask::Started {
                scheduled: s,
                started,
                timeout_at,
                ..
            },
            Deadline::DecisionStartToClose,
        ) if *s == scheduled && *timeout_at == Some(at) => (Cause::StartToClose, *started),
        (
            DecisionTask::Scheduled {
                scheduled: s,
                timeout_at,
                ..
            },
            Deadline::DecisionScheduleToStart,
        ) if *s == scheduled && *timeout_at == Some(at) => (Cause::ScheduleToStart, 0),
        _ => return Ok(false),
    };
    let next = match &mut run.decision {
        DecisionTask::Started { next, .. } => next.take(),
        _ => None,
    };
    eng.drop_decision(run)?;
    if timeout_type == Cause::ScheduleToStart {
        run.decision_task_list = run.config.task_list.name.clone();
        run.decision_schedule_to_start = None;
    }
    let event = attrs::DecisionTaskTimedOut {
        timeout_type,
        scheduled_event_id: scheduled,
        started_event_id,
    };
    eng.record(run, event)?;
    // The decider saw nothing of what happened meanwhile; the next task carries it all.
    match next {
        Some(next) => eng.queue_decision(run, next)?,
        None => eng.schedule_decision(run)?,
    }
    Ok(true)
}

/// The run's execution start-to-close timeout came at `at`: it closes TIMED_OUT, its child policy
/// applies, and its parent hears of it.
pub(super) fn run_timed_out(
    eng: &mut Engine<'_, '_>,
    run: &mut Run,
    at: Timestamp,
) -> Result<bool, StoreError> {
    if run.timeout_at != Some(at) {
        return Ok(false);
    }
    let child_policy = run.config.child_policy;
    let event = attrs::WorkflowExecutionTimedOut {
        timeout_type: Cause::StartToClose,
        child_policy,
    };
    let closing = Closing {
        status: CloseStatus::TimedOut,
        event: event.into(),
        outcome: Some(ChildOutcome::TimedOut),
        child_policy: Some(child_policy),
    };
    close(eng, run, closing)?;
    Ok(true)
}
