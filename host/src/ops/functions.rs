//! Lambda function tasks, which only in-process workers serve: SWF has no operation to poll for
//! them. The same long poll and writer path as the two task polls, so each task is claimed once.

use crate::engine::{
    Claimed, Engine, FunctionClaim, LambdaOutcome, TaskRef, closable_lambda, close_lambda,
};
use crate::fault::Fault;
use crate::model::TaskKind;

use super::polling::{long_poll, task_domain};
use super::{Ctx, Service};

/// Waits up to the poll timeout for a task of function `name` in `domain`.
pub(crate) async fn poll(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    name: String,
) -> Result<Option<FunctionClaim>, Fault> {
    match long_poll(svc, ctx, domain, TaskKind::Function, name, None, None).await? {
        Some(Claimed::Function(claim)) => Ok(Some(claim)),
        Some(_) => Err(Fault::internal(
            "another kind of task in a function's queue",
        )),
        None => Ok(None),
    }
}

/// Records how the function task `task` ended.
pub(crate) async fn close(
    svc: &Service,
    ctx: &Ctx,
    task: TaskRef,
    outcome: LambdaOutcome,
) -> Result<(), Fault> {
    let scope = ctx.scope.clone();
    let setup = svc.engine.clone();
    svc.store
        .write(
            move |tx| {
                let domain = task_domain(tx, &scope, task)?;
                let run = closable_lambda(tx, domain.id, task, &outcome)?;
                Ok((domain.id, run, outcome))
            },
            move |tx, (domain, run, outcome)| {
                let mut eng = Engine::new(tx, domain, &setup);
                close_lambda(&mut eng, run, task, outcome)?;
                eng.finish()
            },
        )
        .await
}
