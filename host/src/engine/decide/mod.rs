//! RespondDecisionTaskCompleted: applying a decider's batch of decisions (spec §8.7, §6). The
//! activity decisions are in `activities.rs`, ScheduleLambdaFunction in `lambdas.rs`, the ones
//! that start runs in `runs.rs`.

mod activities;
mod lambdas;
mod runs;

use crate::model::decisions::{Decision, attrs as d};
use crate::model::events::{Cause, Event, attrs};
use crate::model::{
    CloseStatus, DecisionTask, Domain, ItemKind, Run, RunId, TaskList, Timeout, Timer, WorkflowId,
};
use crate::store::{Deadline, ItemReads, ItemWrites, StoreError};

use super::Engine;
use super::claims::TaskRef;
use super::close::{Closing, close};
use super::effects::{ChildOutcome, Effect, Initiated};

/// What the decider sent with its decisions.
#[derive(Clone, Debug, Default)]
pub(crate) struct Completion {
    pub(crate) decisions: Vec<Decision>,
    pub(crate) execution_context: Option<String>,
    pub(crate) task_list: Option<TaskList>,
    pub(crate) task_list_schedule_to_start_timeout: Option<Timeout>,
}

/// Completes the started decision task `task` of `run` and applies its decisions in order,
/// then saves the run.
pub(crate) fn complete_decision_task(
    eng: &mut Engine<'_, '_>,
    domain: &Domain,
    run: &mut Run,
    task: TaskRef,
    completion: Completion,
) -> Result<(), StoreError> {
    // The task is answered in time: its start-to-close timeout is over.
    let DecisionTask::Started {
        scheduled,
        timeout_at,
        next,
        ..
    } = std::mem::take(&mut run.decision)
    else {
        return Err(StoreError::broken(
            "completing a decision task that is not started",
        ));
    };
    eng.disarm(
        run.seq,
        scheduled,
        Deadline::DecisionStartToClose,
        timeout_at,
    )?;
    // A task scheduled while the decider worked means events it has not seen: a close decision
    // fails (spec §8.7 step 5). The batch's own triggers are noted and scheduled after it.
    let legacy = std::mem::take(&mut run.legacy_decision_owed);
    let unhandled = next.is_some() || legacy;
    run.decision = DecisionTask::Completing {
        next,
        triggered: legacy,
    };
    let completed = eng.record(
        run,
        attrs::DecisionTaskCompleted {
            execution_context: completion.execution_context.clone(),
            scheduled_event_id: task.scheduled,
            started_event_id: task.started,
            task_list: completion.task_list.clone(),
            task_list_schedule_to_start_timeout: completion.task_list_schedule_to_start_timeout,
        },
    )?;
    run.previous_started_event_id = task.started;
    if completion.execution_context.is_some() {
        run.latest_execution_context = completion.execution_context;
    }
    if let Some(list) = completion.task_list.filter(|l| !l.name.is_empty()) {
        run.decision_task_list = list.name;
        run.decision_schedule_to_start = completion.task_list_schedule_to_start_timeout;
    }
    let mut batch = Batch {
        eng,
        domain,
        completed,
        unhandled,
    };
    for decision in completion.decisions {
        if !run.is_open() {
            break;
        }
        batch.apply(run, decision)?;
    }
    // A closing decision ended the decision tasks with the run.
    if run.is_open() {
        match std::mem::take(&mut run.decision) {
            DecisionTask::Completing {
                next: Some(next), ..
            } => batch.eng.queue_decision(run, next)?,
            DecisionTask::Completing {
                triggered: true, ..
            } => batch.eng.schedule_decision(run)?,
            _ => {}
        }
    }
    batch.eng.save(run)
}

struct Batch<'e, 'a, 't> {
    eng: &'e mut Engine<'a, 't>,
    domain: &'e Domain,
    /// The `DecisionTaskCompleted` event every decision's events refer to.
    completed: u64,
    /// Whether a decision task is owed for events the decider had not seen.
    unhandled: bool,
}

impl Batch<'_, '_, '_> {
    fn apply(&mut self, run: &mut Run, decision: Decision) -> Result<(), StoreError> {
        match decision {
            Decision::ScheduleActivityTask(a) => self.schedule_activity(run, a),
            Decision::RequestCancelActivityTask(a) => self.cancel_activity(run, a),
            Decision::CompleteWorkflowExecution(a) => self.complete_run(run, a),
            Decision::FailWorkflowExecution(a) => self.fail_run(run, a),
            Decision::CancelWorkflowExecution(a) => self.cancel_run(run, a),
            Decision::ContinueAsNewWorkflowExecution(a) => self.continue_as_new(run, a),
            Decision::RecordMarker(a) => {
                let event = attrs::MarkerRecorded {
                    marker_name: a.marker_name,
                    details: a.details,
                    decision_task_completed_event_id: self.completed,
                };
                self.eng.record(run, event).map(drop)
            }
            Decision::StartTimer(a) => self.start_timer(run, a),
            Decision::CancelTimer(a) => self.cancel_timer(run, a),
            Decision::SignalExternalWorkflowExecution(a) => self.signal_external(run, a),
            Decision::RequestCancelExternalWorkflowExecution(a) => self.cancel_external(run, a),
            Decision::StartChildWorkflowExecution(a) => self.start_child(run, a),
            Decision::ScheduleLambdaFunction(a) => self.schedule_lambda(run, a),
        }
    }

    fn complete_run(
        &mut self,
        run: &mut Run,
        a: d::CompleteWorkflowExecution,
    ) -> Result<(), StoreError> {
        let dtc = self.completed;
        let event = attrs::WorkflowExecutionCompleted {
            result: a.result.clone(),
            decision_task_completed_event_id: dtc,
        };
        let failed = attrs::CompleteWorkflowExecutionFailed {
            cause: Cause::UnhandledDecision,
            decision_task_completed_event_id: dtc,
        };
        let outcome = ChildOutcome::Completed(a.result);
        let status = CloseStatus::Completed;
        self.close_run(run, status, event.into(), outcome, failed.into())
    }

    fn fail_run(&mut self, run: &mut Run, a: d::FailWorkflowExecution) -> Result<(), StoreError> {
        let dtc = self.completed;
        let event = attrs::WorkflowExecutionFailed {
            reason: a.reason.clone(),
            details: a.details.clone(),
            decision_task_completed_event_id: dtc,
        };
        let failed = attrs::FailWorkflowExecutionFailed {
            cause: Cause::UnhandledDecision,
            decision_task_completed_event_id: dtc,
        };
        let outcome = ChildOutcome::Failed {
            reason: a.reason,
            details: a.details,
        };
        let status = CloseStatus::Failed;
        self.close_run(run, status, event.into(), outcome, failed.into())
    }

    fn cancel_run(
        &mut self,
        run: &mut Run,
        a: d::CancelWorkflowExecution,
    ) -> Result<(), StoreError> {
        let dtc = self.completed;
        let event = attrs::WorkflowExecutionCanceled {
            details: a.details.clone(),
            decision_task_completed_event_id: dtc,
        };
        let failed = attrs::CancelWorkflowExecutionFailed {
            cause: Cause::UnhandledDecision,
            decision_task_completed_event_id: dtc,
        };
        let outcome = ChildOutcome::Canceled(a.details);
        let status = CloseStatus::Canceled;
        self.close_run(run, status, event.into(), outcome, failed.into())
    }

    fn cancel_timer(&mut self, run: &mut Run, a: d::CancelTimer) -> Result<(), StoreError> {
        let dtc = self.completed;
        let named = self.eng.tx.named_item::<Timer>(run.seq, &a.timer_id)?;
        let taken = match named {
            Some((started, _)) => self.eng.tx.take_item::<Timer>(run, started)?,
            None => None,
        };
        let Some(timer) = taken else {
            let event = attrs::CancelTimerFailed {
                timer_id: a.timer_id,
                cause: Cause::TimerIdUnknown,
                decision_task_completed_event_id: dtc,
            };
            return self.failed(run, event.into());
        };
        let (seq, started) = (run.seq, timer.started_event_id);
        self.eng
            .disarm(seq, started, Deadline::Timer, Some(timer.fires_at))?;
        let event = attrs::TimerCanceled {
            timer_id: a.timer_id,
            started_event_id: timer.started_event_id,
            decision_task_completed_event_id: dtc,
        };
        self.eng.record(run, event).map(drop)
    }

    fn signal_external(
        &mut self,
        run: &mut Run,
        a: d::SignalExternalWorkflowExecution,
    ) -> Result<(), StoreError> {
        let event = attrs::SignalExternalWorkflowExecutionInitiated {
            workflow_id: a.workflow_id.clone(),
            run_id: a.run_id.clone(),
            signal_name: a.signal_name.clone(),
            input: a.input.clone(),
            decision_task_completed_event_id: self.completed,
            control: a.control.clone(),
        };
        let from = self.initiated(run, event.into(), a.workflow_id, a.run_id, a.control)?;
        self.eng.effect(Effect::Signal {
            from,
            signal_name: a.signal_name,
            input: a.input,
        });
        Ok(())
    }

    fn cancel_external(
        &mut self,
        run: &mut Run,
        a: d::RequestCancelExternalWorkflowExecution,
    ) -> Result<(), StoreError> {
        let event = attrs::RequestCancelExternalWorkflowExecutionInitiated {
            workflow_id: a.workflow_id.clone(),
            run_id: a.run_id.clone(),
            decision_task_completed_event_id: self.completed,
            control: a.control.clone(),
        };
        let from = self.initiated(run, event.into(), a.workflow_id, a.run_id, a.control)?;
        self.eng.effect(Effect::RequestCancel { from });
        Ok(())
    }

    /// Records a decision's failure event, which the decider must hear about.
    fn failed(&mut self, run: &mut Run, event: Event) -> Result<(), StoreError> {
        self.eng.record(run, event)?;
        self.eng.trigger(run)
    }

    /// Records the `*Initiated` event of a request to another run.
    fn initiated(
        &mut self,
        run: &mut Run,
        event: Event,
        workflow_id: WorkflowId,
        run_id: Option<RunId>,
        control: Option<String>,
    ) -> Result<Initiated, StoreError> {
        let event_id = self.eng.record(run, event)?;
        Ok(Initiated {
            sender: run.seq,
            event_id,
            decision_task_completed_event_id: self.completed,
            control,
            workflow_id,
            run_id,
        })
    }

    /// A close decision: it fails with UNHANDLED_DECISION if the decider has not seen everything.
    fn close_run(
        &mut self,
        run: &mut Run,
        status: CloseStatus,
        event: Event,
        outcome: ChildOutcome,
        unhandled: Event,
    ) -> Result<(), StoreError> {
        if self.unhandled {
            return self.failed(run, unhandled);
        }
        let closing = Closing {
            status,
            event,
            outcome: Some(outcome),
            child_policy: None,
        };
        close(self.eng, run, closing)
    }

    fn start_timer(&mut self, run: &mut Run, a: d::StartTimer) -> Result<(), StoreError> {
        let in_use = self
            .eng
            .tx
            .item_named(run.seq, ItemKind::Timer, &a.timer_id)?;
        let cause = if in_use.is_some() {
            Some(Cause::TimerIdAlreadyInUse)
        } else if run.open.timers >= self.eng.max_open_per_run() {
            Some(Cause::OpenTimersLimitExceeded)
        } else {
            None
        };
        if let Some(cause) = cause {
            let event = attrs::StartTimerFailed {
                timer_id: a.timer_id,
                cause,
                decision_task_completed_event_id: self.completed,
            };
            return self.failed(run, event.into());
        }
        // Checked with the request: timers take whole seconds, never NONE.
        let secs = a
            .start_to_fire_timeout
            .limit()
            .ok_or_else(|| StoreError::broken("unchecked startToFireTimeout"))?;
        let event = attrs::TimerStarted {
            timer_id: a.timer_id.clone(),
            control: a.control,
            start_to_fire_timeout: a.start_to_fire_timeout,
            decision_task_completed_event_id: self.completed,
        };
        let started_event_id = self.eng.record(run, event)?;
        let fires_at = self
            .eng
            .arm(run.seq, started_event_id, Deadline::Timer, Some(secs))?
            .ok_or_else(|| StoreError::broken("a timer without a deadline"))?;
        let timer = Timer {
            timer_id: a.timer_id,
            started_event_id,
            fires_at,
        };
        self.eng.tx.add_item(run, started_event_id, &timer)
    }
}
