//! Reading runs out of any SWF endpoint (AWS's, another Weft) as `weft export` writes them and
//! `weft import` stores them, through SWF's own listings, describe and history; and storing a
//! run in Weft (`POST /v1/domains/{domain}/imports`).

use crate::model::routes;
use hyper::Method;
use serde_json::{Value, json};

use super::{Client, ClientError, ExportedHistory, ExportedRun, ImportAnswer, RunImport};

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
        let path = routes::fill(routes::IMPORTS, &[domain]);
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

    /// The types its history runs, as (whether a workflow type, name, version), without
    /// repeats: its own, the activities it schedules, the children it starts and the run it
    /// continues as. (Not the types of refused decisions: those may never have been
    /// registered.)
    pub fn types_run(&self) -> Vec<(bool, String, String)> {
        const RUN: [(&str, &str, bool); 4] = [
            (
                "workflowExecutionStartedEventAttributes",
                "workflowType",
                true,
            ),
            (
                "activityTaskScheduledEventAttributes",
                "activityType",
                false,
            ),
            (
                "startChildWorkflowExecutionInitiatedEventAttributes",
                "workflowType",
                true,
            ),
            (
                "workflowExecutionContinuedAsNewEventAttributes",
                "workflowType",
                true,
            ),
        ];
        let mut types: Vec<(bool, String, String)> = (self.history.events.iter())
            .flat_map(|event| {
                RUN.iter()
                    .filter_map(move |(attributes, member, workflow)| {
                        let ty = event.get(*attributes)?.get(*member)?;
                        let (name, version) = (ty["name"].as_str()?, ty["version"].as_str()?);
                        Some((*workflow, name.to_owned(), version.to_owned()))
                    })
            })
            .collect();
        types.sort();
        types.dedup();
        types
    }
}

impl RunImport {
    /// Why the server would refuse this run whatever it holds already (the model's shapes,
    /// SWF's default limit on events, the rules every history keeps), checked here with the
    /// server's own code: `weft import` asks it before it registers anything for the run. (A
    /// server configured with a lower event limit refuses more.)
    pub fn problem(&self) -> Option<String> {
        let mut run = self.clone();
        let most = crate::config::Limits::default().max_events_per_run;
        if let Err(fault) = crate::api::imports::check_shapes(&mut run, most) {
            return Some(fault.client_message());
        }
        let problems = crate::check::check_history(&run.events);
        let first = problems.first()?;
        Some(format!(
            "its history breaks SWF's rules in {} place(s), the first: {first}",
            problems.len()
        ))
    }
}
