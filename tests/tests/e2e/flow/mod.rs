//! Building blocks for the execution tests: a server with domain [`D`], types registered with
//! defaults, the calls deciders and activity workers make, decision constructors, and history
//! inspection. The decision constructors are in `decisions.rs`.
//!
//! Every helper works in domain [`D`]; each test starts its own server, so nothing is shared.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::operation::describe_workflow_execution::DescribeWorkflowExecutionOutput;
use weft_tests::aws_sdk_swf::operation::poll_for_activity_task::PollForActivityTaskOutput;
use weft_tests::aws_sdk_swf::operation::poll_for_decision_task::PollForDecisionTaskOutput;
use weft_tests::aws_sdk_swf::operation::start_workflow_execution::builders::StartWorkflowExecutionFluentBuilder;
use weft_tests::aws_sdk_swf::primitives::DateTime;
use weft_tests::aws_sdk_swf::types::{
    ActivityType, ChildPolicy, Decision, ExecutionTimeFilter, HistoryEvent, TaskList,
    WorkflowExecution, WorkflowType,
};

use crate::common::{expect_fault, fault, register_domain};

mod decisions;

pub(crate) use decisions::*;

/// The domain every helper works in.
pub(crate) const D: &str = "d";
/// The default decision task list of the workflow types [`register_workflow`] registers.
pub(crate) const DECIDERS: &str = "deciders";
/// The default activity task list of the activity types [`register_activity`] registers.
pub(crate) const WORKERS: &str = "workers";
/// How long a helper waits for something that happens asynchronously before it gives up.
const PATIENCE: Duration = Duration::from_secs(30);

/// A server whose empty long polls answer after 1 s, with domain [`D`] registered.
pub(crate) async fn server() -> (TestServer, Client) {
    server_polling(Duration::from_secs(1)).await
}

/// A server whose empty long polls answer after `poll_timeout`, with domain [`D`] registered.
pub(crate) async fn server_polling(poll_timeout: Duration) -> (TestServer, Client) {
    let server = TestServer::start_with(move |config| config.poll_timeout = poll_timeout).await;
    let client = server.client();
    register_domain(&client, D).await;
    (server, client)
}

/// A server on a manual clock ([`TestServer::start_manual`]) whose empty long polls answer
/// once the clock has moved 1 s, with domain [`D`] registered: SWF's time passes only when the
/// test moves it, and a poll that must come back empty goes through [`no_decision_task`] or
/// [`no_activity_task`].
pub(crate) async fn manual_server() -> (TestServer, Client) {
    manual_server_polling(Duration::from_secs(1)).await
}

/// Like [`manual_server`], with empty long polls answering once the clock has moved
/// `poll_timeout`.
pub(crate) async fn manual_server_polling(poll_timeout: Duration) -> (TestServer, Client) {
    let server =
        TestServer::start_manual_with(move |config| config.poll_timeout = poll_timeout).await;
    let client = server.client();
    register_domain(&client, D).await;
    (server, client)
}

/// Runs `poll` on a manual-clock server, waits until it waits, moves the clock by the poll
/// timeout and returns what the poll answered: for empty polls no helper here makes (raw ones).
pub(crate) async fn poll_through_timeout<T: Send + 'static>(
    server: &TestServer,
    poll: impl std::future::Future<Output = T> + Send + 'static,
) -> T {
    let waiting = server.polls_waiting();
    let poll = tokio::spawn(poll);
    server.until_polls_wait(waiting + 1).await;
    server.advance(server.poll_timeout()).await;
    tokio::time::timeout(PATIENCE, poll)
        .await
        .expect("the poll answers once its timeout has come")
        .expect("the poll does not panic")
}

/// Asserts that a decision poll on `list` comes back empty, moving the manual clock by the
/// poll timeout.
pub(crate) async fn no_decision_task(server: &TestServer, c: &Client, list: &str) {
    let (c, list) = (c.clone(), list.to_owned());
    let task = poll_through_timeout(server, async move { poll_decision_once(&c, &list).await });
    if let Some(task) = task.await {
        panic!("a decision task came: {:?}", types(task.events()));
    }
}

/// Asserts that an activity poll on `list` comes back empty, moving the manual clock by the
/// poll timeout.
pub(crate) async fn no_activity_task(server: &TestServer, c: &Client, list: &str) {
    let (c, list) = (c.clone(), list.to_owned());
    let task = poll_through_timeout(server, async move { poll_activity_once(&c, &list).await });
    if let Some(task) = task.await {
        panic!("activity task {} came", task.activity_id());
    }
}

pub(crate) fn wf_type(name: &str, version: &str) -> WorkflowType {
    WorkflowType::builder()
        .name(name)
        .version(version)
        .build()
        .unwrap()
}

pub(crate) fn act_type(name: &str, version: &str) -> ActivityType {
    ActivityType::builder()
        .name(name)
        .version(version)
        .build()
        .unwrap()
}

pub(crate) fn task_list(name: &str) -> TaskList {
    TaskList::builder().name(name).build().unwrap()
}

pub(crate) fn execution(workflow_id: &str, run_id: &str) -> WorkflowExecution {
    WorkflowExecution::builder()
        .workflow_id(workflow_id)
        .run_id(run_id)
        .build()
        .unwrap()
}

/// Registers workflow type `name`, version "1", with every default: decision list [`DECIDERS`],
/// a 3600 s execution, 60 s decision tasks, child policy TERMINATE.
pub(crate) async fn register_workflow(c: &Client, name: &str) {
    c.register_workflow_type()
        .domain(D)
        .name(name)
        .version("1")
        .default_task_list(task_list(DECIDERS))
        .default_execution_start_to_close_timeout("3600")
        .default_task_start_to_close_timeout("60")
        .default_child_policy(ChildPolicy::Terminate)
        .send()
        .await
        .unwrap_or_else(|e| panic!("register workflow type {name}: {e:?}"));
}

/// Registers workflow type `name` version `version` without any default.
pub(crate) async fn register_bare_workflow(c: &Client, name: &str, version: &str) {
    c.register_workflow_type()
        .domain(D)
        .name(name)
        .version(version)
        .send()
        .await
        .unwrap_or_else(|e| panic!("register workflow type {name}: {e:?}"));
}

/// Registers activity type `name`, version "1", with every default: list [`WORKERS`], 300 s
/// schedule-to-close, schedule-to-start and start-to-close, no heartbeat timeout.
pub(crate) async fn register_activity(c: &Client, name: &str) {
    c.register_activity_type()
        .domain(D)
        .name(name)
        .version("1")
        .default_task_list(task_list(WORKERS))
        .default_task_schedule_to_close_timeout("300")
        .default_task_schedule_to_start_timeout("300")
        .default_task_start_to_close_timeout("300")
        .default_task_heartbeat_timeout("NONE")
        .send()
        .await
        .unwrap_or_else(|e| panic!("register activity type {name}: {e:?}"));
}

/// Starts workflow type `name` version "1" as `workflow_id` with the type's defaults; the runId.
pub(crate) async fn start(c: &Client, workflow_id: &str, name: &str) -> String {
    start_with(c, workflow_id, name, |s| s).await
}

/// Like [`start`], with the decision tasks on `list` instead of the type's default list.
pub(crate) async fn start_on(c: &Client, workflow_id: &str, name: &str, list: &str) -> String {
    start_with(c, workflow_id, name, |s| s.task_list(task_list(list))).await
}

/// Like [`start`], with whatever else `configure` sets on the request.
pub(crate) async fn start_with(
    c: &Client,
    workflow_id: &str,
    name: &str,
    configure: impl FnOnce(StartWorkflowExecutionFluentBuilder) -> StartWorkflowExecutionFluentBuilder,
) -> String {
    let request = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id(workflow_id)
        .workflow_type(wf_type(name, "1"));
    configure(request)
        .send()
        .await
        .unwrap_or_else(|e| panic!("start {workflow_id}: {e:?}"))
        .run_id()
        .expect("a runId")
        .to_owned()
}

/// A start-time filter that every run passes: since the epoch.
pub(crate) fn since_ever() -> ExecutionTimeFilter {
    ExecutionTimeFilter::builder()
        .oldest_date(DateTime::from_secs(0))
        .build()
        .expect("a time filter")
}

/// Signals the open run of `workflow_id` with `name` and no input.
pub(crate) async fn signal(c: &Client, workflow_id: &str, name: &str) {
    c.signal_workflow_execution()
        .domain(D)
        .workflow_id(workflow_id)
        .signal_name(name)
        .send()
        .await
        .unwrap_or_else(|e| panic!("signal {workflow_id}: {e:?}"));
}

/// One PollForDecisionTask on `list`: the task, or `None` if the poll came back empty.
pub(crate) async fn poll_decision_once(
    c: &Client,
    list: &str,
) -> Option<PollForDecisionTaskOutput> {
    let task = c
        .poll_for_decision_task()
        .domain(D)
        .task_list(task_list(list))
        .identity("decider")
        .send()
        .await
        .unwrap_or_else(|e| panic!("poll decision task on {list}: {e:?}"));
    (!task.task_token().is_empty()).then_some(task)
}

/// Polls `list` until a decision task comes (panics after 30 s, also on a manual clock that
/// nobody moves).
pub(crate) async fn decision_task(c: &Client, list: &str) -> PollForDecisionTaskOutput {
    let began = Instant::now();
    loop {
        let left = PATIENCE.saturating_sub(began.elapsed());
        if let Ok(Some(task)) = tokio::time::timeout(left, poll_decision_once(c, list)).await {
            return task;
        }
        assert!(
            began.elapsed() < PATIENCE,
            "no decision task on {list} within {PATIENCE:?}"
        );
    }
}

/// One PollForActivityTask on `list`: the task, or `None` if the poll came back empty.
pub(crate) async fn poll_activity_once(
    c: &Client,
    list: &str,
) -> Option<PollForActivityTaskOutput> {
    let task = c
        .poll_for_activity_task()
        .domain(D)
        .task_list(task_list(list))
        .identity("worker")
        .send()
        .await
        .unwrap_or_else(|e| panic!("poll activity task on {list}: {e:?}"));
    (!task.task_token().is_empty()).then_some(task)
}

/// Polls `list` until an activity task comes (panics after 30 s, also on a manual clock that
/// nobody moves).
pub(crate) async fn activity_task(c: &Client, list: &str) -> PollForActivityTaskOutput {
    let began = Instant::now();
    loop {
        let left = PATIENCE.saturating_sub(began.elapsed());
        if let Ok(Some(task)) = tokio::time::timeout(left, poll_activity_once(c, list)).await {
            return task;
        }
        assert!(
            began.elapsed() < PATIENCE,
            "no activity task on {list} within {PATIENCE:?}"
        );
    }
}

/// Completes the decision task `token` with `decisions`.
pub(crate) async fn respond(c: &Client, token: &str, decisions: Vec<Decision>) {
    c.respond_decision_task_completed()
        .task_token(token)
        .set_decisions(Some(decisions))
        .send()
        .await
        .unwrap_or_else(|e| panic!("respond decision task: {e:?}"));
}

/// RecordActivityTaskHeartbeat for `token` with `details`: whether cancellation was requested,
/// or the fault's code.
pub(crate) async fn heartbeat(
    c: &Client,
    token: &str,
    details: Option<&str>,
) -> Result<bool, String> {
    c.record_activity_task_heartbeat()
        .task_token(token)
        .set_details(details.map(str::to_owned))
        .send()
        .await
        .map(|s| s.cancel_requested())
        .map_err(|e| fault(Err::<(), _>(e)).0)
}

/// Asserts that every way of answering an activity task with `token` (heartbeat, complete, fail,
/// cancel) is UnknownResourceFault: the task is no longer open.
pub(crate) async fn assert_activity_token_dead(c: &Client, token: &str) {
    assert_activity_token_refused(c, token, "UnknownResourceFault").await;
}

/// Asserts that every way of answering an activity task with `token` (heartbeat, complete, fail,
/// cancel) fails with `code`.
pub(crate) async fn assert_activity_token_refused(c: &Client, token: &str, code: &str) {
    assert_eq!(heartbeat(c, token, None).await, Err(code.to_owned()));
    expect_fault(
        c.respond_activity_task_completed()
            .task_token(token)
            .send()
            .await,
        code,
    );
    expect_fault(
        c.respond_activity_task_failed()
            .task_token(token)
            .send()
            .await,
        code,
    );
    expect_fault(
        c.respond_activity_task_canceled()
            .task_token(token)
            .send()
            .await,
        code,
    );
}

/// The whole history of a run, oldest first, read page by page.
pub(crate) async fn history(c: &Client, workflow_id: &str, run_id: &str) -> Vec<HistoryEvent> {
    weft_tests::guests::read_history(c, D, workflow_id, run_id).await
}

/// Reads the history of a run until it holds an event of type `event_type` (panics after 30 s).
pub(crate) async fn wait_for_event(
    c: &Client,
    workflow_id: &str,
    run_id: &str,
    event_type: &str,
) -> Vec<HistoryEvent> {
    wait_for_events(c, workflow_id, run_id, event_type, 1).await
}

/// Reads the history of a run until it holds at least `n` events of type `event_type` (panics
/// after 30 s).
pub(crate) async fn wait_for_events(
    c: &Client,
    workflow_id: &str,
    run_id: &str,
    event_type: &str,
    n: usize,
) -> Vec<HistoryEvent> {
    let began = Instant::now();
    loop {
        let events = history(c, workflow_id, run_id).await;
        if count(&events, event_type) >= n {
            return events;
        }
        assert!(
            began.elapsed() < PATIENCE,
            "not {n} {event_type} in {workflow_id} within {PATIENCE:?}: {:?}",
            types(&events)
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// DescribeWorkflowExecution of a run.
pub(crate) async fn describe(
    c: &Client,
    workflow_id: &str,
    run_id: &str,
) -> DescribeWorkflowExecutionOutput {
    c.describe_workflow_execution()
        .domain(D)
        .execution(execution(workflow_id, run_id))
        .send()
        .await
        .unwrap_or_else(|e| panic!("describe {workflow_id}: {e:?}"))
}

/// CountPendingDecisionTasks on `list`.
pub(crate) async fn pending_decisions(c: &Client, list: &str) -> i32 {
    c.count_pending_decision_tasks()
        .domain(D)
        .task_list(task_list(list))
        .send()
        .await
        .unwrap()
        .count()
}

/// CountPendingActivityTasks on `list`.
pub(crate) async fn pending_activities(c: &Client, list: &str) -> i32 {
    c.count_pending_activity_tasks()
        .domain(D)
        .task_list(task_list(list))
        .send()
        .await
        .unwrap()
        .count()
}

/// The event types of `events`, in order.
pub(crate) fn types(events: &[HistoryEvent]) -> Vec<&str> {
    events.iter().map(|e| e.event_type().as_str()).collect()
}

/// Asserts that `events` have exactly the types `expected`, in order.
#[track_caller]
pub(crate) fn assert_types(events: &[HistoryEvent], expected: &[&str]) {
    assert_eq!(types(events), expected);
}

/// The first event of type `event_type`.
#[track_caller]
pub(crate) fn first<'a>(events: &'a [HistoryEvent], event_type: &str) -> &'a HistoryEvent {
    events
        .iter()
        .find(|e| e.event_type().as_str() == event_type)
        .unwrap_or_else(|| panic!("no {event_type} in {:?}", types(events)))
}

/// The last event of type `event_type`.
#[track_caller]
pub(crate) fn last<'a>(events: &'a [HistoryEvent], event_type: &str) -> &'a HistoryEvent {
    events
        .iter()
        .rev()
        .find(|e| e.event_type().as_str() == event_type)
        .unwrap_or_else(|| panic!("no {event_type} in {:?}", types(events)))
}

/// How many events of type `event_type` there are.
pub(crate) fn count(events: &[HistoryEvent], event_type: &str) -> usize {
    events
        .iter()
        .filter(|e| e.event_type().as_str() == event_type)
        .count()
}

/// The recording time of `event`, in milliseconds since the epoch (the wire's precision).
pub(crate) fn millis(event: &HistoryEvent) -> i64 {
    (event.event_timestamp().as_secs_f64() * 1e3).round() as i64
}

/// The wall clock, in milliseconds since the epoch: the server under test runs in this process
/// on the system clock, so this compares with [`millis`].
pub(crate) fn now_millis() -> i64 {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is after 1970");
    i64::try_from(since_epoch.as_millis()).expect("a date before the year 292,000,000")
}

/// Sleeps until the wall clock reads `at` (milliseconds since the epoch); returns at once if it
/// already does.
pub(crate) async fn sleep_until_millis(at: i64) {
    let wait = u64::try_from(at - now_millis()).unwrap_or(0);
    tokio::time::sleep(Duration::from_millis(wait)).await;
}

/// Asserts that event ids run 1, 2, 3, … without a gap.
#[track_caller]
pub(crate) fn assert_contiguous(events: &[HistoryEvent]) {
    let ids: Vec<i64> = events.iter().map(HistoryEvent::event_id).collect();
    let expected: Vec<i64> = (1..=events.len() as i64).collect();
    assert_eq!(ids, expected, "event ids of {:?}", types(events));
}
