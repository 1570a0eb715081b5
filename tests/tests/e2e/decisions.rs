//! Decision tasks: when they are scheduled (spec §8.2), what a poll returns (§4.4), and how
//! RespondDecisionTaskCompleted is processed (§8.7).

use serde_json::json;
use weft_tests::aws_sdk_swf::types::{CompleteWorkflowExecutionFailedCause, TaskList};

use crate::common::expect_fault;
use crate::flow::{
    D, DECIDERS, WORKERS, assert_types, complete_workflow, count, decision_task, fail_workflow,
    history, manual_server, marker, no_activity_task, no_decision_task, pending_activities,
    pending_decisions, poll_through_timeout, register_activity, register_workflow, respond,
    schedule_activity, server, signal, start, start_timer, task_list, types,
};

#[tokio::test]
async fn a_signal_while_a_decision_task_waits_schedules_nothing_more() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    signal(&c, "job", "one").await;
    signal(&c, "job", "two").await;
    assert_types(
        &history(&c, "job", &run).await,
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "WorkflowExecutionSignaled",
            "WorkflowExecutionSignaled",
        ],
    );
    assert_eq!(pending_decisions(&c, DECIDERS).await, 1);
    // The one task delivers both signals.
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(task.started_event_id(), 5);
    assert_eq!(task.previous_started_event_id(), 0);
    assert_types(
        task.events(),
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "WorkflowExecutionSignaled",
            "WorkflowExecutionSignaled",
            "DecisionTaskStarted",
        ],
    );
    assert_eq!(task.workflow_execution().unwrap().run_id(), run);
    assert_eq!(task.workflow_type().unwrap().name(), "w");
    no_decision_task(&server, &c, DECIDERS).await;
}

/// As real AWS records it (spec §8.2 rule 4): the first change while a decision task is started
/// schedules the next one at once, right after it; it is handed out once the started one ends.
#[tokio::test]
async fn signals_while_a_decision_task_runs_schedule_the_next_at_once_and_it_waits() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(task.started_event_id(), 3);
    signal(&c, "job", "one").await;
    signal(&c, "job", "two").await;
    assert_types(
        &history(&c, "job", &run).await,
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "WorkflowExecutionSignaled",
            "DecisionTaskScheduled",
            "WorkflowExecutionSignaled",
        ],
    );
    // Only one decision task is handed out at a time: the next waits, uncounted.
    assert_eq!(pending_decisions(&c, DECIDERS).await, 0);
    no_decision_task(&server, &c, DECIDERS).await;

    respond(&c, task.task_token(), vec![marker("seen", "nothing yet")]).await;
    let events = history(&c, "job", &run).await;
    assert_types(
        &events,
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "WorkflowExecutionSignaled",
            "DecisionTaskScheduled",
            "WorkflowExecutionSignaled",
            "DecisionTaskCompleted",
            "MarkerRecorded",
        ],
    );
    assert_eq!(pending_decisions(&c, DECIDERS).await, 1);
    let next = decision_task(&c, DECIDERS).await;
    assert_eq!(next.started_event_id(), 9);
    assert_eq!(next.previous_started_event_id(), 3);
    assert_eq!(
        next.events()[8]
            .decision_task_started_event_attributes()
            .unwrap()
            .scheduled_event_id(),
        5
    );
    respond(&c, next.task_token(), vec![]).await;
    // Nothing new happened: no further decision task.
    assert_eq!(pending_decisions(&c, DECIDERS).await, 0);
    assert_eq!(
        count(&history(&c, "job", &run).await, "DecisionTaskScheduled"),
        2
    );
}

#[tokio::test]
async fn markers_do_not_schedule_a_decision_task() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![
            marker("checkpoint", "step 1"),
            marker("checkpoint", "step 2"),
        ],
    )
    .await;
    let events = history(&c, "job", &run).await;
    assert_types(
        &events,
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "DecisionTaskCompleted",
            "MarkerRecorded",
            "MarkerRecorded",
        ],
    );
    let recorded = events[5].marker_recorded_event_attributes().unwrap();
    assert_eq!(recorded.marker_name(), "checkpoint");
    assert_eq!(recorded.details(), Some("step 2"));
    assert_eq!(recorded.decision_task_completed_event_id(), 4);
    assert_eq!(pending_decisions(&c, DECIDERS).await, 0);
    no_decision_task(&server, &c, DECIDERS).await;
}

/// Both polls wait out the poll timeout on the server's clock, then answer empty in AWS's shape.
#[tokio::test]
async fn empty_polls_have_the_aws_shape() {
    let (server, c) = manual_server().await;
    let endpoint = server.endpoint();
    let addr = endpoint.trim_start_matches("http://");
    let body = json!({"domain": D, "taskList": {"name": "empty"}}).to_string();
    let raw_poll = |operation: &str| {
        let (addr, target, body) = (
            addr.to_owned(),
            format!("SimpleWorkflowService.{operation}"),
            body.clone(),
        );
        poll_through_timeout(&server, async move {
            weft_tests::raw_request(&addr, Some(&target), body.as_bytes()).await
        })
    };
    let response = raw_poll("PollForDecisionTask").await;
    assert_eq!(response.status, 200, "{}", response.body);
    assert_eq!(
        response.json(),
        json!({"previousStartedEventId": 0, "startedEventId": 0})
    );
    assert!(!response.body.contains("taskToken"), "{}", response.body);

    let response = raw_poll("PollForActivityTask").await;
    assert_eq!(response.status, 200, "{}", response.body);
    assert_eq!(response.json(), json!({"startedEventId": 0}));

    // The SDK sees an empty token.
    no_decision_task(&server, &c, "empty").await;
    no_activity_task(&server, &c, "empty").await;
    // An unknown domain is refused at once, without waiting.
    expect_fault(
        c.poll_for_decision_task()
            .domain("nope")
            .task_list(task_list("empty"))
            .send()
            .await,
        "UnknownResourceFault",
    );
    expect_fault(
        c.poll_for_activity_task()
            .domain("nope")
            .task_list(task_list("empty"))
            .send()
            .await,
        "UnknownResourceFault",
    );
}

#[tokio::test]
async fn a_decision_task_history_is_paged_without_starting_another_task() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    for n in 0..10 {
        signal(&c, "job", &format!("s{n}")).await;
    }
    // Another execution's task waits on the same list; page fetches must not start it.
    start(&c, "other", "w").await;

    let poll = |token: Option<String>, reverse: bool| {
        c.poll_for_decision_task()
            .domain(D)
            .task_list(task_list(DECIDERS))
            .maximum_page_size(5)
            .reverse_order(reverse)
            .set_next_page_token(token)
            .send()
    };
    let first = poll(None, false).await.unwrap();
    assert_eq!(first.workflow_execution().unwrap().run_id(), run);
    let ids = |task: &weft_tests::aws_sdk_swf::operation::poll_for_decision_task::PollForDecisionTaskOutput| {
        task.events().iter().map(|e| e.event_id()).collect::<Vec<_>>()
    };
    assert_eq!(ids(&first), [1, 2, 3, 4, 5]);
    assert_eq!(first.started_event_id(), 13);
    let second = poll(first.next_page_token().map(str::to_owned), false)
        .await
        .unwrap();
    assert_eq!(ids(&second), [6, 7, 8, 9, 10]);
    let third = poll(second.next_page_token().map(str::to_owned), false)
        .await
        .unwrap();
    assert_eq!(ids(&third), [11, 12, 13]);
    assert_eq!(third.next_page_token(), None);
    for page in [&second, &third] {
        assert_eq!(page.task_token(), first.task_token());
        assert_eq!(page.started_event_id(), 13);
        assert_eq!(page.workflow_execution(), first.workflow_execution());
        assert_eq!(page.workflow_type(), first.workflow_type());
    }
    assert_eq!(pending_decisions(&c, DECIDERS).await, 1);
    assert_eq!(
        count(&history(&c, "job", &run).await, "DecisionTaskStarted"),
        1
    );

    // Newest first, for the other execution.
    let newest = poll(None, true).await.unwrap();
    assert_eq!(newest.workflow_execution().unwrap().workflow_id(), "other");
    assert_eq!(ids(&newest), [3, 2, 1]);
    assert_eq!(newest.next_page_token(), None);
    assert_eq!(pending_decisions(&c, DECIDERS).await, 0);

    respond(&c, first.task_token(), vec![complete_workflow(None)]).await;
    assert_eq!(
        history(&c, "job", &run)
            .await
            .last()
            .unwrap()
            .event_type()
            .as_str(),
        "WorkflowExecutionCompleted"
    );
}

#[tokio::test]
async fn execution_context_is_recorded_in_the_completion() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    c.respond_decision_task_completed()
        .task_token(task.task_token())
        .execution_context("state: waiting")
        .send()
        .await
        .unwrap();
    let events = history(&c, "job", &run).await;
    let completed = events[3]
        .decision_task_completed_event_attributes()
        .unwrap();
    assert_eq!(completed.execution_context(), Some("state: waiting"));
    assert_eq!(
        (completed.scheduled_event_id(), completed.started_event_id()),
        (2, 3)
    );
    let detail = crate::flow::describe(&c, "job", &run).await;
    assert_eq!(detail.latest_execution_context(), Some("state: waiting"));
}

#[tokio::test]
async fn a_task_list_override_moves_the_next_decision_tasks() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    c.respond_decision_task_completed()
        .task_token(task.task_token())
        .task_list(task_list("elsewhere"))
        .send()
        .await
        .unwrap();
    signal(&c, "job", "wake").await;
    let events = history(&c, "job", &run).await;
    let completed = events[3]
        .decision_task_completed_event_attributes()
        .unwrap();
    assert_eq!(completed.task_list().map(TaskList::name), Some("elsewhere"));
    let scheduled = events
        .last()
        .unwrap()
        .decision_task_scheduled_event_attributes()
        .expect("a decision task is scheduled");
    assert_eq!(scheduled.task_list().map(TaskList::name), Some("elsewhere"));
    assert_eq!(pending_decisions(&c, DECIDERS).await, 0);
    assert_eq!(pending_decisions(&c, "elsewhere").await, 1);
    no_decision_task(&server, &c, DECIDERS).await;
    let task = decision_task(&c, "elsewhere").await;
    assert_eq!(task.workflow_execution().unwrap().run_id(), run);

    // Without taskListScheduleToStartTimeout the change is permanent.
    respond(&c, task.task_token(), vec![]).await;
    signal(&c, "job", "again").await;
    assert_eq!(pending_decisions(&c, "elsewhere").await, 1);
    assert_eq!(pending_decisions(&c, DECIDERS).await, 0);
}

#[tokio::test]
async fn an_unhandled_event_fails_the_close_but_not_the_rest_of_the_batch() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    register_activity(&c, "a").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    signal(&c, "job", "late news").await;
    respond(
        &c,
        task.task_token(),
        vec![
            schedule_activity("a1", "a"),
            complete_workflow(Some("early")),
        ],
    )
    .await;
    let events = history(&c, "job", &run).await;
    assert_types(
        &events,
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "DecisionTaskStarted",
            "WorkflowExecutionSignaled",
            "DecisionTaskScheduled",
            "DecisionTaskCompleted",
            "ActivityTaskScheduled",
            "CompleteWorkflowExecutionFailed",
        ],
    );
    let failed = events[7]
        .complete_workflow_execution_failed_event_attributes()
        .unwrap();
    assert_eq!(
        failed.cause(),
        &CompleteWorkflowExecutionFailedCause::UnhandledDecision
    );
    assert_eq!(failed.decision_task_completed_event_id(), 6);
    // The activity of the batch stays scheduled; the run stays open.
    assert_eq!(pending_activities(&c, WORKERS).await, 1);
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(task.previous_started_event_id(), 3);
    respond(&c, task.task_token(), vec![fail_workflow("gave up", "")]).await;
    let events = history(&c, "job", &run).await;
    assert_eq!(
        events.last().unwrap().event_type().as_str(),
        "WorkflowExecutionFailed"
    );

    // Events the batch itself produces do not count as unhandled.
    let run = start(&c, "quick", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![
            schedule_activity("a1", "a"),
            start_timer("t", "60"),
            complete_workflow(None),
        ],
    )
    .await;
    let events = history(&c, "quick", &run).await;
    assert_eq!(
        events.last().unwrap().event_type().as_str(),
        "WorkflowExecutionCompleted",
        "{:?}",
        types(&events)
    );
}

#[tokio::test]
async fn a_close_decision_must_be_last_and_alone() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    let before = history(&c, "job", &run).await;
    for decisions in [
        vec![complete_workflow(None), start_timer("t", "60")],
        vec![complete_workflow(None), fail_workflow("twice", "")],
        vec![
            marker("m", ""),
            complete_workflow(None),
            marker("after", ""),
        ],
    ] {
        expect_fault(
            c.respond_decision_task_completed()
                .task_token(task.task_token())
                .set_decisions(Some(decisions))
                .send()
                .await,
            "ValidationException",
        );
        assert_eq!(
            history(&c, "job", &run).await,
            before,
            "nothing is recorded"
        );
    }
    // The task is still started and can be completed properly.
    respond(
        &c,
        task.task_token(),
        vec![marker("m", ""), complete_workflow(None)],
    )
    .await;
    let events = history(&c, "job", &run).await;
    assert_eq!(
        events.last().unwrap().event_type().as_str(),
        "WorkflowExecutionCompleted"
    );
}

#[tokio::test]
async fn stale_forged_and_reused_decision_tokens_change_nothing() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let run = start(&c, "job", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    let token = task.task_token().to_owned();

    // Forged: one character changed, within the token's own alphabet.
    let mut forged: Vec<char> = token.chars().collect();
    let middle = forged.len() / 2;
    forged[middle] = if forged[middle] == 'A' { 'B' } else { 'A' };
    let forged: String = forged.into_iter().collect();
    let before = history(&c, "job", &run).await;
    // Not tokens Weft issued: invalid input, as opposed to tokens of tasks that are gone.
    for bogus in [forged.as_str(), "not-a-token"] {
        expect_fault(
            c.respond_decision_task_completed()
                .task_token(bogus)
                .decisions(complete_workflow(None))
                .send()
                .await,
            "ValidationException",
        );
    }
    assert_eq!(history(&c, "job", &run).await, before);

    respond(&c, &token, vec![marker("m", "")]).await;
    let after = history(&c, "job", &run).await;
    // Reused after completion.
    expect_fault(
        c.respond_decision_task_completed()
            .task_token(&token)
            .decisions(complete_workflow(None))
            .send()
            .await,
        "UnknownResourceFault",
    );
    assert_eq!(history(&c, "job", &run).await, after);

    // A token of an earlier task stays dead when a later task of the run is started.
    signal(&c, "job", "again").await;
    let next = decision_task(&c, DECIDERS).await;
    assert_ne!(next.task_token(), token);
    let before = history(&c, "job", &run).await;
    expect_fault(
        c.respond_decision_task_completed()
            .task_token(&token)
            .send()
            .await,
        "UnknownResourceFault",
    );
    assert_eq!(history(&c, "job", &run).await, before);
    respond(&c, next.task_token(), vec![complete_workflow(None)]).await;
}
