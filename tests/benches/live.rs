//! How soon a new module serves: for the greeting decider `weft new` writes in Rust, Python
//! and JavaScript, the time from the start of its upload to its first decision on a fresh
//! server (no compiled code cached), with a workflow already waiting for it.
//!
//! For each language: a server in a new data directory, the greeting type registered and one
//! run started; then the decider is uploaded and bound to the run's task list over `/v1`, as
//! `weft apply` does, and the clock stops when the run's history holds the decision task's
//! completion. It prints the upload's share and the whole; then, once the server has had
//! time to finish what it compiles in the background, the decision tasks two signals make, one
//! after the other (the first on new code also pays for setting up its instances).
//!
//! The Python and JavaScript deciders are built from the templates by their SDKs' builds (which
//! need python3 and node and fetch their toolchains on first use); without
//! `WEFT_GUEST_LANG_TESTS` set, only Rust is measured.
//!
//! It prints figures and asserts nothing about time.
//!
//! `cargo bench -p weft-tests --bench live`.

use std::time::{Duration, Instant};

use weft_host::client::{Bind, BindingKind, Client};
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::types::{EventType, TaskList, WorkflowExecution};
use weft_tests::languages::{self, Lang};

const DOMAIN: &str = "live";
const LIST: &str = "greeting";

fn main() {
    weft_tests::bench::run(run());
}

async fn run() {
    let mut deciders = vec![("Rust", rust_greeting())];
    if languages::enabled() {
        deciders.push(("Python", python_greeting()));
        deciders.push(("JavaScript", js_greeting()));
    } else {
        println!("(WEFT_GUEST_LANG_TESTS unset: Python and JavaScript are not measured)");
    }
    println!("Upload to first decision, greeting decider of `weft new`, on a fresh server:");
    for (lang, code) in deciders {
        let figures = first_decision(&code).await;
        println!(
            "  {lang:<10} {:>5.1} MiB  upload {:>6.2} s  first decision {:>6.2} s after the \
             upload began; {} s later, decisions in {:>3.0} and {:>3.0} ms",
            code.len() as f64 / 1_048_576.0,
            figures.upload.as_secs_f64(),
            figures.first.as_secs_f64(),
            SETTLE.as_secs(),
            figures.later[0].as_secs_f64() * 1e3,
            figures.later[1].as_secs_f64() * 1e3,
        );
    }
}

/// How long the server is given to finish compiling in the background before the later
/// decision is timed.
const SETTLE: Duration = Duration::from_secs(60);

struct Figures {
    /// The upload request, compiling included.
    upload: Duration,
    /// From the upload's start to the first decision task's completion.
    first: Duration,
    /// From each of two signals, [`SETTLE`] later, to the decision task it made being
    /// completed.
    later: [Duration; 2],
}

/// Times `code`'s first decision on a fresh server, and a later one.
async fn first_decision(code: &[u8]) -> Figures {
    let server = TestServer::start_with(|config| {
        config.poll_timeout = Duration::from_secs(1);
    })
    .await;
    let swf = server.client();
    let run = start_run(&swf).await;
    let v1 = Client::new(&server.endpoint(), "us-east-1").expect("client");

    let began = Instant::now();
    let module = v1.upload_module(code.to_vec()).await.expect("upload");
    let upload = began.elapsed();
    let bind = Bind::module(&module.digest);
    v1.bind(DOMAIN, BindingKind::Decision, LIST, &bind)
        .await
        .expect("bind");
    completed_decisions(&swf, &run, 1).await;
    let first = began.elapsed();

    tokio::time::sleep(SETTLE).await;
    let mut later = [Duration::ZERO; 2];
    for (n, took) in later.iter_mut().enumerate() {
        let signaled = Instant::now();
        swf.signal_workflow_execution()
            .domain(DOMAIN)
            .workflow_id(run.workflow_id())
            .signal_name("nudge")
            .send()
            .await
            .expect("signal");
        completed_decisions(&swf, &run, n + 2).await;
        *took = signaled.elapsed();
    }
    server.stop().await;
    Figures {
        upload,
        first,
        later,
    }
}

/// Registers the domain and the greeting type, and starts a run whose decision task waits.
async fn start_run(swf: &weft_tests::aws_sdk_swf::Client) -> WorkflowExecution {
    swf.register_domain()
        .name(DOMAIN)
        .workflow_execution_retention_period_in_days("1")
        .send()
        .await
        .expect("register the domain");
    swf.register_workflow_type()
        .domain(DOMAIN)
        .name("Greeting")
        .version("1")
        .default_execution_start_to_close_timeout("3600")
        .default_task_start_to_close_timeout("300")
        .default_child_policy(weft_tests::aws_sdk_swf::types::ChildPolicy::Terminate)
        .send()
        .await
        .expect("register the workflow type");
    // No worker serves it: the run waits on its activity, open for the later decision.
    swf.register_activity_type()
        .domain(DOMAIN)
        .name("Greet")
        .version("1")
        .default_task_list(
            TaskList::builder()
                .name("nobody")
                .build()
                .expect("task list"),
        )
        .default_task_schedule_to_close_timeout("3600")
        .default_task_schedule_to_start_timeout("3600")
        .default_task_start_to_close_timeout("60")
        .default_task_heartbeat_timeout("NONE")
        .send()
        .await
        .expect("register the activity type");
    let list = TaskList::builder().name(LIST).build().expect("task list");
    let started = swf
        .start_workflow_execution()
        .domain(DOMAIN)
        .workflow_id("greeting")
        .workflow_type(
            weft_tests::aws_sdk_swf::types::WorkflowType::builder()
                .name("Greeting")
                .version("1")
                .build()
                .expect("type"),
        )
        .task_list(list)
        .input("bench")
        .send()
        .await
        .expect("start");
    WorkflowExecution::builder()
        .workflow_id("greeting")
        .run_id(started.run_id().expect("run id"))
        .build()
        .expect("execution")
}

/// Waits until `run`'s history holds `n` completed decision tasks.
async fn completed_decisions(
    swf: &weft_tests::aws_sdk_swf::Client,
    run: &WorkflowExecution,
    n: usize,
) {
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let history = swf
            .get_workflow_execution_history()
            .domain(DOMAIN)
            .execution(run.clone())
            .send()
            .await
            .expect("history");
        let done = history
            .events()
            .iter()
            .filter(|e| e.event_type() == &EventType::DecisionTaskCompleted)
            .count();
        if done >= n {
            return;
        }
        assert!(Instant::now() < deadline, "no decision in 10 minutes");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The Rust template's decider, built as `weft new rust` projects build it.
fn rust_greeting() -> Vec<u8> {
    languages::build_rust_edited("host/templates/rust/workflow-style/decider", str::to_owned)
}

fn python_greeting() -> Vec<u8> {
    languages::build(
        Lang::Python,
        "decider",
        "host/templates/python/workflow-style/decider.py",
    )
    .to_vec()
}

/// The JavaScript template's decider, importing the SDK from the checkout (a project imports
/// the package `@weft/guest` that `npm install` put beside it).
fn js_greeting() -> Vec<u8> {
    languages::build_edited(
        Lang::Js,
        "decider",
        "host/templates/js/workflow-style/decider.js",
        |source| source.replace("'@weft/guest'", "'../../../../guest-sdk/js/src/index.js'"),
    )
}
