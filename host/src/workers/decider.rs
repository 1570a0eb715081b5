//! Serving a decision task with a Wasm decider.
//!
//! A decider that fails (traps, breaks a limit, answers an error or decisions the service
//! rejects) does not give its task up: the worker holds it and runs the decider again after a
//! pause that doubles with each failure on the run (`backoff`), or at once when the bindings
//! change (a fixed module bound to the list takes over the held task), for as long as the task's
//! start-to-close timeout leaves. Nothing of this is in the history, as nothing of a crashed
//! SWF decider's retries is: the task completes when an attempt succeeds, or times out. A
//! binding may have the run paused after so many failures in a row (`pauseAfterFailures`): the
//! decider then runs on it again only once it is resumed.
//!
//! Each attempt is decided by the module the run is pinned to (`model::pins`), or, on a run not
//! pinned yet, by the module bound now, which its answer then pins the run to. A run an upgrade
//! moves while its task is decided has the answer refused and decided again by its new module.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::watch;
use tracing::Instrument as _;

use crate::api;
use crate::api::op::{PollForDecisionTask, RespondDecisionTaskCompleted};
use crate::clock::Timestamp;
use crate::fault::Fault;
use crate::fault::decode;
use crate::model::{MAX_PAUSE_REASON, PauseRequest, WorkflowExecution};
use crate::ops::decision_tasks::{
    Decided, DecisionTaskOutput, PollInput, RespondInput, respond_completed_by,
};
use crate::ops::pauses;
use crate::ops::pins::task_pin;
use crate::ops::runs::run_summary;
use crate::runtime::GuestLine;
use crate::runtime::Module;

use super::{Worker, bound_module, load_module, refused};

/// Polls the binding's decision task list and serves the task that comes, if one does: at once,
/// or, on a run the decider keeps failing on, after its pause, holding the task meanwhile.
pub(super) async fn serve_one(
    worker: &Arc<Worker>,
    stop: &mut watch::Receiver<bool>,
) -> Result<(), Fault> {
    let polled = worker
        .poll::<PollForDecisionTask>(poll_input(worker, None), stop)
        .await?;
    let Some(mut task) = polled else {
        return Ok(());
    };
    // An empty answer (the poll timed out) has neither.
    let (Some(token), Some(execution)) = (task.task_token.clone(), task.workflow_execution.clone())
    else {
        return Ok(());
    };
    whole_history(worker, &mut task).await?;
    // The runtime reads the task as the wire JSON a decider would get over HTTP.
    let wire = serde_json::from_slice(&task.to_json()?).map_err(Fault::internal)?;
    let held = Held {
        pin: task.pin.take(),
        deadline: deadline(&wire, task.started_event_id),
        name: format!("decision task {}", task.started_event_id),
        token,
        execution,
        wire,
    };
    let run_id = held.execution.run_id.to_string();
    let span = worker.task_span(&held.execution, None);
    let attempted = match worker.backoff.paused(&run_id, Instant::now()) {
        true => Attempt::Failed,
        false => attempt(worker, &held, 1).instrument(span.clone()).await?,
    };
    if let Attempt::Failed | Attempt::Paused = attempted {
        let paused = matches!(attempted, Attempt::Paused);
        let held = hold(worker.clone(), held, paused);
        tokio::spawn(held.instrument(span));
    }
    Ok(())
}

/// A decision task a worker holds: it is started, and answered once its decider answers.
struct Held {
    token: String,
    execution: WorkflowExecution,
    /// The task in wire JSON, all events included.
    wire: Value,
    /// `decision task N`, as failures name it.
    name: String,
    /// When the task times out, if it does.
    deadline: Option<Timestamp>,
    /// The module the run was pinned to as the task started, if it was.
    pin: Option<String>,
}

/// How one run of the decider on a held task went.
enum Attempt {
    /// Its answer was applied (or the task is gone): nothing more to do.
    Done,
    /// It failed: the task is still held.
    Failed,
    /// The run was moved to another module meanwhile: the task is still held, for it.
    Moved,
    /// It failed as many times in a row as the binding allows, and the run was paused: the
    /// task is held until the run resumes.
    Paused,
}

/// How many times one attempt decides again for a run moved meanwhile: upgrades are rare.
const MOVES: u32 = 3;

/// Runs the run's decider on the held task and answers the task with its decisions.
async fn attempt(worker: &Worker, held: &Held, number: u32) -> Result<Attempt, Fault> {
    tracing::Span::current().record("attempt", number);
    for moves in 0..MOVES {
        // The poll read the pin as the task started; later attempts read it again, since an
        // upgrade may have moved the run meanwhile.
        let pin = match (number, moves) {
            (1, 0) => held.pin.clone(),
            _ => task_pin(&worker.svc, &held.token)
                .await?
                .map(|pin| pin.module),
        };
        let module = match decider(worker, held, pin).await {
            Ok(module) => module,
            Err(reason) => return Ok(failed(worker, held, reason, &[]).await),
        };
        match decide(worker, &module, held).await? {
            Attempt::Moved => continue,
            settled => return Ok(settled),
        }
    }
    Ok(Attempt::Failed)
}

/// The module to decide `held` with: `pin`, the one its run is pinned to, else the one bound
/// now (or, while the binding ramps its module up, the previous one for the runs the ramp
/// leaves it); or why that module cannot be loaded.
async fn decider(worker: &Worker, held: &Held, pin: Option<String>) -> Result<Arc<Module>, String> {
    let digest = match pin {
        Some(pinned) => pinned,
        None => {
            let bound = worker.module_now().await;
            let binding = &worker.binding;
            // A worker whose binding changed since it started knows no ramp of the new one.
            if bound.digest != binding.module {
                return Ok(bound);
            }
            binding
                .module_for_new_run(held.execution.run_id.as_str())
                .to_owned()
        }
    };
    if digest == worker.module.digest {
        return Ok(worker.module.clone());
    }
    let loaded = load_module(&worker.svc, &worker.binding.account, &digest).await;
    loaded.map_err(|e| format!("the run's decider, module {digest}, cannot be loaded: {e}"))
}

/// Runs `module` on the held task and answers the task with its decisions.
async fn decide(worker: &Worker, module: &Module, held: &Held) -> Result<Attempt, Fault> {
    let run_id = held.execution.run_id.as_str();
    let (runtime, metrics) = (&worker.svc.runtime, &worker.svc.engine.metrics.own);
    let invalid = |_: &String| metrics.guest_failed(&worker.labels, "invalid");
    let (call, tap) = worker.tapped();
    let decided = match worker
        .guest(runtime.decide(module, &call, &held.wire))
        .await
    {
        Ok(response) => response_input(response, held.token.clone()).inspect_err(invalid),
        Err(failure) => Err(failure.reason()),
    };
    let lines = tap.take();
    worker.keep_lines(&held.execution, &held.name, &lines);
    let response = match decided {
        Ok(response) => response,
        Err(reason) => return Ok(failed(worker, held, reason, &lines).await),
    };
    let answered = match api::admit::<RespondDecisionTaskCompleted>(&worker.ctx, response) {
        Ok(input) => {
            let by = Some(module.digest.clone());
            respond_completed_by(&worker.svc, &worker.ctx, input, by).await
        }
        Err(fault) => Err(fault),
    };
    match answered {
        Ok(Decided::Applied) => {
            worker.backoff.succeeded(run_id);
            let version = version_of(worker, &module.digest).await;
            metrics.decided(&worker.labels, version);
            Ok(Attempt::Done)
        }
        Ok(Decided::Moved) => Ok(Attempt::Moved),
        Err(fault @ Fault::Internal(_)) => Err(fault),
        // The task timed out meanwhile: its token is dead, and a new task is scheduled.
        Err(Fault::UnknownResource(_)) => Ok(Attempt::Done),
        Err(fault) => {
            metrics.guest_failed(&worker.labels, "invalid");
            Ok(failed(worker, held, refused(&fault).to_string(), &[]).await)
        }
    }
}

/// The version of module `digest` in the worker's binding, or, for a module bound after the
/// worker was made (a task it took as the supervisor was replacing it), in the binding now;
/// its digest's prefix if neither lists it.
async fn version_of(worker: &Worker, digest: &str) -> String {
    let listed = match worker.binding.version_of(digest) {
        Some(version) => Some(version.number),
        None => super::binding_now(worker)
            .await
            .and_then(|now| now.version_of(digest).map(|version| version.number)),
    };
    listed.map_or_else(|| digest[..12].to_owned(), |number| number.to_string())
}

/// The decider failed on `held` for `reason`, logging `lines`: the failure is kept, the run
/// waits longer for the next attempt, and, once it has failed as many times in a row as the
/// binding allows, the run is paused.
async fn failed(worker: &Worker, held: &Held, reason: String, lines: &[GuestLine]) -> Attempt {
    let run_id = held.execution.run_id.as_str();
    let count = worker.backoff.failed(run_id, Instant::now());
    let pause = (worker.binding.pause_after_failures).is_some_and(|n| count >= n);
    let why = pause.then(|| format!("its decider failed {count} times in a row: {reason}"));
    worker
        .failed(&held.execution, held.name.clone(), reason, lines)
        .await;
    let Some(why) = why else {
        return Attempt::Failed;
    };
    let request = PauseRequest {
        run_id: Some(run_id.to_owned()),
        reason: Some(why.chars().take(MAX_PAUSE_REASON).collect()),
        identity: Some(format!("weft (decision binding {})", worker.binding.name)),
    };
    let (svc, ctx, domain) = (&worker.svc, &worker.ctx, worker.binding.domain.clone());
    let workflow_id = held.execution.workflow_id.clone();
    match pauses::pause_for(svc, ctx, (domain, workflow_id), request, "failures").await {
        Ok(_) => {
            // The next failures, once resumed, count from none.
            worker.backoff.succeeded(run_id);
            Attempt::Paused
        }
        Err(fault) => {
            tracing::warn!(
                guest = &*worker.call.label,
                "pausing a failing run: {fault}"
            );
            Attempt::Failed
        }
    }
}

/// Whether the run of `held` is paused.
async fn is_paused(worker: &Worker, held: &Held) -> bool {
    let (svc, ctx, domain) = (&worker.svc, &worker.ctx, worker.binding.domain.clone());
    let (workflow_id, run_id) = (&held.execution.workflow_id, &held.execution.run_id);
    let summary = run_summary(svc, ctx, domain, workflow_id.clone(), run_id.clone()).await;
    summary.is_ok_and(|run| run.paused.is_some())
}

/// How often a held task of a run paused for its decider's failures looks whether the run was
/// resumed at another node (one resumed at this node wakes it at once).
const PAUSED_LOOK: Duration = Duration::from_secs(60);

/// Holds a task the decider failed on: runs the decider again once the run's pause is over, or
/// at once when the bindings change (with the module bound to the list then, unless the run is
/// pinned) or an upgrade moves runs, until an attempt succeeds, the task's timeout comes, or the
/// list is no longer bound.
async fn hold(worker: Arc<Worker>, held: Held, mut paused: bool) {
    let svc = &worker.svc;
    let mut changed = svc.bindings_changed.subscribe();
    changed.mark_unchanged();
    let mut resumed = svc.runs_resumed.subscribe();
    resumed.mark_unchanged();
    let run_id = held.execution.run_id.to_string();
    // The first attempt was made before the task was held.
    let mut tries = 1;
    loop {
        let wait = match paused {
            // A resume at another node is heard of no sooner.
            true => PAUSED_LOOK,
            false => worker.backoff.remaining(&run_id, Instant::now()),
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            changed = changed.changed() => {
                if changed.is_err() || bound_module(&worker).await.is_none() {
                    return;
                }
            }
            resumed = resumed.changed() => {
                if resumed.is_err() {
                    return;
                }
            }
        }
        if held.deadline.is_some_and(|at| svc.clock.now() >= at) {
            return;
        }
        if paused {
            paused = is_paused(&worker, &held).await;
            if paused {
                continue;
            }
        }
        tries += 1;
        match attempt(&worker, &held, tries).await {
            Ok(Attempt::Failed | Attempt::Moved) => continue,
            Ok(Attempt::Paused) => paused = true,
            Ok(Attempt::Done) => return,
            Err(fault) => {
                tracing::warn!(guest = &*worker.call.label, "in-process worker: {fault}");
                return;
            }
        }
    }
}

/// When the task `wire` (started at event `started`) times out: its start plus its
/// `DecisionTaskScheduled`'s start-to-close timeout; none if that is `NONE`.
fn deadline(wire: &Value, started: u64) -> Option<Timestamp> {
    let events = wire["events"].as_array()?;
    let event = |id: u64| events.iter().find(|e| e["eventId"].as_u64() == Some(id));
    let started = event(started)?;
    let at = started["eventTimestamp"].as_f64()?;
    let scheduled = started["decisionTaskStartedEventAttributes"]["scheduledEventId"].as_u64()?;
    let timeout = &event(scheduled)?["decisionTaskScheduledEventAttributes"]["startToCloseTimeout"];
    let seconds: u64 = timeout.as_str()?.parse().ok()?;
    let at = Duration::from_secs_f64(at) + Duration::from_secs(seconds);
    Some(Timestamp::from_millis(i64::try_from(at.as_millis()).ok()?))
}

/// The decider's answer (`RespondDecisionTaskCompleted`'s input in wire JSON, less the token)
/// as that operation's input for the task `token`; or why it is not one.
fn response_input(mut response: Value, token: String) -> Result<RespondInput, String> {
    if let Some(members) = response.as_object_mut() {
        members.insert("taskToken".into(), Value::String(token));
    }
    decode(response).map_err(|fault| refused(&fault).to_string())
}

/// The input of a poll on this binding's decision task list; with `page`, a poll for that page
/// of the history of a task already delivered.
fn poll_input(worker: &Worker, page: Option<String>) -> PollInput {
    PollInput {
        domain: worker.domain(),
        task_list: worker.task_list(),
        identity: Some(worker.identity.clone()),
        next_page_token: page,
        maximum_page_size: None,
        reverse_order: false,
        start_at_previous_started_event: false,
    }
}

/// Appends the rest of the task's history, page by page, to its `events`.
async fn whole_history(worker: &Worker, task: &mut DecisionTaskOutput) -> Result<(), Fault> {
    while let Some(token) = task.next_page_token.take() {
        let input = poll_input(worker, Some(token));
        let page = worker.call::<PollForDecisionTask>(input).await?;
        let events = task.events.get_or_insert_default();
        events.append(page.events.unwrap_or_default());
        task.next_page_token = page.next_page_token;
    }
    Ok(())
}
