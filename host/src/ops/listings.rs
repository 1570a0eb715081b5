//! List/Count Open/Closed WorkflowExecutions and CountPending{Decision,Activity}Tasks (spec §4.2,
//! §8.13).

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::fault::Fault;
use crate::model::{CloseStatus, TaskKind, TaskList};
use crate::store::{Cursor, Filter, Listing};

use super::history::ExecutionInfo;
use super::paging::page_size;
use super::{Ctx, Service, known_domain};

/// `ExecutionTimeFilter`.
#[derive(Clone, Copy, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct TimeFilter {
    oldest_date: Timestamp,
    latest_date: Option<Timestamp>,
}

/// `WorkflowExecutionFilter`.
#[derive(Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct ExecutionFilter {
    workflow_id: String,
}

/// `WorkflowTypeFilter`.
#[derive(Clone, Deserialize, Serialize)]
struct TypeFilter {
    name: String,
    version: Option<String>,
}

/// `TagFilter`.
#[derive(Clone, Deserialize, Serialize)]
struct TagFilter {
    tag: String,
}

/// `CloseStatusFilter`.
#[derive(Clone, Copy, Deserialize, Serialize)]
struct CloseStatusFilter {
    status: CloseStatus,
}

/// The filters of the four List/Count calls.
#[derive(Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Filters {
    domain: String,
    start_time_filter: Option<TimeFilter>,
    close_time_filter: Option<TimeFilter>,
    execution_filter: Option<ExecutionFilter>,
    type_filter: Option<TypeFilter>,
    tag_filter: Option<TagFilter>,
    close_status_filter: Option<CloseStatusFilter>,
}

impl Filters {
    /// Checks SWF's exclusions and picks the listing and time range to read (spec §4.2).
    fn plan(&mut self, closed: bool) -> Result<(Listing, (Timestamp, Timestamp)), Fault> {
        if !closed {
            // Members the open calls do not have.
            self.close_time_filter = None;
            self.close_status_filter = None;
        }
        let exclusive = [
            self.execution_filter.is_some(),
            self.type_filter.is_some(),
            self.tag_filter.is_some(),
            self.close_status_filter.is_some(),
        ];
        if exclusive.iter().filter(|set| **set).count() > 1 {
            return Err(Fault::Validation(if closed {
                "Only one of closeStatusFilter, executionFilter, typeFilter or tagFilter can be \
                 specified"
                    .into()
            } else {
                "Only one of executionFilter, typeFilter or tagFilter can be specified".into()
            }));
        }
        let (listing, time) = match (closed, self.start_time_filter, self.close_time_filter) {
            (false, Some(start), _) => (Listing::Open, start),
            (true, Some(start), None) => (Listing::ClosedByStart, start),
            (true, None, Some(close)) => (Listing::ClosedByClose, close),
            (true, Some(_), Some(_)) => {
                return Err(Fault::Validation(
                    "Only one of startTimeFilter or closeTimeFilter can be specified".into(),
                ));
            }
            _ => {
                return Err(Fault::Validation(if closed {
                    "One of startTimeFilter or closeTimeFilter must be specified".into()
                } else {
                    "startTimeFilter must be specified".into()
                }));
            }
        };
        let latest = time
            .latest_date
            .unwrap_or(Timestamp::from_millis(i64::MAX - 1));
        Ok((listing, (time.oldest_date, latest)))
    }

    /// The one non-time filter given, if any ([`Filters::plan`] has refused more than one).
    fn filter(&self) -> Filter<'_> {
        if let Some(f) = &self.execution_filter {
            Filter::WorkflowId(&f.workflow_id)
        } else if let Some(f) = &self.type_filter {
            match f.version.as_deref().filter(|v| !v.is_empty()) {
                Some(version) => Filter::Type(&f.name, version),
                None => Filter::TypeName(&f.name),
            }
        } else if let Some(f) = &self.tag_filter {
            Filter::Tag(&f.tag)
        } else if let Some(f) = self.close_status_filter {
            Filter::CloseStatus(f.status)
        } else {
            Filter::All
        }
    }
}

/// `List{Open,Closed}WorkflowExecutionsInput`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListInput {
    #[serde(flatten)]
    filters: Filters,
    next_page_token: Option<String>,
    maximum_page_size: Option<i64>,
    #[serde(default)]
    reverse_order: bool,
}

/// `WorkflowExecutionInfos`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExecutionInfos {
    execution_infos: Vec<ExecutionInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_page_token: Option<String>,
}

/// `WorkflowExecutionCount` and `PendingTaskCount`: exact counts, so never truncated; AWS sends
/// `"truncated": false` all the same.
#[derive(Serialize)]
pub(crate) struct CountOutput {
    count: u64,
    truncated: bool,
}

impl CountOutput {
    fn exact(count: u64) -> Self {
        CountOutput {
            count,
            truncated: false,
        }
    }
}

/// ListOpenWorkflowExecutions: newest start first unless reversed.
pub(crate) async fn list_open(
    svc: &Service,
    ctx: &Ctx,
    input: ListInput,
) -> Result<ExecutionInfos, Fault> {
    list(svc, ctx, input, false).await
}

/// ListClosedWorkflowExecutions: newest start (or close) first unless reversed.
pub(crate) async fn list_closed(
    svc: &Service,
    ctx: &Ctx,
    input: ListInput,
) -> Result<ExecutionInfos, Fault> {
    list(svc, ctx, input, true).await
}

async fn list(
    svc: &Service,
    ctx: &Ctx,
    mut input: ListInput,
    closed: bool,
) -> Result<ExecutionInfos, Fault> {
    let (listing, range) = input.filters.plan(closed)?;
    let query = (closed, &input.filters, input.reverse_order);
    let after: Option<(i64, u64)> = svc.resume(input.next_page_token.as_deref(), &query)?;
    let cursor = Cursor {
        after,
        // Listings read newest first by default.
        reverse: !input.reverse_order,
        limit: page_size(input.maximum_page_size),
    };
    let scope = ctx.scope.clone();
    let filters = input.filters.clone();
    let page = svc
        .store
        .read(move |tx| {
            let domain = known_domain(tx, &scope, &filters.domain)?;
            Ok::<_, Fault>(tx.listed_runs(domain.id, listing, &filters.filter(), range, cursor)?)
        })
        .await?;
    let next_page_token = svc.next_page_token(&query, &page, |run| {
        let time = match listing {
            Listing::ClosedByClose => run.closed.map_or(run.started_at, |c| c.at),
            _ => run.started_at,
        };
        (time.as_millis(), run.seq)
    });
    Ok(ExecutionInfos {
        execution_infos: page.items.into_iter().map(ExecutionInfo::new).collect(),
        next_page_token,
    })
}

/// CountOpenWorkflowExecutions.
pub(crate) async fn count_open(
    svc: &Service,
    ctx: &Ctx,
    filters: Filters,
) -> Result<CountOutput, Fault> {
    count(svc, ctx, filters, false).await
}

/// CountClosedWorkflowExecutions.
pub(crate) async fn count_closed(
    svc: &Service,
    ctx: &Ctx,
    filters: Filters,
) -> Result<CountOutput, Fault> {
    count(svc, ctx, filters, true).await
}

async fn count(
    svc: &Service,
    ctx: &Ctx,
    mut filters: Filters,
    closed: bool,
) -> Result<CountOutput, Fault> {
    let (listing, range) = filters.plan(closed)?;
    let scope = ctx.scope.clone();
    svc.store
        .read_long(move |tx| {
            let domain = known_domain(tx, &scope, &filters.domain)?;
            let count = tx.count_listed(domain.id, listing, &filters.filter(), range)?;
            Ok(CountOutput::exact(count))
        })
        .await
}

/// `CountPending{Decision,Activity}TasksInput`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PendingInput {
    domain: String,
    task_list: TaskList,
}

/// CountPendingDecisionTasks: decision tasks on the list that a poller could take now. A task
/// scheduled while another of its run is started is not on the list until that one ends
/// (spec §8.2 rule 4), so it is not counted.
pub(crate) async fn count_pending_decisions(
    svc: &Service,
    ctx: &Ctx,
    input: PendingInput,
) -> Result<CountOutput, Fault> {
    count_pending(svc, ctx, input, TaskKind::Decision).await
}

/// CountPendingActivityTasks: activity tasks scheduled and not yet started on the list.
pub(crate) async fn count_pending_activities(
    svc: &Service,
    ctx: &Ctx,
    input: PendingInput,
) -> Result<CountOutput, Fault> {
    count_pending(svc, ctx, input, TaskKind::Activity).await
}

async fn count_pending(
    svc: &Service,
    ctx: &Ctx,
    input: PendingInput,
    kind: TaskKind,
) -> Result<CountOutput, Fault> {
    let scope = ctx.scope.clone();
    svc.store
        .read_long(move |tx| {
            let domain = known_domain(tx, &scope, &input.domain)?;
            let count = tx.pending_tasks(domain.id, kind, &input.task_list.name)?;
            Ok(CountOutput::exact(count))
        })
        .await
}
