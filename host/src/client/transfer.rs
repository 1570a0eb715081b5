//! Reading runs out of any SWF endpoint (AWS's, another Weft) as `weft export` writes them and
//! `weft import` stores them, through SWF's own listings, describe and history; and storing a
//! run in Weft (`POST /v1/domains/{domain}/imports`).

use hyper::Method;
use serde_json::{Value, json};

use super::{Client, ClientError, ExportedHistory, ExportedRun, ImportAnswer, RunImport, encode};

/// Which runs a listing takes.
#[derive(Clone, Debug, Default)]
pub struct RunSelection {
    /// Closed runs.
    pub closed: bool,
    /// Open runs.
    pub open: bool,
    /// Only runs started at or after this time, in seconds since the epoch.
    pub since: Option<f64>,
    /// Only runs of this workflow type: its name and version.
    pub workflow_type: Option<(String, String)>,
}

impl Client {
    /// The `executionInfos` of the runs of `domain` that `selection` takes, oldest start first
    /// (so that a parent comes before its children), read page by page.
    pub async fn select_runs(
        &self,
        domain: &str,
        selection: &RunSelection,
    ) -> Result<Vec<Value>, ClientError> {
        let mut infos = Vec::new();
        let listings = [
            (selection.open, "ListOpenWorkflowExecutions"),
            (selection.closed, "ListClosedWorkflowExecutions"),
        ];
        for (wanted, operation) in listings {
            if !wanted {
                continue;
            }
            let mut input = json!({
                "domain": domain,
                "startTimeFilter": {"oldestDate": selection.since.unwrap_or(0.0)},
                "maximumPageSize": 1000,
            });
            if let Some((name, version)) = &selection.workflow_type {
                input["typeFilter"] = json!({"name": name, "version": version});
            }
            infos.extend(self.swf_pages(operation, input, "executionInfos").await?);
        }
        infos.sort_by(|a, b| {
            let start = |info: &Value| info["startTimestamp"].as_f64().unwrap_or(0.0);
            start(a).total_cmp(&start(b))
        });
        Ok(infos)
    }

    /// The run `execution` (`{"workflowId", "runId"}`) of `domain` as `weft export` writes it:
    /// its describe and its whole history.
    pub async fn export_run(
        &self,
        domain: &str,
        execution: &Value,
    ) -> Result<ExportedRun, ClientError> {
        let describe = json!({"domain": domain, "execution": execution});
        let describe = self.swf("DescribeWorkflowExecution", describe).await?;
        let history = json!({"domain": domain, "execution": execution, "maximumPageSize": 1000});
        let events = self.swf_pages("GetWorkflowExecutionHistory", history, "events");
        let events = events.await?;
        Ok(ExportedRun {
            describe,
            history: ExportedHistory { events },
        })
    }

    /// Stores `run` in `domain` as it was recorded; answers whether it was added (false: it
    /// was there already).
    pub async fn import_run(&self, domain: &str, run: &RunImport) -> Result<bool, ClientError> {
        let body = serde_json::to_vec(run).map_err(|e| self.protocol(e))?;
        let path = format!("/v1/domains/{}/imports", encode(domain));
        let answer: ImportAnswer = self
            .call(Method::POST, path, Some(("application/json", body)))
            .await?;
        Ok(answer.added)
    }
}

impl ExportedRun {
    /// The run's `{"workflowId", "runId"}`, from its describe.
    pub fn execution(&self) -> &Value {
        &self.describe["executionInfo"]["execution"]
    }

    /// What `POST /v1/domains/{domain}/imports` takes for this run.
    pub fn to_import(&self) -> Option<RunImport> {
        let execution = self.execution();
        Some(RunImport {
            workflow_id: execution["workflowId"].as_str()?.to_owned(),
            run_id: execution["runId"].as_str()?.to_owned(),
            events: self.history.events.clone(),
        })
    }

    /// The activity types its history schedules, as (name, version), without repeats.
    pub fn activity_types(&self) -> Vec<(String, String)> {
        let mut types: Vec<(String, String)> = (self.history.events.iter())
            .filter_map(|event| {
                let ty = &event["activityTaskScheduledEventAttributes"]["activityType"];
                Some((
                    ty["name"].as_str()?.to_owned(),
                    ty["version"].as_str()?.to_owned(),
                ))
            })
            .collect();
        types.sort();
        types.dedup();
        types
    }
}
