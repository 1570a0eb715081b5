//! Real Wasm guests on the real server, driven through real clients: `aws-sdk-swf` for SWF (the
//! tests act as deciders and workers where the guests do not), Weft's `/v1` client for modules
//! and bindings. The guests are the examples (`examples/`) and the hostile test guests
//! (`tests/guests/`), built once per test binary (`weft_tests::guests`).
//!
//! | file | what |
//! | --- | --- |
//! | `activities.rs` | hostile activity workers: each misbehaviour fails its task with the cause |
//! | `deciders.rs` | hostile deciders: nothing is applied, the task times out, the guest backs off |
//! | `functions.rs` | hostile functions, and a function that outlives its timeout |
//! | `heartbeats.rs` | a Wasm activity heartbeating past its heartbeat timeout, then canceled |
//! | `languages.rs` | Python and JavaScript guests beside Rust ones: the order workflow mixed, clocks, replay (with `WEFT_GUEST_LANG_TESTS`) |
//! | `mixed.rs` | a task list served by a Wasm worker and SDK pollers at once, each task once |
//! | `modules.rs` | uploads, refusals, and deleting a bound module |
//! | `continued.rs` | runs continued as new: on the current decider, or on their starter's when the binding inherits pins |
//! | `pinning.rs` | three versions of a decider with runs open on each: every run keeps its module; an upgrade's dry run, then the replay policy moving the runs it replays as recorded; pinned modules kept; rollback and ramp; runs a buggy decider fails on, moved to the fix by an upgrade |
//! | `payloads.rs` | one payload rule: Python and JavaScript workers under each other's deciders (with `WEFT_GUEST_LANG_TESTS`) |
//! | `recovery.rs` | a failing decider's failures read per run, its held task taken over by a fixed one |
//! | `resets.rs` | `weft workflow reset`: the order whose charge failed by a worker bug reset before the charge after the fix; resets refused where they cannot carry the run or the decider contradicts them |
//! | `replay.rs` | replaying deciders over recorded histories; `weft deploy --verify` |
//! | `rollback.rs` | named modules, which bindings use each, and `weft binding rollback` |
//! | `bindings.rs` | bindings across a restart, and unbinding |
//! | `sandbox.rs` | a guest trying every ambient capability gets nothing; `wasi:http` only to allowed hosts; foreign imports refused |
//! | `tls.rs` | HTTPS from a guest: trusted only with the test CA configured |
//! | `examples.rs` | the order and quote examples end to end |
//!
//! Every test works in domain [`D`] (with the examples' types registered); every history it
//! reads to the end is checked with `weft_host::check::check_history`.

mod activities;
mod bindings;
mod continued;
mod deciders;
mod examples;
mod functions;
mod heartbeats;
mod languages;
mod mixed;
mod modules;
mod payloads;
mod pinning;
mod recovery;
mod replay;
mod resets;
mod rollback;
mod sandbox;
mod steps;
pub(crate) mod tls;

use std::time::Duration;

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{HistoryEvent, WorkflowExecution};
use weft_tests::guests::{self, Bind, BindingKind, Closed, WeftClient, order, quote};

use crate::flow::{D, first, wf_type};

/// How long a run that should close may take: a bound, not a wait (a run that closes returns
/// at once). Generous because a Python or JavaScript guest's first task compiles its component,
/// which took over 30 s with the whole suite running on two cores.
const CLOSE_WITHIN: Duration = Duration::from_secs(120);

/// A server whose empty long polls answer after 1 s, with domain [`D`] and the examples' types
/// registered; its SWF and `/v1` clients.
async fn server() -> (TestServer, Client, WeftClient) {
    let server =
        TestServer::start_with(|config| config.poll_timeout = Duration::from_secs(1)).await;
    let c = server.client();
    guests::register_examples(&c, D).await;
    let weft = guests::weft_client(&server);
    (server, c, weft)
}

/// Deploys the order example in [`D`]; the digests of its decider and activity worker.
async fn deploy_order(weft: &WeftClient) -> (String, String) {
    guests::deploy_order(weft, D).await
}

/// Deploys the quote example: its decider and the function `price`.
async fn deploy_quote(weft: &WeftClient) {
    guests::deploy(
        weft,
        "quote-decider",
        D,
        BindingKind::Decision,
        quote::DECISION_TASK_LIST,
        Bind::default(),
    )
    .await;
    guests::deploy(
        weft,
        "price-function",
        D,
        BindingKind::Function,
        quote::PRICE_FUNCTION,
        Bind::default(),
    )
    .await;
}

/// Starts order `workflow_id` with `input`; the runId.
async fn start_order(c: &Client, workflow_id: &str, input: &str) -> String {
    start(
        c,
        workflow_id,
        order::WORKFLOW.name,
        order::WORKFLOW.version,
        input,
    )
    .await
}

/// The sample order with `changes` made to its JSON.
fn order_with(changes: serde_json::Value) -> String {
    let mut input: serde_json::Value = serde_json::from_str(order::SAMPLE_ORDER).unwrap();
    for (member, value) in changes.as_object().unwrap() {
        input[member] = value.clone();
    }
    input.to_string()
}

/// Starts `workflow_id` of type `name` version `version` with `input` and the type's defaults;
/// the runId.
async fn start(c: &Client, workflow_id: &str, name: &str, version: &str, input: &str) -> String {
    c.start_workflow_execution()
        .domain(D)
        .workflow_id(workflow_id)
        .workflow_type(wf_type(name, version))
        .input(input)
        .send()
        .await
        .unwrap_or_else(|e| panic!("start {workflow_id}: {e:?}"))
        .run_id
        .expect("a runId")
}

/// Waits until the run closes; its close status and history (checked).
async fn closed(server: &TestServer, workflow_id: &str, run_id: &str) -> Closed {
    guests::wait_closed(server, D, workflow_id, run_id, CLOSE_WITHIN).await
}

/// The activity id of each ActivityTaskScheduled, by event id.
fn activity_ids(events: &[HistoryEvent]) -> std::collections::BTreeMap<i64, String> {
    events
        .iter()
        .filter_map(|e| {
            let scheduled = e.activity_task_scheduled_event_attributes()?;
            Some((e.event_id(), scheduled.activity_id().to_owned()))
        })
        .collect()
}

/// The identity in every event of type `event_type` (DecisionTaskStarted or
/// ActivityTaskStarted).
fn identities<'a>(events: &'a [HistoryEvent], event_type: &str) -> Vec<&'a str> {
    events
        .iter()
        .filter(|e| e.event_type().as_str() == event_type)
        .map(|e| {
            e.decision_task_started_event_attributes()
                .and_then(|a| a.identity())
                .or_else(|| {
                    e.activity_task_started_event_attributes()
                        .and_then(|a| a.identity())
                })
                .unwrap_or_default()
        })
        .collect()
}

/// The identity of the in-process workers of a module.
fn wasm_identity(digest: &str) -> String {
    format!("weft:{}", &digest[..12])
}

/// The result of the run's WorkflowExecutionCompleted, as JSON.
#[track_caller]
fn result_json(run: &Closed) -> serde_json::Value {
    let completed = first(&run.events, "WorkflowExecutionCompleted")
        .workflow_execution_completed_event_attributes()
        .unwrap();
    serde_json::from_str(completed.result().expect("a result")).expect("a JSON result")
}

/// The execution a ChildWorkflowExecutionStarted names, for each child, in order.
fn children(events: &[HistoryEvent]) -> Vec<WorkflowExecution> {
    events
        .iter()
        .filter_map(|e| e.child_workflow_execution_started_event_attributes())
        .filter_map(|a| a.workflow_execution().cloned())
        .collect()
}
