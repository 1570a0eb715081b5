//! How late durable timers fire under load.
//!
//! Starts N workflows (default 100; `WEFT_BENCH_WORKFLOWS` to change) against the real server in
//! this process, each of whose first decision starts 100 timers of 1 to 10 s (ten of each), so
//! 10,000 timers fire over about ten seconds while external deciders over HTTP keep answering the
//! decision tasks the fired timers bring; a workflow completes once all its timers fired. Every
//! change is acknowledged only after a durable commit.
//!
//! The lateness of a timer is `TimerFired.eventTimestamp - (TimerStarted.eventTimestamp +
//! startToFireTimeout)`, both timestamps taken from the history (millisecond precision). It
//! prints count, p50, p99 and max lateness, and asserts nothing about time. A timer that fired
//! early would show as negative lateness; the minimum is printed to make that visible.
//!
//! `cargo bench -p weft-tests --bench timers`. `WEFT_BENCH_DIR` picks the disk the data goes to
//! (default: the system's temporary directory).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{
    ChildPolicy, CompleteWorkflowExecutionDecisionAttributes, Decision, DecisionType, HistoryEvent,
    StartTimerDecisionAttributes, TaskList, WorkflowExecution, WorkflowType,
};

const DOMAIN: &str = "bench";
const DECIDERS: &str = "deciders";
const DECIDER_LOOPS: usize = 8;
const TIMERS_PER_WORKFLOW: usize = 100;
/// Timer `n` of a workflow fires after `1 + n % SPREAD_S` seconds.
const SPREAD_S: usize = 10;

fn main() {
    weft_tests::bench::run(run());
}

fn task_list(name: &str) -> TaskList {
    TaskList::builder().name(name).build().expect("task list")
}

async fn setup(client: &Client) {
    client
        .register_domain()
        .name(DOMAIN)
        .workflow_execution_retention_period_in_days("1")
        .send()
        .await
        .expect("register the domain");
    client
        .register_workflow_type()
        .domain(DOMAIN)
        .name("sleeper")
        .version("1")
        .default_task_list(task_list(DECIDERS))
        .default_execution_start_to_close_timeout("3600")
        .default_task_start_to_close_timeout("60")
        .default_child_policy(ChildPolicy::Terminate)
        .send()
        .await
        .expect("register the workflow type");
}

/// The decisions for a decision task whose history is `events`: start every timer first,
/// complete the workflow once all fired, nothing in between.
fn decide(events: &[HistoryEvent]) -> Vec<Decision> {
    let count = |kind: &str| {
        events
            .iter()
            .filter(|e| e.event_type().as_str() == kind)
            .count()
    };
    if count("TimerStarted") == 0 {
        return (0..TIMERS_PER_WORKFLOW)
            .map(|n| {
                let attributes = StartTimerDecisionAttributes::builder()
                    .timer_id(format!("t{n}"))
                    .start_to_fire_timeout((1 + n % SPREAD_S).to_string())
                    .build()
                    .expect("timer attributes");
                Decision::builder()
                    .decision_type(DecisionType::StartTimer)
                    .start_timer_decision_attributes(attributes)
                    .build()
                    .expect("decision")
            })
            .collect();
    }
    if count("TimerFired") == TIMERS_PER_WORKFLOW {
        let attributes = CompleteWorkflowExecutionDecisionAttributes::builder().build();
        return vec![
            Decision::builder()
                .decision_type(DecisionType::CompleteWorkflowExecution)
                .complete_workflow_execution_decision_attributes(attributes)
                .build()
                .expect("decision"),
        ];
    }
    Vec::new()
}

async fn decider(client: Client, completed: Arc<AtomicUsize>, total: usize) {
    while completed.load(Ordering::SeqCst) < total {
        let task = client
            .poll_for_decision_task()
            .domain(DOMAIN)
            .task_list(task_list(DECIDERS))
            .send()
            .await
            .expect("poll for a decision task");
        if task.task_token().is_empty() {
            continue;
        }
        // A history longer than a page comes in pages, fetched with the same call.
        let mut events = task.events().to_vec();
        let mut next = task.next_page_token().map(str::to_owned);
        while let Some(token) = next {
            let page = client
                .poll_for_decision_task()
                .domain(DOMAIN)
                .task_list(task_list(DECIDERS))
                .next_page_token(token)
                .send()
                .await
                .expect("a history page");
            events.extend_from_slice(page.events());
            next = page.next_page_token().map(str::to_owned);
        }
        let decisions = decide(&events);
        let completes = decisions
            .first()
            .is_some_and(|d| d.decision_type() == &DecisionType::CompleteWorkflowExecution);
        client
            .respond_decision_task_completed()
            .task_token(task.task_token())
            .set_decisions(Some(decisions))
            .send()
            .await
            .expect("respond to the decision task");
        if completes {
            completed.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// The whole history of `execution`.
async fn history(client: &Client, execution: WorkflowExecution) -> Vec<HistoryEvent> {
    let mut events = Vec::new();
    let mut token = None;
    loop {
        let page = client
            .get_workflow_execution_history()
            .domain(DOMAIN)
            .execution(execution.clone())
            .set_next_page_token(token)
            .send()
            .await
            .expect("history");
        events.extend_from_slice(page.events());
        match page.next_page_token() {
            Some(next) => token = Some(next.to_owned()),
            None => return events,
        }
    }
}

fn millis(event: &HistoryEvent) -> i64 {
    (event.event_timestamp().as_secs_f64() * 1e3).round() as i64
}

/// Milliseconds each timer of `events` fired after its deadline.
fn lateness(events: &[HistoryEvent]) -> Vec<i64> {
    let deadlines: HashMap<i64, i64> = events
        .iter()
        .filter_map(|e| {
            let started = e.timer_started_event_attributes()?;
            let timeout: i64 = started.start_to_fire_timeout().parse().ok()?;
            Some((e.event_id(), millis(e) + timeout * 1000))
        })
        .collect();
    events
        .iter()
        .filter_map(|e| {
            let fired = e.timer_fired_event_attributes()?;
            Some(millis(e) - deadlines[&fired.started_event_id()])
        })
        .collect()
}

async fn run() {
    let total: usize = weft_tests::bench::setting("WEFT_BENCH_WORKFLOWS", 100);
    let dir = std::env::var_os("WEFT_BENCH_DIR");
    let server = TestServer::start_in(dir.as_deref(), |config| {
        config.poll_timeout = Duration::from_secs(1);
    })
    .await;
    let client = server.client();
    setup(&client).await;

    let completed = Arc::new(AtomicUsize::new(0));
    let began = Instant::now();
    let mut loops: Vec<_> = (0..DECIDER_LOOPS)
        .map(|_| tokio::spawn(decider(server.client(), completed.clone(), total)))
        .collect();
    let mut executions = Vec::with_capacity(total);
    for n in 0..total {
        let workflow_id = format!("wf-{n}");
        let run_id = client
            .start_workflow_execution()
            .domain(DOMAIN)
            .workflow_id(&workflow_id)
            .workflow_type(
                WorkflowType::builder()
                    .name("sleeper")
                    .version("1")
                    .build()
                    .expect("workflow type"),
            )
            .send()
            .await
            .expect("start a workflow")
            .run_id()
            .expect("a runId")
            .to_owned();
        executions.push(
            WorkflowExecution::builder()
                .workflow_id(workflow_id)
                .run_id(run_id)
                .build()
                .expect("execution"),
        );
    }
    // A lost timer would leave its workflow open forever: give up after a while and say so,
    // rather than hang.
    let all_done = async {
        for task in &mut loops {
            task.await.expect("decider");
        }
    };
    if tokio::time::timeout(Duration::from_secs(120), all_done)
        .await
        .is_err()
    {
        println!(
            "  gave up waiting: {} of {total} workflows completed",
            completed.load(Ordering::SeqCst)
        );
        for task in &loops {
            task.abort();
        }
    }
    let elapsed = began.elapsed();

    let mut late = Vec::with_capacity(total * TIMERS_PER_WORKFLOW);
    for execution in executions {
        late.extend(lateness(&history(&client, execution).await));
    }
    late.sort_unstable();
    let pct = |p: usize| {
        late.get((late.len().max(1) - 1) * p / 100)
            .copied()
            .unwrap_or(i64::MIN)
    };
    println!(
        "{} timers of 1-{SPREAD_S} s in {total} workflows ({} completed), {DECIDER_LOOPS} decider \
         loops over HTTP (aws-sdk-swf), every change durably committed, {:.1} s",
        late.len(),
        completed.load(Ordering::SeqCst),
        elapsed.as_secs_f64(),
    );
    println!(
        "  lateness (TimerFired - (TimerStarted + startToFireTimeout)): \
         p50 {} ms  p99 {} ms  max {} ms  min {} ms",
        pct(50),
        pct(99),
        late.last().copied().unwrap_or(i64::MIN),
        late.first().copied().unwrap_or(i64::MIN),
    );
    server.stop().await;
}
