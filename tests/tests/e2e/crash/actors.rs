//! The clients of the crash test: deciders, activity workers, a starter and a signaller, each a
//! tokio task with its own client. They follow the server from port to port across restarts,
//! retry what got no answer, and write every acknowledged call into the ledger.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::config::timeout::TimeoutConfig;
use weft_tests::aws_sdk_swf::error::{ProvideErrorMetadata, SdkError};
use weft_tests::aws_sdk_swf::types::{
    Decision, HistoryEvent, ScheduleActivityTaskDecisionAttributes,
};

use super::XorShift;
use super::ledger::Shared;
use crate::flow::{
    D, DECIDERS, WORKERS, act_type, complete_workflow, schedule_activity_with, start_timer,
    task_list, wf_type,
};

/// The workflow type every run has.
pub(super) const WORKFLOW: &str = "crash";
/// The activity type of every step.
pub(super) const ACTIVITY: &str = "step";
/// The steps of a workflow, run one after another.
const STEPS: usize = 3;
/// The timer every workflow waits on between its first two steps, and its duration in seconds.
pub(super) const REST: (&str, &str) = ("rest", "1");
/// The input of an activity task that its worker fails.
const FAIL: &str = "fail";
/// The input of an activity task that its worker drops, as if it had crashed.
const LOSE: &str = "lose";
/// How long a call that got no answer is retried: longer than a restart takes.
const PATIENCE: Duration = Duration::from_secs(10);
/// The pause before trying again while the server is down.
const RETRY: Duration = Duration::from_millis(50);

/// What goes wrong once in a workflow besides the crashes, so that failures and both kinds of
/// timeout happen in every run of the test: named by the workflow's input.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mishap {
    /// The workflow just runs.
    Nothing,
    /// The second step's first attempt fails.
    FailedActivity,
    /// The third step's first attempt is dropped by its worker and times out.
    LostActivity,
    /// The first decision task is dropped by its decider and times out.
    LostDecision,
}

impl Mishap {
    /// The mishap of workflow number `i`.
    pub(super) fn of(i: usize) -> Mishap {
        [
            Mishap::Nothing,
            Mishap::FailedActivity,
            Mishap::LostActivity,
            Mishap::LostDecision,
        ][i % 4]
    }

    fn input(self) -> &'static str {
        match self {
            Mishap::Nothing => "nothing",
            Mishap::FailedActivity => "failed activity",
            Mishap::LostActivity => "lost activity",
            Mishap::LostDecision => "lost decision",
        }
    }

    /// The mishap named by the input in the first event of `events`.
    fn from_history(events: &[HistoryEvent]) -> Mishap {
        let input = events
            .first()
            .and_then(|e| e.workflow_execution_started_event_attributes())
            .and_then(|a| a.input());
        [
            Mishap::FailedActivity,
            Mishap::LostActivity,
            Mishap::LostDecision,
        ]
        .into_iter()
        .find(|m| Some(m.input()) == input)
        .unwrap_or(Mishap::Nothing)
    }
}

/// What the actors share.
#[derive(Clone)]
pub(super) struct Crew {
    pub(super) ledger: Shared,
    /// Set when the actors should stop.
    pub(super) stop: Arc<AtomicBool>,
    /// One per node, woken just before a call that changes something is sent to it, so the
    /// test can aim a kill at the moments when a change is in flight.
    pub(super) sending: Arc<[Notify]>,
}

impl Crew {
    /// The crew of `nodes` nodes.
    pub(super) fn new(nodes: usize) -> Crew {
        Crew {
            ledger: Shared::default(),
            stop: Arc::default(),
            sending: (0..nodes).map(|_| Notify::new()).collect(),
        }
    }

    fn running(&self) -> bool {
        !self.stop.load(Ordering::Relaxed)
    }
}

/// The nodes' endpoints, each published again whenever its node restarts on a new port.
pub(super) type Nodes = Arc<[watch::Receiver<String>]>;

/// A client for one node, as a load balancer would give it: the same node while it answers,
/// the next one once it does not.
pub(super) struct Conn {
    nodes: Nodes,
    node: usize,
    url: String,
    client: Client,
}

impl Conn {
    /// A connection to node `node` (modulo their number).
    pub(super) fn new(nodes: Nodes, node: usize) -> Conn {
        let node = node % nodes.len();
        let url = nodes[node].borrow().clone();
        let client = client(&url);
        Conn {
            nodes,
            node,
            url,
            client,
        }
    }

    /// The client for the node's current endpoint.
    pub(super) fn client(&mut self) -> Client {
        let current = self.nodes[self.node].borrow();
        if *current != self.url {
            self.url = current.clone();
            self.client = client(&self.url);
        }
        self.client.clone()
    }

    /// Moves on to the next node, after this one did not answer.
    fn fail_over(&mut self) {
        self.node = (self.node + 1) % self.nodes.len();
    }
}

/// One attempt per call and short timeouts: a dead server shows at once, and long polls answer
/// within a second.
fn client(url: &str) -> Client {
    let timeouts = TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(1))
        .read_timeout(Duration::from_secs(5))
        .build();
    weft_tests::client_at(url, timeouts)
}

/// Whether a call got no answer from the server (it was down, or died during the call), or an
/// answer a client retries (it could not reach its database): the call may or may not have
/// taken effect.
fn unanswered<E: ProvideErrorMetadata, R>(error: &SdkError<E, R>) -> bool {
    let retryable = matches!(
        error.code(),
        Some("ServiceUnavailableException" | "ThrottlingException")
    );
    retryable || !matches!(error, SdkError::ServiceError(_))
}

/// Makes the call `call` builds until the server answers it (success or fault), for at most
/// [`PATIENCE`]; `None` if it never did. Counts the calls that needed more than one attempt.
async fn until_answered<T, E: ProvideErrorMetadata, R, F, Fut>(
    conn: &mut Conn,
    crew: &Crew,
    mut call: F,
) -> Option<Result<T, SdkError<E, R>>>
where
    F: FnMut(Client) -> Fut,
    Fut: Future<Output = Result<T, SdkError<E, R>>>,
{
    let deadline = Instant::now() + PATIENCE;
    let mut retried = false;
    loop {
        let client = conn.client();
        crew.sending[conn.node].notify_waiters();
        match call(client).await {
            Err(e) if unanswered(&e) => {
                if Instant::now() > deadline {
                    return None;
                }
                retried = true;
                conn.fail_over();
                tokio::time::sleep(RETRY).await;
            }
            answered => {
                if retried {
                    let mut ledger = crew.ledger.lock();
                    match answered {
                        Ok(_) => ledger.retried.0 += 1,
                        Err(_) => ledger.retried.1 += 1,
                    }
                }
                return Some(answered);
            }
        }
    }
}

/// The error code of a fault, for the ledger.
fn code<E: ProvideErrorMetadata, R>(error: &SdkError<E, R>) -> String {
    error.code().unwrap_or("no code").to_owned()
}

/// Starts workflows `ids` one after another, `pause` apart.
pub(super) async fn starter(mut conn: Conn, crew: Crew, ids: Vec<String>, pause: Duration) {
    for (i, id) in ids.into_iter().enumerate() {
        tokio::time::sleep(pause).await;
        let input = Mishap::of(i).input();
        let answer = until_answered(&mut conn, &crew, |c| {
            c.start_workflow_execution()
                .domain(D)
                .workflow_id(&id)
                .workflow_type(wf_type(WORKFLOW, "1"))
                .input(input)
                .send()
        })
        .await;
        let surprise = match answer {
            Some(Ok(started)) => {
                let run = started.run_id().unwrap_or_default().to_owned();
                crew.ledger.lock().starts.insert(id, run);
                continue;
            }
            // An attempt that got no answer had started it.
            Some(Err(e)) if code(&e) == "WorkflowExecutionAlreadyStartedFault" => continue,
            Some(Err(e)) => format!("start {id}: {e:?}"),
            None => format!("start {id}: no answer"),
        };
        crew.ledger.lock().surprises.push(surprise);
    }
}

/// Signals random workflows of `ids` until `stop`, each signal with its own input. A signal
/// to a workflow not started yet or already closed fails, which is fine.
pub(super) async fn signaller(mut conn: Conn, crew: Crew, ids: Vec<String>, seed: u64) {
    let mut rng = XorShift::new(seed);
    let mut sent = 0;
    while crew.running() {
        tokio::time::sleep(rng.millis(20, 80)).await;
        let id = &ids[rng.below(ids.len() as u64) as usize];
        sent += 1;
        let input = format!("signal {sent}");
        // One attempt: a retry of a signal that got no answer could deliver it twice.
        let signalled = conn
            .client()
            .signal_workflow_execution()
            .domain(D)
            .workflow_id(id)
            .signal_name("poke")
            .input(&input)
            .send()
            .await;
        match signalled {
            Ok(_) => crew.ledger.lock().signals.push((id.clone(), input)),
            Err(e) if unanswered(&e) => conn.fail_over(),
            Err(_) => {}
        }
    }
}

/// Decides workflows until `stop`.
pub(super) async fn decider(mut conn: Conn, crew: Crew, name: String) {
    while crew.running() {
        let Some(task) = poll_decision(&mut conn, &name).await else {
            continue;
        };
        crew.ledger
            .lock()
            .handed_out(&task.run_id, task.started, "DecisionTaskStarted");
        let Some(decisions) = decide(&task.events) else {
            continue;
        };
        let answer = until_answered(&mut conn, &crew, |c| {
            c.respond_decision_task_completed()
                .task_token(&task.token)
                .set_decisions(Some(decisions.clone()))
                .send()
        })
        .await;
        // A fault means the task timed out meanwhile, or an earlier attempt completed it.
        if let Some(Ok(_)) = answer {
            crew.ledger
                .lock()
                .decisions
                .push((task.run_id, task.started));
        }
    }
}

/// A decision task with its whole history.
struct DecisionTask {
    token: String,
    run_id: String,
    started: i64,
    events: Vec<HistoryEvent>,
}

/// One long poll for a decision task, with the rest of its history if it has pages.
async fn poll_decision(conn: &mut Conn, name: &str) -> Option<DecisionTask> {
    let client = conn.client();
    let poll = || {
        client
            .poll_for_decision_task()
            .domain(D)
            .task_list(task_list(DECIDERS))
            .identity(name)
    };
    let first = match poll().send().await {
        Ok(first) if !first.task_token().is_empty() => first,
        Ok(_) => return None,
        Err(_) => {
            conn.fail_over();
            tokio::time::sleep(RETRY).await;
            return None;
        }
    };
    let mut events = first.events().to_vec();
    let mut page = first.next_page_token().map(str::to_owned);
    while let Some(token) = page {
        // If the server died meanwhile the task is lost; it times out and comes back.
        let next = poll().next_page_token(token).send().await.ok()?;
        events.extend_from_slice(next.events());
        page = next.next_page_token().map(str::to_owned);
    }
    Some(DecisionTask {
        token: first.task_token().to_owned(),
        run_id: first.workflow_execution()?.run_id().to_owned(),
        started: first.started_event_id(),
        events,
    })
}

/// The decisions for a history: the steps as activities one after another (a new attempt, with
/// a new activity id, after a failure or timeout) with the [`REST`] timer between the first
/// two, then completion; `None` to drop the task.
/// Anything else in the history is ignored.
fn decide(events: &[HistoryEvent]) -> Option<Vec<Decision>> {
    let mishap = Mishap::from_history(events);
    let timed_out = |e: &HistoryEvent| e.decision_task_timed_out_event_attributes().is_some();
    if mishap == Mishap::LostDecision && !events.iter().any(timed_out) {
        return None;
    }
    let step_of = |activity_id: &str| -> Option<usize> {
        let step = activity_id.strip_prefix("step")?.split('-').next()?;
        step.parse().ok().filter(|s| *s < STEPS)
    };
    let mut attempts = [0; STEPS];
    let mut done = [false; STEPS];
    // Open activities: their scheduled event → step.
    let mut open = std::collections::HashMap::new();
    for event in events {
        if let Some(a) = event.activity_task_scheduled_event_attributes() {
            if let Some(step) = step_of(a.activity_id()) {
                attempts[step] += 1;
                open.insert(event.event_id(), step);
            }
        } else if let Some(a) = event.schedule_activity_task_failed_event_attributes() {
            if let Some(step) = step_of(a.activity_id()) {
                attempts[step] += 1;
            }
        } else if let Some(a) = event.activity_task_completed_event_attributes() {
            if let Some(step) = open.remove(&a.scheduled_event_id()) {
                done[step] = true;
            }
        } else if let Some(scheduled) = closed_without_result(event) {
            open.remove(&scheduled);
        }
    }
    let Some(step) = done.iter().position(|done| !done) else {
        return Some(vec![complete_workflow(Some("all steps done"))]);
    };
    if open.values().any(|s| *s == step) {
        return Some(vec![]);
    }
    if step == 1 {
        let has = |test: fn(&HistoryEvent) -> bool| events.iter().any(test);
        if !has(|e| e.timer_started_event_attributes().is_some()) {
            return Some(vec![start_timer(REST.0, REST.1)]);
        }
        if !has(|e| e.timer_fired_event_attributes().is_some()) {
            return Some(vec![]);
        }
    }
    let attempt = attempts[step];
    let input = match (mishap, step, attempt) {
        (Mishap::FailedActivity, 1, 0) => FAIL,
        (Mishap::LostActivity, 2, 0) => LOSE,
        _ => "work",
    };
    Some(vec![schedule_activity_with(
        ScheduleActivityTaskDecisionAttributes::builder()
            .activity_id(format!("step{step}-attempt{attempt}"))
            .activity_type(act_type(ACTIVITY, "1"))
            .input(input),
    )])
}

/// The scheduled event of the activity task `event` closes without a result.
fn closed_without_result(event: &HistoryEvent) -> Option<i64> {
    if let Some(a) = event.activity_task_failed_event_attributes() {
        Some(a.scheduled_event_id())
    } else if let Some(a) = event.activity_task_timed_out_event_attributes() {
        Some(a.scheduled_event_id())
    } else {
        event
            .activity_task_canceled_event_attributes()
            .map(|a| a.scheduled_event_id())
    }
}

/// Works activity tasks until `stop`: each takes a little while, then completes (or fails, or is
/// dropped, if its input says so).
pub(super) async fn worker(mut conn: Conn, crew: Crew, name: String, seed: u64) {
    let mut rng = XorShift::new(seed);
    while crew.running() {
        let polled = conn
            .client()
            .poll_for_activity_task()
            .domain(D)
            .task_list(task_list(WORKERS))
            .identity(&name)
            .send()
            .await;
        let task = match polled {
            Ok(task) if !task.task_token().is_empty() => task,
            Ok(_) => continue,
            Err(_) => {
                conn.fail_over();
                tokio::time::sleep(RETRY).await;
                continue;
            }
        };
        let Some(run) = task.workflow_execution().map(|e| e.run_id().to_owned()) else {
            continue;
        };
        let started = task.started_event_id();
        crew.ledger
            .lock()
            .handed_out(&run, started, "ActivityTaskStarted");
        tokio::time::sleep(rng.millis(100, 400)).await;
        let token = task.task_token();
        if task.input() == Some(LOSE) {
            continue;
        }
        if task.input() == Some(FAIL) {
            let _ = until_answered(&mut conn, &crew, |c| {
                c.respond_activity_task_failed()
                    .task_token(token)
                    .reason("failing once, as asked")
                    .send()
            })
            .await;
            continue;
        }
        let result = format!("{} done by {name}", task.activity_id());
        let answer = until_answered(&mut conn, &crew, |c| {
            c.respond_activity_task_completed()
                .task_token(token)
                .result(&result)
                .send()
        })
        .await;
        if let Some(Ok(_)) = answer {
            crew.ledger.lock().completions.push((run, started, result));
        }
    }
}
