//! Write Weft deciders, activity workers and Lambda-style functions in Rust, as WebAssembly
//! components (`wasm32-wasip2`) that the Weft host runs in-process.
//!
//! A guest is a `cdylib` crate with one function and one macro line:
//!
//! ```no_run
//! use weft_guest::{Decision, History};
//!
//! weft_guest::decider!(decide);
//!
//! /// Greets once, then completes with the greeting's result.
//! fn decide(history: &History) -> Result<Vec<Decision>, String> {
//!     Ok(match history.activity("greet") {
//!         None => vec![Decision::schedule_activity("greet", "Greet", "1.0")
//!             .input(history.input().unwrap_or("world"))
//!             .into()],
//!         Some(status) if status.is_open() => vec![],
//!         Some(status) => match status.result() {
//!             Some(greeting) => vec![Decision::complete(Some(greeting.to_string()))],
//!             None => vec![Decision::fail("greet did not complete", None)],
//!         },
//!     })
//! }
//! ```
//!
//! - [`decider!`] makes a component of the world `decider`: it reads the execution's history
//!   through [`History`] and answers [`Decision`]s.
//! - [`activity_worker!`] makes an `activity-worker`: it runs an [`ActivityTask`] and answers an
//!   [`Outcome`], calling [`heartbeat`] on long tasks.
//! - [`function!`] makes a `function`, what a `ScheduleLambdaFunction` decision runs.
//!
//! An activity worker serving several activity types registers a function for each with
//! [`Activities`]. With the feature `serde`, payloads are typed: `History::input_json`,
//! `Status::result_json` and `ActivityTask::input_json` read JSON into your types, a worker or a
//! function answers `Ok(Json(value))`, and `testing::Recorded` reads a history exported from
//! `GetWorkflowExecutionHistory` and replays a decider over it.
//!
//! Each may log to the host through the [`log`] crate's macros (`weft_guest::log::info!(..)`),
//! which this crate forwards to the `log` import. [`testing::HistoryBuilder`] builds histories to
//! unit-test a decider natively, with `cargo test`.
//!
//! A decider is a function of its history, and the host sees to it: its clocks read its decision
//! task's `DecisionTaskStarted` time, its randomness is seeded by the run and the task, it has no
//! files, environment or network, and the host refuses a decider that imports `wasi:http`. So a
//! decider may use `SystemTime::now()`, a `HashMap` or a random number, and still decides the
//! same when its history is replayed.
//!
//! # One crate, three worlds
//!
//! wit-bindgen describes each generated world in a `component-type:*` custom section, and when
//! `wasm-component-ld` turns the core module into a component, wit-component takes the union of
//! every such section in the binary as the component's world. Had this crate generated the three
//! worlds plainly, every guest would carry all three sections, and a decider would fail to link:
//! tried with the decider and activity-worker worlds generated side by side and only `decide`
//! exported, `wasm-component-ld` stops with "failed to decode world from module: failed to find
//! export of function `run`". Relying on the linker to keep only the sections of what a guest
//! uses does not hold either: rustc puts items in codegen units as it likes, and LTO or
//! `codegen-units = 1` puts all of them into one object. Cargo features per world fail too: cargo
//! unifies features, so building two examples together turns every world on for both.
//!
//! What works is wit-bindgen's own answer for bindings meant to be exported from another crate,
//! `pub_export_macro: true`. Each world is generated once here, in its own module, and:
//!
//! - the section this crate carries for a world describes only that world's **imports**
//!   (wit-bindgen encodes a copy of the world with its exports removed). wit-component keeps only
//!   the imports the core module really calls, so `heartbeat` appears in a component only if the
//!   guest calls [`heartbeat`];
//! - the section with the world's **exports** is emitted by the world's export macro, so it lands
//!   in the guest crate that invokes [`decider!`], [`activity_worker!`] or [`function!`], and only
//!   there.
//!
//! The other two worlds reuse the decider world's generated types (`with`), so there is one Rust
//! type per WIT type. Cargo features play no part, so building every guest in one `cargo build`
//! changes nothing. Evidence: `weft-host`'s test `tests/guest_worlds.rs` builds every guest and
//! decodes its component: each decider imports `weft:swf/log` and exports only `decide`, each
//! activity worker exports only `run` (and imports `weft:swf/heartbeat` only if it heartbeats),
//! each function exports only `invoke`. Besides, every guest imports the package's type-only
//! interfaces (`types`, `history`, `decisions`, `tasks`) and the `wasi:io` and `wasi:cli`
//! interfaces through which Rust's standard library reports a panic; and nothing else unless its
//! own code asks for it (the clock test decider, which reads the clock and asks for random
//! bytes, imports `wasi:clocks` and `wasi:random`). The host's runtime loads each guest as its
//! world (`weft_host::examples`' tests).

extern crate self as weft_guest;

mod activity;
mod bindings;
mod decision;
mod history;
mod logging;
#[cfg(feature = "serde")]
mod payload;
mod status;
pub mod testing;
#[cfg(test)]
mod tests;
pub mod workflow;

pub use activity::{Activities, IntoResult, heartbeat};
pub use decision::builders;
pub use history::History;
#[doc(inline)]
pub use log;
#[cfg(feature = "serde")]
pub use payload::{Json, PayloadError, to_json};
pub use status::{Marker, Signal, Status, Timer};

/// The names SWF gives to types, executions and task lists, and its enumerations: the WIT
/// interface `weft:swf/types`.
///
/// ```
/// use weft_guest::types::{ChildPolicy, TaskList, WorkflowType};
///
/// let child = WorkflowType { name: "PriceItem".into(), version: "1.0".into() };
/// let list = TaskList { name: "quote-decisions".into() };
/// assert_ne!(ChildPolicy::Terminate, ChildPolicy::Abandon);
/// # let _ = (child, list);
/// ```
#[doc(inline)]
pub use bindings::decider::weft::swf::types;

/// The events of a workflow execution's history, typed as SWF records them: the WIT interface
/// `weft:swf/history`.
///
/// ```
/// use weft_guest::events::{EventAttributes, HistoryEvent, WorkflowExecutionSignaledEventAttributes};
///
/// let event = HistoryEvent {
///     event_id: 7,
///     event_timestamp: 0.0,
///     attributes: EventAttributes::WorkflowExecutionSignaled(WorkflowExecutionSignaledEventAttributes {
///         signal_name: "cancel".into(),
///         input: None,
///         external_workflow_execution: None,
///         external_initiated_event_id: None,
///     }),
/// };
/// assert!(matches!(event.attributes, EventAttributes::WorkflowExecutionSignaled(_)));
/// ```
#[doc(inline)]
pub use bindings::decider::weft::swf::history as events;

/// The 13 decisions and their attributes: the WIT interface `weft:swf/decisions`. Build them
/// with the constructors on [`Decision`].
///
/// ```
/// use weft_guest::decisions::{CancelTimerDecisionAttributes, Decision};
///
/// let by_hand = Decision::CancelTimer(CancelTimerDecisionAttributes { timer_id: "t".into() });
/// assert_eq!(by_hand, Decision::cancel_timer("t"));
/// ```
#[doc(inline)]
pub use bindings::decider::weft::swf::decisions;

/// The tasks the host hands to guests and what they answer: the WIT interface `weft:swf/tasks`.
///
/// ```
/// use weft_guest::tasks::Failure;
///
/// let failure = Failure { reason: Some("card declined".into()), details: None };
/// assert_eq!(failure, Failure::new("card declined"));
/// ```
#[doc(inline)]
pub use bindings::decider::weft::swf::tasks;

/// One decision: build it with the constructors (`Decision::schedule_activity(..)`,
/// `Decision::complete(..)`, ...).
///
/// ```
/// use weft_guest::Decision;
///
/// let timer: Decision = Decision::start_timer("cancel-window", 30).into();
/// assert!(matches!(timer, Decision::StartTimer(_)));
/// ```
pub use decisions::Decision;

/// An activity task: which activity, of which type, for which execution, with what input.
///
/// ```
/// use weft_guest::ActivityTask;
///
/// fn input_len(task: &ActivityTask) -> usize {
///     task.input.as_deref().map_or(0, str::len)
/// }
/// ```
pub use tasks::ActivityTask;

/// How an activity worker ends its task: `Completed`, `Failed` or `Canceled`. A worker may also
/// return `Result<Option<String>, Failure>`, which converts into it.
///
/// ```
/// use weft_guest::{Failure, Outcome};
///
/// let done = Outcome::Completed(Some("42".into()));
/// let failed: Outcome = Err::<Option<String>, _>(Failure::new("out of stock")).into();
/// assert!(matches!(failed, Outcome::Failed(_)));
/// # let _ = done;
/// ```
pub use tasks::ActivityOutcome as Outcome;

/// Why an activity or a function failed: a short reason and optional details.
///
/// ```
/// use weft_guest::Failure;
///
/// let failure = Failure::new("card declined").details("card ending 0000");
/// assert_eq!(failure.details.as_deref(), Some("card ending 0000"));
/// ```
pub use tasks::Failure;

/// A decider's whole answer: its decisions, and optionally an execution context and a task list
/// for the next decision tasks. A `Vec<Decision>` converts into it.
///
/// ```
/// use weft_guest::{Decision, Response};
///
/// let response = Response::from(vec![Decision::complete(None)]).execution_context("done");
/// assert_eq!(response.decisions.len(), 1);
/// ```
pub use tasks::DecisionResponse as Response;

/// What the macros expand to. Not part of the API.
#[doc(hidden)]
pub mod __private {
    pub use crate::bindings::{activity_worker, decider, function};
    pub use std::format;
    pub use std::string::String;
    pub use wit_bindgen;

    use crate::{ActivityTask, Failure, History, IntoResult, Outcome, Response};

    /// The body of the exported `decide`.
    pub fn decide<R, E>(
        task: crate::tasks::DecisionTask,
        decide: impl FnOnce(&History) -> Result<R, E>,
    ) -> Result<Response, String>
    where
        R: Into<Response>,
        E: core::fmt::Display,
    {
        crate::logging::install();
        let history = History::new(task);
        decide(&history).map(Into::into).map_err(|e| e.to_string())
    }

    /// The body of the exported `run`.
    pub fn run<O: Into<Outcome>>(
        task: ActivityTask,
        run: impl FnOnce(&ActivityTask) -> O,
    ) -> Outcome {
        crate::logging::install();
        run(&task).into()
    }

    /// The body of the exported `invoke`.
    pub fn invoke<R: IntoResult, E: Into<Failure>>(
        input: Option<String>,
        invoke: impl FnOnce(Option<String>) -> Result<R, E>,
    ) -> Result<Option<String>, Failure> {
        crate::logging::install();
        invoke(input)
            .map_err(Into::into)
            .and_then(IntoResult::into_result)
    }
}

/// Makes this crate a decider component: exports `decide` as the given function, which reads a
/// [`History`] and answers `Ok` with a `Vec<Decision>` (or a [`Response`]), or `Err` with
/// anything that displays, which fails the decision task.
///
/// Use it once, in a `cdylib` crate built for `wasm32-wasip2`. The function stays a plain Rust
/// function, so it can be unit-tested natively (see [`testing`]).
///
/// ```no_run
/// use weft_guest::{Decision, History};
///
/// weft_guest::decider!(decide);
///
/// fn decide(history: &History) -> Result<Vec<Decision>, String> {
///     Ok(vec![Decision::complete(history.input().map(str::to_owned))])
/// }
/// ```
#[macro_export]
macro_rules! decider {
    ($decide:expr) => {
        const _: () = {
            struct WeftDecider;
            impl $crate::__private::decider::Guest for WeftDecider {
                fn decide(
                    task: $crate::tasks::DecisionTask,
                ) -> ::core::result::Result<$crate::Response, $crate::__private::String> {
                    $crate::__private::decide(task, $decide)
                }
            }
    $crate::__export_decider_impl!(WeftDecider with_types_in $crate::__private::decider);
        };
    };
}

/// Makes this crate an activity worker component: exports `run` as the given function, which
/// takes an [`ActivityTask`] and answers an [`Outcome`] or a `Result` of a result (an
/// `Option<String>`, or with the feature `serde` a `Json` value) or a [`Failure`]. To serve
/// several activity types, give it `|task| activities().run(task)` with [`Activities`].
///
/// A long task calls [`heartbeat`] now and then, and stops with `Outcome::Canceled` when it
/// answers `true`.
///
/// ```no_run
/// use weft_guest::{ActivityTask, Failure};
///
/// weft_guest::activity_worker!(run);
///
/// fn run(task: &ActivityTask) -> Result<Option<String>, Failure> {
///     match task.activity_type.name.as_str() {
///         "Echo" => Ok(task.input.clone()),
///         other => Err(Failure::new(format!("unknown activity type {other}"))),
///     }
/// }
/// ```
#[macro_export]
macro_rules! activity_worker {
    ($run:expr) => {
        const _: () = {
            struct WeftActivityWorker;
            impl $crate::__private::activity_worker::Guest for WeftActivityWorker {
                fn run(task: $crate::ActivityTask) -> $crate::Outcome {
                    $crate::__private::run(task, $run)
                }
            }
            $crate::__export_activity_worker_impl!(
                WeftActivityWorker with_types_in $crate::__private::activity_worker
            );
        };
    };
}

/// Makes this crate a function component (what `ScheduleLambdaFunction` runs): exports `invoke`
/// as the given function, from an optional input to an optional result (or, with the feature
/// `serde`, a `Json` value), or a [`Failure`] (or anything that converts into one, such as a
/// `String`).
///
/// ```no_run
/// weft_guest::function!(shout);
///
/// fn shout(input: Option<String>) -> Result<Option<String>, String> {
///     input.map(|s| Some(s.to_uppercase())).ok_or_else(|| "no input".to_string())
/// }
/// ```
#[macro_export]
macro_rules! function {
    ($invoke:expr) => {
        const _: () = {
            struct WeftFunction;
            impl $crate::__private::function::Guest for WeftFunction {
                fn invoke(
                    input: ::core::option::Option<$crate::__private::String>,
                ) -> ::core::result::Result<
                    ::core::option::Option<$crate::__private::String>,
                    $crate::Failure,
                > {
                    $crate::__private::invoke(input, $invoke)
                }
            }
    $crate::__export_function_impl!(WeftFunction with_types_in $crate::__private::function);
        };
    };
}
