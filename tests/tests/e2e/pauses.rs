//! Pausing a run (`/v1/domains/{domain}/workflows/{workflowId}/pause` and `.../resume`) and a
//! task list (`/v1/domains/{domain}/task-lists/{kind}/{name}/pause` and `.../resume`) on the
//! manual clock: queued tasks wait while pollers (aws-sdk-swf, boto3) poll, timers keep firing
//! into the history, and a resume hands out what was held, in order; SWF clients see nothing
//! new but the wait.

use std::time::Duration;

use weft_host::client::{
    BindingKind, Client as WeftClient, ClientError, ListPauseRequest, PauseRequest,
};
use weft_tests::TestServer;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::guests::weft_client;

use crate::flow::*;
use crate::observability::{expect, scrape};

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

    resume_while_a_worker_waits(&server, &swf, &weft, &run_id).await;
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

/// Resumes the paused run `held` (`run_id`) while a worker polls: the worker gets its held
/// activity, the decider its held task, after the timer that fired while it was paused.
async fn resume_while_a_worker_waits(
    server: &TestServer,
    swf: &Client,
    weft: &WeftClient,
    run_id: &str,
) {
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
    let decision = decision_task(swf, DECIDERS).await;
    assert_eq!(
        types(decision.events())[types(decision.events()).len() - 4..],
        [
            "TimerFired",
            "DecisionTaskScheduled",
            "ActivityTaskStarted",
            "DecisionTaskStarted"
        ]
    );
    let summary = weft.run_summary(D, "held", run_id).await.expect("the run");
    assert_eq!(summary.paused, None);
    let metrics = scrape(server, None).await;
    expect(
        &metrics,
        &format!("weft_runs_paused_total{{domain=\"{D}\",cause=\"request\"}}"),
        1.0,
    );
    expect(
        &metrics,
        &format!("weft_runs_resumed_total{{domain=\"{D}\"}}"),
        1.0,
    );
    let twice = weft.resume(D, "held", &PauseRequest::default()).await;
    assert!(!twice.expect("a resume of a running run").changed);
}

fn list_asked(reason: &str) -> ListPauseRequest {
    ListPauseRequest {
        reason: Some(reason.into()),
        identity: Some("operator-7".into()),
    }
}

#[tokio::test]
async fn a_paused_task_list_hands_out_nothing_until_it_resumes() {
    let (server, swf) = manual_server().await;
    register_workflow(&swf, "w").await;
    let weft = weft_client(&server);
    let deciders = (BindingKind::Decision, DECIDERS);
    let paused = weft
        .pause_task_list(D, deciders, &list_asked("maintenance"))
        .await;
    let paused = paused.expect("the list pauses");
    assert!(paused.changed);
    assert_eq!(paused.paused.map(|p| p.by).as_deref(), Some("operator-7"));

    // Tasks keep being queued on it, and wait there; the listing shows the pause.
    start(&swf, "queued-1", "w").await;
    start(&swf, "queued-2", "w").await;
    no_decision_task(&server, &swf, DECIDERS).await;
    let lists = weft.task_lists(D).await.expect("the task lists");
    let list = lists
        .iter()
        .find(|l| l.name == DECIDERS)
        .expect("the paused list");
    assert_eq!(list.pending, 2);
    assert_eq!(
        list.paused.as_ref().and_then(|p| p.reason.as_deref()),
        Some("maintenance")
    );
    // The activity list of the same name is not paused.
    let other = (BindingKind::Activity, DECIDERS);
    let resumed = weft
        .resume_task_list(D, other, &ListPauseRequest::default())
        .await;
    assert!(!resumed.expect("a resume of a running list").changed);

    // A poll waiting as the list resumes is handed the first task, then the next poll the
    // second: in the order they were queued.
    let waiting = server.polls_waiting();
    let decider = tokio::spawn({
        let swf = swf.clone();
        async move { decision_task(&swf, DECIDERS).await }
    });
    server.until_polls_wait(waiting + 1).await;
    let resumed = weft
        .resume_task_list(D, deciders, &ListPauseRequest::default())
        .await;
    assert!(resumed.expect("the list resumes").changed);
    let first = decider.await.expect("the decider's poll");
    let second = decision_task(&swf, DECIDERS).await;
    let ids = [&first, &second].map(|t| t.workflow_execution().map(|e| e.workflow_id.clone()));
    assert_eq!(ids, [Some("queued-1".into()), Some("queued-2".into())]);
    let lists = weft.task_lists(D).await.expect("the task lists");
    assert!(lists.iter().all(|l| l.paused.is_none()), "{lists:?}");
}

#[tokio::test]
async fn a_paused_task_list_holds_a_boto3_poller() {
    if !weft_tests::clients::enabled() {
        return;
    }
    let (server, swf, weft, _) = run_with_activity_and_timer().await;
    let workers = (BindingKind::Activity, WORKERS);
    weft.pause_task_list(D, workers, &list_asked("hold"))
        .await
        .expect("the list pauses");
    let pyenv = weft_tests::clients::pyenv().await;
    let boto3_poll = || {
        let mut python = pyenv.script(
            "poll_once.py",
            &[&server.endpoint(), D, "activity", WORKERS],
        );
        weft_tests::clients::with_credentials(&mut python, "AKIDEXAMPLE", "secret");
        tokio::spawn(weft_tests::clients::run(python))
    };

    // boto3's poll waits as on an empty list, and comes back empty at its timeout.
    let waiting = server.polls_waiting();
    let poll = boto3_poll();
    server.until_polls_wait(waiting + 1).await;
    server.advance(server.poll_timeout()).await;
    let out = poll.await.expect("boto3 runs");
    assert_eq!((out.code, out.stdout.trim()), (Some(0), ""), "{out:?}");

    // Resumed while boto3 waits, the list hands it the activity.
    let poll = boto3_poll();
    server.until_polls_wait(waiting + 1).await;
    weft.resume_task_list(D, workers, &ListPauseRequest::default())
        .await
        .expect("the list resumes");
    let out = poll.await.expect("boto3 runs");
    assert_eq!((out.code, out.stdout.trim()), (Some(0), "a1"), "{out:?}");
    drop(swf);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_list_paused_on_one_node_holds_the_pollers_of_another() {
    let (a, swf) = manual_server().await;
    let Some(b) = a.manual_node_sharing().await else {
        return;
    };
    register_workflow(&swf, "w").await;
    let weft = weft_client(&a);
    let deciders = (BindingKind::Decision, DECIDERS);
    weft.pause_task_list(D, deciders, &list_asked("both nodes"))
        .await
        .expect("the list pauses");
    start(&swf, "across", "w").await;

    // Once the other node has heard of the pause, its poller is handed nothing.
    until_known_paused(&weft_client(&b), true).await;
    let on_b = b.client();
    no_decision_task(&b, &on_b, DECIDERS).await;

    // Resumed at the first node while the second's poller waits: the second hands it out.
    let waiting = b.polls_waiting();
    let decider = tokio::spawn(async move { decision_task(&on_b, DECIDERS).await });
    b.until_polls_wait(waiting + 1).await;
    weft.resume_task_list(D, deciders, &ListPauseRequest::default())
        .await
        .expect("the list resumes");
    let task = decider.await.expect("the poll at the other node");
    assert_eq!(
        task.workflow_execution().map(|e| e.workflow_id.as_str()),
        Some("across")
    );
}

/// Waits until the node `weft` talks to knows the decision list [`DECIDERS`] as `paused` (a
/// node hears of another's change through the database's notices, a moment after it commits).
async fn until_known_paused(weft: &WeftClient, paused: bool) {
    let began = std::time::Instant::now();
    loop {
        let lists = weft.task_lists(D).await.expect("the task lists");
        let known = lists
            .iter()
            .any(|l| l.name == DECIDERS && l.kind == BindingKind::Decision && l.paused.is_some());
        if known == paused {
            return;
        }
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "the node does not know the pause"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
