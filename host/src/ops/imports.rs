//! Importing runs recorded elsewhere (`POST /v1/domains/{domain}/imports`, `weft import`): one
//! run per request, checked against SWF's rules, stored exactly as recorded
//! ([`crate::engine::import_run`]).

use std::sync::Arc;

use crate::check::check_history;
use crate::engine::{Engine, Imported, import_run};
use crate::fault::{Fault, echo};
use crate::model::events::HistoryEvent;
use crate::model::{ImportAnswer, RunImport, WorkflowExecution};

use super::{Ctx, Service, known_domain};

/// Stores the run `input` describes in `domain`, unless a run of its ids is there already.
pub(crate) async fn import(
    svc: &Service,
    ctx: &Ctx,
    domain: String,
    input: RunImport,
) -> Result<ImportAnswer, Fault> {
    let (execution, events) = checked(input)?;
    let events = Arc::new(events);
    let scope = ctx.scope.clone();
    let account = scope.account.clone();
    let setup = svc.engine_for(ctx);
    let imported = svc
        .store
        .write(
            move |tx| known_domain(tx, &scope, &domain),
            move |tx, domain| {
                let mut eng = Engine::new(tx, domain.id, &setup);
                let imported = import_run(&mut eng, &domain, account, execution, &events)?;
                eng.finish()?;
                Ok(imported)
            },
        )
        .await??;
    Ok(ImportAnswer {
        added: imported == Imported::Added,
    })
}

/// `input`'s run and events, if its history keeps the rules every history keeps (the model's
/// shapes and SWF's limits are the API's to check, before this).
fn checked(input: RunImport) -> Result<(WorkflowExecution, Vec<HistoryEvent>), Fault> {
    let named = format!("{}/{}", echo(&input.workflow_id), echo(&input.run_id));
    let problems = check_history(&input.events);
    if let Some(first) = problems.first() {
        return Err(Fault::Validation(format!(
            "The history of {named} breaks SWF's rules in {} place(s), the first: {first}",
            problems.len()
        )));
    }
    let events = (input.events.into_iter())
        .map(serde_json::from_value)
        .collect::<Result<_, _>>()
        .map_err(|e| Fault::Validation(format!("An event of {named} is not SWF's: {e}")))?;
    let execution = WorkflowExecution {
        workflow_id: input.workflow_id.into(),
        run_id: input.run_id.into(),
    };
    Ok((execution, events))
}
