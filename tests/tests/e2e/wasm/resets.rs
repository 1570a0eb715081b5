//! `weft workflow reset`: a run broken by a bug continues after the fix. The order workflow
//! (its Wasm decider) whose card charge failed because of a bug in the (external) activity
//! worker is reset to before the charge once the worker is fixed, and completes; its cancel
//! window's timer, open at the reset point, fires in the new run. With `steps-decider`, a reset
//! to an event that is not a decision task's, or to a point where an activity is open, is
//! refused; so is one the current decider contradicts, unless forced; an agreeing one carries
//! the events, records the old run's later signal again and terminates the old run.

use serde_json::{Value, json};
use weft_host::client::ResetReport;
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{CloseStatus, HistoryEvent};
use weft_tests::guests::{self, Bind, BindingKind, order};

use super::pinning::{deploy, register};
use super::replay::weft_cli;
use super::rollback::weft_ok;
use super::steps::{wait_scheduled, work};
use super::{CLOSE_WITHIN, server, start_order};
use crate::flow::{D, activity_task, first, signal, start};

/// Serves `n` activity tasks of the order's list as its external worker would; while `buggy`,
/// every card charge fails.
async fn order_worker(c: &Client, n: usize, buggy: bool) {
    for _ in 0..n {
        let task = activity_task(c, order::ACTIVITY_TASK_LIST).await;
        let token = task.task_token();
        let kind = task.activity_type().unwrap().name();
        if kind == order::CHARGE_CREDIT_CARD.name && buggy {
            c.respond_activity_task_failed()
                .task_token(token)
                .reason("worker bug")
                .details("charge(): index out of range")
                .send()
                .await
                .unwrap();
            continue;
        }
        let result = match kind {
            k if k == order::CHARGE_CREDIT_CARD.name => json!({"charge_id": "CH-9"}),
            k if k == order::SHIP_ORDER.name => json!({"tracking": "TRK-9"}),
            _ => json!({}),
        };
        c.respond_activity_task_completed()
            .task_token(token)
            .result(result.to_string())
            .send()
            .await
            .unwrap();
    }
}

/// `weft workflow reset WORKFLOW-ID ARGS... --json`'s report.
async fn reset(server: &TestServer, workflow_id: &str, args: &[&str]) -> ResetReport {
    let head = ["workflow", "reset", workflow_id, "--domain", D, "--json"];
    let out = weft_ok(server, &[&head[..], args].concat()).await;
    serde_json::from_str(&out).unwrap()
}

/// `weft workflow reset`'s refusal of `args`: its message.
async fn refused(server: &TestServer, workflow_id: &str, args: &[&str]) -> String {
    let head = ["workflow", "reset", workflow_id, "--domain", D];
    let (ok, out, err) = weft_cli(server, &[&head[..], args].concat()).await;
    assert!(!ok, "{args:?} was not refused: {out}");
    err
}

/// The id of the first event of `events` whose type is `kind`.
fn id_of(events: &[HistoryEvent], kind: &str) -> u64 {
    first(events, kind).event_id() as u64
}

/// The `ActivityTaskScheduled` of activity `activity_id` in `events`, and the
/// `DecisionTaskCompleted` whose decision scheduled it.
fn scheduled(events: &[HistoryEvent], activity_id: &str) -> (u64, u64) {
    events
        .iter()
        .find_map(|e| {
            let a = e.activity_task_scheduled_event_attributes()?;
            let decided = a.decision_task_completed_event_id() as u64;
            (a.activity_id() == activity_id).then_some((e.event_id() as u64, decided))
        })
        .unwrap_or_else(|| panic!("{activity_id} was never scheduled"))
}

/// The `DecisionTaskStarted` of the decision task completed by event `completed`.
fn started_of(events: &[HistoryEvent], completed: u64) -> u64 {
    let event = &events[completed as usize - 1];
    let completed = event.decision_task_completed_event_attributes().unwrap();
    completed.started_event_id() as u64
}

/// The result a completed run's history ends with.
fn result(closed: &guests::Closed) -> &str {
    let last = closed.events.last().unwrap();
    let done = last.workflow_execution_completed_event_attributes();
    done.and_then(|d| d.result()).unwrap_or_default()
}

#[tokio::test]
async fn an_order_whose_charge_failed_by_a_worker_bug_is_reset_before_the_charge_and_completes() {
    let (server, c, weft) = server().await;
    let list = order::DECISION_TASK_LIST;
    let bind = Bind::default();
    let decider = guests::deploy(
        &weft,
        "order-workflow",
        D,
        BindingKind::Decision,
        list,
        bind,
    );
    let decider = decider.await;
    let old = start_order(&c, "order-9", order::SAMPLE_ORDER).await;
    // Verified, then the charge fails: the order is canceled, the customer emailed, the run
    // failed.
    order_worker(&c, 4, true).await;
    let failed = guests::wait_closed(&server, D, "order-9", &old, CLOSE_WITHIN).await;
    assert_eq!(failed.status, CloseStatus::Failed, "{:?}", failed.types());
    let charge_failed = id_of(&failed.events, "ActivityTaskFailed");

    // Fixed, the worker charges; the run is reset to the last decision task before the
    // failure: the one that scheduled the charge.
    let report = reset(
        &server,
        "order-9",
        &["--last-good", "--reason", "charge fixed"],
    )
    .await;
    let (_, charged_by) = scheduled(&failed.events, order::ids::CHARGE);
    let started = started_of(&failed.events, charged_by);
    assert!(started < charge_failed);
    assert_eq!(report.reset_run_id, old);
    assert!(!report.terminated, "the run had closed");
    assert_eq!(report.carried_events, started - 1);
    assert_eq!(report.module.as_deref(), Some(decider.as_str()));
    assert_eq!(report.replayed_decision_tasks, 1);
    assert!(report.divergence.is_none());

    order_worker(&c, 3, false).await;
    let run = &report.run_id;
    let done = guests::wait_closed(&server, D, "order-9", run, CLOSE_WITHIN).await;
    assert_eq!(done.status, CloseStatus::Completed, "{:?}", done.types());
    let result: Value = serde_json::from_str(result(&done)).unwrap();
    assert_eq!(result["charge"], json!({"charge_id": "CH-9"}));
    // The new run's history begins with the old run's events, as recorded; the window's
    // timer, started in them, fired in the new run.
    let carried = report.carried_events as usize;
    assert_eq!(done.wire[..carried], failed.wire[..carried]);
    assert_eq!(
        done.events[carried].event_type().as_str(),
        "DecisionTaskStarted"
    );
    let timer = id_of(&done.events, "TimerStarted");
    assert!(timer <= carried as u64);
    let fired = first(&done.events, "TimerFired");
    assert_eq!(
        fired
            .timer_fired_event_attributes()
            .unwrap()
            .started_event_id() as u64,
        timer
    );
    assert!(
        !done.types().contains(&"ActivityTaskFailed"),
        "{:?}",
        done.types()
    );
    let pinned = weft.run_summary(D, "order-9", run).await.unwrap().decider;
    assert_eq!(pinned.unwrap().pin.module, decider);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_is_refused_where_it_cannot_carry_the_run_or_the_decider_contradicts_it() {
    let server = TestServer::start().await;
    let c = server.client();
    let weft = guests::weft_client(&server);
    register(&c).await;
    let dir = tempfile::tempdir().unwrap();
    let v1 = deploy(&server, dir.path(), "steps-decider", "1").await;
    let runs = [
        ("kept", start(&c, "kept", "steps").await),
        ("forced", start(&c, "forced", "steps").await),
    ];
    let runs = runs.map(|(id, run)| (id.to_owned(), run));
    for (id, run) in &runs {
        guests::wait_pinned(&weft, D, id, run, &v1, CLOSE_WITHIN).await;
    }
    wait_scheduled(&server, &runs, &["a"]).await;
    work(&c, 2).await;
    wait_scheduled(&server, &runs, &["a", "b"]).await;
    signal(&c, "kept", "poke").await;
    let kept = &runs[0].1;
    let events = guests::history(&server, D, "kept", kept).await;
    let (b, decided_b) = scheduled(&events, "b");

    // The second version runs the steps the other way round.
    deploy(&server, dir.path(), "steps-decider-v2", "2").await;
    let err = refused(&server, "kept", &["--to", &b.to_string()]).await;
    assert!(
        err.contains(&format!(
            "Event {b} is ActivityTaskScheduled, not a decision task's"
        )),
        "{err}"
    );
    let err = refused(&server, "kept", &["--last-good"]).await;
    assert!(
        err.contains(&format!(
            "The activity task begun by event {b} is still open"
        )),
        "{err}"
    );
    let decided_b = decided_b.to_string();
    let err = refused(&server, "kept", &["--to", &decided_b]).await;
    assert!(
        err.contains("decides the carried events otherwise than recorded"),
        "{err}"
    );
    // Forced, the reset is made, and the new run decided by the second version.
    let forced = reset(&server, "forced", &["--to", &decided_b, "--force"]).await;
    assert!(forced.terminated);
    assert_eq!(forced.divergence.as_ref().unwrap().started_event_id, 3);

    // The third version decides as the first did: the reset carries the events before the
    // task that scheduled b, records the later signal again, and terminates the old run.
    let v3 = deploy(&server, dir.path(), "steps-decider-v3", "3").await;
    let to = ["--to", &decided_b, "--reason", "moving on"];
    let report = reset(&server, "kept", &to).await;
    assert_eq!(report.reset_run_id, *kept);
    assert!(report.terminated);
    assert_eq!(report.reapplied_signals, 1);
    assert_eq!(report.module.as_deref(), Some(v3.as_str()));
    assert_eq!(report.replayed_decision_tasks, 1);
    let err = refused(&server, "kept", &["--run", kept, "--first"]).await;
    assert!(
        err.contains(&format!("Run {} of the workflow is open", report.run_id)),
        "{err}"
    );
    let old = guests::wait_closed(&server, D, "kept", kept, CLOSE_WITHIN).await;
    assert_eq!(old.status, CloseStatus::Terminated);
    let terminated = old.events.last().unwrap();
    let terminated = terminated
        .workflow_execution_terminated_event_attributes()
        .unwrap();
    assert_eq!(terminated.reason(), Some("moving on"));
    assert!(terminated.details().unwrap().contains(&report.run_id));

    work(&c, 2).await;
    let new = guests::wait_closed(&server, D, "kept", &report.run_id, CLOSE_WITHIN).await;
    assert_eq!(result(&new), "a,b", "{:?}", new.types());
    let carried = report.carried_events as usize;
    assert_eq!(new.wire[..carried], old.wire[..carried]);
    let resignaled = &new.events[carried];
    let resignaled = resignaled.workflow_execution_signaled_event_attributes();
    assert_eq!(resignaled.unwrap().signal_name(), "poke");
    // The forced run went on as the second version decides: b, then a (done already).
    let forced = guests::wait_closed(&server, D, "forced", &forced.run_id, CLOSE_WITHIN).await;
    assert_eq!(result(&forced), "b,a", "{:?}", forced.types());
}
