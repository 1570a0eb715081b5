//! A decider's whole answer, the [`Response`](crate::Response): built from its decisions, with
//! an optional execution context and task list.

use crate::decisions::Decision;
use crate::tasks::DecisionResponse;

impl From<Vec<Decision>> for DecisionResponse {
    /// A response with these decisions and nothing else.
    fn from(decisions: Vec<Decision>) -> Self {
        DecisionResponse {
            decisions,
            execution_context: None,
            task_list: None,
            task_list_schedule_to_start_timeout: None,
        }
    }
}

impl DecisionResponse {
    /// The same response with this execution context, kept with the execution for later tasks
    /// and for visibility (`DescribeWorkflowExecution`).
    ///
    /// ```
    /// use weft_guest::Response;
    ///
    /// let response = Response::from(vec![]).execution_context("step 2");
    /// assert_eq!(response.execution_context.as_deref(), Some("step 2"));
    /// ```
    #[must_use]
    pub fn execution_context(mut self, context: impl Into<String>) -> Self {
        self.execution_context = Some(context.into());
        self
    }

    /// The same response, sending the execution's next decision tasks to `task_list`; if one
    /// waits there longer than `schedule_to_start` seconds it goes back to the execution's own
    /// task list.
    ///
    /// ```
    /// use weft_guest::Response;
    ///
    /// let response = Response::from(vec![]).task_list("urgent-decisions", 10);
    /// assert_eq!(response.task_list.map(|t| t.name).as_deref(), Some("urgent-decisions"));
    /// ```
    #[must_use]
    pub fn task_list(mut self, task_list: impl Into<String>, schedule_to_start: u64) -> Self {
        self.task_list = Some(crate::types::TaskList {
            name: task_list.into(),
        });
        self.task_list_schedule_to_start_timeout = Some(schedule_to_start.to_string());
        self
    }
}
