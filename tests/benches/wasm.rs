//! What Wasm deciders and activity workers cost in-process, and what they do end to end.
//!
//! 1. **Per task**: a fresh store from the instance pool, instantiation from the
//!    pre-instantiated component, one call, the store dropped: what every task pays on top of
//!    the SWF work, measured without a server (`weft_host::bench::Probe`) with 1 and 2 callers
//!    at once. The deciders get a realistic decision task in wire JSON: the order example's after
//!    its charge completed and its timer fired (17 events), for its state machine and for its
//!    async `order-workflow`, which replays the history, and `one-activity-decider`'s after
//!    its activity completed (9 events); the decider's time is split into its phases, the
//!    conversion between wire JSON and component values among them. The activity worker is
//!    `hostile-activity` echoing a short input.
//! 2. **Workflows per second, Wasm in-process**: `one-activity-decider` and `hostile-activity`
//!    bound with concurrency 8 each (uploaded and bound through `/v1`), N workflows of one
//!    activity started over HTTP with aws-sdk-swf; the clock stops when all are closed.
//! 3. **The same workflows with external deciders and workers over HTTP**, as
//!    `--bench workflows` runs them (`one_activity`).
//!
//! `cargo bench -p weft-tests --bench wasm -- in-process` measures only the second: what a
//! decision task costs the service around its decider (the pinned dispatch among it).
//!
//! `cargo bench -p weft-tests --bench wasm -- languages` measures instead the order decider (a
//! state machine) and the order workflow (async code the SDK replays) written in Rust, Python
//! and JavaScript on the order's decision task: compile time, cost per task and memory per
//! instance (it builds the Python and JavaScript guests from source, so it needs python3 and
//! node; see `weft_tests::languages`).
//!
//! It prints figures and asserts nothing about time. `WEFT_BENCH_WORKFLOWS` (default 500),
//! `WEFT_BENCH_TASKS` (tasks per per-task measurement, default 20000) and `WEFT_BENCH_DIR` (the
//! disk the data goes to) change what it does.
//!
//! `cargo bench -p weft-tests --bench wasm`.

mod one_activity;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use weft_host::bench::{DecidePhases, Probe};
use weft_host::client::{Bind, BindingKind, Client};
use weft_host::examples::{self, order};
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::primitives::DateTime;
use weft_tests::aws_sdk_swf::types::{
    CloseStatus, CloseStatusFilter, ExecutionTimeFilter, WorkflowExecutionFilter,
};

use crate::one_activity::{Figures, Meter};

/// Tasks run before measuring, so that the pool's slots and the caches are warm.
const WARM_UP: usize = 500;
/// Loops per binding in-process, as many as the external run has.
const CONCURRENCY: u32 = 8;

fn main() {
    weft_tests::bench::run(run());
}

async fn run() {
    let code = weft_tests::guests::guest;
    let tasks: usize = weft_tests::bench::setting("WEFT_BENCH_TASKS", 20_000);

    if std::env::args().any(|arg| arg == "languages") {
        return languages(tasks).await;
    }
    if std::env::args().any(|arg| arg == "in-process") {
        let total = one_activity::workflows();
        let decider = code("one-activity-decider");
        run_wasm(&decider, &code("hostile-activity"), total).await;
        return;
    }
    println!(
        "Per task in-process: fresh store from the pool, instantiate, one call, drop \
         ({tasks} tasks per line, after {WARM_UP} per caller to warm up)"
    );
    let deciders = [
        ("order-decider", order_task(), "ScheduleActivityTask"),
        // The same workflow written as async code: it replays the history on every task.
        ("order-workflow", order_task(), "ScheduleActivityTask"),
        (
            "one-activity-decider",
            one_activity_task(),
            "CompleteWorkflowExecution",
        ),
    ];
    for (name, task, expected) in deciders {
        per_decision_task(&code(name), name, task, expected, tasks).await;
    }
    per_activity_task(&code("hostile-activity"), tasks).await;

    let total = one_activity::workflows();
    println!();
    let decider = code("one-activity-decider");
    let wasm = run_wasm(&decider, &code("hostile-activity"), total).await;
    println!();
    let server = one_activity::start_node(weft_tests::test_store()).await;
    one_activity::setup(&server.client()).await;
    let http = one_activity::run_http(std::slice::from_ref(&server), total).await;
    http.print();
    server.stop().await;

    println!();
    println!("Workflows of one activity per second, end to end:");
    for (how, f) in [
        ("Wasm in-process", &wasm),
        ("external, HTTP", &http.figures),
    ] {
        println!(
            "  {how:<16} {:>6.0} workflows/s  {:>5.0} µs of CPU per workflow  {:>4.1} requests \
             per commit",
            f.per_second(),
            f.cpu_per_workflow(),
            f.requests_per_commit,
        );
    }
}

/// Measures decider `code` (the crate `name`) on `task`, which it must answer with a first
/// decision of type `expected`.
async fn per_decision_task(code: &[u8], name: &str, task: Value, expected: &str, tasks: usize) {
    let began = Instant::now();
    let probe = Arc::new(Probe::new(code).expect("load the decider"));
    let compiled = began.elapsed();
    let response = probe.decide_once(&task).await.expect("decide");
    assert_eq!(
        response["decisions"][0]["decisionType"], expected,
        "{name} decides as expected: {response}"
    );
    let events = task["events"].as_array().map_or(0, Vec::len);
    println!(
        "  decider {name}, decision task of {events} events ({} bytes of JSON), answer of {} \
         bytes:",
        task.to_string().len(),
        response.to_string().len()
    );
    let job = Arc::new(Job::Decide(task));
    let mut phases = None;
    for callers in [1, 2] {
        let sample = measure(&probe, &job, callers, tasks).await;
        sample.print(callers);
        phases = phases.or(sample.phases);
    }
    if let Some(p) = phases {
        println!(
            "    phases (mean, 1 caller): instantiate {}, wire JSON -> value {}, call {}, answer \
             -> wire JSON {}",
            micros(p.instantiate),
            micros(p.task_to_value),
            micros(p.call),
            micros(p.answer_to_json)
        );
        println!(
            "    component of {:.1} MiB, compiled and pre-instantiated in {} ms; {:.1} MiB of \
             linear memory per instance",
            code.len() as f64 / f64::from(1 << 20),
            compiled.as_millis(),
            p.memory_bytes as f64 / f64::from(1 << 20),
        );
    }
}

/// The order decider (a state machine) and the order workflow (async code the SDK replays) in
/// Rust, Python and JavaScript (built from source by the SDKs' builds) on the same decision task:
/// compile time, cost per task, memory per instance.
async fn languages(tasks: usize) {
    use weft_tests::languages::{self, Lang};

    let built = tokio::task::spawn_blocking(|| {
        [
            (Lang::Python, "decider", "examples/order-python/decider.py"),
            (Lang::Js, "decider", "examples/order-js/decider.js"),
            (
                Lang::Python,
                "workflow",
                "examples/order-python/workflow.py",
            ),
            (Lang::Js, "workflow", "examples/order-js/workflow.js"),
        ]
        .map(|(lang, kind, entry)| (lang, kind, languages::build(lang, "decider", entry)))
    })
    .await
    .expect("the builds");
    println!(
        "The order decider (a state machine) and the order workflow (async code, replayed) in \
         three languages, per task in-process ({tasks} tasks per line, after {WARM_UP} per caller \
         to warm up)"
    );
    for name in ["order-decider", "order-workflow"] {
        let rust = weft_tests::guests::guest(name);
        let label = format!("{name} (Rust)");
        per_decision_task(&rust, &label, order_task(), "ScheduleActivityTask", tasks).await;
    }
    for (lang, kind, code) in built {
        let name = format!("order-{kind} ({lang:?})");
        per_decision_task(&code, &name, order_task(), "ScheduleActivityTask", tasks).await;
    }
}

/// Measures activity worker `code` (`hostile-activity`) echoing a short input.
async fn per_activity_task(code: &[u8], tasks: usize) {
    let probe = Arc::new(Probe::new(code).expect("load the activity worker"));
    let input = "wf-12345";
    let echoed = probe.run_once(Some(input)).await.expect("run");
    assert_eq!(echoed.as_deref(), Some(input), "hostile-activity echoes");
    println!("  activity worker hostile-activity, echoing {input:?}:");
    let job = Arc::new(Job::Run(input.to_owned()));
    for callers in [1, 2] {
        measure(&probe, &job, callers, tasks).await.print(callers);
    }
}

/// One task for a [`Probe`].
enum Job {
    /// A decision task, in wire JSON.
    Decide(Value),
    /// An activity task's input.
    Run(String),
}

/// The durations of `tasks` tasks run by `callers` loops at once, and the time they all took.
struct Sample {
    durations: Vec<Duration>,
    wall: Duration,
    /// The decider's mean phases, if the job is a decision task.
    phases: Option<DecidePhases>,
}

/// Runs `job` `tasks` times on `probe`, from `callers` tokio tasks at once, after as many
/// callers ran it [`WARM_UP`] times each.
async fn measure(probe: &Arc<Probe>, job: &Arc<Job>, callers: usize, tasks: usize) -> Sample {
    run_callers(probe, job, callers, WARM_UP).await;
    let began = Instant::now();
    let (mut durations, phases) = run_callers(probe, job, callers, tasks / callers).await;
    let wall = began.elapsed();
    durations.sort_unstable();
    Sample {
        durations,
        wall,
        phases: mean_phases(&phases),
    }
}

/// Runs `job` `each` times in each of `callers` tokio tasks; answers every task's duration and,
/// for a decider, its phases.
async fn run_callers(
    probe: &Arc<Probe>,
    job: &Arc<Job>,
    callers: usize,
    each: usize,
) -> (Vec<Duration>, Vec<DecidePhases>) {
    let loops: Vec<_> = (0..callers)
        .map(|_| {
            let (probe, job) = (probe.clone(), job.clone());
            tokio::spawn(async move {
                let mut durations = Vec::with_capacity(each);
                let mut phases = Vec::new();
                for _ in 0..each {
                    let start = Instant::now();
                    match &*job {
                        Job::Decide(task) => {
                            phases.push(probe.decide_phases(task).await.expect("decide").1);
                        }
                        Job::Run(input) => {
                            probe.run_once(Some(input)).await.expect("run");
                        }
                    }
                    durations.push(start.elapsed());
                }
                (durations, phases)
            })
        })
        .collect();
    let (mut durations, mut phases) = (Vec::new(), Vec::new());
    for caller in loops {
        let (d, p) = caller.await.expect("caller");
        durations.extend(d);
        phases.extend(p);
    }
    (durations, phases)
}

fn mean_phases(phases: &[DecidePhases]) -> Option<DecidePhases> {
    let n = u32::try_from(phases.len()).ok().filter(|n| *n > 0)?;
    let sum = |f: fn(&DecidePhases) -> Duration| phases.iter().map(f).sum::<Duration>() / n;
    Some(DecidePhases {
        instantiate: sum(|p| p.instantiate),
        task_to_value: sum(|p| p.task_to_value),
        call: sum(|p| p.call),
        answer_to_json: sum(|p| p.answer_to_json),
        memory_bytes: phases.iter().map(|p| p.memory_bytes).max().unwrap_or(0),
    })
}

impl Sample {
    fn print(&self, callers: usize) {
        let pct = |p: usize| self.durations[(self.durations.len() - 1) * p / 100];
        let n = self.durations.len();
        let mean = self.durations.iter().sum::<Duration>() / u32::try_from(n).unwrap_or(u32::MAX);
        println!(
            "    {callers} caller{}: p50 {}  p99 {}  mean {}  {:>8.0} tasks/s",
            if callers == 1 { " " } else { "s" },
            micros(pct(50)),
            micros(pct(99)),
            micros(mean),
            n as f64 / self.wall.as_secs_f64()
        );
    }
}

fn micros(d: Duration) -> String {
    format!("{:>6.1} µs", d.as_secs_f64() * 1e6)
}

/// Binds `decider` and `activity` in-process on a fresh server and runs `total` workflows.
async fn run_wasm(decider: &[u8], activity: &[u8], total: usize) -> Figures {
    use one_activity::{DECIDERS, DOMAIN, WORKERS};

    let server = one_activity::start_node(weft_tests::test_store()).await;
    let swf = server.client();
    one_activity::setup(&swf).await;
    let v1 = Client::new(&server.endpoint(), "us-east-1").expect("client");
    for (code, kind, task_list) in [
        (decider, BindingKind::Decision, DECIDERS),
        (activity, BindingKind::Activity, WORKERS),
    ] {
        let module = v1.upload_module(code.to_vec()).await.expect("upload");
        let bind = Bind {
            concurrency: Some(CONCURRENCY),
            ..Bind::module(&module.digest)
        };
        v1.bind(DOMAIN, kind, task_list, &bind).await.expect("bind");
    }

    let meter = Meter::start(std::slice::from_ref(&server));
    let began = Instant::now();
    one_activity::start_workflows(std::slice::from_ref(&server), total).await;
    let starting = began.elapsed();
    let deadline = Instant::now() + one_activity::patience(total);
    let mut closed = 0;
    while closed < total && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
        closed = count_closed(&server, None).await;
    }
    let end = Instant::now();
    let completed = count_closed(&server, Some(CloseStatus::Completed)).await;
    let figures = meter.figures(completed, end);
    if closed < total {
        println!("  gave up waiting: {closed} of {total} workflows closed");
    }
    println!(
        "{completed} workflows of one activity, one-activity-decider and hostile-activity bound \
         in-process ({CONCURRENCY} loops each), started over HTTP (aws-sdk-swf), every change \
         durably committed"
    );
    println!(
        "  {:.0} workflows/s ({:.2} s, of which starting them {:.2} s), {:.1} requests per \
         commit, {:.0} µs of CPU per workflow{}",
        figures.per_second(),
        figures.elapsed.as_secs_f64(),
        starting.as_secs_f64(),
        figures.requests_per_commit,
        figures.cpu_per_workflow(),
        if completed < closed {
            format!("; {} closed otherwise", closed - completed)
        } else {
            String::new()
        }
    );
    check_result(&server, "wf-0").await;
    server.stop().await;
    figures
}

/// Checks that the guests did the work: the workflow `id` completed with its input as result,
/// which the activity echoed.
async fn check_result(server: &TestServer, id: &str) {
    let listed = server
        .client()
        .list_closed_workflow_executions()
        .domain(one_activity::DOMAIN)
        .start_time_filter(since_ever())
        .execution_filter(
            WorkflowExecutionFilter::builder()
                .workflow_id(id)
                .build()
                .expect("filter"),
        )
        .send()
        .await
        .expect("list closed executions");
    let Some(run) = listed.execution_infos().first() else {
        panic!("{id} did not close");
    };
    let run_id = run.execution().map(|e| e.run_id()).unwrap_or_default();
    let addr = server.endpoint().replace("http://", "");
    let history = weft_tests::history_json(&addr, one_activity::DOMAIN, id, run_id).await;
    let last = history.last().expect("events");
    assert_eq!(
        last["workflowExecutionCompletedEventAttributes"]["result"], id,
        "{id} completes with its input: {last}"
    );
}

/// Closed executions in the benchmark's domain, of `status` if given.
async fn count_closed(server: &TestServer, status: Option<CloseStatus>) -> usize {
    let filter = status.map(|s| {
        CloseStatusFilter::builder()
            .status(s)
            .build()
            .expect("status filter")
    });
    let count = server
        .client()
        .count_closed_workflow_executions()
        .domain(one_activity::DOMAIN)
        .start_time_filter(since_ever())
        .set_close_status_filter(filter)
        .send()
        .await
        .expect("count closed executions");
    count.count() as usize
}

/// Executions started at any time.
fn since_ever() -> ExecutionTimeFilter {
    ExecutionTimeFilter::builder()
        .oldest_date(DateTime::from_secs(0))
        .build()
        .expect("time filter")
}

/// A wire-JSON decision task of the workflow `name`/`version`: `events` (event type and
/// attributes) numbered from 1, the last one its `DecisionTaskStarted`.
fn decision_task(
    name: &str,
    version: &str,
    previous_started: usize,
    events: &[(&str, Value)],
) -> Value {
    let events: Vec<Value> = events
        .iter()
        .enumerate()
        .map(|(i, (event_type, attributes))| {
            let mut event = json!({
                "eventId": i + 1,
                "eventTimestamp": 1_700_000_000.0 + i as f64 * 0.01,
                "eventType": event_type,
            });
            let mut member = event_type[..1].to_ascii_lowercase();
            member.push_str(&event_type[1..]);
            event[format!("{member}EventAttributes")] = attributes.clone();
            event
        })
        .collect();
    json!({
        "taskToken": "a-task-token-of-about-the-usual-length-000000000000000000000000000000",
        "workflowExecution": {"workflowId": "wf-1", "runId": "22eVs2XFpHPyb3BqmT4N0dOsXfUe4QgN"},
        "workflowType": {"name": name, "version": version},
        "previousStartedEventId": previous_started,
        "startedEventId": events.len(),
        "events": events,
    })
}

/// The events of a decision task as the service records them.
mod events {
    use serde_json::{Value, json};

    pub(super) fn started(
        name: &str,
        version: &str,
        input: &str,
        task_list: &str,
    ) -> (&'static str, Value) {
        let attributes = json!({
            "input": input,
            "executionStartToCloseTimeout": "300",
            "taskStartToCloseTimeout": "10",
            "childPolicy": "TERMINATE",
            "taskList": {"name": task_list},
            "workflowType": {"name": name, "version": version},
        });
        ("WorkflowExecutionStarted", attributes)
    }

    pub(super) fn decision_scheduled(task_list: &str) -> (&'static str, Value) {
        let attributes = json!({"taskList": {"name": task_list}, "startToCloseTimeout": "10"});
        ("DecisionTaskScheduled", attributes)
    }

    pub(super) fn decision_started(scheduled: u64) -> (&'static str, Value) {
        let attributes = json!({"identity": "weft:0123456789ab", "scheduledEventId": scheduled});
        ("DecisionTaskStarted", attributes)
    }

    pub(super) fn decision_completed(scheduled: u64) -> (&'static str, Value) {
        let attributes = json!({"scheduledEventId": scheduled, "startedEventId": scheduled + 1});
        ("DecisionTaskCompleted", attributes)
    }

    pub(super) fn activity_scheduled(
        id: &str,
        (name, version): (&str, &str),
        input: &str,
        task_list: &str,
        decision_completed: u64,
    ) -> (&'static str, Value) {
        let attributes = json!({
            "activityType": {"name": name, "version": version},
            "activityId": id,
            "input": input,
            "scheduleToStartTimeout": "60",
            "scheduleToCloseTimeout": "90",
            "startToCloseTimeout": "30",
            "heartbeatTimeout": "NONE",
            "taskList": {"name": task_list},
            "decisionTaskCompletedEventId": decision_completed,
        });
        ("ActivityTaskScheduled", attributes)
    }

    pub(super) fn activity_started(scheduled: u64) -> (&'static str, Value) {
        let attributes = json!({"identity": "weft:0123456789ab", "scheduledEventId": scheduled});
        ("ActivityTaskStarted", attributes)
    }

    pub(super) fn activity_completed(scheduled: u64, result: &str) -> (&'static str, Value) {
        let attributes = json!({
            "result": result,
            "scheduledEventId": scheduled,
            "startedEventId": scheduled + 1,
        });
        ("ActivityTaskCompleted", attributes)
    }
}

/// The order example's decision task after the order was verified and charged and the
/// cancellation window closed: the decider schedules the shipment.
fn order_task() -> Value {
    use events::*;
    use order::{ACTIVITY_TASK_LIST, CANCEL_WINDOW_TIMER, DECISION_TASK_LIST, WORKFLOW};

    let type_of = |t: examples::TypeName| (t.name, t.version);
    let input = order::SAMPLE_ORDER;
    let receipt = r#"{"charge_id":"ch-order-1","amount_cents":4200}"#;
    let timer = json!({
        "timerId": CANCEL_WINDOW_TIMER,
        "startToFireTimeout": "1",
        "decisionTaskCompletedEventId": 4,
    });
    // The activity ids are the order decider's own.
    let events = [
        started(WORKFLOW.name, WORKFLOW.version, input, DECISION_TASK_LIST),
        decision_scheduled(DECISION_TASK_LIST),
        decision_started(2),
        decision_completed(2),
        ("TimerStarted", timer),
        activity_scheduled(
            "verify-order",
            type_of(order::VERIFY_ORDER),
            input,
            ACTIVITY_TASK_LIST,
            4,
        ),
        activity_started(6),
        activity_completed(6, r#"{"valid":true}"#),
        decision_scheduled(DECISION_TASK_LIST),
        decision_started(9),
        decision_completed(9),
        activity_scheduled(
            "charge-credit-card",
            type_of(order::CHARGE_CREDIT_CARD),
            input,
            ACTIVITY_TASK_LIST,
            11,
        ),
        activity_started(12),
        activity_completed(12, receipt),
        decision_scheduled(DECISION_TASK_LIST),
        (
            "TimerFired",
            json!({"timerId": CANCEL_WINDOW_TIMER, "startedEventId": 5}),
        ),
        decision_started(15),
    ];
    decision_task(WORKFLOW.name, WORKFLOW.version, 10, &events)
}

/// `one-activity-decider`'s second decision task: its activity completed.
fn one_activity_task() -> Value {
    use events::*;
    use one_activity::{DECIDERS, WORKERS};

    let events = [
        started("one-activity", "1", "wf-1", DECIDERS),
        decision_scheduled(DECIDERS),
        decision_started(2),
        decision_completed(2),
        activity_scheduled("work", ("work", "1"), "wf-1", WORKERS, 4),
        activity_started(5),
        activity_completed(5, "wf-1"),
        decision_scheduled(DECIDERS),
        decision_started(8),
    ];
    decision_task("one-activity", "1", 3, &events)
}
