//! Pausing a run (`/v1/domains/{domain}/workflows/{workflowId}/pause` and `.../resume`) on the
//! manual clock: its queued tasks wait while pollers poll, timers keep firing into its
//! history, and a resume hands out what was held, in order; SWF clients see nothing new.

use std::time::Duration;

use weft_host::client::{Client as WeftClient, ClientError, PauseRequest};
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::guests::weft_client;

use crate::flow::*;

/// A manual-clock server with workflow type `w` and activity type `a`, and a run of `w` whose
/// first decision scheduled activity `a1` and a 10 s timer `t1`: its run id.
async fn run_with_activity_and_timer() -> (TestServer, Client, WeftClient, String) {
    let (server, swf) = manual_server().await;
    register_workflow(&swf, "w").await;
    register_activity(&swf, "a").await;
    let run_id = start(&swf, "held", "w").await;
    let task = decision_task(&swf, DECIDERS).await;
    let decisions = vec![schedule_activity("a1", "a"), start_timer("t1", "10")];
    respond(&swf, task.task_token(), decisions).await;
    let weft = weft_client(&server);
    (server, swf, weft, run_id)
}

fn asked(reason: Option<&str>) -> PauseRequest {
    PauseRequest {
        reason: reason.map(str::to_owned),
        identity: Some("operator-7".into()),
        ..PauseRequest::default()
    }
}

#[tokio::test]
async fn a_paused_runs_tasks_wait_while_timers_fire_and_resume_hands_them_out_in_order() {
    let (server, swf, weft, run_id) = run_with_activity_and_timer().await;

    let paused = weft.pause(D, "held", &asked(Some("bad deploy"))).await;
    let paused = paused.expect("the open run pauses");
    assert_eq!(
        (paused.run_id.as_str(), paused.changed, paused.tasks),
        (run_id.as_str(), true, 1)
    );
    let pause = paused.paused.expect("the run is paused");
    assert_eq!(pause.by, "operator-7");
    assert_eq!(pause.reason.as_deref(), Some("bad deploy"));

    // A worker polls and is handed nothing; the timer fires, and its decision task waits too.
    no_activity_task(&server, &swf, WORKERS).await;
    server.advance(Duration::from_secs(10)).await;
    no_decision_task(&server, &swf, DECIDERS).await;
    let events = history(&swf, "held", &run_id).await;
    assert_eq!(
        types(&events)[types(&events).len() - 2..],
        ["TimerFired", "DecisionTaskScheduled"],
        "the timer fired into the paused run's history"
    );
    let summary = weft.run_summary(D, "held", &run_id).await.expect("the run");
    assert_eq!(
        summary.paused.as_ref().map(|p| p.by.as_str()),
        Some("operator-7")
    );

    // A second pause keeps the first; SWF's describe answers as for any open run.
    let again = weft
        .pause(D, "held", &asked(Some("other")))
        .await
        .expect("pause");
    assert!(!again.changed);
    assert_eq!(
        again.paused.and_then(|p| p.reason).as_deref(),
        Some("bad deploy")
    );
    let described = describe(&swf, "held", &run_id).await;
    assert_eq!(
        described.open_counts().map(|c| c.open_activity_tasks()),
        Some(1)
    );

    // A worker waiting when the run resumes gets the activity; the decider its task.
    let waiting = server.polls_waiting();
    let worker = tokio::spawn({
        let swf = swf.clone();
        async move { activity_task(&swf, WORKERS).await }
    });
    server.until_polls_wait(waiting + 1).await;
    let resumed = weft.resume(D, "held", &PauseRequest::default()).await;
    let resumed = resumed.expect("the paused run resumes");
    assert_eq!(
        (resumed.changed, resumed.tasks, resumed.paused),
        (true, 2, None)
    );
    let task = worker.await.expect("the worker's poll");
    assert_eq!(task.activity_id(), "a1");
    let decision = decision_task(&swf, DECIDERS).await;
    assert_eq!(
        types(decision.events())[types(decision.events()).len() - 4..],
        [
            "TimerFired",
            "DecisionTaskScheduled",
            "ActivityTaskStarted",
            "DecisionTaskStarted"
        ]
    );
    let summary = weft.run_summary(D, "held", &run_id).await.expect("the run");
    assert_eq!(summary.paused, None);
    let twice = weft.resume(D, "held", &PauseRequest::default()).await;
    assert!(!twice.expect("a resume of a running run").changed);
}

#[tokio::test]
async fn tasks_scheduled_while_paused_are_held_and_a_closed_run_cannot_pause() {
    let (server, swf) = manual_server().await;
    register_workflow(&swf, "w").await;
    let weft = weft_client(&server);
    let run_id = start(&swf, "early", "w").await;

    // Paused before its first decision task was handed out: the task is held.
    let paused = weft.pause(D, "early", &asked(None)).await.expect("pause");
    assert_eq!(
        (paused.tasks, paused.paused.map(|p| p.reason)),
        (1, Some(None))
    );
    no_decision_task(&server, &swf, DECIDERS).await;
    // A signal's task is the same scheduled one; still held.
    signal(&swf, "early", "go").await;
    no_decision_task(&server, &swf, DECIDERS).await;

    weft.resume(D, "early", &PauseRequest::default())
        .await
        .expect("resume");
    let task = decision_task(&swf, DECIDERS).await;
    respond(&swf, task.task_token(), vec![complete_workflow(None)]).await;

    let closed = weft.pause(D, "early", &asked(None)).await;
    match closed {
        Err(ClientError::Refused { code, .. }) => assert_eq!(code, "UnknownResourceFault"),
        other => panic!("a closed run paused: {other:?}"),
    }
    let too_long = PauseRequest {
        run_id: Some(run_id),
        reason: Some("x".repeat(257)),
        identity: None,
    };
    match weft.pause(D, "early", &too_long).await {
        Err(ClientError::Refused { code, message, .. }) => {
            assert_eq!(code, "ValidationException");
            assert!(message.contains("reason"), "{message}");
        }
        other => panic!("a 257-character reason was taken: {other:?}"),
    }
}
