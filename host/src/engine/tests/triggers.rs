//! When decision tasks are scheduled (spec §8.2) and when a close decision fails (§8.7).

use crate::fault::Fault;
use crate::model::DecisionTask;
use crate::model::decisions::{Decision, attrs as d};
use crate::store::TaskKind;

use super::super::{Completion, claim, complete_decision_task, signal, start_run};
use super::{Fixture, domain, new_run, reload};

#[tokio::test]
async fn triggers_wait_for_the_open_decision_task() {
    let fx = Fixture::new().await;
    let seq = fx
        .change(|eng| Ok(start_run(eng, new_run(), None)?.seq))
        .await;
    // Scheduled, not started: a signal rides along with the pending task.
    fx.change(move |eng| {
        let mut run = reload(eng, seq)?;
        signal(eng, &mut run, "s1".into(), None, None)
    })
    .await;
    // Started: a signal is recorded at once and owes one more task.
    let task = fx
        .change(|eng| {
            let claimed = claim(eng, TaskKind::Decision, "dl", None)?;
            match claimed {
                Some(super::super::Claimed::Decision(c)) => Ok(c.task),
                _ => Err(Fault::internal("no decision task")),
            }
        })
        .await;
    fx.change(move |eng| {
        let mut run = reload(eng, seq)?;
        signal(eng, &mut run, "s2".into(), None, None)?;
        signal(eng, &mut run, "s3".into(), None, None)
    })
    .await;
    let state = fx
        .change(move |eng| {
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
        fx.event_types(seq).await,
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
    let fx = Fixture::new().await;
    let seq = fx
        .change(|eng| Ok(start_run(eng, new_run(), None)?.seq))
        .await;
    let task = fx
        .change(|eng| match claim(eng, TaskKind::Decision, "dl", None)? {
            Some(super::super::Claimed::Decision(c)) => Ok(c.task),
            _ => Err(Fault::internal("no decision task")),
        })
        .await;
    let open = fx
        .change(move |eng| {
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
    let types = fx.event_types(seq).await;
    assert_eq!(
        types[types.len() - 3..],
        [
            "DecisionTaskCompleted",
            "CompleteWorkflowExecutionFailed",
            "DecisionTaskScheduled"
        ]
    );
}
