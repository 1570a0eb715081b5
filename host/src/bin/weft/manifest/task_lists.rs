//! `[[task-list]]` in `weft-app.toml`: a task list's limits (rate, concurrency cap, fairness
//! keys; see docs/flow-control.md), set by `weft apply` as declared. What an entry leaves out
//! is removed; a list no entry names is left as it is.

use std::collections::BTreeMap;

use serde::Deserialize;
use weft_host::client::{BindingKind, Fairness, ListLimitRequest, TaskListInfo};

/// A `[[task-list]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) struct TaskListEntry {
    /// The list (for functions, the function's name).
    pub(crate) name: String,
    /// `decision`, `activity` or `function`.
    pub(crate) kind: String,
    /// Tasks handed out per second at most.
    pub(crate) rate: Option<f64>,
    /// Tasks started and not finished at most.
    pub(crate) concurrency: Option<u32>,
    /// The tag prefix that names a run's fairness key (`tenant=`).
    pub(crate) fair_by_tag: Option<String>,
    /// Each named key's weight.
    #[serde(default)]
    pub(crate) weights: BTreeMap<String, u32>,
    /// The other keys' weight (default 1).
    pub(crate) default_weight: Option<u32>,
}

impl TaskListEntry {
    /// The list's kind, or what is wrong with it.
    pub(crate) fn binding_kind(&self) -> Result<BindingKind, String> {
        match self.kind.as_str() {
            "decision" => Ok(BindingKind::Decision),
            "activity" => Ok(BindingKind::Activity),
            "function" => Ok(BindingKind::Function),
            other => Err(format!(
                "task-list {}: kind {other:?} is none of decision, activity or function",
                self.name
            )),
        }
    }

    /// The limit that makes the list as declared: every member given, `null` for what the
    /// entry leaves out; or what is wrong with the entry.
    pub(crate) fn request(&self) -> Result<ListLimitRequest, String> {
        self.binding_kind()?;
        let keyed = self.weights.is_empty() && self.default_weight.is_none();
        if self.fair_by_tag.is_none() && !keyed {
            return Err(format!(
                "task-list {}: weights and default-weight need fair-by-tag",
                self.name
            ));
        }
        let fairness = (self.fair_by_tag.clone()).map(|tag_prefix| Fairness {
            tag_prefix,
            weights: self.weights.clone(),
            default_weight: self.default_weight.unwrap_or(1),
        });
        Ok(ListLimitRequest {
            rate: Some(self.rate),
            concurrency: Some(self.concurrency),
            fairness: Some(fairness),
        })
    }

    /// Whether `held` (the server's view of the list, if it knows it) is as declared.
    pub(crate) fn matches(&self, held: Option<&TaskListInfo>) -> bool {
        let Ok(request) = self.request() else {
            return false;
        };
        let (rate, concurrency, fairness) = match held {
            Some(list) => (list.rate, list.concurrency, list.fairness.clone()),
            None => (None, None, None),
        };
        request.rate == Some(rate)
            && request.concurrency == Some(concurrency)
            && request.fairness == Some(fairness)
    }
}
