//! The ScheduleLambdaFunction decision (spec §6.13).
//!
//! Weft runs Lambda functions only as Wasm modules bound to a function name in the domain
//! (`store::redb::tables::BINDINGS`), by the in-process function worker; the task waits in a queue
//! named after the function until that worker claims it (`engine::tasks`).

use crate::model::decisions::attrs as d;
use crate::model::events::{Cause, attrs};
use crate::model::{
    ItemKind, LAMBDA_DEFAULT_TIMEOUT, Lambda, Priority, Run, TaskKind, TaskState, Timeout,
};
use crate::store::{ItemWrites, StoreError};

use super::Batch;

/// Lambda tasks have no priority of their own: they go at the default one.
const PRIORITY: Option<Priority> = None;

impl Batch<'_, '_, '_> {
    pub(super) fn schedule_lambda(
        &mut self,
        run: &mut Run,
        a: d::ScheduleLambdaFunction,
    ) -> Result<(), StoreError> {
        // No IAM: a run without a `lambdaRole` may schedule functions too (spec §6.13 [REC]).
        // Only open functions hold their ids (spec §9 [REC]).
        let in_use = self.eng.tx.item_named(run.seq, ItemKind::Lambda, &a.id)?;
        let cause = if in_use.is_some() {
            Some(Cause::IdAlreadyInUse)
        } else if run.open.lambdas >= self.eng.max_open_per_run() {
            Some(Cause::OpenLambdaFunctionsLimitExceeded)
        } else if !self.eng.tx.function_bound(self.domain.id, &a.name)? {
            // [REC] Weft has no Lambda service: only functions bound as Wasm modules run.
            Some(Cause::LambdaServiceNotAvailableInRegion)
        } else {
            None
        };
        if let Some(cause) = cause {
            let event = attrs::ScheduleLambdaFunctionFailed {
                id: a.id,
                name: a.name,
                cause,
                decision_task_completed_event_id: self.completed,
            };
            return self.failed(run, event.into());
        }
        // Checked with the request: 1 to 900 seconds, or absent for the default.
        let start_to_close = a
            .start_to_close_timeout
            .and_then(Timeout::limit)
            .unwrap_or(LAMBDA_DEFAULT_TIMEOUT);
        let event = attrs::LambdaFunctionScheduled {
            id: a.id.clone(),
            name: a.name.clone(),
            control: a.control,
            input: a.input,
            // AWS records the timeout only when the decision gave one (recorded 2017).
            start_to_close_timeout: a.start_to_close_timeout,
            decision_task_completed_event_id: self.completed,
        };
        let scheduled = self.eng.record(run, event)?;
        let slot = self
            .eng
            .queue(run, TaskKind::Function, a.name.clone(), PRIORITY, scheduled)?;
        let lambda = Lambda {
            id: a.id,
            name: a.name,
            state: TaskState::Queued(slot),
            start_to_close,
            timeout_at: None,
        };
        self.eng.tx.add_item(run, scheduled, &lambda)
    }
}
