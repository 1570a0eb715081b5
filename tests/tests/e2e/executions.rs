//! StartWorkflowExecution, SignalWorkflowExecution, RequestCancelWorkflowExecution and
//! TerminateWorkflowExecution (spec §4.3, §8.1, §8.6).

use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{ChildPolicy, CloseStatus, ExecutionStatus, TaskList};

use crate::common::{expect_fault, register_domain};
use crate::flow::{
    D, DECIDERS, assert_types, complete_workflow, decision_task, describe, first, history,
    manual_server, no_decision_task, pending_decisions, register_bare_workflow, register_workflow,
    server, start, wf_type,
};

const ROLE: &str = "arn:aws:iam::000000000000:role/decider";

#[tokio::test]
async fn start_resolves_defaults_from_the_type() {
    let (_server, c) = server().await;
    c.register_workflow_type()
        .domain(D)
        .name("order")
        .version("1")
        .default_task_list(TaskList::builder().name("orders").build().unwrap())
        .default_execution_start_to_close_timeout("3600")
        .default_task_start_to_close_timeout("30")
        .default_child_policy(ChildPolicy::RequestCancel)
        .default_task_priority("7")
        .default_lambda_role(ROLE)
        .send()
        .await
        .unwrap();

    let run = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id("o-1")
        .workflow_type(wf_type("order", "1"))
        .input("cart")
        .tag_list("gold")
        .tag_list("eu")
        .send()
        .await
        .unwrap()
        .run_id()
        .unwrap()
        .to_owned();
    let events = history(&c, "o-1", &run).await;
    assert_types(
        &events,
        &["WorkflowExecutionStarted", "DecisionTaskScheduled"],
    );
    let started = events[0]
        .workflow_execution_started_event_attributes()
        .unwrap();
    assert_eq!(started.workflow_type(), Some(&wf_type("order", "1")));
    assert_eq!(started.input(), Some("cart"));
    assert_eq!(started.tag_list(), ["gold", "eu"]);
    assert_eq!(started.task_list().map(TaskList::name), Some("orders"));
    assert_eq!(started.execution_start_to_close_timeout(), Some("3600"));
    assert_eq!(started.task_start_to_close_timeout(), Some("30"));
    assert_eq!(started.child_policy(), &ChildPolicy::RequestCancel);
    assert_eq!(started.task_priority(), Some("7"));
    assert_eq!(started.lambda_role(), Some(ROLE));
    assert_eq!(started.parent_workflow_execution(), None);
    let scheduled = events[1]
        .decision_task_scheduled_event_attributes()
        .unwrap();
    assert_eq!(scheduled.task_list().map(TaskList::name), Some("orders"));
    assert_eq!(scheduled.start_to_close_timeout(), Some("30"));
    assert_eq!(scheduled.task_priority(), Some("7"));

    let detail = describe(&c, "o-1", &run).await;
    let config = detail.execution_configuration().unwrap();
    assert_eq!(config.task_list().map(TaskList::name), Some("orders"));
    assert_eq!(config.execution_start_to_close_timeout(), "3600");
    assert_eq!(config.task_start_to_close_timeout(), "30");
    assert_eq!(config.child_policy(), &ChildPolicy::RequestCancel);
    assert_eq!(config.task_priority(), Some("7"));
    assert_eq!(config.lambda_role(), Some(ROLE));
    let info = detail.execution_info().unwrap();
    assert_eq!(info.execution().unwrap().workflow_id(), "o-1");
    assert_eq!(info.execution().unwrap().run_id(), run);
    assert_eq!(info.workflow_type(), Some(&wf_type("order", "1")));
    assert_eq!(info.execution_status(), &ExecutionStatus::Open);
    assert_eq!(info.close_status(), None);
    assert_eq!(info.close_timestamp(), None);
    assert_eq!(info.tag_list(), ["gold", "eu"]);
    assert!(!info.cancel_requested());
    assert_eq!(info.parent(), None);
    let counts = detail.open_counts().unwrap();
    assert_eq!(counts.open_decision_tasks(), 1);
    assert_eq!((counts.open_activity_tasks(), counts.open_timers()), (0, 0));
    assert_eq!(counts.open_child_workflow_executions(), 0);

    // Values given at start win over the defaults.
    let other = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id("o-2")
        .workflow_type(wf_type("order", "1"))
        .task_list(TaskList::builder().name("rush").build().unwrap())
        .execution_start_to_close_timeout("60")
        .task_start_to_close_timeout("NONE")
        .child_policy(ChildPolicy::Abandon)
        .task_priority("-3")
        .lambda_role("arn:aws:iam::000000000000:role/other")
        .send()
        .await
        .unwrap()
        .run_id()
        .unwrap()
        .to_owned();
    assert_ne!(other, run, "every run gets its own runId");
    let detail = describe(&c, "o-2", &other).await;
    let config = detail.execution_configuration().unwrap();
    assert_eq!(config.task_list().map(TaskList::name), Some("rush"));
    assert_eq!(config.execution_start_to_close_timeout(), "60");
    assert_eq!(config.task_start_to_close_timeout(), "NONE");
    assert_eq!(config.child_policy(), &ChildPolicy::Abandon);
    assert_eq!(config.task_priority(), Some("-3"));
    assert_eq!(
        config.lambda_role(),
        Some("arn:aws:iam::000000000000:role/other")
    );
    assert_eq!(pending_decisions(&c, "rush").await, 1);
    assert_eq!(pending_decisions(&c, "orders").await, 1);
}

#[tokio::test]
async fn start_faults() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let start_in = |domain: &str, id: &str, name: &str, version: &str| {
        c.start_workflow_execution()
            .domain(domain)
            .workflow_id(id)
            .workflow_type(wf_type(name, version))
            .send()
    };
    expect_fault(
        start_in("nope", "a", "w", "1").await,
        "UnknownResourceFault",
    );
    expect_fault(start_in(D, "a", "nope", "1").await, "UnknownResourceFault");
    expect_fault(start_in(D, "a", "w", "2").await, "UnknownResourceFault");

    start(&c, "a", "w").await;
    expect_fault(
        start_in(D, "a", "w", "1").await,
        "WorkflowExecutionAlreadyStartedFault",
    );
    // Another type does not matter: the workflowId is taken while its run is open.
    register_workflow(&c, "v").await;
    expect_fault(
        start_in(D, "a", "v", "1").await,
        "WorkflowExecutionAlreadyStartedFault",
    );
    // The same workflowId in another domain is another execution.
    register_domain(&c, "d2").await;
    c.register_workflow_type()
        .domain("d2")
        .name("w")
        .version("1")
        .default_task_list(TaskList::builder().name("l").build().unwrap())
        .default_execution_start_to_close_timeout("60")
        .default_task_start_to_close_timeout("10")
        .default_child_policy(ChildPolicy::Terminate)
        .send()
        .await
        .unwrap();
    start_in("d2", "a", "w", "1").await.unwrap();

    c.deprecate_workflow_type()
        .domain(D)
        .workflow_type(wf_type("v", "1"))
        .send()
        .await
        .unwrap();
    expect_fault(start_in(D, "b", "v", "1").await, "TypeDeprecatedFault");
    // Deprecating the domain deprecates its types.
    c.deprecate_domain().name("d2").send().await.unwrap();
    expect_fault(start_in("d2", "b", "w", "1").await, "TypeDeprecatedFault");
}

#[tokio::test]
async fn each_missing_default_is_default_undefined() {
    let (_server, c) = server().await;
    register_bare_workflow(&c, "bare", "1").await;
    let request = |id: &str, missing: Option<&str>| {
        let mut request = c
            .start_workflow_execution()
            .domain(D)
            .workflow_id(id)
            .workflow_type(wf_type("bare", "1"));
        if missing != Some("taskList") {
            request = request.task_list(TaskList::builder().name("l").build().unwrap());
        }
        if missing != Some("executionStartToCloseTimeout") {
            request = request.execution_start_to_close_timeout("60");
        }
        if missing != Some("taskStartToCloseTimeout") {
            request = request.task_start_to_close_timeout("10");
        }
        if missing != Some("childPolicy") {
            request = request.child_policy(ChildPolicy::Abandon);
        }
        request.send()
    };
    for missing in [
        "taskList",
        "executionStartToCloseTimeout",
        "taskStartToCloseTimeout",
        "childPolicy",
    ] {
        let result = request(&format!("w-{missing}"), Some(missing)).await;
        let message = expect_fault(result, "DefaultUndefinedFault");
        assert!(!message.is_empty(), "{missing}");
    }
    // With all four given the same type starts, and nothing else was started.
    request("complete", None).await.unwrap();
    assert_eq!(pending_decisions(&c, "l").await, 1);
}

#[tokio::test]
async fn a_closed_workflow_id_can_be_started_again() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let first_run = start(&c, "job", "w").await;
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("job")
        .send()
        .await
        .unwrap();
    let second_run = start(&c, "job", "w").await;
    assert_ne!(first_run, second_run);
    let old = describe(&c, "job", &first_run).await;
    let old = old.execution_info().unwrap();
    assert_eq!(old.execution_status(), &ExecutionStatus::Closed);
    assert_eq!(old.close_status(), Some(&CloseStatus::Terminated));
    assert!(old.close_timestamp().is_some());
    let new = describe(&c, "job", &second_run).await;
    assert_eq!(
        new.execution_info().unwrap().execution_status(),
        &ExecutionStatus::Open
    );
}

/// Signal, RequestCancel and Terminate with `run_id` (or the current open run when `None`).
async fn signal(c: &Client, id: &str, run: Option<&str>, name: &str) -> Result<(), String> {
    c.signal_workflow_execution()
        .domain(D)
        .workflow_id(id)
        .set_run_id(run.map(str::to_owned))
        .signal_name(name)
        .input(format!("{name}-input"))
        .send()
        .await
        .map(drop)
        .map_err(|e| crate::common::fault(Err::<(), _>(e)).0)
}

async fn request_cancel(c: &Client, id: &str, run: Option<&str>) -> Result<(), String> {
    c.request_cancel_workflow_execution()
        .domain(D)
        .workflow_id(id)
        .set_run_id(run.map(str::to_owned))
        .send()
        .await
        .map(drop)
        .map_err(|e| crate::common::fault(Err::<(), _>(e)).0)
}

async fn terminate(c: &Client, id: &str, run: Option<&str>) -> Result<(), String> {
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id(id)
        .set_run_id(run.map(str::to_owned))
        .send()
        .await
        .map(drop)
        .map_err(|e| crate::common::fault(Err::<(), _>(e)).0)
}

#[tokio::test]
async fn signal_cancel_and_terminate_target_the_given_or_the_open_run() {
    let (_server, c) = server().await;
    register_workflow(&c, "w").await;
    let unknown = Err("UnknownResourceFault".to_owned());
    let r1 = start(&c, "job", "w").await;

    signal(&c, "job", None, "s1").await.unwrap();
    signal(&c, "job", Some(&r1), "s2").await.unwrap();
    signal(&c, "job", Some(""), "s3").await.unwrap();
    request_cancel(&c, "job", None).await.unwrap();
    let events = history(&c, "job", &r1).await;
    assert_types(
        &events,
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "WorkflowExecutionSignaled",
            "WorkflowExecutionSignaled",
            "WorkflowExecutionSignaled",
            "WorkflowExecutionCancelRequested",
        ],
    );
    for (event, name) in events[2..5].iter().zip(["s1", "s2", "s3"]) {
        let signaled = event
            .workflow_execution_signaled_event_attributes()
            .unwrap();
        assert_eq!(signaled.signal_name(), name);
        assert_eq!(signaled.input(), Some(format!("{name}-input").as_str()));
        assert_eq!(signaled.external_workflow_execution(), None);
        assert_eq!(signaled.external_initiated_event_id(), 0);
    }
    let requested = events[5]
        .workflow_execution_cancel_requested_event_attributes()
        .unwrap();
    assert_eq!(requested.external_workflow_execution(), None);
    assert_eq!(requested.cause(), None);
    let detail = describe(&c, "job", &r1).await;
    assert!(detail.execution_info().unwrap().cancel_requested());

    terminate(&c, "job", Some(&r1)).await.unwrap();
    let closed = history(&c, "job", &r1).await;
    // A closed run takes nothing more, with or without its runId.
    for run in [Some(r1.as_str()), None] {
        assert_eq!(signal(&c, "job", run, "late").await, unknown);
        assert_eq!(request_cancel(&c, "job", run).await, unknown);
        assert_eq!(terminate(&c, "job", run).await, unknown);
    }

    let r2 = start(&c, "job", "w").await;
    signal(&c, "job", None, "to-r2").await.unwrap();
    assert_eq!(signal(&c, "job", Some(&r1), "to-r1").await, unknown);
    assert_eq!(request_cancel(&c, "job", Some(&r1)).await, unknown);
    assert_eq!(terminate(&c, "job", Some(&r1)).await, unknown);
    assert_eq!(history(&c, "job", &r1).await, closed);
    let events = history(&c, "job", &r2).await;
    assert_eq!(
        first(&events, "WorkflowExecutionSignaled")
            .workflow_execution_signaled_event_attributes()
            .unwrap()
            .signal_name(),
        "to-r2"
    );

    // Unknown workflowIds, runIds and domains.
    for (id, run) in [("nope", None), ("job", Some("nope"))] {
        assert_eq!(signal(&c, id, run, "s").await, unknown);
        assert_eq!(request_cancel(&c, id, run).await, unknown);
        assert_eq!(terminate(&c, id, run).await, unknown);
    }
    expect_fault(
        c.signal_workflow_execution()
            .domain("nope")
            .workflow_id("job")
            .signal_name("s")
            .send()
            .await,
        "UnknownResourceFault",
    );

    terminate(&c, "job", None).await.unwrap();
    let detail = describe(&c, "job", &r2).await;
    assert_eq!(
        detail.execution_info().unwrap().close_status(),
        Some(&CloseStatus::Terminated)
    );
}

#[tokio::test]
async fn terminate_records_the_effective_child_policy_and_ends_every_task() {
    let (server, c) = manual_server().await;
    register_workflow(&c, "w").await;

    let r1 = start(&c, "a", "w").await;
    c.terminate_workflow_execution()
        .domain(D)
        .workflow_id("a")
        .reason("operator")
        .details("cleanup")
        .child_policy(ChildPolicy::Abandon)
        .send()
        .await
        .unwrap();
    let events = history(&c, "a", &r1).await;
    assert_types(
        &events,
        &[
            "WorkflowExecutionStarted",
            "DecisionTaskScheduled",
            "WorkflowExecutionTerminated",
        ],
    );
    let terminated = events[2]
        .workflow_execution_terminated_event_attributes()
        .unwrap();
    assert_eq!(terminated.reason(), Some("operator"));
    assert_eq!(terminated.details(), Some("cleanup"));
    assert_eq!(terminated.child_policy(), &ChildPolicy::Abandon);
    // The scheduled decision task went with the run.
    assert_eq!(pending_decisions(&c, DECIDERS).await, 0);
    no_decision_task(&server, &c, DECIDERS).await;

    // Without an override the execution's own policy is recorded.
    let r2 = c
        .start_workflow_execution()
        .domain(D)
        .workflow_id("b")
        .workflow_type(wf_type("w", "1"))
        .child_policy(ChildPolicy::RequestCancel)
        .send()
        .await
        .unwrap()
        .run_id()
        .unwrap()
        .to_owned();
    terminate(&c, "b", Some(&r2)).await.unwrap();
    let events = history(&c, "b", &r2).await;
    let terminated = events
        .last()
        .unwrap()
        .workflow_execution_terminated_event_attributes()
        .unwrap();
    assert_eq!(terminated.child_policy(), &ChildPolicy::RequestCancel);

    // A started decision task's token dies with the run.
    let r3 = start(&c, "c", "w").await;
    let task = decision_task(&c, DECIDERS).await;
    assert_eq!(task.workflow_execution().unwrap().run_id(), r3);
    terminate(&c, "c", None).await.unwrap();
    let before = history(&c, "c", &r3).await;
    expect_fault(
        c.respond_decision_task_completed()
            .task_token(task.task_token())
            .decisions(complete_workflow(None))
            .send()
            .await,
        "UnknownResourceFault",
    );
    assert_eq!(history(&c, "c", &r3).await, before);
}
