//! Requests on a store that fails on purpose (`store::Faults`): one-activity workflows driven
//! to the end by a client that retries what a client retries, while reads and writes are
//! refused, given up for conflicts, slowed, and committed with their answers lost. Every
//! failure a request meets must be one a client retries (never an internal failure), and every
//! change acknowledged must be in the store afterwards.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::api::{Operation, call_json};
use crate::clock::{ManualClock, Timestamp};
use crate::fault::Fault;
use crate::ops::{Ctx, Service};
use crate::store::{Faults, Rates, Store};

use super::super::fire_due;

const WORKFLOWS: usize = 20;

/// What the client was told had happened: each is checked in the store at the end.
#[derive(Default)]
struct Acknowledged {
    /// Run ids of started workflows, by workflow id.
    starts: BTreeMap<String, String>,
    /// Activities completed, as (workflow id, their `ActivityTaskStarted` event's id).
    completions: BTreeSet<(String, u64)>,
    /// Workflows whose completion was accepted.
    closes: BTreeSet<String>,
}

/// A client of the service, counting what failed and how.
struct Client {
    svc: Arc<Service>,
    ctx: Ctx,
    /// Retryable failures met.
    retried: usize,
}

impl Client {
    /// Calls `operation` until it answers anything but a retryable failure; panics on an
    /// internal one, which no request may end with, faults or not.
    async fn call(&mut self, operation: &str, input: Value) -> Result<Value, Fault> {
        let op = Operation::from_name(operation).expect("an SWF operation");
        for _ in 0..100 {
            match call_json(&self.svc, &self.ctx, op, input.clone()).await {
                Ok(bytes) if bytes.is_empty() => return Ok(Value::Null),
                Ok(bytes) => return Ok(serde_json::from_slice(&bytes).expect("JSON")),
                Err(Fault::Unavailable(_)) => self.retried += 1,
                Err(fault @ Fault::Internal(_)) => panic!("{operation} failed: {fault:?}"),
                Err(fault) => return Err(fault),
            }
        }
        panic!("{operation} unavailable 100 times in a row");
    }

    /// Whether the answer is accepted or, after a retry of a lost answer, already done.
    async fn done(&mut self, operation: &str, input: Value) -> bool {
        self.call(operation, input).await.is_ok()
    }
}

/// A service on a fresh redb store whose every call meets faults at `rates` from `seed`.
fn service(dir: &std::path::Path, clock: Arc<ManualClock>, faults: Arc<Faults>) -> Client {
    let opened = Store::open_dir(dir, clock.clone()).expect("a store");
    let store = opened.store.with_faults(faults);
    let poll = Duration::from_millis(20);
    let svc = Arc::new(Service::for_tests(dir, clock, store, opened.secret, poll));
    let ctx = svc.open_ctx();
    Client {
        svc,
        ctx,
        retried: 0,
    }
}

async fn register(c: &mut Client) {
    let domain = json!({"name": "d", "workflowExecutionRetentionPeriodInDays": "1"});
    let workflow = json!({
        "domain": "d", "name": "wf", "version": "1",
        "defaultTaskList": {"name": "dl"}, "defaultChildPolicy": "TERMINATE",
        "defaultTaskStartToCloseTimeout": "10", "defaultExecutionStartToCloseTimeout": "3600",
    });
    let activity = json!({
        "domain": "d", "name": "act", "version": "1", "defaultTaskList": {"name": "al"},
        "defaultTaskScheduleToStartTimeout": "NONE", "defaultTaskStartToCloseTimeout": "10",
        "defaultTaskScheduleToCloseTimeout": "NONE", "defaultTaskHeartbeatTimeout": "NONE",
    });
    // After a lost answer, the retry finds it made: already exists is done.
    for (op, input) in [
        ("RegisterDomain", domain),
        ("RegisterWorkflowType", workflow),
        ("RegisterActivityType", activity),
    ] {
        match c.call(op, input).await {
            Ok(_) | Err(Fault::DomainAlreadyExists(_) | Fault::TypeAlreadyExists(_)) => {}
            Err(fault) => panic!("{op}: {fault:?}"),
        }
    }
}

/// Polls with `operation` on task list `list` of domain `d`: the task, its token and its
/// workflow id, if one waited.
async fn take(c: &mut Client, operation: &str, list: &str) -> Option<(Value, String, String)> {
    let poll = json!({"domain": "d", "taskList": {"name": list}});
    let task = c.call(operation, poll).await.ok()?;
    let token = task["taskToken"].as_str()?.to_owned();
    let id = task["workflowExecution"]["workflowId"].as_str()?.to_owned();
    Some((task, token, id))
}

/// Takes one decision task, if one waits, and decides: the activity first, then completion.
async fn decide(c: &mut Client, acked: &mut Acknowledged) -> bool {
    let Some((task, token, id)) = take(c, "PollForDecisionTask", "dl").await else {
        return false;
    };
    let events = task["events"].as_array().unwrap();
    let has = |kind: &str| events.iter().any(|e| e["eventType"] == kind);
    // An activity that timed out (its start lost with an answer) is scheduled again.
    let scheduled = events
        .iter()
        .filter(|e| e["eventType"] == "ActivityTaskScheduled")
        .count();
    let timed_out = events
        .iter()
        .filter(|e| e["eventType"] == "ActivityTaskTimedOut")
        .count();
    let decision = if has("ActivityTaskCompleted") {
        json!({"decisionType": "CompleteWorkflowExecution",
               "completeWorkflowExecutionDecisionAttributes": {"result": "done"}})
    } else if scheduled == timed_out {
        json!({"decisionType": "ScheduleActivityTask",
               "scheduleActivityTaskDecisionAttributes": {
                   "activityType": {"name": "act", "version": "1"},
                   "activityId": format!("a{scheduled}")}})
    } else {
        // The activity is still out: nothing to decide.
        let respond = json!({"taskToken": token, "decisions": []});
        c.done("RespondDecisionTaskCompleted", respond).await;
        return true;
    };
    let closes = decision["decisionType"] == "CompleteWorkflowExecution";
    let respond = json!({"taskToken": token, "decisions": [decision]});
    if c.done("RespondDecisionTaskCompleted", respond).await && closes {
        acked.closes.insert(id);
    }
    true
}

/// Takes one activity task, if one waits, and completes it.
async fn work(c: &mut Client, acked: &mut Acknowledged) -> bool {
    let Some((task, token, id)) = take(c, "PollForActivityTask", "al").await else {
        return false;
    };
    let started = task["startedEventId"].as_u64().unwrap();
    let respond = json!({"taskToken": token, "result": "ok"});
    if c.done("RespondActivityTaskCompleted", respond).await {
        acked.completions.insert((id, started));
    }
    true
}

/// The run of `workflow_id`: (run id, close status) of each, read with the faults off.
async fn runs_of(c: &mut Client, workflow_id: &str) -> Vec<(String, Value)> {
    let list = json!({"domain": "d", "startTimeFilter": {"oldestDate": 0},
                      "executionFilter": {"workflowId": workflow_id}});
    let closed = c
        .call("ListClosedWorkflowExecutions", list.clone())
        .await
        .unwrap();
    let open = c.call("ListOpenWorkflowExecutions", list).await.unwrap();
    let infos = closed["executionInfos"].as_array().unwrap().iter();
    infos
        .chain(open["executionInfos"].as_array().unwrap())
        .map(|i| {
            let run = i["execution"]["runId"].as_str().unwrap().to_owned();
            (run, i["closeStatus"].clone())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_fail_cleanly_and_nothing_acknowledged_is_lost_on_a_faulty_store() {
    let rates = Rates {
        unavailable: 5,
        conflict: 5,
        slow: 5,
        lost_answer: 5,
    };
    for seed in [1, 2, 3] {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(Timestamp::from_millis(1_800_000_000_000)));
        let faults = Faults::new(rates, seed);
        let mut c = service(dir.path(), clock.clone(), faults.clone());
        let mut acked = Acknowledged::default();
        register(&mut c).await;
        for i in 0..WORKFLOWS {
            let id = format!("w{i}");
            let start = json!({"domain": "d", "workflowId": id,
                               "workflowType": {"name": "wf", "version": "1"}});
            match c.call("StartWorkflowExecution", start).await {
                Ok(started) => {
                    let run = started["runId"].as_str().unwrap().to_owned();
                    acked.starts.insert(id, run);
                }
                // Its first answer was lost: it started, unacknowledged.
                Err(Fault::WorkflowExecutionAlreadyStarted(_)) => {}
                Err(fault) => panic!("start {id}: {fault:?}"),
            }
        }
        // Work until every run is closed; a task whose answer was lost comes back once its
        // timeout has passed on the manual clock.
        for round in 0.. {
            assert!(round < 200, "seed {seed}: still open after {round} rounds");
            let mut busy = false;
            while decide(&mut c, &mut acked).await || work(&mut c, &mut acked).await {
                busy = true;
            }
            let open = json!({"domain": "d", "startTimeFilter": {"oldestDate": 0}});
            let count = c.call("CountOpenWorkflowExecutions", open).await.unwrap();
            if count["count"] == 0 {
                break;
            }
            if !busy {
                clock.advance(11_000);
                // A deadline's firing meets the faults too: fired again until it goes through.
                loop {
                    let setup = c.svc.engine.clone();
                    let fired = c
                        .svc
                        .store
                        .apply(move |tx| fire_due(tx, &setup, usize::MAX));
                    if fired.await.is_ok() {
                        break;
                    }
                }
            }
        }

        faults.set_on(false);
        let [unavailable, conflicts, slow, lost] = faults.counts();
        assert!(
            unavailable > 0 && conflicts > 0 && slow > 0 && lost > 0 && c.retried > 0,
            "seed {seed}: every fault came ({:?}, {} retries)",
            faults.counts(),
            c.retried
        );
        for i in 0..WORKFLOWS {
            let id = format!("w{i}");
            let runs = runs_of(&mut c, &id).await;
            assert_eq!(runs.len(), 1, "seed {seed}: {id} started once: {runs:?}");
            let (run, status) = &runs[0];
            assert_eq!(status, "COMPLETED", "seed {seed}: {id}");
            if let Some(acked_run) = acked.starts.get(&id) {
                assert_eq!(acked_run, run, "seed {seed}: {id}'s acknowledged run");
            }
            let history = json!({"domain": "d", "execution": {"workflowId": id, "runId": run}});
            let history = c
                .call("GetWorkflowExecutionHistory", history)
                .await
                .unwrap();
            let completed: BTreeSet<u64> = history["events"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["eventType"] == "ActivityTaskCompleted")
                .map(|e| e["activityTaskCompletedEventAttributes"]["startedEventId"].as_u64())
                .map(Option::unwrap)
                .collect();
            for (_, started) in acked.completions.iter().filter(|(w, _)| *w == id) {
                assert!(
                    completed.contains(started),
                    "seed {seed}: {id}'s acknowledged completion of the task started at {started}"
                );
            }
        }
        assert!(
            !acked.closes.is_empty(),
            "seed {seed}: some close acknowledged"
        );
        crate::check::stored(&c.svc.store).expect("every history keeps SWF's rules");
    }
}
