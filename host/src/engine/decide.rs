//! RespondDecisionTaskCompleted: applying a decider's batch of decisions (spec §8.7, §6).

use crate::fault::Fault;
use crate::model::decisions::{Decision, attrs as d, given};
use crate::model::events::{Cause, Event, attrs};
use crate::model::{
    Activity, ActivityKind, Child, CloseStatus, DecisionTask, Domain, Parent, RegistrationStatus,
    Run, TaskList, Timeout, Timer,
};
use crate::store::{Deadline, Reads};

use super::close::{Closing, close};
use super::effects::{ChildOutcome, Effect, Initiated};
use super::start::{NewRun, StartError, StartRequest, new_run_id, resolve_start, start_run};
use super::tasks::TaskRef;
use super::{Engine, MAX_OPEN_PER_RUN};

/// What the decider sent with its decisions.
#[derive(Clone, Debug, Default)]
pub(crate) struct Completion {
    pub(crate) decisions: Vec<Decision>,
    pub(crate) execution_context: Option<String>,
    pub(crate) task_list: Option<TaskList>,
    pub(crate) task_list_schedule_to_start_timeout: Option<String>,
}

/// Completes the started decision task `task` of `run` and applies its decisions in order,
/// then saves the run.
pub(crate) fn complete_decision_task(
    eng: &mut Engine<'_, '_>,
    domain: &Domain,
    run: &mut Run,
    task: TaskRef,
    completion: Completion,
) -> Result<(), Fault> {
    // Whatever triggered while the decider worked is unhandled by this batch (spec §8.7 step 5);
    // the batch's own triggers are collected afresh.
    let unhandled = std::mem::take(&mut run.decision_needed);
    let completed = eng.record(
        run,
        attrs::DecisionTaskCompleted {
            execution_context: completion.execution_context.clone(),
            scheduled_event_id: task.scheduled,
            started_event_id: task.started,
            task_list: completion.task_list.clone(),
            task_list_schedule_to_start_timeout: completion
                .task_list_schedule_to_start_timeout
                .clone(),
        },
    )?;
    run.previous_started_event_id = task.started;
    if completion.execution_context.is_some() {
        run.latest_execution_context = completion.execution_context;
    }
    if let Some(list) = completion.task_list.filter(|l| !l.name.is_empty()) {
        run.decision_task_list = list.name;
        run.decision_schedule_to_start =
            given(&completion.task_list_schedule_to_start_timeout).map(str::to_owned);
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
    // The task stayed "started" during the batch, so that its triggers were only noted.
    if run.is_open() {
        run.decision = DecisionTask::Idle;
        if unhandled || std::mem::take(&mut run.decision_needed) {
            batch.eng.trigger(run)?;
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
    fn apply(&mut self, run: &mut Run, decision: Decision) -> Result<(), Fault> {
        let dtc = self.completed;
        match decision {
            Decision::ScheduleActivityTask(a) => self.schedule_activity(run, a),
            Decision::RequestCancelActivityTask(a) => self.cancel_activity(run, a),
            Decision::CompleteWorkflowExecution(a) => {
                let event = attrs::WorkflowExecutionCompleted {
                    result: a.result.clone(),
                    decision_task_completed_event_id: dtc,
                };
                let failed = attrs::CompleteWorkflowExecutionFailed {
                    cause: Cause::UnhandledDecision,
                    decision_task_completed_event_id: dtc,
                };
                self.close_run(
                    run,
                    CloseStatus::Completed,
                    event.into(),
                    ChildOutcome::Completed(a.result),
                    failed.into(),
                )
            }
            Decision::FailWorkflowExecution(a) => {
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
                self.close_run(
                    run,
                    CloseStatus::Failed,
                    event.into(),
                    outcome,
                    failed.into(),
                )
            }
            Decision::CancelWorkflowExecution(a) => {
                let event = attrs::WorkflowExecutionCanceled {
                    details: a.details.clone(),
                    decision_task_completed_event_id: dtc,
                };
                let failed = attrs::CancelWorkflowExecutionFailed {
                    cause: Cause::UnhandledDecision,
                    decision_task_completed_event_id: dtc,
                };
                let outcome = ChildOutcome::Canceled(a.details);
                self.close_run(
                    run,
                    CloseStatus::Canceled,
                    event.into(),
                    outcome,
                    failed.into(),
                )
            }
            Decision::ContinueAsNewWorkflowExecution(a) => self.continue_as_new(run, a),
            Decision::RecordMarker(a) => {
                let event = attrs::MarkerRecorded {
                    marker_name: a.marker_name,
                    details: a.details,
                    decision_task_completed_event_id: dtc,
                };
                self.eng.record(run, event).map(drop)
            }
            Decision::StartTimer(a) => self.start_timer(run, a),
            Decision::CancelTimer(a) => {
                let Some(timer) = run.timers.remove(&a.timer_id) else {
                    let event = attrs::CancelTimerFailed {
                        timer_id: a.timer_id,
                        cause: Cause::TimerIdUnknown,
                        decision_task_completed_event_id: dtc,
                    };
                    return self.failed(run, event.into());
                };
                self.eng.tx.clear_deadline(
                    timer.fires_at,
                    run.seq,
                    timer.started_event_id,
                    Deadline::Timer,
                )?;
                let event = attrs::TimerCanceled {
                    timer_id: a.timer_id,
                    started_event_id: timer.started_event_id,
                    decision_task_completed_event_id: dtc,
                };
                self.eng.record(run, event).map(drop)
            }
            Decision::SignalExternalWorkflowExecution(a) => {
                let event = attrs::SignalExternalWorkflowExecutionInitiated {
                    workflow_id: a.workflow_id.clone(),
                    run_id: a.run_id.clone(),
                    signal_name: a.signal_name.clone(),
                    input: a.input.clone(),
                    decision_task_completed_event_id: dtc,
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
            Decision::RequestCancelExternalWorkflowExecution(a) => {
                let event = attrs::RequestCancelExternalWorkflowExecutionInitiated {
                    workflow_id: a.workflow_id.clone(),
                    run_id: a.run_id.clone(),
                    decision_task_completed_event_id: dtc,
                    control: a.control.clone(),
                };
                let from = self.initiated(run, event.into(), a.workflow_id, a.run_id, a.control)?;
                self.eng.effect(Effect::RequestCancel { from });
                Ok(())
            }
            Decision::StartChildWorkflowExecution(a) => self.start_child(run, a),
            Decision::ScheduleLambdaFunction(a) => {
                // No Lambda backend yet: the Wasm runtime will run functions (spec §6.13 [REC]).
                let event = attrs::ScheduleLambdaFunctionFailed {
                    id: a.id,
                    name: a.name,
                    cause: Cause::LambdaServiceNotAvailableInRegion,
                    decision_task_completed_event_id: dtc,
                };
                self.failed(run, event.into())
            }
        }
    }

    /// Records a decision's failure event, which the decider must hear about.
    fn failed(&mut self, run: &mut Run, event: Event) -> Result<(), Fault> {
        self.eng.record(run, event)?;
        self.eng.trigger(run)
    }

    /// Records the `*Initiated` event of a request to another run.
    fn initiated(
        &mut self,
        run: &mut Run,
        event: Event,
        workflow_id: String,
        run_id: Option<String>,
        control: Option<String>,
    ) -> Result<Initiated, Fault> {
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
    ) -> Result<(), Fault> {
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

    fn schedule_activity(
        &mut self,
        run: &mut Run,
        a: d::ScheduleActivityTask,
    ) -> Result<(), Fault> {
        let fail = |cause| attrs::ScheduleActivityTaskFailed {
            activity_type: a.activity_type.clone(),
            activity_id: a.activity_id.clone(),
            cause,
            decision_task_completed_event_id: self.completed,
        };
        let record = self.eng.tx.type_record::<ActivityKind>(
            self.domain,
            &a.activity_type.name,
            &a.activity_type.version,
        )?;
        let Some(record) = record else {
            return self.failed(run, fail(Cause::ActivityTypeDoesNotExist).into());
        };
        let cause = if record.status(self.domain) == RegistrationStatus::Deprecated {
            Some(Cause::ActivityTypeDeprecated)
        } else if run
            .activities
            .values()
            .any(|x| x.activity_id == a.activity_id)
        {
            Some(Cause::ActivityIdAlreadyInUse)
        } else if run.activities.len() >= MAX_OPEN_PER_RUN {
            Some(Cause::OpenActivitiesLimitExceeded)
        } else {
            None
        };
        if let Some(cause) = cause {
            return self.failed(run, fail(cause).into());
        }
        let defaults = record.config;
        let or_default = |given_value: &Option<String>, default: Option<String>| {
            given(given_value).map(str::to_owned).or(default)
        };
        let task_list = a
            .task_list
            .clone()
            .filter(|l| !l.name.is_empty())
            .or(defaults.default_task_list);
        let schedule_to_close = or_default(
            &a.schedule_to_close_timeout,
            defaults.default_task_schedule_to_close_timeout,
        );
        let schedule_to_start = or_default(
            &a.schedule_to_start_timeout,
            defaults.default_task_schedule_to_start_timeout,
        );
        let start_to_close = or_default(
            &a.start_to_close_timeout,
            defaults.default_task_start_to_close_timeout,
        );
        // The model does not require the heartbeat timeout to resolve: unset means none (§6.1).
        let heartbeat = or_default(
            &a.heartbeat_timeout,
            defaults.default_task_heartbeat_timeout,
        )
        .unwrap_or_else(|| "NONE".into());
        let (task_list, schedule_to_close, schedule_to_start, start_to_close) = match (
            task_list,
            schedule_to_close,
            schedule_to_start,
            start_to_close,
        ) {
            (None, ..) => {
                return self.failed(run, fail(Cause::DefaultTaskListUndefined).into());
            }
            (_, None, ..) => {
                let cause = Cause::DefaultScheduleToCloseTimeoutUndefined;
                return self.failed(run, fail(cause).into());
            }
            (_, _, None, _) => {
                let cause = Cause::DefaultScheduleToStartTimeoutUndefined;
                return self.failed(run, fail(cause).into());
            }
            (_, _, _, None) => {
                let cause = Cause::DefaultStartToCloseTimeoutUndefined;
                return self.failed(run, fail(cause).into());
            }
            (Some(l), Some(a), Some(b), Some(c)) => (l, a, b, c),
        };
        let priority = or_default(&a.task_priority, defaults.default_task_priority)
            .unwrap_or_else(|| "0".into());
        let event = attrs::ActivityTaskScheduled {
            activity_type: a.activity_type.clone(),
            activity_id: a.activity_id.clone(),
            input: a.input,
            control: a.control,
            schedule_to_start_timeout: Some(schedule_to_start),
            schedule_to_close_timeout: Some(schedule_to_close),
            start_to_close_timeout: Some(start_to_close),
            task_list: task_list.clone(),
            task_priority: Some(priority.clone()),
            decision_task_completed_event_id: self.completed,
            heartbeat_timeout: Some(heartbeat),
        };
        let scheduled = self.eng.record(run, event)?;
        let slot = self.eng.queue(
            run,
            crate::store::TaskKind::Activity,
            task_list.name,
            &priority,
            scheduled,
        )?;
        run.latest_activity_task_at = Some(self.eng.tx.now());
        run.activities.insert(
            scheduled,
            Activity {
                activity_id: a.activity_id,
                activity_type: a.activity_type,
                slot: Some(slot),
                started_event_id: 0,
                cancel_requested_event_id: None,
                heartbeat_details: None,
            },
        );
        Ok(())
    }

    fn cancel_activity(
        &mut self,
        run: &mut Run,
        a: d::RequestCancelActivityTask,
    ) -> Result<(), Fault> {
        let found = run
            .activities
            .iter()
            .find(|(_, x)| x.activity_id == a.activity_id)
            .map(|(id, _)| *id);
        let Some(scheduled) = found else {
            let event = attrs::RequestCancelActivityTaskFailed {
                activity_id: a.activity_id,
                cause: Cause::ActivityIdUnknown,
                decision_task_completed_event_id: self.completed,
            };
            return self.failed(run, event.into());
        };
        let event = attrs::ActivityTaskCancelRequested {
            decision_task_completed_event_id: self.completed,
            activity_id: a.activity_id,
        };
        let requested = self.eng.record(run, event)?;
        let Some(activity) = run.activities.get_mut(&scheduled) else {
            return Ok(());
        };
        activity.cancel_requested_event_id = Some(requested);
        // A task no worker has yet is canceled by the service (spec §8.8).
        if let Some(slot) = activity.slot.take() {
            run.activities.remove(&scheduled);
            self.eng
                .tx
                .remove_task(run.domain, crate::store::TaskKind::Activity, &slot)?;
            let event = attrs::ActivityTaskCanceled {
                details: None,
                scheduled_event_id: scheduled,
                started_event_id: 0,
                latest_cancel_requested_event_id: Some(requested),
            };
            return self.failed(run, event.into());
        }
        Ok(())
    }

    fn start_timer(&mut self, run: &mut Run, a: d::StartTimer) -> Result<(), Fault> {
        let cause = if run.timers.contains_key(&a.timer_id) {
            Some(Cause::TimerIdAlreadyInUse)
        } else if run.timers.len() >= MAX_OPEN_PER_RUN {
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
        let secs = match Timeout::parse(&a.start_to_fire_timeout) {
            Some(Timeout::Seconds(secs)) => i64::from(secs),
            // Checked with the request; NONE is not allowed for timers.
            _ => return Err(Fault::internal("unchecked startToFireTimeout")),
        };
        let event = attrs::TimerStarted {
            timer_id: a.timer_id.clone(),
            control: a.control,
            start_to_fire_timeout: a.start_to_fire_timeout,
            decision_task_completed_event_id: self.completed,
        };
        let started_event_id = self.eng.record(run, event)?;
        let fires_at =
            crate::clock::Timestamp::from_millis(self.eng.tx.now().as_millis() + secs * 1000);
        self.eng
            .set_deadline(fires_at, run, started_event_id, Deadline::Timer)?;
        run.timers.insert(
            a.timer_id,
            Timer {
                started_event_id,
                fires_at,
            },
        );
        Ok(())
    }

    fn start_child(
        &mut self,
        run: &mut Run,
        a: d::StartChildWorkflowExecution,
    ) -> Result<(), Fault> {
        let request = StartRequest {
            task_list: a.task_list.clone(),
            task_priority: a.task_priority.clone(),
            execution_start_to_close_timeout: a.execution_start_to_close_timeout.clone(),
            task_start_to_close_timeout: a.task_start_to_close_timeout.clone(),
            child_policy: a.child_policy,
            lambda_role: a.lambda_role.clone(),
        };
        let resolved = resolve_start(self.eng.tx, self.domain, &a.workflow_type, request);
        // The order of the checks follows the cause table of spec §6.12.
        let cause = match &resolved {
            Err(e @ (StartError::TypeUnknown | StartError::TypeDeprecated)) => Some(e.cause()),
            _ if run.children.len() >= MAX_OPEN_PER_RUN => Some(Cause::OpenChildrenLimitExceeded),
            _ if self.eng.open_runs_full()? => Some(Cause::OpenWorkflowsLimitExceeded),
            Err(e) => Some(e.cause()),
            Ok(_) => None,
        };
        let config = match (cause, resolved) {
            (None, Ok(config)) => config,
            (cause, _) => {
                let event = attrs::StartChildWorkflowExecutionFailed {
                    workflow_type: a.workflow_type,
                    cause: cause.unwrap_or(Cause::WorkflowTypeDoesNotExist),
                    workflow_id: a.workflow_id,
                    // No Initiated event was recorded for these causes (spec §6.12).
                    initiated_event_id: 0,
                    decision_task_completed_event_id: self.completed,
                    control: a.control,
                };
                return self.failed(run, event.into());
            }
        };
        let tags = a.tag_list.unwrap_or_default();
        let event = attrs::StartChildWorkflowExecutionInitiated {
            workflow_id: a.workflow_id.clone(),
            workflow_type: a.workflow_type.clone(),
            control: a.control.clone(),
            input: a.input.clone(),
            execution_start_to_close_timeout: Some(config.execution_start_to_close_timeout.clone()),
            task_list: config.task_list.clone(),
            task_priority: Some(config.task_priority.clone()),
            decision_task_completed_event_id: self.completed,
            child_policy: config.child_policy,
            task_start_to_close_timeout: Some(config.task_start_to_close_timeout.clone()),
            tag_list: (!tags.is_empty()).then(|| tags.clone()),
            lambda_role: config.lambda_role.clone(),
        };
        let initiated = self.eng.record(run, event)?;
        run.children.insert(
            initiated,
            Child {
                workflow_id: a.workflow_id.clone(),
                workflow_type: a.workflow_type.clone(),
                control: a.control,
                decision_task_completed_event_id: self.completed,
                started: None,
            },
        );
        let new = NewRun {
            domain_name: run.domain_name.clone(),
            workflow_id: a.workflow_id,
            workflow_type: a.workflow_type,
            config,
            input: a.input,
            tags,
            parent: Some(Parent {
                seq: run.seq,
                execution: run.execution.clone(),
                initiated_event_id: initiated,
            }),
            continued_from: None,
        };
        self.eng.effect(Effect::StartChild {
            parent: run.seq,
            initiated,
            new: Box::new(new),
        });
        Ok(())
    }

    fn continue_as_new(
        &mut self,
        run: &mut Run,
        a: d::ContinueAsNewWorkflowExecution,
    ) -> Result<(), Fault> {
        let fail = |cause| attrs::ContinueAsNewWorkflowExecutionFailed {
            cause,
            decision_task_completed_event_id: self.completed,
        };
        if self.unhandled {
            return self.failed(run, fail(Cause::UnhandledDecision).into());
        }
        let workflow_type = crate::model::TypeName {
            name: run.workflow_type.name.clone(),
            version: a
                .workflow_type_version
                .clone()
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| run.workflow_type.version.clone()),
        };
        let request = StartRequest {
            task_list: a.task_list,
            task_priority: a.task_priority,
            execution_start_to_close_timeout: a.execution_start_to_close_timeout,
            task_start_to_close_timeout: a.task_start_to_close_timeout,
            child_policy: a.child_policy,
            lambda_role: a.lambda_role,
        };
        let config = match resolve_start(self.eng.tx, self.domain, &workflow_type, request) {
            Ok(config) => config,
            Err(e) => return self.failed(run, fail(e.cause()).into()),
        };
        let tags = a.tag_list.unwrap_or_default();
        let new = NewRun {
            domain_name: run.domain_name.clone(),
            workflow_id: run.execution.workflow_id.clone(),
            workflow_type: workflow_type.clone(),
            config: config.clone(),
            input: a.input.clone(),
            tags: tags.clone(),
            parent: run.parent.clone(),
            continued_from: Some(run.execution.run_id.clone()),
        };
        // The new run's id goes into the old run's last event, so the old run closes first
        // (freeing the workflow id) with an id chosen now.
        let new_run_id = new_run_id()?;
        let event = attrs::WorkflowExecutionContinuedAsNew {
            input: a.input,
            decision_task_completed_event_id: self.completed,
            new_execution_run_id: new_run_id.clone(),
            execution_start_to_close_timeout: Some(config.execution_start_to_close_timeout),
            task_list: config.task_list,
            task_priority: Some(config.task_priority),
            task_start_to_close_timeout: Some(config.task_start_to_close_timeout),
            child_policy: config.child_policy,
            tag_list: (!tags.is_empty()).then_some(tags),
            workflow_type,
            lambda_role: config.lambda_role,
        };
        let closing = Closing {
            status: CloseStatus::ContinuedAsNew,
            event: event.into(),
            outcome: None,
            child_policy: None,
        };
        close(self.eng, run, closing)?;
        self.eng.save(run)?;
        start_run(self.eng, new, Some(new_run_id)).map(drop)
    }
}
