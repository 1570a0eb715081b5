//! The activity decisions: ScheduleActivityTask and RequestCancelActivityTask (spec §6.1–6.2).

use crate::model::decisions::{attrs as d, given};
use crate::model::events::{Cause, attrs};
use crate::model::{
    Activity, ActivityDue, ActivityKind, RegistrationStatus, Run, TaskState, Timeout,
};
use crate::store::{Deadline, StoreError, TaskKind, TypeReads};

use super::Batch;

impl Batch<'_, '_, '_> {
    pub(super) fn schedule_activity(
        &mut self,
        run: &mut Run,
        a: d::ScheduleActivityTask,
    ) -> Result<(), StoreError> {
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
        } else if run.activities.len() >= self.eng.max_open_per_run() {
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
        let priority = or_default(&a.task_priority, defaults.default_task_priority);
        let limits = (
            Timeout::seconds(&schedule_to_start),
            Timeout::seconds(&schedule_to_close),
            Timeout::seconds(&start_to_close),
            Timeout::seconds(&heartbeat),
        );
        let event = attrs::ActivityTaskScheduled {
            activity_type: a.activity_type.clone(),
            activity_id: a.activity_id.clone(),
            input: a.input,
            control: a.control,
            schedule_to_start_timeout: Some(schedule_to_start),
            schedule_to_close_timeout: Some(schedule_to_close),
            start_to_close_timeout: Some(start_to_close),
            task_list: task_list.clone(),
            task_priority: priority.clone(),
            decision_task_completed_event_id: self.completed,
            heartbeat_timeout: Some(heartbeat),
        };
        let scheduled = self.eng.record(run, event)?;
        let slot = self.eng.queue(
            run,
            TaskKind::Activity,
            task_list.name,
            priority.as_deref(),
            scheduled,
        )?;
        let seq = run.seq;
        let due = ActivityDue {
            schedule_to_start: self.eng.arm(
                seq,
                scheduled,
                Deadline::ActivityScheduleToStart,
                limits.0,
            )?,
            schedule_to_close: self.eng.arm(
                seq,
                scheduled,
                Deadline::ActivityScheduleToClose,
                limits.1,
            )?,
            ..ActivityDue::default()
        };
        run.activities.insert(
            scheduled,
            Activity {
                activity_id: a.activity_id,
                activity_type: a.activity_type,
                state: TaskState::Queued(slot),
                cancel_requested_event_id: None,
                heartbeat_details: None,
                start_to_close: limits.2,
                heartbeat: limits.3,
                due,
            },
        );
        Ok(())
    }

    pub(super) fn cancel_activity(
        &mut self,
        run: &mut Run,
        a: d::RequestCancelActivityTask,
    ) -> Result<(), StoreError> {
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
        if activity.state.slot().is_some() {
            self.eng.drop_activity(run, scheduled)?;
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
}
