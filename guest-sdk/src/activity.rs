//! Activity workers and functions: heartbeats, outcomes and failures, and dispatch by activity
//! type.

use crate::bindings::activity_worker::weft::swf::heartbeat::record_heartbeat;
use crate::{ActivityTask, Failure, Outcome};

/// Tells the service the activity task is alive, with optional progress details (at most 2,048
/// characters), which restarts its heartbeat timeout. Answers whether cancellation of the task
/// was requested: the worker should then stop and return `Outcome::Canceled`.
///
/// Only activity workers may call it: a decider or a function that does imports
/// `weft:swf/heartbeat`, and the host refuses to load it. Outside a component (in native unit
/// tests) it does nothing and answers `false`.
///
/// ```no_run
/// use weft_guest::{ActivityTask, Outcome};
///
/// fn run(task: &ActivityTask) -> Outcome {
///     for step in 0..100 {
///         if weft_guest::heartbeat(Some(&format!("step {step}"))) {
///             return Outcome::Canceled(Some(format!("stopped at step {step}")));
///         }
///         // ... one step of the work ...
///     }
///     Outcome::Completed(None)
/// }
/// ```
pub fn heartbeat(details: Option<&str>) -> bool {
    if cfg!(target_arch = "wasm32") {
        record_heartbeat(details)
    } else {
        false
    }
}

impl Failure {
    /// A failure with this reason and no details.
    ///
    /// ```
    /// let failure = weft_guest::Failure::new("out of stock");
    /// assert_eq!(failure.reason.as_deref(), Some("out of stock"));
    /// ```
    pub fn new(reason: impl Into<String>) -> Self {
        Failure {
            reason: Some(reason.into()),
            details: None,
        }
    }

    /// The same failure with these details.
    ///
    /// ```
    /// let failure = weft_guest::Failure::new("out of stock").details("sku 42");
    /// assert_eq!(failure.details.as_deref(), Some("sku 42"));
    /// ```
    #[must_use]
    pub fn details(mut self, details: impl Into<String>) -> Self {
        self.details = Some(details.into());
        self
    }
}

impl From<String> for Failure {
    /// A failure with this reason.
    fn from(reason: String) -> Self {
        Failure::new(reason)
    }
}

impl From<&str> for Failure {
    /// A failure with this reason.
    fn from(reason: &str) -> Self {
        Failure::new(reason)
    }
}

impl From<Failure> for Outcome {
    fn from(failure: Failure) -> Self {
        Outcome::Failed(failure)
    }
}

/// What an activity worker or a function may answer as its result: an `Option<String>` as it
/// is or, with the feature `serde`, a `Json` value.
pub trait IntoResult {
    /// The result as the service records it, or why it cannot be one.
    fn into_result(self) -> Result<Option<String>, Failure>;
}

impl IntoResult for Option<String> {
    fn into_result(self) -> Result<Option<String>, Failure> {
        Ok(self)
    }
}

impl IntoResult for String {
    /// A string goes through unchanged, as the payload rule says.
    fn into_result(self) -> Result<Option<String>, Failure> {
        Ok(Some(self))
    }
}

impl IntoResult for () {
    /// No result.
    fn into_result(self) -> Result<Option<String>, Failure> {
        Ok(None)
    }
}

impl<R: IntoResult, E: Into<Failure>> From<Result<R, E>> for Outcome {
    /// `Ok` completes the task with its result, `Err` fails it.
    fn from(result: Result<R, E>) -> Self {
        match result.map_err(Into::into).and_then(IntoResult::into_result) {
            Ok(result) => Outcome::Completed(result),
            Err(failure) => Outcome::Failed(failure),
        }
    }
}

/// An activity worker's activity types, each with the function that runs it: the worker
/// dispatches each task by its type's name and version.
///
/// ```
/// use weft_guest::{Activities, ActivityTask, Failure, Outcome};
///
/// fn activities() -> Activities {
///     Activities::new()
///         .activity("Echo", "1.0", |task: &ActivityTask| Ok::<_, Failure>(task.input.clone()))
///         .activity("Shout", "1.0", |task: &ActivityTask| {
///             let input = task.input.as_deref().ok_or("no input")?;
///             Ok::<_, Failure>(Some(input.to_uppercase()))
///         })
/// }
///
/// // In the worker's crate: weft_guest::activity_worker!(|task| activities().run(task));
/// # let task = |name: &str, version: &str| ActivityTask {
/// #     activity_id: "a".into(),
/// #     activity_type: weft_guest::types::ActivityType { name: name.into(), version: version.into() },
/// #     workflow_execution: weft_guest::types::WorkflowExecution { workflow_id: "w".into(), run_id: "r".into() },
/// #     input: Some("hi".into()),
/// #     started_event_id: 5,
/// # };
/// assert_eq!(activities().run(&task("Shout", "1.0")), Outcome::Completed(Some("HI".into())));
/// assert_eq!(
///     activities().run(&task("Shout", "2.0")),
///     Outcome::Failed(Failure::new("unknown version 2.0 of activity type Shout"))
/// );
/// assert_eq!(
///     activities().run(&task("Teleport", "1.0")),
///     Outcome::Failed(Failure::new("unknown activity type Teleport"))
/// );
/// ```
#[derive(Default)]
pub struct Activities {
    types: Vec<Registered>,
}

/// One activity type and what runs it.
struct Registered {
    name: String,
    version: String,
    run: Box<dyn Fn(&ActivityTask) -> Outcome>,
}

impl Activities {
    /// No activity types yet.
    pub fn new() -> Self {
        Activities::default()
    }

    /// The same, with `run` running the tasks of activity type `name` version `version`. It
    /// answers what an activity worker may: an [`Outcome`], or a `Result` of a result (an
    /// `Option<String>` or a `Json` value) or a failure.
    #[must_use]
    pub fn activity<O: Into<Outcome>>(
        mut self,
        name: impl Into<String>,
        version: impl Into<String>,
        run: impl Fn(&ActivityTask) -> O + 'static,
    ) -> Self {
        self.types.push(Registered {
            name: name.into(),
            version: version.into(),
            run: Box::new(move |task| run(task).into()),
        });
        self
    }

    /// Runs `task` with the function registered for its type; a task of a type with none
    /// fails, naming it.
    pub fn run(&self, task: &ActivityTask) -> Outcome {
        let ty = &task.activity_type;
        let named = || self.types.iter().filter(|r| r.name == ty.name);
        match named().find(|r| r.version == ty.version) {
            Some(registered) => (registered.run)(task),
            None if named().next().is_some() => Outcome::Failed(Failure::new(format!(
                "unknown version {} of activity type {}",
                ty.version, ty.name
            ))),
            None => Outcome::Failed(Failure::new(format!("unknown activity type {}", ty.name))),
        }
    }
}
