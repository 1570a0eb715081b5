//! Executions acting on executions: child workflows and child policies, continue-as-new, and
//! external signals and cancel requests (spec §6.6, §6.10–6.12, §8.9–8.12).

use std::time::Duration;

use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{
    ChildPolicy, CloseStatus, ExecutionStatus, TaskList, WorkflowExecutionCancelRequestedCause,
    WorkflowExecutionTerminatedCause,
};

use crate::flow::{
    D, DECIDERS, assert_types, cancel_external, cancel_workflow, child_attributes,
    complete_workflow, continue_as_new, continue_as_new_attributes, count, decision_task, describe,
    execution, first, history, last, manual_server, pending_decisions, register_workflow, respond,
    server, signal_external, start_child, start_on, types, wait_for_event, wf_type,
};

#[tokio::test]
async fn a_child_workflow_reports_to_its_parent() {
    let (_server, c) = server().await;
    register_workflow(&c, "parent").await;
    register_workflow(&c, "child").await;
    let run = start_on(&c, "mom", "parent", DECIDERS).await;
    let task = decision_task(&c, DECIDERS).await;
    respond(
        &c,
        task.task_token(),
        vec![start_child(
            child_attributes("kid", "child")
                .task_list(TaskList::builder().name("kids").build().unwrap())
                .input("hi")
                .control("ctl")
                .tag_list("family"),
        )],
    )
    .await;
    let events = wait_for_event(&c, "mom", &run, "ChildWorkflowExecutionStarted").await;
    let initiated = first(&events, "StartChildWorkflowExecutionInitiated");
    let initiated_id = initiated.event_id();
    let attributes = initiated
        .start_child_workflow_execution_initiated_event_attributes()
        .unwrap();
    assert_eq!(attributes.workflow_id(), "kid");
    assert_eq!(attributes.workflow_type(), Some(&wf_type("child", "1")));
    assert_eq!(attributes.control(), Some("ctl"));
    assert_eq!(attributes.input(), Some("hi"));
    assert_eq!(attributes.task_list().map(TaskList::name), Some("kids"));
    assert_eq!(attributes.child_policy(), &ChildPolicy::Terminate);
    assert_eq!(attributes.execution_start_to_close_timeout(), Some("3600"));
    assert_eq!(attributes.task_start_to_close_timeout(), Some("60"));
    assert_eq!(attributes.tag_list(), ["family"]);
    assert_eq!(attributes.decision_task_completed_event_id(), 4);
    let started = first(&events, "ChildWorkflowExecutionStarted");
    let started_id = started.event_id();
    let started = started
        .child_workflow_execution_started_event_attributes()
        .unwrap();
    assert_eq!(started.initiated_event_id(), initiated_id);
    assert_eq!(started.workflow_type(), Some(&wf_type("child", "1")));
    let kid = started.workflow_execution().unwrap().clone();
    assert_eq!(kid.workflow_id(), "kid");
    assert!(started_id > initiated_id);

    // The child is an execution of its own, which knows its parent.
    let kid_task = decision_task(&c, "kids").await;
    assert_eq!(kid_task.workflow_execution(), Some(&kid));
    let kid_started = kid_task.events()[0]
        .workflow_execution_started_event_attributes()
        .unwrap();
    assert_eq!(
        kid_started.parent_workflow_execution(),
        Some(&execution("mom", &run))
    );
    assert_eq!(kid_started.parent_initiated_event_id(), initiated_id);
    assert_eq!(kid_started.input(), Some("hi"));
    assert_eq!(kid_started.tag_list(), ["family"]);
    let detail = describe(&c, "kid", kid.run_id()).await;
    assert_eq!(
        detail.execution_info().unwrap().parent(),
        Some(&execution("mom", &run))
    );
    let detail = describe(&c, "mom", &run).await;
    assert_eq!(
        detail
            .open_counts()
            .unwrap()
            .open_child_workflow_executions(),
        1
    );
    respond(
        &c,
        kid_task.task_token(),
        vec![complete_workflow(Some("done"))],
    )
    .await;

    let events = wait_for_event(&c, "mom", &run, "ChildWorkflowExecutionCompleted").await;
    let completed = first(&events, "ChildWorkflowExecutionCompleted");
    assert!(completed.event_id() > started_id);
    let completed = completed
        .child_workflow_execution_completed_event_attributes()
        .unwrap();
    assert_eq!(completed.workflow_execution(), Some(&kid));
    assert_eq!(completed.workflow_type(), Some(&wf_type("child", "1")));
    assert_eq!(completed.result(), Some("done"));
    assert_eq!(completed.initiated_event_id(), initiated_id);
    assert_eq!(completed.started_event_id(), started_id);
    let detail = describe(&c, "mom", &run).await;
    assert_eq!(
        detail
            .open_counts()
            .unwrap()
            .open_child_workflow_executions(),
        0
    );

    // The parent's decider hears about both.
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(task.workflow_execution().unwrap().workflow_id(), "mom");
    let seen = types(task.events());
    assert!(seen.contains(&"ChildWorkflowExecutionStarted"), "{seen:?}");
    assert!(
        seen.contains(&"ChildWorkflowExecutionCompleted"),
        "{seen:?}"
    );
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
}

/// Starts parent `id` with `policy` (decisions on list `id`) and its child `<id>-kid` (decisions
/// on list `<id>-kids`); returns the parent's runId and the child's runId once it started.
async fn family(c: &Client, id: &str, policy: ChildPolicy) -> (String, String) {
    let run = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id(id)
        .workflow_type(wf_type("parent", "1"))
        .task_list(TaskList::builder().name(id).build().unwrap())
        .child_policy(policy)
        .send()
        .await
        .unwrap()
        .run_id()
        .unwrap()
        .to_owned();
    let task = decision_task(c, id).await;
    respond(
        c,
        task.task_token(),
        vec![start_child(
            child_attributes(&format!("{id}-kid"), "child").task_list(
                TaskList::builder()
                    .name(format!("{id}-kids"))
                    .build()
                    .unwrap(),
            ),
        )],
    )
    .await;
    let events = wait_for_event(c, id, &run, "ChildWorkflowExecutionStarted").await;
    let kid_run = first(&events, "ChildWorkflowExecutionStarted")
        .child_workflow_execution_started_event_attributes()
        .unwrap()
        .workflow_execution()
        .unwrap()
        .run_id()
        .to_owned();
    (run, kid_run)
}

#[tokio::test]
async fn terminating_a_parent_applies_its_child_policy() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "parent").await;
    register_workflow(&c, "child").await;
    for (id, policy, overridden) in [
        ("terminate", ChildPolicy::Terminate, None),
        ("request-cancel", ChildPolicy::RequestCancel, None),
        ("abandon", ChildPolicy::Abandon, None),
        (
            "overridden",
            ChildPolicy::Terminate,
            Some(ChildPolicy::Abandon),
        ),
    ] {
        let (run, kid_run) = family(&c, id, policy.clone()).await;
        let kid = format!("{id}-kid");
        c.terminate_workflow_execution()
            .domain(D)
            .workflow_id(id)
            .set_child_policy(overridden.clone())
            .send()
            .await
            .unwrap();
        let effective = overridden.unwrap_or(policy);
        let events = history(&c, id, &run).await;
        let terminated = events
            .last()
            .unwrap()
            .workflow_execution_terminated_event_attributes()
            .unwrap_or_else(|| panic!("{id}: {:?}", types(&events)));
        assert_eq!(terminated.child_policy(), &effective, "{id}");

        match effective {
            ChildPolicy::Terminate => {
                let kid_events =
                    wait_for_event(&c, &kid, &kid_run, "WorkflowExecutionTerminated").await;
                let kid_terminated = kid_events
                    .last()
                    .unwrap()
                    .workflow_execution_terminated_event_attributes()
                    .unwrap();
                assert_eq!(
                    kid_terminated.cause(),
                    Some(&WorkflowExecutionTerminatedCause::ChildPolicyApplied)
                );
                assert_eq!(kid_terminated.child_policy(), &ChildPolicy::Terminate);
                let info = describe(&c, &kid, &kid_run).await;
                assert_eq!(
                    info.execution_info().unwrap().close_status(),
                    Some(&CloseStatus::Terminated)
                );
            }
            ChildPolicy::RequestCancel => {
                let kid_events =
                    wait_for_event(&c, &kid, &kid_run, "WorkflowExecutionCancelRequested").await;
                let requested = last(&kid_events, "WorkflowExecutionCancelRequested")
                    .workflow_execution_cancel_requested_event_attributes()
                    .unwrap();
                assert_eq!(
                    requested.cause(),
                    Some(&WorkflowExecutionCancelRequestedCause::ChildPolicyApplied)
                );
                let detail = describe(&c, &kid, &kid_run).await;
                let info = detail.execution_info().unwrap();
                assert_eq!(info.execution_status(), &ExecutionStatus::Open);
                assert!(info.cancel_requested());
                // Its decider gets a decision task that shows the request.
                assert_eq!(pending_decisions(&c, &format!("{kid}s")).await, 1);
                let task = decision_task(&c, &format!("{kid}s")).await;
                assert!(types(task.events()).contains(&"WorkflowExecutionCancelRequested"));
                respond(&c, task.task_token(), vec![cancel_workflow("as asked")]).await;
            }
            _ => {
                // Time passing changes nothing for an abandoned child.
                server.advance(Duration::from_secs(1)).await;
                let kid_events = history(&c, &kid, &kid_run).await;
                assert_types(
                    &kid_events,
                    &["WorkflowExecutionStarted", "DecisionTaskScheduled"],
                );
                let detail = describe(&c, &kid, &kid_run).await;
                let info = detail.execution_info().unwrap();
                assert_eq!(info.execution_status(), &ExecutionStatus::Open, "{id}");
                assert!(!info.cancel_requested());
            }
        }
        // The closed parent records nothing about its children any more.
        assert_eq!(history(&c, id, &run).await, events, "{id}");
    }
}

#[tokio::test]
async fn continue_as_new_carries_input_to_the_next_run() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let first_run = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id("counter")
        .workflow_type(wf_type("w", "1"))
        .task_list(TaskList::builder().name("first-list").build().unwrap())
        .task_priority("5")
        .child_policy(ChildPolicy::Abandon)
        .input("1")
        .tag_list("gen-1")
        .send()
        .await
        .unwrap()
        .run_id()
        .unwrap()
        .to_owned();

    // The decider counts to 3, one run per number.
    let mut runs = vec![first_run.clone()];
    let mut list = "first-list".to_owned();
    loop {
        let task = decision_task(&c, &list).await;
        assert_eq!(
            task.workflow_execution().unwrap().run_id(),
            runs.last().unwrap()
        );
        assert_eq!(task.previous_started_event_id(), 0);
        let n: u32 = task.events()[0]
            .workflow_execution_started_event_attributes()
            .unwrap()
            .input()
            .unwrap()
            .parse()
            .unwrap();
        if n == 3 {
            respond(&c, task.task_token(), vec![complete_workflow(Some("3"))]).await;
            break;
        }
        let next = continue_as_new_attributes()
            .input((n + 1).to_string())
            .tag_list(format!("gen-{}", n + 1));
        respond(&c, task.task_token(), vec![continue_as_new(next)]).await;
        let events = history(&c, "counter", runs.last().unwrap()).await;
        let continued = events
            .last()
            .unwrap()
            .workflow_execution_continued_as_new_event_attributes()
            .unwrap_or_else(|| panic!("{:?}", types(&events)));
        runs.push(continued.new_execution_run_id().to_owned());
        list = DECIDERS.to_owned();
    }
    assert_eq!(runs.len(), 3);

    // The first run closed CONTINUED_AS_NEW; its successor got the type's defaults, not its own
    // overrides.
    let events = history(&c, "counter", &first_run).await;
    let continued = last(&events, "WorkflowExecutionContinuedAsNew");
    let dtc = last(&events, "DecisionTaskCompleted").event_id();
    let continued = continued
        .workflow_execution_continued_as_new_event_attributes()
        .unwrap();
    assert_eq!(continued.input(), Some("2"));
    assert_eq!(continued.decision_task_completed_event_id(), dtc);
    assert_eq!(continued.new_execution_run_id(), runs[1]);
    assert_eq!(continued.task_list().map(TaskList::name), Some(DECIDERS));
    assert_eq!(continued.child_policy(), &ChildPolicy::Terminate);
    assert_eq!(continued.workflow_type(), Some(&wf_type("w", "1")));
    assert_eq!(continued.tag_list(), ["gen-2"]);
    assert_eq!(continued.execution_start_to_close_timeout(), Some("3600"));
    assert_eq!(continued.task_start_to_close_timeout(), Some("60"));
    let detail = describe(&c, "counter", &first_run).await;
    assert_eq!(
        detail.execution_info().unwrap().close_status(),
        Some(&CloseStatus::ContinuedAsNew)
    );

    for (index, run) in runs.iter().enumerate().skip(1) {
        let events = history(&c, "counter", run).await;
        assert_eq!(
            &types(&events)[..2],
            ["WorkflowExecutionStarted", "DecisionTaskScheduled"]
        );
        let started = events[0]
            .workflow_execution_started_event_attributes()
            .unwrap();
        let n = index + 1;
        assert_eq!(started.input(), Some(n.to_string().as_str()));
        assert_eq!(
            started.continued_execution_run_id(),
            Some(runs[index - 1].as_str())
        );
        assert_eq!(started.tag_list(), [format!("gen-{n}")]);
        assert_eq!(started.task_list().map(TaskList::name), Some(DECIDERS));
        assert_eq!(started.child_policy(), &ChildPolicy::Terminate);
        assert_eq!(started.task_priority().unwrap_or("0"), "0");
    }
    let detail = describe(&c, "counter", &runs[2]).await;
    let info = detail.execution_info().unwrap();
    assert_eq!(info.close_status(), Some(&CloseStatus::Completed));
    assert_eq!(
        count(
            &history(&c, "counter", &runs[1]).await,
            "WorkflowExecutionStarted"
        ),
        1
    );
}

#[tokio::test]
async fn external_signals_and_cancel_requests_reach_their_target() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let target = start_on(&c, "target", "w", "target-list").await;
    let sender = start_on(&c, "sender", "w", "sender-list").await;
    let task = decision_task(&c, "sender-list").await;
    respond(
        &c,
        task.task_token(),
        vec![
            signal_external("target", Some(&target), "ping"),
            cancel_external("target", None),
        ],
    )
    .await;
    wait_for_event(&c, "sender", &sender, "ExternalWorkflowExecutionSignaled").await;
    let events = wait_for_event(
        &c,
        "sender",
        &sender,
        "ExternalWorkflowExecutionCancelRequested",
    )
    .await;
    assert_eq!(
        &types(&events)[3..6],
        [
            "DecisionTaskCompleted",
            "SignalExternalWorkflowExecutionInitiated",
            "RequestCancelExternalWorkflowExecutionInitiated",
        ]
    );
    let initiated = events[4]
        .signal_external_workflow_execution_initiated_event_attributes()
        .unwrap();
    assert_eq!(
        (initiated.workflow_id(), initiated.run_id()),
        ("target", Some(target.as_str()))
    );
    assert_eq!(initiated.signal_name(), "ping");
    assert_eq!(initiated.input(), Some("ping-input"));
    assert_eq!(initiated.control(), Some("ping-control"));
    assert_eq!(initiated.decision_task_completed_event_id(), 4);
    let initiated = events[5]
        .request_cancel_external_workflow_execution_initiated_event_attributes()
        .unwrap();
    assert_eq!(initiated.workflow_id(), "target");
    assert_eq!(initiated.control(), Some("cancel-control"));
    assert_eq!(initiated.decision_task_completed_event_id(), 4);

    let signaled = first(&events, "ExternalWorkflowExecutionSignaled");
    assert!(signaled.event_id() > 5);
    let signaled = signaled
        .external_workflow_execution_signaled_event_attributes()
        .unwrap();
    assert_eq!(
        signaled.workflow_execution(),
        Some(&execution("target", &target))
    );
    assert_eq!(signaled.initiated_event_id(), 5);
    let requested = first(&events, "ExternalWorkflowExecutionCancelRequested")
        .external_workflow_execution_cancel_requested_event_attributes()
        .unwrap();
    assert_eq!(
        requested.workflow_execution(),
        Some(&execution("target", &target))
    );
    assert_eq!(requested.initiated_event_id(), 6);

    // The target sees who sent them.
    let target_events = history(&c, "target", &target).await;
    let signal = first(&target_events, "WorkflowExecutionSignaled")
        .workflow_execution_signaled_event_attributes()
        .unwrap();
    assert_eq!(signal.signal_name(), "ping");
    assert_eq!(signal.input(), Some("ping-input"));
    assert_eq!(
        signal.external_workflow_execution(),
        Some(&execution("sender", &sender))
    );
    assert_eq!(signal.external_initiated_event_id(), 5);
    let cancel = first(&target_events, "WorkflowExecutionCancelRequested")
        .workflow_execution_cancel_requested_event_attributes()
        .unwrap();
    assert_eq!(
        cancel.external_workflow_execution(),
        Some(&execution("sender", &sender))
    );
    assert_eq!(cancel.external_initiated_event_id(), 6);
    assert_eq!(cancel.cause(), None);
    let detail = describe(&c, "target", &target).await;
    assert!(detail.execution_info().unwrap().cancel_requested());

    // Both deciders react.
    let task = decision_task(&c, "target-list").await;
    let seen = types(task.events());
    assert!(seen.contains(&"WorkflowExecutionSignaled"), "{seen:?}");
    assert!(
        seen.contains(&"WorkflowExecutionCancelRequested"),
        "{seen:?}"
    );
    respond(
        &c,
        task.task_token(),
        vec![cancel_workflow("canceled by sender")],
    )
    .await;
    let task = decision_task(&c, "sender-list").await;
    assert!(types(task.events()).contains(&"ExternalWorkflowExecutionSignaled"));
    respond(&c, task.task_token(), vec![complete_workflow(None)]).await;
    let detail = describe(&c, "target", &target).await;
    assert_eq!(
        detail.execution_info().unwrap().close_status(),
        Some(&CloseStatus::Canceled)
    );
}
