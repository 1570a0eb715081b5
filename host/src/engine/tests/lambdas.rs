//! Lambda function tasks (spec §6.13): scheduling and its failures, the function worker's claim
//! and answers, the start-to-close timeout to the millisecond, and runs closing over open ones.
//! Every history is also run through the consistency checker.

use serde_json::{Value, json};

use crate::Limits;
use crate::check::check_history;
use crate::fault::Fault;
use crate::model::decisions::{Decision, attrs as d};
use crate::model::{BindingKind, Lambda, TaskKind, Timeout};
use crate::store::StoreError;

use super::super::{
    Claimed, Completion, FunctionClaim, LambdaOutcome, TaskRef, claim, claim_lambda,
    closable_lambda, close_lambda, complete_decision_task, signal, start_run, started_task,
    terminate,
};
use super::{Fixture, domain, new_run, reload};

const SEC: i64 = 1000;

/// The function the fixture's domain binds, unless a test says otherwise.
const FUNCTION: &str = "resize";

/// Binds `name` as `kind` in domain `domain`, as the Wasm runtime will.
async fn bind(fx: &Fixture, domain: u64, kind: BindingKind, name: &'static str) {
    let binding = crate::model::Binding::for_tests(kind, name);
    fx.store
        .apply(move |tx| tx.put_binding(domain, &binding))
        .await
        .unwrap();
}

/// A fixture whose domain binds [`FUNCTION`], with `limits`.
async fn bound(limits: Limits) -> Fixture {
    let fx = Fixture::with_limits(limits).await;
    bind(&fx, 1, BindingKind::Function, FUNCTION).await;
    fx
}

/// ScheduleLambdaFunction `id` of `name`.
fn lambda(id: &str, name: &str, timeout: Option<&str>) -> Decision {
    Decision::ScheduleLambdaFunction(d::ScheduleLambdaFunction {
        id: id.into(),
        name: name.into(),
        control: None,
        input: None,
        start_to_close_timeout: timeout.and_then(Timeout::parse),
    })
}

/// Starts the fixture's run; answers its seq.
async fn started(fx: &Fixture) -> u64 {
    fx.change(|eng| Ok(start_run(eng, new_run(), None)?.seq))
        .await
}

/// Claims the run's decision task and completes it with `decisions`.
async fn decide(fx: &Fixture, seq: u64, decisions: Vec<Decision>) {
    fx.change(move |eng| {
        let Some(Claimed::Decision(claimed)) = claim(eng, TaskKind::Decision, "dl", None)? else {
            return Err(StoreError::broken("no decision task"));
        };
        let mut run = reload(eng, seq)?;
        let completion = Completion {
            decisions,
            ..Completion::default()
        };
        complete_decision_task(eng, &domain(), &mut run, claimed.task, completion)
    })
    .await;
}

/// The function worker's claim of the next task of `name`.
async fn take(fx: &Fixture, name: &'static str) -> Option<FunctionClaim> {
    fx.change(move |eng| claim_lambda(eng, name)).await
}

/// The function worker's answer for `task`.
async fn answer(fx: &Fixture, task: TaskRef, outcome: LambdaOutcome) -> Result<(), Fault> {
    let setup = fx.setup.clone();
    fx.store
        .write(
            move |tx| Ok((closable_lambda(tx, 1, task, &outcome)?, outcome)),
            move |tx, (run, outcome)| {
                let mut eng = super::super::Engine::new(tx, 1, &setup);
                close_lambda(&mut eng, run, task, outcome)?;
                eng.finish()
            },
        )
        .await
}

/// The events of run `seq` from event `from` on, each checked as a whole history first.
async fn events_from(fx: &Fixture, seq: u64, from: usize) -> Vec<Value> {
    let mut events = fx.events(seq).await;
    assert_eq!(check_history(&events), Vec::<String>::new());
    events.split_off(from - 1)
}

/// The event types of `events`.
fn types(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["eventType"].as_str().unwrap())
        .collect()
}

/// How many Lambda tasks wait in the queue of `name`.
async fn queued(fx: &Fixture, name: &'static str) -> u64 {
    fx.store
        .read(move |tx| tx.pending_tasks(1, TaskKind::Function, name))
        .await
        .unwrap()
}

/// How many Lambda tasks run `seq` has open.
async fn open_lambdas(fx: &Fixture, seq: u64) -> usize {
    fx.run(seq).await.unwrap().open.lambdas
}

/// Asserts that after `millis` more, nothing at all happens.
async fn quiet_for(fx: &Fixture, seq: u64, millis: i64) {
    let before = fx.events(seq).await.len();
    assert_eq!(fx.advance(millis).await, 0, "no deadline may come");
    assert_eq!(fx.events(seq).await.len(), before);
}

/// A run whose first decision (completed as event 4) scheduled [`FUNCTION`] as `l1` (event 5)
/// with input, control and a 30 s timeout.
async fn with_lambda(fx: &Fixture) -> u64 {
    let seq = started(fx).await;
    let decision = Decision::ScheduleLambdaFunction(d::ScheduleLambdaFunction {
        id: "l1".into(),
        name: FUNCTION.into(),
        control: Some("ctl".into()),
        input: Some("in".into()),
        start_to_close_timeout: Some(Timeout::Seconds(30)),
    });
    decide(fx, seq, vec![decision]).await;
    seq
}

#[tokio::test]
async fn a_bound_function_is_scheduled_started_and_completed() {
    let fx = bound(Limits::default()).await;
    let seq = with_lambda(&fx).await;
    // Scheduling alone owes the decider nothing.
    let events = events_from(&fx, seq, 4).await;
    assert_eq!(
        types(&events),
        ["DecisionTaskCompleted", "LambdaFunctionScheduled"]
    );
    assert_eq!(
        events[1]["lambdaFunctionScheduledEventAttributes"],
        json!({
            "id": "l1",
            "name": FUNCTION,
            "control": "ctl",
            "input": "in",
            "startToCloseTimeout": "30",
            "decisionTaskCompletedEventId": 4
        })
    );
    assert_eq!(queued(&fx, FUNCTION).await, 1);
    assert_eq!(open_lambdas(&fx, seq).await, 1);
    // Queued under the function's name only: no poller of a task list sees it.
    let other = fx.change(|eng| claim(eng, TaskKind::Activity, FUNCTION, None));
    assert!(other.await.is_none());

    fx.advance(2 * SEC).await;
    let claimed = take(&fx, FUNCTION).await.unwrap();
    let run = fx.run(seq).await.unwrap();
    assert_eq!(
        claimed.task,
        TaskRef {
            kind: TaskKind::Function,
            run: seq,
            scheduled: 5,
            started: 6
        }
    );
    assert_eq!(
        (claimed.id.as_str(), claimed.name.as_str()),
        ("l1", FUNCTION)
    );
    assert_eq!(claimed.input.as_deref(), Some("in"));
    assert_eq!(claimed.execution, run.execution);
    assert_eq!(queued(&fx, FUNCTION).await, 0);
    assert!(take(&fx, FUNCTION).await.is_none(), "one start per task");
    let events = events_from(&fx, seq, 6).await;
    assert_eq!(
        events[0]["lambdaFunctionStartedEventAttributes"],
        json!({"scheduledEventId": 5})
    );
    assert_eq!(events.len(), 1);

    let outcome = LambdaOutcome::Completed {
        result: Some("out".into()),
    };
    answer(&fx, claimed.task, outcome).await.unwrap();
    let events = events_from(&fx, seq, 7).await;
    assert_eq!(
        types(&events),
        ["LambdaFunctionCompleted", "DecisionTaskScheduled"]
    );
    assert_eq!(
        events[0]["lambdaFunctionCompletedEventAttributes"],
        json!({"scheduledEventId": 5, "startedEventId": 6, "result": "out"})
    );
    assert_eq!(open_lambdas(&fx, seq).await, 0);
    // Its timeout went with it; a second answer finds no task.
    quiet_for(&fx, seq, 100 * SEC).await;
    let again = LambdaOutcome::Completed { result: None };
    let late = answer(&fx, claimed.task, again).await;
    assert!(matches!(late, Err(Fault::UnknownResource(_))), "{late:?}");
    assert_eq!(fx.events(seq).await.len(), 8);
}

#[tokio::test]
async fn a_function_that_fails_tells_the_decider() {
    let fx = bound(Limits::default()).await;
    let seq = started(&fx).await;
    decide(&fx, seq, vec![lambda("l1", FUNCTION, None)]).await;
    // Absent, the timeout is the model's default, and not recorded, as AWS records it.
    let scheduled = &events_from(&fx, seq, 5).await[0];
    assert_eq!(
        scheduled["lambdaFunctionScheduledEventAttributes"],
        json!({
            "id": "l1",
            "name": FUNCTION,
            "decisionTaskCompletedEventId": 4
        })
    );
    let claimed = take(&fx, FUNCTION).await.unwrap();
    assert_eq!(claimed.input, None);
    let outcome = LambdaOutcome::Failed {
        reason: Some("trap".into()),
        details: Some("unreachable".into()),
    };
    answer(&fx, claimed.task, outcome).await.unwrap();
    let events = events_from(&fx, seq, 7).await;
    assert_eq!(
        types(&events),
        ["LambdaFunctionFailed", "DecisionTaskScheduled"]
    );
    assert_eq!(
        events[0]["lambdaFunctionFailedEventAttributes"],
        json!({
            "scheduledEventId": 5,
            "startedEventId": 6,
            "reason": "trap",
            "details": "unreachable"
        })
    );
    assert_eq!(open_lambdas(&fx, seq).await, 0);
}

#[tokio::test]
async fn a_started_function_times_out_start_to_close() {
    let fx = bound(Limits::default()).await;
    let seq = with_lambda(&fx).await;
    // The wait in the queue does not count: the clock starts with the worker.
    fx.advance(5 * SEC).await;
    let claimed = take(&fx, FUNCTION).await.unwrap();
    quiet_for(&fx, seq, 30 * SEC - 1).await;
    assert_eq!(fx.advance(1).await, 1);
    let events = events_from(&fx, seq, 7).await;
    assert_eq!(
        types(&events),
        ["LambdaFunctionTimedOut", "DecisionTaskScheduled"]
    );
    assert_eq!(
        events[0]["lambdaFunctionTimedOutEventAttributes"],
        json!({"scheduledEventId": 5, "startedEventId": 6, "timeoutType": "START_TO_CLOSE"})
    );
    assert_eq!(events[0]["eventTimestamp"], json!(1035.0));
    assert_eq!(open_lambdas(&fx, seq).await, 0);
    // The worker's late answer is for a task that is gone, and changes nothing.
    let outcome = LambdaOutcome::Completed { result: None };
    let late = answer(&fx, claimed.task, outcome).await;
    assert!(matches!(late, Err(Fault::UnknownResource(_))), "{late:?}");
    assert_eq!(fx.events(seq).await.len(), 8);
    quiet_for(&fx, seq, 100 * SEC).await;
}

#[tokio::test]
async fn scheduling_fails_with_each_cause_in_order() {
    let limits = Limits {
        max_open_per_run: 2,
        ..Limits::default()
    };
    let fx = bound(limits).await;
    // Bound elsewhere: another domain's function, or this name as a task list.
    bind(&fx, 2, BindingKind::Function, "elsewhere").await;
    bind(&fx, 1, BindingKind::Activity, "elsewhere").await;
    let seq = started(&fx).await;
    decide(
        &fx,
        seq,
        vec![
            lambda("l1", FUNCTION, None),
            // The checks go: id in use, open limit, binding.
            lambda("l1", "unbound", None),
            lambda("l2", "elsewhere", None),
            lambda("l2", FUNCTION, Some("")),
            lambda("l3", "unbound", None),
            lambda("l2", "unbound", None),
        ],
    )
    .await;
    let events = events_from(&fx, seq, 5).await;
    assert_eq!(
        types(&events),
        [
            "LambdaFunctionScheduled",
            "ScheduleLambdaFunctionFailed",
            "ScheduleLambdaFunctionFailed",
            "LambdaFunctionScheduled",
            "ScheduleLambdaFunctionFailed",
            "ScheduleLambdaFunctionFailed",
            "DecisionTaskScheduled",
        ]
    );
    let failed = |id: &str, name: &str, cause: &str| {
        json!({
            "id": id,
            "name": name,
            "cause": cause,
            "decisionTaskCompletedEventId": 4
        })
    };
    let attributes = |i: usize| &events[i]["scheduleLambdaFunctionFailedEventAttributes"];
    assert_eq!(*attributes(1), failed("l1", "unbound", "ID_ALREADY_IN_USE"));
    assert_eq!(
        *attributes(2),
        failed("l2", "elsewhere", "LAMBDA_SERVICE_NOT_AVAILABLE_IN_REGION")
    );
    assert_eq!(
        *attributes(4),
        failed("l3", "unbound", "OPEN_LAMBDA_FUNCTIONS_LIMIT_EXCEEDED")
    );
    assert_eq!(*attributes(5), failed("l2", "unbound", "ID_ALREADY_IN_USE"));
    // An empty timeout is absent.
    assert_eq!(
        events[3]["lambdaFunctionScheduledEventAttributes"].get("startToCloseTimeout"),
        None
    );
    assert_eq!(open_lambdas(&fx, seq).await, 2);
    assert_eq!(queued(&fx, FUNCTION).await, 2);
}

#[tokio::test]
async fn an_id_is_free_again_once_its_function_closed() {
    let fx = bound(Limits::default()).await;
    let seq = with_lambda(&fx).await;
    let claimed = take(&fx, FUNCTION).await.unwrap();
    let outcome = LambdaOutcome::Completed { result: None };
    answer(&fx, claimed.task, outcome).await.unwrap();
    decide(&fx, seq, vec![lambda("l1", FUNCTION, Some("5"))]).await;
    // 7 completed, 8 scheduled, 9 started, 10 completed, then l1 again.
    let events = events_from(&fx, seq, 11).await;
    assert_eq!(types(&events), ["LambdaFunctionScheduled"]);
    let again = take(&fx, FUNCTION).await.unwrap();
    assert_eq!((again.task.scheduled, again.task.started), (11, 12));
    // The old start names nothing now; neither does the new one under another kind.
    let stale = fx
        .change(move |eng| Ok(started_task::<Lambda>(&*eng.tx, eng.domain, claimed.task).is_err()));
    assert!(stale.await);
    let activity = TaskRef {
        kind: TaskKind::Activity,
        ..again.task
    };
    let outcome = LambdaOutcome::Completed { result: None };
    let wrong = answer(&fx, activity, outcome).await;
    assert!(matches!(wrong, Err(Fault::UnknownResource(_))), "{wrong:?}");
    assert_eq!(fx.events(seq).await.len(), 12);
}

#[tokio::test]
async fn an_answer_too_long_for_the_history_changes_nothing() {
    let fx = bound(Limits::default()).await;
    let seq = with_lambda(&fx).await;
    let claimed = take(&fx, FUNCTION).await.unwrap();
    for outcome in [
        LambdaOutcome::Completed {
            result: Some("x".repeat(32_769)),
        },
        LambdaOutcome::Failed {
            reason: Some("x".repeat(257)),
            details: None,
        },
        LambdaOutcome::Failed {
            reason: None,
            details: Some("x".repeat(32_769)),
        },
    ] {
        let refused = answer(&fx, claimed.task, outcome).await;
        assert!(matches!(refused, Err(Fault::Validation(_))), "{refused:?}");
    }
    assert_eq!(fx.events(seq).await.len(), 6);
    let fits = LambdaOutcome::Completed {
        result: Some("x".repeat(32_768)),
    };
    answer(&fx, claimed.task, fits).await.unwrap();
}

#[tokio::test]
async fn a_run_that_closes_drops_its_queued_and_started_functions() {
    let fx = bound(Limits::default()).await;
    let seq = with_lambda(&fx).await;
    let claimed = take(&fx, FUNCTION).await.unwrap();
    fx.change(move |eng| {
        let mut run = reload(eng, seq)?;
        signal(eng, &mut run, "more".into(), None, None)
    })
    .await;
    decide(&fx, seq, vec![lambda("l2", FUNCTION, None)]).await;
    assert_eq!(
        (open_lambdas(&fx, seq).await, queued(&fx, FUNCTION).await),
        (2, 1)
    );
    fx.change(move |eng| {
        let mut run = reload(eng, seq)?;
        terminate(eng, &mut run, None, None, None, None)
    })
    .await;
    let run = fx.run(seq).await.unwrap();
    assert!(!run.is_open() && run.open.lambdas == 0);
    assert_eq!(queued(&fx, FUNCTION).await, 0);
    assert!(take(&fx, FUNCTION).await.is_none());
    let outcome = LambdaOutcome::Completed { result: None };
    let late = answer(&fx, claimed.task, outcome).await;
    assert!(matches!(late, Err(Fault::UnknownResource(_))), "{late:?}");
    // No timeout is left armed: the next deadline is the end of the run's retention.
    let next = fx.store.read(|tx| tx.next_deadline(true)).await.unwrap();
    let day = 24 * 60 * 60 * SEC;
    assert_eq!(next.map(|t| t.as_millis()), Some(1_000_000 + day));
    events_from(&fx, seq, 1).await;
}

#[tokio::test]
async fn a_close_decision_discards_a_function_its_batch_scheduled() {
    let fx = bound(Limits::default()).await;
    let seq = started(&fx).await;
    let complete =
        Decision::CompleteWorkflowExecution(d::CompleteWorkflowExecution { result: None });
    decide(&fx, seq, vec![lambda("l1", FUNCTION, None), complete]).await;
    let events = events_from(&fx, seq, 5).await;
    assert_eq!(
        types(&events),
        ["LambdaFunctionScheduled", "WorkflowExecutionCompleted"]
    );
    assert_eq!(queued(&fx, FUNCTION).await, 0);
    assert!(fx.run(seq).await.unwrap().open.lambdas == 0);
}
