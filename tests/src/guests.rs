//! Real Wasm guests on a [`TestServer`]: the example and hostile test components (built with the
//! crates that embed them, `weft-example-guests` and `weft-test-guests`); uploading and binding one in a call; the examples' types registered from their
//! catalog; and waiting for a run to close, with its history checked.
//!
//! ```no_run
//! # async fn example() {
//! use weft_tests::TestServer;
//! use weft_tests::guests::{self, Bind, BindingKind, order};
//!
//! let server = TestServer::start().await;
//! guests::register_examples(&server.client(), "shop").await;
//! let weft = guests::weft_client(&server);
//! guests::deploy(&weft, "order-decider", "shop", BindingKind::Decision,
//!     order::DECISION_TASK_LIST, Bind::default()).await;
//! # }
//! ```

use std::time::{Duration, Instant};

use aws_sdk_swf::Client;
use aws_sdk_swf::types::{
    ActivityType, ChildPolicy, CloseStatus, ExecutionStatus, HistoryEvent, TaskList,
    WorkflowExecution, WorkflowType,
};
use serde_json::Value;
use weft_host::examples::{self, TypeName};

use crate::TestServer;

pub use weft_host::client::{
    Bind, Binding, BindingKind, BindingRef, Client as WeftClient, ClientError, GuestFailureRecord,
    Limits, ModuleLabel, ModuleRecord, RunFailure,
};
pub use weft_host::examples::{order, quote};

/// Limits small enough that a misbehaving guest is stopped at once: 200 ms of CPU, 32 MiB of
/// memory, 64 KiB of output.
pub const SMALL_LIMITS: Limits = Limits {
    cpu_ms: Some(200),
    memory_bytes: Some(32 << 20),
    output_bytes: Some(64 << 10),
};

/// The bytes of the component built from crate `name`: one of the examples
/// (`weft_host::examples::component`) or of the test guests (`weft_test_guests`: a decider, an
/// activity worker and a function that misbehave as their input asks, a decider that imports a
/// clock and randomness, the benchmarks' decider of a workflow with one activity, an activity
/// worker that tries to escape its sandbox, and a function importing an interface no world
/// has; `tests/guests/README.md` lists the inputs each understands).
pub fn guest(name: &str) -> Vec<u8> {
    examples::component(name)
        .or_else(|| weft_test_guests::component(name))
        .unwrap_or_else(|| panic!("no guest is built from a crate named {name}"))
        .to_vec()
}

/// A client of the server's `/v1` API, in `us-east-1` like [`TestServer::client`].
pub fn weft_client(server: &TestServer) -> WeftClient {
    WeftClient::new(&server.endpoint(), "us-east-1").expect("a valid endpoint")
}

/// Uploads guest `name` (see [`guest`]), named so, and binds it to serve `kind` `serves` in `domain` as
/// `bind` asks (its `module` is filled in); answers the module's digest.
pub async fn deploy(
    weft: &WeftClient,
    name: &str,
    domain: &str,
    kind: BindingKind,
    serves: &str,
    bind: Bind,
) -> String {
    let label = ModuleLabel {
        name: Some(name.to_owned()),
        version: None,
    };
    let module = weft
        .upload_module_telling(guest(name), &label, None)
        .await
        .unwrap_or_else(|e| panic!("upload {name}: {e}"));
    let digest = module.digest;
    let bind = Bind {
        module: digest.clone(),
        ..bind
    };
    weft.bind(domain, kind, serves, &bind)
        .await
        .unwrap_or_else(|e| panic!("bind {name} to {} {serves}: {e}", kind.name()));
    digest
}

/// Deploys the order example in `domain`: its decider and activity worker with the default
/// bindings, on the task lists its types name; their digests.
pub async fn deploy_order(weft: &WeftClient, domain: &str) -> (String, String) {
    let decider = deploy(
        weft,
        "order-decider",
        domain,
        BindingKind::Decision,
        order::DECISION_TASK_LIST,
        Bind::default(),
    )
    .await;
    let activities = deploy(
        weft,
        "order-activities",
        domain,
        BindingKind::Activity,
        order::ACTIVITY_TASK_LIST,
        Bind::default(),
    )
    .await;
    (decider, activities)
}

/// The failures a binding's guest met, oldest first, in their wire JSON.
pub async fn failures(
    weft: &WeftClient,
    domain: &str,
    kind: BindingKind,
    name: &str,
) -> Vec<Value> {
    let failures = weft
        .failures(domain, kind, name)
        .await
        .unwrap_or_else(|e| panic!("failures of {} {name}: {e}", kind.name()));
    let json = serde_json::to_value(failures).expect("records are JSON");
    match json {
        Value::Array(failures) => failures,
        other => panic!("no failures list: {other}"),
    }
}

/// Registers `domain` (one day of retention) and, from the examples' catalog, the types of the
/// order and quote examples with the defaults their READMEs give.
pub async fn register_examples(swf: &Client, domain: &str) {
    swf.register_domain()
        .name(domain)
        .workflow_execution_retention_period_in_days("1")
        .send()
        .await
        .unwrap_or_else(|e| panic!("register domain {domain}: {e:?}"));
    let workflow = |ty: TypeName, list: &str, execution: u64, task: u64| {
        swf.register_workflow_type()
            .domain(domain)
            .name(ty.name)
            .version(ty.version)
            .default_task_list(task_list(list))
            .default_execution_start_to_close_timeout(execution.to_string())
            .default_task_start_to_close_timeout(task.to_string())
            .default_child_policy(ChildPolicy::Terminate)
    };
    let registrations = [
        workflow(
            order::WORKFLOW,
            order::DECISION_TASK_LIST,
            order::EXECUTION_TIMEOUT_SECS,
            order::TASK_TIMEOUT_SECS,
        ),
        workflow(
            quote::QUOTE_WORKFLOW,
            quote::DECISION_TASK_LIST,
            quote::EXECUTION_TIMEOUT_SECS,
            quote::TASK_TIMEOUT_SECS,
        )
        .default_lambda_role(quote::LAMBDA_ROLE),
        swf.register_workflow_type()
            .domain(domain)
            .name(quote::PRICE_ITEM_WORKFLOW.name)
            .version(quote::PRICE_ITEM_WORKFLOW.version),
    ];
    for registration in registrations {
        registration
            .send()
            .await
            .unwrap_or_else(|e| panic!("register a workflow type: {e:?}"));
    }
    for ty in order::ACTIVITIES {
        swf.register_activity_type()
            .domain(domain)
            .name(ty.name)
            .version(ty.version)
            .default_task_list(task_list(order::ACTIVITY_TASK_LIST))
            .send()
            .await
            .unwrap_or_else(|e| panic!("register activity type {}: {e:?}", ty.name));
    }
}

/// A closed run: how it closed and its whole history, as the SDK reads it and as wire JSON.
#[derive(Debug)]
pub struct Closed {
    /// How it closed.
    pub status: CloseStatus,
    /// Its history, oldest first.
    pub events: Vec<HistoryEvent>,
    /// The same history as the server's JSON.
    pub wire: Vec<Value>,
}

impl Closed {
    /// The event types of the history, in order.
    pub fn types(&self) -> Vec<&str> {
        self.events
            .iter()
            .map(|e| e.event_type().as_str())
            .collect()
    }
}

/// Waits until the run is pinned to the decider `module` (panics if it is not after `within`).
pub async fn wait_pinned(
    weft: &WeftClient,
    domain: &str,
    workflow_id: &str,
    run_id: &str,
    module: &str,
    within: Duration,
) {
    let began = Instant::now();
    loop {
        let run = weft.run_summary(domain, workflow_id, run_id).await;
        let run = run.unwrap_or_else(|e| panic!("describe {workflow_id}: {e}"));
        let pinned = run.decider.map(|d| d.pin.module);
        if pinned.as_deref() == Some(module) {
            return;
        }
        assert!(
            began.elapsed() < within,
            "{workflow_id} is pinned to {pinned:?}, not {module}, after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until the run closes (panics if it is still open after `within`), and answers how it
/// closed and its history, which must keep every rule of `weft_host::check::check_history`.
pub async fn wait_closed(
    server: &TestServer,
    domain: &str,
    workflow_id: &str,
    run_id: &str,
    within: Duration,
) -> Closed {
    let status = wait_status(&server.client(), domain, workflow_id, run_id, within).await;
    let events = history(server, domain, workflow_id, run_id).await;
    let wire = history_wire(server, domain, workflow_id, run_id).await;
    Closed {
        status,
        events,
        wire,
    }
}

/// Waits, asking with `swf`, until the run closes (panics if it is still open after `within`),
/// and answers how it closed.
pub async fn wait_status(
    swf: &Client,
    domain: &str,
    workflow_id: &str,
    run_id: &str,
    within: Duration,
) -> CloseStatus {
    let began = Instant::now();
    loop {
        let info = swf
            .describe_workflow_execution()
            .domain(domain)
            .execution(execution(workflow_id, run_id))
            .send()
            .await
            .unwrap_or_else(|e| panic!("describe {workflow_id}: {e:?}"))
            .execution_info
            .expect("execution info");
        if info.execution_status == ExecutionStatus::Closed {
            return info.close_status.expect("a closed run has a close status");
        }
        if began.elapsed() > within {
            let events = read_history(swf, domain, workflow_id, run_id).await;
            let types: Vec<_> = events.iter().map(|e| e.event_type().as_str()).collect();
            panic!("{workflow_id} still open after {within:?}: {types:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The whole history of a run, oldest first, read page by page with the SDK.
pub async fn history(
    server: &TestServer,
    domain: &str,
    workflow_id: &str,
    run_id: &str,
) -> Vec<HistoryEvent> {
    read_history(&server.client(), domain, workflow_id, run_id).await
}

/// The whole history of a run as `swf` reads it, oldest first, page by page.
pub async fn read_history(
    swf: &Client,
    domain: &str,
    workflow_id: &str,
    run_id: &str,
) -> Vec<HistoryEvent> {
    let mut events = Vec::new();
    let mut token = None;
    loop {
        let page = swf
            .get_workflow_execution_history()
            .domain(domain)
            .execution(execution(workflow_id, run_id))
            .set_next_page_token(token)
            .send()
            .await
            .unwrap_or_else(|e| panic!("history of {workflow_id}: {e:?}"));
        events.extend_from_slice(page.events());
        match page.next_page_token() {
            Some(next) => token = Some(next.to_owned()),
            None => return events,
        }
    }
}

/// The whole history of a run as the server's JSON, which must keep every rule of
/// `weft_host::check::check_history`.
pub async fn history_wire(
    server: &TestServer,
    domain: &str,
    workflow_id: &str,
    run_id: &str,
) -> Vec<Value> {
    let addr = server.endpoint().trim_start_matches("http://").to_owned();
    let wire = crate::history_json(&addr, domain, workflow_id, run_id).await;
    let problems = weft_host::check::check_history(&wire);
    assert!(
        problems.is_empty(),
        "the history of {workflow_id} breaks the rules: {problems:#?}"
    );
    wire
}

/// A task list named `name`.
pub fn task_list(name: &str) -> TaskList {
    TaskList::builder().name(name).build().expect("a name")
}

/// An activity type.
pub fn activity_type(ty: TypeName) -> ActivityType {
    ActivityType::builder()
        .name(ty.name)
        .version(ty.version)
        .build()
        .expect("a name and version")
}

/// A workflow type of the catalog, as the SDK names it.
pub fn workflow_type(ty: TypeName) -> WorkflowType {
    WorkflowType::builder()
        .name(ty.name)
        .version(ty.version)
        .build()
        .expect("a name and version")
}

/// A workflow execution.
pub fn execution(workflow_id: &str, run_id: &str) -> WorkflowExecution {
    WorkflowExecution::builder()
        .workflow_id(workflow_id)
        .run_id(run_id)
        .build()
        .expect("ids")
}
