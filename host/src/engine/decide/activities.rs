//! The activity decisions: ScheduleActivityTask and RequestCancelActivityTask (spec §6.1–6.2).

use crate::model::decisions::attrs as d;
use crate::model::events::{Cause, attrs};
use crate::model::{
    Activity, ActivityDue, ActivityKind, ItemKind, Priority, RegistrationStatus, Run, TaskKind,
    TaskList, TaskState, Timeout,
};
use crate::store::{Deadline, ItemReads, ItemWrites, StoreError, TypeReads};

use super::Batch;

impl Batch<'_, '_, '_> {
    pub(super) fn schedule_activity(
        &mut self,
        run: &mut Run,
        a: d::ScheduleActivityTask,
    ) -> Result<(), StoreError> {
        let r = match self.resolve_activity(run, &a)? {
            Ok(resolved) => resolved,
            Err(cause) => {
                let event = attrs::ScheduleActivityTaskFailed {
                    activity_type: a.activity_type,
                    activity_id: a.activity_id,
                    cause,
                    decision_task_completed_event_id: self.completed,
                };
                return self.failed(run, event.into());
            }
        };
        let event = attrs::ActivityTaskScheduled {
            activity_type: a.activity_type.clone(),
            activity_id: a.activity_id.clone(),
            input: a.input,
            control: a.control,
            schedule_to_start_timeout: Some(r.schedule_to_start),
            schedule_to_close_timeout: Some(r.schedule_to_close),
            start_to_close_timeout: Some(r.start_to_close),
            task_list: r.task_list.clone(),
            task_priority: r.priority,
            decision_task_completed_event_id: self.completed,
            heartbeat_timeout: Some(r.heartbeat),
        };
        let scheduled = self.eng.record(run, event)?;
        let slot = self.eng.queue(
            run,
            TaskKind::Activity,
            r.task_list.name,
            r.priority,
            scheduled,
        )?;
        let seq = run.seq;
        let mut arm = |kind, secs| self.eng.arm(seq, scheduled, kind, secs);
        let due = ActivityDue {
            schedule_to_start: arm(
                Deadline::ActivityScheduleToStart,
                r.schedule_to_start.limit(),
            )?,
            schedule_to_close: arm(
                Deadline::ActivityScheduleToClose,
                r.schedule_to_close.limit(),
            )?,
            ..ActivityDue::default()
        };
        let activity = Activity {
            activity_id: a.activity_id,
            activity_type: a.activity_type,
            state: TaskState::Queued(slot),
            cancel_requested_event_id: None,
            heartbeat_details: None,
            start_to_close: r.start_to_close.limit(),
            heartbeat: r.heartbeat.limit(),
            due,
        };
        self.eng.tx.add_item(run, scheduled, &activity)
    }

    /// What ScheduleActivityTask `a` resolves to against its type's defaults (spec §6.1), or
    /// the cause it fails with.
    fn resolve_activity(
        &self,
        run: &Run,
        a: &d::ScheduleActivityTask,
    ) -> Result<Result<ResolvedActivity, Cause>, StoreError> {
        let (name, version) = (&a.activity_type.name, &a.activity_type.version);
        let record = self
            .eng
            .tx
            .type_record::<ActivityKind>(self.domain, name, version)?;
        let Some(record) = record else {
            return Ok(Err(Cause::ActivityTypeDoesNotExist));
        };
        if record.status(self.domain) == RegistrationStatus::Deprecated {
            return Ok(Err(Cause::ActivityTypeDeprecated));
        }
        let tx = &*self.eng.tx;
        if tx
            .item_named(run.seq, ItemKind::Activity, &a.activity_id)?
            .is_some()
        {
            return Ok(Err(Cause::ActivityIdAlreadyInUse));
        }
        if run.open.activities >= self.eng.max_open_per_run() {
            return Ok(Err(Cause::OpenActivitiesLimitExceeded));
        }
        let defaults = record.config;
        let task_list = a.task_list.clone().filter(|l| !l.name.is_empty());
        let Some(task_list) = task_list.or(defaults.default_task_list) else {
            return Ok(Err(Cause::DefaultTaskListUndefined));
        };
        let Some(schedule_to_close) = a
            .schedule_to_close_timeout
            .or(defaults.default_task_schedule_to_close_timeout)
        else {
            return Ok(Err(Cause::DefaultScheduleToCloseTimeoutUndefined));
        };
        let Some(schedule_to_start) = a
            .schedule_to_start_timeout
            .or(defaults.default_task_schedule_to_start_timeout)
        else {
            return Ok(Err(Cause::DefaultScheduleToStartTimeoutUndefined));
        };
        let Some(start_to_close) = a
            .start_to_close_timeout
            .or(defaults.default_task_start_to_close_timeout)
        else {
            return Ok(Err(Cause::DefaultStartToCloseTimeoutUndefined));
        };
        // The model does not require the heartbeat timeout to resolve: unset means none (§6.1).
        let heartbeat = a
            .heartbeat_timeout
            .or(defaults.default_task_heartbeat_timeout)
            .unwrap_or(Timeout::None);
        Ok(Ok(ResolvedActivity {
            task_list,
            priority: a.task_priority.or(defaults.default_task_priority),
            schedule_to_start,
            schedule_to_close,
            start_to_close,
            heartbeat,
        }))
    }

    pub(super) fn cancel_activity(
        &mut self,
        run: &mut Run,
        a: d::RequestCancelActivityTask,
    ) -> Result<(), StoreError> {
        let found = self
            .eng
            .tx
            .named_item::<Activity>(run.seq, &a.activity_id)?;
        let Some((scheduled, mut activity)) = found else {
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
        activity.cancel_requested_event_id = Some(requested);
        self.eng.tx.update_item(run, scheduled, &activity)?;
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

/// A ScheduleActivityTask decision resolved against its type's defaults: what its
/// `ActivityTaskScheduled` event records.
struct ResolvedActivity {
    task_list: TaskList,
    priority: Option<Priority>,
    schedule_to_start: Timeout,
    schedule_to_close: Timeout,
    start_to_close: Timeout,
    heartbeat: Timeout,
}
