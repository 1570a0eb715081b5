//! PollForDecisionTask and RespondDecisionTaskCompleted (spec §4.4).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::{
    Claimed, Completion, DecisionClaim, Engine, HistoryAsk, TaskRef, complete_decision_task,
    pin_run, started_decision,
};
use crate::fault::{Fault, Violations};
use crate::model::{
    Empty, NoneAllowed, Pin, TaskKind, TaskList, TypeName, WorkflowExecution, decisions,
};
use crate::store::{About, Page, Reads};

use super::paging::page_size;
use super::polling::{long_poll, open_token, task_domain};
use super::stored_events::{StoredEvents, with_events};
use super::{Ctx, Service, known_domain};

/// `PollForDecisionTaskInput`.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PollInput {
    pub(crate) domain: String,
    pub(crate) task_list: TaskList,
    pub(crate) identity: Option<String>,
    pub(crate) next_page_token: Option<String>,
    pub(crate) maximum_page_size: Option<i64>,
    #[serde(default)]
    pub(crate) reverse_order: bool,
    #[serde(default)]
    pub(crate) start_at_previous_started_event: bool,
}

/// `DecisionTask`. With no task, only the two zeros are sent, as AWS does (spec §4.4). Its
/// body is [`DecisionTaskOutput::to_json`]'s: the derived `Serialize` writes the members beside
/// the events, in AWS's order (by name).
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DecisionTaskOutput {
    #[serde(skip)]
    pub(crate) events: Option<StoredEvents>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) next_page_token: Option<String>,
    pub(crate) previous_started_event_id: u64,
    pub(crate) started_event_id: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) task_token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) workflow_execution: Option<WorkflowExecution>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) workflow_type: Option<TypeName>,
    /// The decider module the run was pinned to as the task started: for the in-process
    /// worker that decides it, never on the wire.
    #[serde(skip)]
    pub(crate) pin: Option<String>,
}

impl DecisionTaskOutput {
    /// The answer's body.
    pub(crate) fn to_json(&self) -> Result<Vec<u8>, Fault> {
        with_events(self.events.as_ref(), self)
    }
}

/// Where a decision task's history page continues: the task, and the last event sent.
#[derive(Serialize, Deserialize)]
struct HistoryPosition {
    run: u64,
    scheduled: u64,
    started: u64,
    previous_started: u64,
    last_event: u64,
}

/// PollForDecisionTask: a decision task with (a page of) its history, or an empty answer after
/// the poll timeout. With a `nextPageToken`, the next history page of a task already delivered.
pub(crate) async fn poll(
    svc: &Service,
    ctx: &Ctx,
    input: PollInput,
) -> Result<DecisionTaskOutput, Fault> {
    let query = (
        "PollForDecisionTask",
        &input.domain,
        &input.task_list.name,
        input.reverse_order,
        input.start_at_previous_started_event,
    );
    if input.next_page_token.is_some() {
        let position: HistoryPosition = svc
            .resume(input.next_page_token.as_deref(), &query)?
            .ok_or_else(Fault::invalid_token)?;
        let scope = ctx.scope.clone();
        let domain = input.domain.clone();
        let (first, cursor) =
            history_ask(&input).bounds(position.previous_started, Some(position.last_event));
        // One snapshot for the run and the page: a long history is read in many pages.
        let (run, page) = svc
            .store
            .read(move |tx| {
                let domain = known_domain(tx, &scope, &domain)?;
                let run = tx
                    .run(position.run)?
                    .filter(|run| run.domain == domain.id)
                    .ok_or_else(Fault::invalid_token)?;
                let page = tx.history(position.run, first, position.started, cursor);
                Ok::<_, Fault>((run, page?))
            })
            .await?;
        let claim = DecisionClaim {
            task: TaskRef {
                kind: TaskKind::Decision,
                run: position.run,
                scheduled: position.scheduled,
                started: position.started,
            },
            pin: run.pin.map(|pin| pin.module),
            execution: run.execution,
            workflow_type: run.workflow_type,
            previous_started_event_id: position.previous_started,
            history: None,
        };
        return Ok(task_output(svc, &query, claim, page));
    }
    // The first page is read with the claim's commit.
    let claimed = long_poll(
        svc,
        ctx,
        input.domain.clone(),
        TaskKind::Decision,
        input.task_list.name.clone(),
        input.identity.clone(),
        Some(history_ask(&input)),
    )
    .await?;
    match claimed {
        Some(Claimed::Decision(mut claim)) => {
            let page = match claim.history.take().and_then(|cell| cell.take()) {
                Some(page) => page,
                None => {
                    let (first, cursor) =
                        history_ask(&input).bounds(claim.previous_started_event_id, None);
                    let (run, started) = (claim.task.run, claim.task.started);
                    let read = move |tx: &dyn Reads| tx.history(run, first, started, cursor);
                    svc.store.read(read).await?
                }
            };
            Ok(task_output(svc, &query, claim, page))
        }
        Some(Claimed::Activity(_) | Claimed::Function(_)) => {
            Err(Fault::internal("another kind of task on a decision list"))
        }
        None => Ok(DecisionTaskOutput::default()),
    }
}

/// Which events of a decision task's history the poll's pages hold: from event 1 (or from
/// the previous started event, if asked) up to the task's own start.
fn history_ask(input: &PollInput) -> HistoryAsk {
    HistoryAsk {
        from_previous_started: input.start_at_previous_started_event,
        reverse: input.reverse_order,
        limit: page_size(input.maximum_page_size),
    }
}

/// The answer for a delivered decision task with `page` of its history.
fn task_output(
    svc: &Service,
    query: &impl Serialize,
    claim: DecisionClaim,
    page: Page<(u64, Vec<u8>)>,
) -> DecisionTaskOutput {
    let task = claim.task;
    let previous = claim.previous_started_event_id;
    let next_page_token = svc.next_page_token(query, &page, |(id, _)| HistoryPosition {
        run: task.run,
        scheduled: task.scheduled,
        started: task.started,
        previous_started: previous,
        last_event: *id,
    });
    DecisionTaskOutput {
        previous_started_event_id: previous,
        started_event_id: task.started,
        task_token: Some(task.seal(&svc.sealer)),
        workflow_execution: Some(claim.execution),
        workflow_type: Some(claim.workflow_type),
        events: Some(StoredEvents::from_page(page)),
        next_page_token,
        pin: claim.pin,
    }
}

/// `RespondDecisionTaskCompletedInput`.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RespondInput {
    pub(crate) task_token: String,
    pub(crate) decisions: Option<Vec<Value>>,
    pub(crate) execution_context: Option<String>,
    pub(crate) task_list: Option<TaskList>,
    pub(crate) task_list_schedule_to_start_timeout: Option<String>,
}

/// RespondDecisionTaskCompleted: completes the started decision task and applies its decisions.
pub(crate) async fn respond_completed(
    svc: &Service,
    ctx: &Ctx,
    input: RespondInput,
) -> Result<Empty, Fault> {
    respond_completed_by(svc, ctx, input, None)
        .await
        .map(|_| Empty {})
}

/// How a decision task answered by a Wasm decider went.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Decided {
    /// Its decisions were applied.
    Applied,
    /// The run is pinned to another module now (an upgrade moved it while the task was
    /// decided), or the module that decided, which would pin it, was deleted meanwhile:
    /// nothing was applied, and the task is still started, to be decided again.
    Moved,
}

/// RespondDecisionTaskCompleted, with the Wasm decider module that decided, if one did: its
/// answer is applied only while the run is pinned to it, and pins a run not pinned yet.
pub(crate) async fn respond_completed_by(
    svc: &Service,
    ctx: &Ctx,
    input: RespondInput,
    decider: Option<String>,
) -> Result<Decided, Fault> {
    let decisions = decisions::parse(input.decisions.unwrap_or_default())?;
    let mut v = Violations::default();
    if let Some(list) = &input.task_list {
        v.name("taskList.name", &list.name);
    }
    let schedule_to_start = v.duration(
        "taskListScheduleToStartTimeout",
        decisions::given(&input.task_list_schedule_to_start_timeout),
        NoneAllowed::Yes,
    );
    v.finish()?;
    let task = open_token(svc, &input.task_token, TaskKind::Decision)?;
    let completion = Completion {
        decisions,
        execution_context: input.execution_context,
        task_list: input.task_list,
        task_list_schedule_to_start_timeout: schedule_to_start,
    };
    let scope = ctx.scope.clone();
    let setup = svc.engine_for(ctx);
    let by = decider.clone();
    let answered = svc
        .store
        .write_about(
            About::Run(task.run),
            move |tx| {
                let decider = by;
                let domain = task_domain(tx, &scope, task)?;
                let run = started_decision(tx, domain.id, task)?;
                if let Some(decider) = &decider {
                    let decides = match &run.pin {
                        Some(pin) => pin.module == *decider,
                        // Pinned only to a module that stays while the pin is written.
                        None => tx.module_kept(&scope.account, decider)?,
                    };
                    if !decides {
                        return Ok(Err(Decided::Moved));
                    }
                }
                Ok(Ok((domain, run)))
            },
            move |tx, checked| {
                let (domain, mut run) = match checked {
                    Ok(checked) => checked,
                    Err(moved) => return Ok(moved),
                };
                if let (None, Some(module)) = (&run.pin, decider) {
                    let at = tx.now();
                    let pin = Pin {
                        module,
                        at,
                        moved_from: None,
                    };
                    pin_run(tx, &mut run, pin)?;
                }
                let mut eng = Engine::new(tx, domain.id, &setup);
                complete_decision_task(&mut eng, &domain, &mut run, task, completion)?;
                eng.finish()?;
                Ok(Decided::Applied)
            },
        )
        .await;
    // Answered, or refused as no longer open: the task is held no more either way.
    if !matches!(answered, Ok(Decided::Moved)) {
        svc.idle.released(task);
    }
    answered
}
