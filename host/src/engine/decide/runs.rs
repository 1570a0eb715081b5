//! The decisions that start runs: StartChildWorkflowExecution and ContinueAsNewWorkflowExecution
//! (spec §6.6, §6.12).

use crate::model::decisions::attrs as d;
use crate::model::events::{Cause, attrs};
use crate::model::{BindingKind, Child, CloseStatus, ExecutionConfig, Parent, Pin, Run, TypeName};
use crate::store::{ItemWrites, StoreError};

use super::super::close::{Closing, close};
use super::super::effects::Effect;
use super::super::start::{NewRun, StartError, StartRequest, new_run_id, resolve_start, start_run};
use super::Batch;

impl Batch<'_, '_, '_> {
    pub(super) fn start_child(
        &mut self,
        run: &mut Run,
        a: d::StartChildWorkflowExecution,
    ) -> Result<(), StoreError> {
        let config = match self.resolve_child(run, &a)? {
            Ok(config) => config,
            Err(cause) => {
                let event = attrs::StartChildWorkflowExecutionFailed {
                    workflow_type: a.workflow_type,
                    cause,
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
            execution_start_to_close_timeout: Some(config.execution_start_to_close_timeout),
            task_list: config.task_list.clone(),
            task_priority: config.task_priority,
            decision_task_completed_event_id: self.completed,
            child_policy: config.child_policy,
            task_start_to_close_timeout: Some(config.task_start_to_close_timeout),
            tag_list: (!tags.is_empty()).then(|| tags.clone()),
            lambda_role: config.lambda_role.clone(),
        };
        let initiated = self.eng.record(run, event)?;
        let child = Child {
            workflow_id: a.workflow_id.clone(),
            workflow_type: a.workflow_type.clone(),
            control: a.control,
            decision_task_completed_event_id: self.completed,
            started: None,
        };
        self.eng.tx.add_item(run, initiated, &child)?;
        let pin = self.inherited_pin(run, &config.task_list.name)?;
        let new = NewRun {
            account: run.account.clone(),
            domain_name: run.domain_name.clone(),
            workflow_id: a.workflow_id,
            workflow_type: a.workflow_type,
            config,
            input: a.input,
            tags,
            retention_days: self.domain.retention_days(),
            parent: Some(Parent {
                seq: run.seq,
                execution: run.execution.clone(),
                initiated_event_id: initiated,
            }),
            continued_from: None,
            not_before: None,
            pin,
            schedule: None,
        };
        self.eng.effect(Effect::StartChild {
            parent: run.seq,
            initiated,
            new: Box::new(new),
        });
        Ok(())
    }

    /// The configuration the child of StartChildWorkflowExecution `a` will have, or the cause
    /// the decision fails with, checked in the order of spec §6.12's cause table.
    fn resolve_child(
        &self,
        run: &Run,
        a: &d::StartChildWorkflowExecution,
    ) -> Result<Result<ExecutionConfig, Cause>, StoreError> {
        let request = StartRequest {
            task_list: a.task_list.clone(),
            task_priority: a.task_priority,
            execution_start_to_close_timeout: a.execution_start_to_close_timeout,
            task_start_to_close_timeout: a.task_start_to_close_timeout,
            child_policy: a.child_policy,
            lambda_role: a.lambda_role.clone(),
        };
        let resolved = resolve_start(self.eng.tx, self.domain, &a.workflow_type, request)?;
        Ok(match resolved {
            Err(e @ (StartError::TypeUnknown | StartError::TypeDeprecated)) => Err(e.cause()),
            _ if run.open.children >= self.eng.max_open_per_run() => {
                Err(Cause::OpenChildrenLimitExceeded)
            }
            _ if self.eng.open_runs_full()? => Err(Cause::OpenWorkflowsLimitExceeded),
            Err(e) => Err(e.cause()),
            Ok(config) => Ok(config),
        })
    }

    pub(super) fn continue_as_new(
        &mut self,
        run: &mut Run,
        a: d::ContinueAsNewWorkflowExecution,
    ) -> Result<(), StoreError> {
        let fail = |cause| attrs::ContinueAsNewWorkflowExecutionFailed {
            cause,
            decision_task_completed_event_id: self.completed,
        };
        if self.unhandled {
            return self.failed(run, fail(Cause::UnhandledDecision).into());
        }
        let workflow_type = TypeName {
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
        let config = match resolve_start(self.eng.tx, self.domain, &workflow_type, request)? {
            Ok(config) => config,
            Err(e) => return self.failed(run, fail(e.cause()).into()),
        };
        let tags = a.tag_list.unwrap_or_default();
        let pin = self.inherited_pin(run, &config.task_list.name)?;
        let new = NewRun {
            account: run.account.clone(),
            domain_name: run.domain_name.clone(),
            workflow_id: run.execution.workflow_id.clone(),
            workflow_type: workflow_type.clone(),
            config: config.clone(),
            input: a.input.clone(),
            tags: tags.clone(),
            retention_days: self.domain.retention_days(),
            parent: run.parent.clone(),
            continued_from: Some(run.execution.run_id.clone()),
            not_before: None,
            pin,
            schedule: run.schedule,
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
            task_priority: config.task_priority,
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
        let new = NewRun {
            not_before: run.last_event_at,
            ..new
        };
        start_run(self.eng, new, Some(new_run_id)).map(drop)
    }

    /// The pin a run that `run` starts with its decision tasks on `list` begins with: `run`'s
    /// module, when `list`'s decision binding inherits pins and has that module among its
    /// versions; else none, and the new run is pinned by the module that decides its first task.
    fn inherited_pin(&mut self, run: &Run, list: &str) -> Result<Option<Pin>, StoreError> {
        let Some(pin) = &run.pin else {
            return Ok(None);
        };
        let binding = self
            .eng
            .tx
            .binding(run.domain, BindingKind::Decision, list)?;
        let inherits =
            binding.is_some_and(|b| b.inherit_pin && b.version_of(&pin.module).is_some());
        Ok(inherits.then(|| Pin {
            module: pin.module.clone(),
            at: self.eng.tx.now(),
            moved_from: None,
        }))
    }
}
