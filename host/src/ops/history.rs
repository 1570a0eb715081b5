//! DescribeWorkflowExecution and GetWorkflowExecutionHistory (spec §4.2), and the history pages
//! they share with PollForDecisionTask.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::clock::Timestamp;
use crate::fault::Fault;
use crate::model::{CloseStatus, ExecutionConfig, OpenCounts, Run, TypeName, WorkflowExecution};
use crate::store::{Cursor, HistoryPages, Reads};

use super::executions::existing_run;
use super::paging::page_size;
use super::stored_events::{StoredEvents, with_events};
use super::{Ctx, Service};

/// `WorkflowExecutionInfo`: a run as visibility calls list it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExecutionInfo {
    pub(crate) execution: WorkflowExecution,
    pub(crate) workflow_type: TypeName,
    pub(crate) start_timestamp: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) close_timestamp: Option<Timestamp>,
    pub(crate) execution_status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) close_status: Option<CloseStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) parent: Option<WorkflowExecution>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tag_list: Option<Vec<String>>,
    pub(crate) cancel_requested: bool,
}

impl ExecutionInfo {
    pub(super) fn new(run: Run) -> Self {
        ExecutionInfo {
            execution: run.execution,
            workflow_type: run.workflow_type,
            start_timestamp: run.started_at,
            close_timestamp: run.closed.map(|c| c.at),
            execution_status: if run.closed.is_some() {
                "CLOSED"
            } else {
                "OPEN"
            },
            close_status: run.closed.map(|c| c.status),
            parent: run.parent.map(|p| p.execution),
            tag_list: (!run.tags.is_empty()).then_some(run.tags),
            // AWS reports false for every closed run, canceled or not (recorded 2017).
            cancel_requested: run.cancel_requested && run.closed.is_none(),
        }
    }
}

/// The input of the calls that name one run.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DescribeInput {
    pub(crate) domain: String,
    pub(crate) execution: WorkflowExecution,
}

/// `WorkflowExecutionDetail`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExecutionDetail {
    pub(crate) execution_info: ExecutionInfo,
    pub(crate) execution_configuration: ExecutionConfig,
    pub(crate) open_counts: OpenCounts,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) latest_activity_task_timestamp: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) latest_execution_context: Option<String>,
}

/// DescribeWorkflowExecution: the run's state, configuration and open counts.
pub(crate) async fn describe(
    svc: &Service,
    ctx: &Ctx,
    input: DescribeInput,
) -> Result<ExecutionDetail, Fault> {
    let scope = ctx.scope.clone();
    let run = svc
        .store
        .read(move |tx| named(tx, &scope, &input.domain, &input.execution))
        .await?;
    Ok(ExecutionDetail::of(run))
}

impl ExecutionDetail {
    /// The run as DescribeWorkflowExecution answers.
    pub(crate) fn of(run: Run) -> Self {
        ExecutionDetail {
            execution_configuration: run.config.clone(),
            latest_activity_task_timestamp: run.latest_activity_task_at,
            latest_execution_context: run.latest_execution_context.clone(),
            open_counts: run.open_counts(),
            execution_info: ExecutionInfo::new(run),
        }
    }
}

/// `GetWorkflowExecutionHistoryInput`.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HistoryInput {
    pub(crate) domain: String,
    pub(crate) execution: WorkflowExecution,
    pub(crate) next_page_token: Option<String>,
    pub(crate) maximum_page_size: Option<i64>,
    #[serde(default)]
    pub(crate) reverse_order: bool,
}

/// `History`: a page of events, served as stored. Its body is [`HistoryOutput::to_json`]'s:
/// the derived `Serialize` writes the members beside the events.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HistoryOutput {
    #[serde(skip)]
    pub(crate) events: StoredEvents,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) next_page_token: Option<String>,
}

impl HistoryOutput {
    /// The answer's body.
    pub(crate) fn to_json(&self) -> Result<Vec<u8>, Fault> {
        with_events(Some(&self.events), self)
    }
}

/// GetWorkflowExecutionHistory: a page of a run's events, oldest first unless reversed.
pub(crate) async fn get_history(
    svc: &Service,
    ctx: &Ctx,
    input: HistoryInput,
) -> Result<HistoryOutput, Fault> {
    let query = (
        "GetWorkflowExecutionHistory",
        &input.domain,
        &input.execution,
        input.reverse_order,
    );
    let after: Option<u64> = svc.resume(input.next_page_token.as_deref(), &query)?;
    let cursor = Cursor {
        after,
        reverse: input.reverse_order,
        limit: page_size(input.maximum_page_size),
    };
    let scope = ctx.scope.clone();
    let (domain, execution) = (input.domain.clone(), input.execution.clone());
    let page = svc
        .store
        .read(move |tx| {
            let run = named(tx, &scope, &domain, &execution)?;
            Ok::<_, Fault>(tx.history(run.seq, 1, u64::MAX - 1, cursor)?)
        })
        .await?;
    let next_page_token = svc.next_page_token(&query, &page, |(id, _)| *id);
    Ok(HistoryOutput {
        events: StoredEvents::from_page(page),
        next_page_token,
    })
}

/// The run `execution` names in the caller's domain, open or closed.
fn named(
    tx: &dyn Reads,
    scope: &crate::model::Scope,
    domain: &str,
    execution: &WorkflowExecution,
) -> Result<Run, Fault> {
    let (workflow_id, run_id) = (&execution.workflow_id, &execution.run_id);
    Ok(existing_run(tx, scope, domain, workflow_id, run_id)?.1)
}

/// Every event of the run `seq`, oldest first, in wire JSON.
pub(crate) fn whole_history(tx: &dyn Reads, seq: u64) -> Result<Vec<Value>, Fault> {
    let mut events = Vec::new();
    let mut pages = HistoryPages::since(seq, 1);
    while let Some(page) = pages.next(tx)? {
        for (_, json) in &page {
            events.push(serde_json::from_slice(json).map_err(Fault::internal)?);
        }
    }
    Ok(events)
}
