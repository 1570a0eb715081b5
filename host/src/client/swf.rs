//! SWF's own operations (AWS JSON 1.0 on `/`, as every AWS SDK sends them), for the `weft
//! domain`, `type` and `workflow` commands. Inputs and outputs are SWF's JSON shapes as
//! `service-2.json` defines them, kept as [`Value`]s: the CLI passes them through or prints a
//! few members.

use hyper::Method;
use serde_json::{Value, json};

use super::{Client, ClientError, Exchange};

/// The content type of AWS JSON 1.0.
const AWS_JSON: &str = "application/x-amz-json-1.0";

/// A page of a run's history: its events and the token of the next page, if any.
pub struct HistoryPage {
    /// The events, in the order asked for.
    pub events: Vec<Value>,
    /// Where the next page starts.
    pub next_page_token: Option<String>,
}

impl Client {
    /// Calls the SWF operation `operation` (such as `RegisterDomain`) with `input`; answers
    /// its output (`{}` for the operations that have none).
    pub async fn swf(&self, operation: &str, input: Value) -> Result<Value, ClientError> {
        let body = serde_json::to_vec(&input).map_err(|e| self.protocol(e))?;
        let exchange = Exchange {
            target: Some(format!("SimpleWorkflowService.{operation}")),
            ..Exchange::new(Method::POST, "/".into())
        };
        self.call_with(exchange, Some((AWS_JSON, body))).await
    }

    /// Every item under `key` of every page `operation` answers for `input`, following
    /// `nextPageToken`.
    pub async fn swf_pages(
        &self,
        operation: &str,
        mut input: Value,
        key: &str,
    ) -> Result<Vec<Value>, ClientError> {
        let mut items = Vec::new();
        loop {
            let mut page = self.swf(operation, input.clone()).await?;
            if let Value::Array(more) = page[key].take() {
                items.extend(more);
            }
            match page["nextPageToken"].take() {
                Value::String(token) => input["nextPageToken"] = json!(token),
                _ => return Ok(items),
            }
        }
    }

    /// The run id of the newest run of `workflow_id` in `domain`: the open one if there is
    /// one, else the latest closed.
    pub async fn latest_run(&self, domain: &str, workflow_id: &str) -> Result<String, ClientError> {
        let filter = json!({
            "domain": domain,
            "executionFilter": {"workflowId": workflow_id},
            "startTimeFilter": {"oldestDate": 0},
            "maximumPageSize": 1,
        });
        for operation in ["ListOpenWorkflowExecutions", "ListClosedWorkflowExecutions"] {
            let page = self.swf(operation, filter.clone()).await?;
            let run = page["executionInfos"][0]["execution"]["runId"].as_str();
            if let Some(run) = run {
                return Ok(run.to_owned());
            }
        }
        Err(ClientError::Refused {
            status: 400,
            code: "UnknownResourceFault".into(),
            message: format!("no run of workflow {workflow_id:?} in domain {domain:?}"),
        })
    }

    /// One page of a run's history, oldest first (or newest first if `reverse`).
    pub async fn history_page(
        &self,
        domain: &str,
        execution: &Value,
        next_page_token: Option<&str>,
        reverse: bool,
    ) -> Result<HistoryPage, ClientError> {
        let mut input = json!({
            "domain": domain,
            "execution": execution,
            "reverseOrder": reverse,
        });
        if let Some(token) = next_page_token {
            input["nextPageToken"] = json!(token);
        }
        let mut page = self.swf("GetWorkflowExecutionHistory", input).await?;
        let events = match page["events"].take() {
            Value::Array(events) => events,
            _ => Vec::new(),
        };
        let next_page_token = page["nextPageToken"].as_str().map(str::to_owned);
        Ok(HistoryPage {
            events,
            next_page_token,
        })
    }

    /// The event that closed the run, or `None` while it is open.
    pub async fn closing_event(
        &self,
        domain: &str,
        execution: &Value,
    ) -> Result<Option<Value>, ClientError> {
        let input = json!({
            "domain": domain,
            "execution": execution,
            "reverseOrder": true,
            "maximumPageSize": 1,
        });
        let mut page = self.swf("GetWorkflowExecutionHistory", input).await?;
        let last = page["events"][0].take();
        Ok(Some(last).filter(is_closing))
    }
}

/// The execution `{workflowId, runId}` as SWF's shapes name it.
pub fn execution(workflow_id: &str, run_id: &str) -> Value {
    json!({"workflowId": workflow_id, "runId": run_id})
}

/// Whether `event` is one of the events that close a run.
pub fn is_closing(event: &Value) -> bool {
    matches!(
        event["eventType"].as_str(),
        Some(
            "WorkflowExecutionCompleted"
                | "WorkflowExecutionFailed"
                | "WorkflowExecutionCanceled"
                | "WorkflowExecutionTerminated"
                | "WorkflowExecutionTimedOut"
                | "WorkflowExecutionContinuedAsNew"
        )
    )
}

/// The attributes of `event` (the member named for its type, such as
/// `activityTaskScheduledEventAttributes`), or `null`.
pub fn attributes(event: &Value) -> &Value {
    let Some(kind) = event["eventType"].as_str() else {
        return &Value::Null;
    };
    let name = crate::model::events::event_attributes_member(kind);
    event.get(&name).unwrap_or(&Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_found_by_the_event_type() {
        let event = json!({
            "eventType": "WorkflowExecutionCompleted",
            "workflowExecutionCompletedEventAttributes": {"result": "Hello"},
        });
        assert_eq!(attributes(&event)["result"], "Hello");
        assert!(is_closing(&event));
        let timer = json!({"eventType": "TimerStarted"});
        assert_eq!(attributes(&timer), &Value::Null);
        assert!(!is_closing(&timer));
    }
}
