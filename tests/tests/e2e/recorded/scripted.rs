//! Histories of the test's own decisions, covering what the order workflow never does:
//! activities that time out, are canceled or cannot be scheduled, an activity retried after a
//! backoff timer; timers canceled and refused; signals with input, markers of one name, a
//! cancellation request; children that complete, fail or cannot start, external signals and
//! cancellations of runs that do not exist, a Lambda function, continue-as-new.

use std::time::Duration;

use serde_json::json;
use weft_tests::aws_sdk_swf::Client;
use weft_tests::aws_sdk_swf::types::{
    Decision, DecisionType, ScheduleActivityTaskDecisionAttributes,
    ScheduleLambdaFunctionDecisionAttributes,
};
use weft_tests::guests::{self, Bind, BindingKind, quote};

use super::{Fixture, server};
use crate::common::register_domain;
use crate::flow::{
    D, DECIDERS, WORKERS, act_type, activity_task, cancel_activity, cancel_external, cancel_timer,
    cancel_workflow, child_attributes, complete_workflow, continue_as_new,
    continue_as_new_attributes, decision_task, marker, register_activity, register_workflow,
    respond, schedule_activity, schedule_activity_with, signal_external, start_child, start_timer,
    start_with, task_list, wait_for_event, wait_for_events,
};

/// The fixtures written here.
pub(super) const NAMES: &[&str] = &["activities", "timers-and-signals", "children"];

/// Signals `workflow_id` with `name` and `input`.
async fn signal_with(c: &Client, workflow_id: &str, name: &str, input: &str) {
    c.signal_workflow_execution()
        .domain(D)
        .workflow_id(workflow_id)
        .signal_name(name)
        .input(input)
        .send()
        .await
        .unwrap();
}

/// Decides the next decision task on [`DECIDERS`] with `decisions`.
async fn decide(c: &Client, decisions: Vec<Decision>) {
    let task = decision_task(c, DECIDERS).await;
    respond(c, task.task_token(), decisions).await;
}

/// Takes the next activity task on [`WORKERS`], which must be `id`; its token.
async fn take(c: &Client, id: &str) -> String {
    let task = activity_task(c, WORKERS).await;
    assert_eq!(task.activity_id(), id);
    task.task_token().to_string()
}

fn fixture(name: &'static str, about: &'static str, workflow_id: &'static str) -> Fixture {
    Fixture {
        name,
        about,
        workflow_id,
        expect: json!({}),
        modules: vec![],
    }
}

#[tokio::test]
async fn activities_that_end_every_way() {
    let (server, c) = server().await;
    register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    register_activity(&c, "work").await;
    let id = "activities";
    let run = start_with(&c, id, "w", |s| s.input("go")).await;
    let short = ScheduleActivityTaskDecisionAttributes::builder()
        .activity_id("a3")
        .activity_type(act_type("work", "1"))
        .start_to_close_timeout("5");
    decide(
        &c,
        vec![
            schedule_activity("a1", "work"),
            schedule_activity("a2", "work"),
            schedule_activity_with(short),
            schedule_activity("a4", "work"),
            schedule_activity("a5", "nope"),
        ],
    )
    .await;
    let a1 = take(&c, "a1").await;
    c.respond_activity_task_completed()
        .task_token(a1)
        .result("42")
        .send()
        .await
        .unwrap();
    let a2 = take(&c, "a2").await;
    c.respond_activity_task_failed()
        .task_token(a2)
        .reason("boom")
        .details("the detail")
        .send()
        .await
        .unwrap();
    take(&c, "a3").await;
    let a4 = take(&c, "a4").await;
    let backoff = start_timer("a2-backoff", "1");
    decide(
        &c,
        vec![cancel_activity("a4"), cancel_activity("ghost"), backoff],
    )
    .await;
    c.respond_activity_task_canceled()
        .task_token(a4)
        .details("stopped")
        .send()
        .await
        .unwrap();
    server.advance(Duration::from_secs(5)).await;
    decide(&c, vec![schedule_activity("a2", "work")]).await;
    let a2 = take(&c, "a2").await;
    c.respond_activity_task_completed()
        .task_token(a2)
        .result("second try")
        .send()
        .await
        .unwrap();
    decide(&c, vec![complete_workflow(Some("done"))]).await;

    let mut fixture = fixture(
        "activities",
        "Five activities: one completes, one fails and completes when retried after a 1 s \
         backoff timer, one times out, one is canceled, one is of a type never registered; a \
         cancel request for an id never scheduled.",
        id,
    );
    fixture.expect = json!({
        "input": "go",
        "decisionTasks": 4,
        "cancelRequested": false,
        "activities": {
            "a1": {"state": "completed", "result": "42"},
            "a2": {"state": "completed", "result": "second try"},
            "a3": {"state": "timedOut", "timeoutType": "START_TO_CLOSE"},
            "a4": {"state": "canceled", "details": "stopped"},
            "a5": {"state": "notStarted", "cause": "ACTIVITY_TYPE_DOES_NOT_EXIST"},
            "ghost": null,
        },
        "timers": {"a2-backoff": {"state": "fired"}},
        "children": {}, "lambdas": {}, "signals": [], "markers": [],
        "close": {"state": "completed", "result": "done"},
    });
    fixture.check(&server, &run).await;
}

#[tokio::test]
async fn timers_signals_and_markers() {
    let (server, c) = server().await;
    register_domain(&c, D).await;
    register_workflow(&c, "w").await;
    let id = "timers-and-signals";
    let run = start_with(&c, id, "w", |s| s.input("hello")).await;
    signal_with(&c, id, "go", "1").await;
    let first = vec![
        start_timer("t1", "10"),
        start_timer("t2", "20"),
        marker("m", "first"),
        start_timer("t1", "10"),
        cancel_timer("ghost"),
    ];
    decide(&c, first).await;
    server.advance(Duration::from_secs(10)).await;
    decide(&c, vec![cancel_timer("t2"), marker("m", "second")]).await;
    signal_with(&c, id, "go", "2").await;
    c.request_cancel_workflow_execution()
        .domain(D)
        .workflow_id(id)
        .send()
        .await
        .unwrap();
    decide(&c, vec![cancel_workflow("bye")]).await;

    let mut fixture = fixture(
        "timers-and-signals",
        "Timers: one fires (a second start of its id is refused while it runs), one is \
         canceled, a cancel of an id never started is refused; two markers of one name; two \
         signals with input; a cancellation request, honoured.",
        id,
    );
    fixture.expect = json!({
        "input": "hello",
        "decisionTasks": 3,
        "cancelRequested": true,
        "activities": {"ghost": null},
        "timers": {
            "t1": {"state": "startFailed", "cause": "TIMER_ID_ALREADY_IN_USE"},
            "t2": {"state": "canceled"},
            "ghost": null,
        },
        "children": {}, "lambdas": {},
        "signals": [{"name": "go", "input": "1"}, {"name": "go", "input": "2"}],
        "markers": [{"name": "m", "details": "first"}, {"name": "m", "details": "second"}],
        "close": {"state": "canceled", "details": "bye"},
    });
    fixture.check(&server, &run).await;
}

#[tokio::test]
async fn children_external_runs_a_function_and_continue_as_new() {
    let (server, c) = server().await;
    register_domain(&c, D).await;
    register_workflow(&c, "parent").await;
    register_workflow(&c, "w").await;
    let weft = guests::weft_client(&server);
    let function = guests::deploy(
        &weft,
        "price-function",
        D,
        BindingKind::Function,
        quote::PRICE_FUNCTION,
        Bind::default(),
    )
    .await;
    let id = "children";
    let run = start_with(&c, id, "parent", |s| s.lambda_role(quote::LAMBDA_ROLE)).await;
    let kid = |workflow_id: &str, ty: &str| {
        start_child(child_attributes(workflow_id, ty).task_list(task_list("kids")))
    };
    decide(
        &c,
        vec![kid("kid-1", "w"), kid("kid-2", "w"), kid("kid-3", "nope")],
    )
    .await;
    wait_for_events(&c, id, &run, "ChildWorkflowExecutionStarted", 2).await;
    let task = decision_task(&c, "kids").await;
    assert_eq!(task.workflow_execution().unwrap().workflow_id(), "kid-1");
    respond(
        &c,
        task.task_token(),
        vec![complete_workflow(Some("kid result"))],
    )
    .await;
    wait_for_event(&c, id, &run, "ChildWorkflowExecutionCompleted").await;
    let task = decision_task(&c, "kids").await;
    assert_eq!(task.workflow_execution().unwrap().workflow_id(), "kid-2");
    let failed = crate::flow::fail_workflow("kid failed", "why");
    respond(&c, task.task_token(), vec![failed]).await;
    wait_for_event(&c, id, &run, "ChildWorkflowExecutionFailed").await;

    decide(&c, vec![signal_external("nobody", None, "poke")]).await;
    wait_for_event(&c, id, &run, "SignalExternalWorkflowExecutionFailed").await;
    decide(&c, vec![cancel_external("nobody", None)]).await;
    wait_for_event(&c, id, &run, "RequestCancelExternalWorkflowExecutionFailed").await;
    let price = ScheduleLambdaFunctionDecisionAttributes::builder()
        .id("l1")
        .name(quote::PRICE_FUNCTION)
        .input(r#"{"sku":"teapot","quantity":2}"#)
        .start_to_close_timeout("10")
        .build()
        .unwrap();
    let price = Decision::builder()
        .decision_type(DecisionType::ScheduleLambdaFunction)
        .schedule_lambda_function_decision_attributes(price)
        .build()
        .unwrap();
    decide(&c, vec![price]).await;
    wait_for_event(&c, id, &run, "LambdaFunctionCompleted").await;
    let again = continue_as_new(continue_as_new_attributes().input("again"));
    decide(&c, vec![again]).await;

    let mut fixture = fixture(
        "children",
        "Three children: one completes, one fails, one is of a type never registered; a signal \
         and a cancellation request to a run that does not exist; the function price; then \
         continue-as-new.",
        id,
    );
    fixture.modules.push((function, "price-function"));
    fixture.expect = json!({
        "input": null,
        "decisionTasks": 5,
        "cancelRequested": false,
        "activities": {},
        "timers": {},
        "children": {
            "kid-1": {"state": "completed", "result": "kid result"},
            "kid-2": {"state": "failed", "reason": "kid failed", "details": "why"},
            "kid-3": {"state": "notStarted", "cause": "WORKFLOW_TYPE_DOES_NOT_EXIST"},
            "nobody": null,
        },
        "lambdas": {
            "l1": {
                "state": "completed",
                "result": r#"{"line_cents":5000,"quantity":2,"sku":"teapot","unit_cents":2500}"#,
            },
        },
        "signals": [], "markers": [],
        "close": {"state": "continuedAsNew"},
    });
    fixture.check(&server, &run).await;
}
