//! The decision-task rules of spec §8.2 and §8.7, on a real store without HTTP.

use std::sync::Arc;

use serde_json::Value;

use crate::clock::{ManualClock, Timestamp};
use crate::fault::Fault;
use crate::model::decisions::{Decision, attrs as d};
use crate::model::{
    ChildPolicy, DecisionTask, Domain, ExecutionConfig, Run, Scope, TaskList, TypeName, TypeRecord,
    WorkflowKind,
};
use crate::store::{Cursor, RunReads, Store, TaskKind, WriteTx};

use super::{Completion, Engine, NewRun, Setup, claim, complete_decision_task, signal, start_run};

fn domain() -> Domain {
    Domain {
        id: 1,
        name: "d".into(),
        description: None,
        retention: "1".into(),
        deprecated_at: None,
        tags: vec![],
    }
}

fn new_run() -> NewRun {
    NewRun {
        domain_name: "d".into(),
        workflow_id: "w".into(),
        workflow_type: TypeName {
            name: "wf".into(),
            version: "1".into(),
        },
        config: ExecutionConfig {
            task_start_to_close_timeout: "60".into(),
            execution_start_to_close_timeout: "600".into(),
            task_list: TaskList { name: "dl".into() },
            task_priority: "0".into(),
            child_policy: ChildPolicy::Terminate,
            lambda_role: None,
        },
        input: None,
        tags: vec![],
        retention_days: 1,
        parent: None,
        continued_from: None,
    }
}

/// A store holding domain `d` with workflow type `wf`/`1`.
async fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(Timestamp::from_millis(1_000_000)));
    let store = Store::open(dir.path(), clock).unwrap().store;
    store
        .write(|tx| {
            let scope = Scope {
                account: "000000000000".into(),
                region: "us-east-1".into(),
            };
            tx.put_domain(&scope, &domain())?;
            let record = TypeRecord {
                description: None,
                created_at: Timestamp::from_millis(0),
                deprecated_at: None,
                config: Default::default(),
            };
            tx.put_type::<WorkflowKind>(&domain(), &new_run().workflow_type, &record)?;
            Ok(())
        })
        .await
        .unwrap();
    (dir, store)
}

/// Runs `change` through an engine on domain `d` in one writer job.
async fn change<T: Send + 'static>(
    store: &Store,
    change: impl FnOnce(&mut Engine<'_, '_>) -> Result<T, Fault> + Send + 'static,
) -> T {
    store
        .write(move |tx: &mut WriteTx<'_>| {
            let setup = Setup::new(&crate::Limits::default(), None);
            let mut eng = Engine::new(tx, 1, &setup);
            let out = change(&mut eng)?;
            eng.finish()?;
            Ok(out)
        })
        .await
        .unwrap()
}

/// The event types of run `seq`, in order.
async fn event_types(store: &Store, seq: u64) -> Vec<String> {
    store
        .read(move |tx| {
            let cursor = Cursor {
                after: None,
                reverse: false,
                limit: 1000,
            };
            let page = tx.history(seq, 1, u64::MAX - 1, cursor)?;
            Ok(page
                .items
                .iter()
                .map(|(_, json)| {
                    let event: Value = serde_json::from_slice(json).unwrap();
                    event["eventType"].as_str().unwrap().to_owned()
                })
                .collect())
        })
        .await
        .unwrap()
}

fn reload(eng: &Engine<'_, '_>, seq: u64) -> Result<Run, Fault> {
    eng.open_run(seq)?.ok_or_else(|| Fault::internal("closed"))
}

#[tokio::test]
async fn triggers_wait_for_the_open_decision_task() {
    let (_dir, store) = store().await;
    let seq = change(&store, |eng| Ok(start_run(eng, new_run(), None)?.seq)).await;
    // Scheduled, not started: a signal rides along with the pending task.
    change(&store, move |eng| {
        let mut run = reload(eng, seq)?;
        signal(eng, &mut run, "s1".into(), None, None)
    })
    .await;
    // Started: a signal is recorded at once and owes one more task.
    let task = change(&store, |eng| {
        let claimed = claim(eng, TaskKind::Decision, "dl", None)?;
        match claimed {
            Some(super::Claimed::Decision(c)) => Ok(c.task),
            _ => Err(Fault::internal("no decision task")),
        }
    })
    .await;
    change(&store, move |eng| {
        let mut run = reload(eng, seq)?;
        signal(eng, &mut run, "s2".into(), None, None)?;
        signal(eng, &mut run, "s3".into(), None, None)
    })
    .await;
    let state = change(&store, move |eng| {
        let mut run = reload(eng, seq)?;
        let completion = Completion {
            decisions: vec![Decision::RecordMarker(d::RecordMarker {
                marker_name: "m".into(),
                details: None,
            })],
            ..Completion::default()
        };
        complete_decision_task(eng, &domain(), &mut run, task, completion)?;
        Ok(run.decision)
    })
    .await;
    assert!(matches!(
        state,
        DecisionTask::Scheduled { scheduled: 9, .. }
    ));
    assert_eq!(
        event_types(&store, seq).await,
        [
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "WorkflowExecutionSignaled",
            "DecisionTaskStarted",
            "WorkflowExecutionSignaled",
            "WorkflowExecutionSignaled",
            "DecisionTaskCompleted",
            "MarkerRecorded",
            "DecisionTaskScheduled",
        ][..]
    );
}

#[tokio::test]
async fn a_close_fails_while_events_are_unhandled() {
    let (_dir, store) = store().await;
    let seq = change(&store, |eng| Ok(start_run(eng, new_run(), None)?.seq)).await;
    let task = change(&store, |eng| {
        match claim(eng, TaskKind::Decision, "dl", None)? {
            Some(super::Claimed::Decision(c)) => Ok(c.task),
            _ => Err(Fault::internal("no decision task")),
        }
    })
    .await;
    let open = change(&store, move |eng| {
        let mut run = reload(eng, seq)?;
        signal(eng, &mut run, "late".into(), None, None)?;
        let completion = Completion {
            decisions: vec![Decision::CompleteWorkflowExecution(
                d::CompleteWorkflowExecution { result: None },
            )],
            ..Completion::default()
        };
        complete_decision_task(eng, &domain(), &mut run, task, completion)?;
        Ok(run.is_open())
    })
    .await;
    assert!(open, "the run must stay open");
    let types = event_types(&store, seq).await;
    assert_eq!(
        types[types.len() - 3..],
        [
            "DecisionTaskCompleted",
            "CompleteWorkflowExecutionFailed",
            "DecisionTaskScheduled"
        ]
    );
}
