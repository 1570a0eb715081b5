//! The workflow core (`weft:swf/replay`) for the deciders that import it: Python's and
//! JavaScript's async workflows, whose languages cannot link the Rust core themselves.
//!
//! The host runs the core natively (`weft_workflow_core::replay::json`, the same code the SDKs'
//! unit tests run as a Wasm module), one replay per call, kept in the decider's store. `begin`
//! without a task begins the replay of the task being decided, which the host holds: the
//! history need not cross into the guest's language and back. A version of the interface never
//! changes how it replays (`wit/replay.wit`).

use serde_json::{Value, json};
use wasmtime::StoreContextMut;
use wasmtime::component::Linker;
use weft_workflow_core::replay::json::{Session, call_value};

use super::guest::GuestState;

/// The interface a decider imports.
pub(super) const REPLAY: &str = "weft:swf/replay@0.1.0";

/// How many bytes of requests a decider may send the core in one call. What the core keeps
/// grows with them (commands, a history a decider sends itself), and it is the host's memory,
/// outside the guest's limit: this bounds it. An SDK's requests for a task are a few KiB.
const REQUEST_BUDGET: usize = 8 << 20;

/// A decider's replay: the task being decided, until the replay begins, the replay, and what
/// is left of the call's request budget.
pub(crate) struct Replay {
    task: Option<Value>,
    session: Option<Session>,
    budget: usize,
}

impl Default for Replay {
    fn default() -> Self {
        Replay {
            task: None,
            session: None,
            budget: REQUEST_BUDGET,
        }
    }
}

impl Replay {
    /// The replay of a call deciding `task`.
    pub(crate) fn of(task: Value) -> Self {
        Replay {
            task: Some(task),
            ..Replay::default()
        }
    }

    /// The core's answer to `request` (JSON).
    fn answer(&mut self, request: &[u8]) -> Vec<u8> {
        let Some(left) = self.budget.checked_sub(request.len()) else {
            let message = format!(
                "the decider sent the workflow core more than {} MiB of requests in one task",
                REQUEST_BUDGET >> 20
            );
            return json!({ "err": message }).to_string().into_bytes();
        };
        self.budget = left;
        let answer = match serde_json::from_slice::<Value>(request) {
            Ok(mut request) => {
                if request["op"] == "begin" && request.get("task").is_none() {
                    request["task"] = self.task.take().unwrap_or_default();
                }
                call_value(&mut self.session, request)
            }
            Err(e) => json!({ "err": format!("the request is not JSON: {e}") }),
        };
        answer.to_string().into_bytes()
    }
}

/// Adds the workflow core to the decider linker: `weft:swf/replay`'s `call`.
pub(super) fn add_to_linker(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.instance(REPLAY)?.func_wrap(
        "call",
        |mut store: StoreContextMut<'_, GuestState>, (request,): (Vec<u8>,)| {
            Ok((store.data_mut().replay().answer(&request),))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(replay: &mut Replay, request: Value) -> Value {
        serde_json::from_slice(&replay.answer(request.to_string().as_bytes())).unwrap()
    }

    #[test]
    fn begin_without_a_task_replays_the_task_being_decided() {
        let task = json!({
            "events": [{"eventId": 1, "eventType": "WorkflowExecutionStarted",
                "eventTimestamp": 1.0, "workflowExecutionStartedEventAttributes": {"input": "hi",
                "workflowType": {"name": "Hello", "version": "1"}}}],
            "workflowExecution": {"workflowId": "w", "runId": "r"},
            "startedEventId": 3,
        });
        let mut replay = Replay::of(task);
        let begun = ask(&mut replay, json!({"op": "begin"}));
        assert_eq!(
            begun,
            json!({"ok": {"input": "hi", "workflowId": "w", "runId": "r",
                "workflowType": {"name": "Hello", "version": "1"}}})
        );
        let garbled = replay.answer(b"{not json");
        assert!(
            String::from_utf8(garbled)
                .unwrap()
                .starts_with(r#"{"err":"the request is not JSON"#)
        );
    }

    #[test]
    fn a_decider_cannot_make_the_host_keep_more_than_the_budget() {
        let mut replay = Replay::default();
        let padding = "x".repeat(REQUEST_BUDGET / 2);
        let request = json!({"op": "begin", "task": {"events": [], "pad": padding}});
        assert!(ask(&mut replay, request.clone())["ok"].is_object());
        let refused = ask(&mut replay, request);
        let message = refused["err"].as_str().unwrap();
        assert!(
            message.contains("more than 8 MiB of requests in one task"),
            "{message}"
        );
        assert!(replay.session.is_some(), "the replay begun stays");
    }
}
