//! `[[schedule]]` in `weft-app.toml`: a schedule of the project's domain, made or changed by
//! `weft apply` (see docs/schedules.md).

use serde::Deserialize;
use weft_host::client::{
    Overlap, ScheduleDefinition, ScheduleSpec, StartAction, Timestamp, TypeRef, check_schedule,
};

use crate::clock::duration;

/// A `[[schedule]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) struct ScheduleEntry {
    /// The schedule's id.
    pub(crate) id: String,
    /// The workflow type each run starts, as `NAME:VERSION`.
    #[serde(rename = "type")]
    pub(crate) workflow_type: String,
    /// A run every this long (`30s`, `5m`, `1h`, `1d`).
    pub(crate) every: Option<String>,
    /// The --every times shifted by this long.
    pub(crate) offset: Option<String>,
    /// Cron expressions (minute hour day-of-month month day-of-week).
    #[serde(default)]
    pub(crate) cron: Vec<String>,
    /// The IANA time zone of the cron expressions (default UTC).
    pub(crate) time_zone: Option<String>,
    /// skip, buffer-one, buffer-all, cancel-other, terminate-other or allow-all.
    pub(crate) overlap: Option<String>,
    /// The runs' input.
    pub(crate) input: Option<String>,
    /// The runs' decision task list (default: the type's).
    pub(crate) task_list: Option<String>,
    /// The time a run may take (default: the type's).
    pub(crate) execution_timeout: Option<String>,
    /// The time a decision task may take (default: the type's).
    pub(crate) task_timeout: Option<String>,
    /// `TERMINATE`, `REQUEST_CANCEL` or `ABANDON` (default: the type's).
    pub(crate) child_policy: Option<String>,
    /// The runs' tags.
    #[serde(default)]
    pub(crate) tags: Vec<String>,
    /// The runs' task priority (default: the type's).
    pub(crate) priority: Option<i32>,
    /// The IAM role the runs' Lambda functions are invoked with.
    pub(crate) lambda_role: Option<String>,
    /// How late a time may be acted on after downtime (default 60s).
    pub(crate) catchup_window: Option<String>,
    /// Each run starts up to this much after its time.
    pub(crate) jitter: Option<String>,
    /// Runs it starts at most.
    pub(crate) limit: Option<u64>,
    /// No time before this (RFC 3339).
    pub(crate) start_at: Option<String>,
    /// No time after this (RFC 3339).
    pub(crate) end_at: Option<String>,
}

impl ScheduleEntry {
    /// The definition the server is sent, or what is wrong with the entry.
    pub(crate) fn definition(&self) -> Result<ScheduleDefinition, String> {
        let problem = |e: String| format!("schedule {}: {e}", self.id);
        let secs = |text: &Option<String>| text.as_deref().map(duration).transpose();
        let time = |text: &Option<String>| text.as_deref().map(instant).transpose();
        let (name, version) = (self.workflow_type.split_once(':'))
            .filter(|(n, v)| !n.is_empty() && !v.is_empty())
            .ok_or_else(|| problem("type is NAME:VERSION, such as Report:1".into()))?;
        let overlap = match &self.overlap {
            Some(text) => crate::schedules::overlap(text).map_err(problem)?,
            None => Overlap::default(),
        };
        let definition = ScheduleDefinition {
            spec: ScheduleSpec {
                every: secs(&self.every).map_err(problem)?,
                offset: secs(&self.offset).map_err(problem)?,
                cron: self.cron.clone(),
                time_zone: self.time_zone.clone(),
                start_at: time(&self.start_at).map_err(problem)?,
                end_at: time(&self.end_at).map_err(problem)?,
                jitter: secs(&self.jitter).map_err(problem)?,
            },
            action: StartAction {
                workflow_type: TypeRef {
                    name: name.to_owned(),
                    version: version.to_owned(),
                },
                task_list: self.task_list.clone(),
                task_priority: self.priority.map(|p| p.to_string()),
                input: self.input.clone(),
                execution_start_to_close_timeout: swf_secs(&self.execution_timeout)
                    .map_err(problem)?,
                tag_list: self.tags.clone(),
                task_start_to_close_timeout: swf_secs(&self.task_timeout).map_err(problem)?,
                child_policy: self.child_policy.clone(),
                lambda_role: self.lambda_role.clone(),
            },
            overlap,
            catchup_window: secs(&self.catchup_window).map_err(problem)?,
            limit: self.limit,
        };
        check_schedule(&definition).map_err(problem)?;
        Ok(definition)
    }
}

/// A duration as SWF sends one (seconds, or `NONE`).
fn swf_secs(text: &Option<String>) -> Result<Option<String>, String> {
    text.as_deref().map(super::seconds).transpose()
}

/// The members SWF needs of a start that neither `entry` nor its type's defaults `ty` give.
pub(crate) fn undefined(entry: &ScheduleEntry, ty: &super::WorkflowSpec) -> Vec<&'static str> {
    [
        (
            "task-list",
            entry.task_list.is_some() || ty.task_list.is_some(),
        ),
        (
            "execution-timeout",
            entry.execution_timeout.is_some() || ty.execution_timeout.is_some(),
        ),
        (
            "task-timeout",
            entry.task_timeout.is_some() || ty.task_timeout.is_some(),
        ),
        (
            "child-policy",
            entry.child_policy.is_some() || ty.child_policy.is_some(),
        ),
    ]
    .into_iter()
    .filter(|(_, given)| !given)
    .map(|(name, _)| name)
    .collect()
}

/// A time as RFC 3339.
fn instant(text: &str) -> Result<Timestamp, String> {
    crate::schedules::instant(text)
}
