//! The failures of in-process guests on one run (`GET /v1/domains/{domain}/workflows/
//! {workflowId}/runs/{runId}/failures`): what `weft workflow describe` and the console show
//! when a run is stuck because its decider or worker keeps failing.

use crate::fault::Fault;
use crate::model::{RunFailure, RunId, WorkflowId};

use super::executions::existing_run;
use super::{Ctx, Service};

/// How many of a run's failures are shown, newest kept.
pub(crate) const SHOWN: usize = 10;

/// The latest failures of the domain's bound guests on the run `workflow_id`/`run_id`, oldest
/// first: `UnknownResourceFault` if there is no such run.
pub(crate) async fn run_failures(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    workflow_id: WorkflowId,
    run_id: RunId,
) -> Result<Vec<RunFailure>, Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .read(move |tx| {
            let (domain, _) = existing_run(tx, &scope, &domain, &workflow_id, &run_id)?;
            let mut failures = Vec::new();
            for (_, binding) in tx.bindings(Some(domain))? {
                let log = tx.guest_failures(domain, binding.kind, &binding.name)?;
                failures.extend(
                    log.into_iter()
                        .filter(|f| f.run_id == *run_id && f.workflow_id == *workflow_id)
                        .map(|failure| RunFailure {
                            kind: binding.kind,
                            binding: binding.name.clone(),
                            failure,
                        }),
                );
            }
            failures.sort_by_key(|f| f.failure.at);
            let skipped = failures.len().saturating_sub(SHOWN);
            Ok(failures.split_off(skipped))
        })
        .await
}
