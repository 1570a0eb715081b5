//! What a guest answers: every decision builder against the attributes it should produce, the
//! responses, outcomes and failures, and the entry points the macros expand to.

use crate::decisions::*;
use crate::types::ChildPolicy;
use crate::{Decision, Failure, History, Outcome, Response};

use super::{activity_type, first_decision, history, task_list, workflow_type};

#[test]
fn the_decision_builders_fill_every_attribute() {
    let activity: Decision = Decision::schedule_activity("a", "Charge", "1")
        .input("i")
        .control("c")
        .task_list("tl")
        .task_priority(-3)
        .schedule_to_close(4)
        .schedule_to_start(5)
        .start_to_close(6)
        .heartbeat(7)
        .into();
    assert_eq!(
        activity,
        Decision::ScheduleActivityTask(ScheduleActivityTaskDecisionAttributes {
            activity_type: activity_type(),
            activity_id: "a".into(),
            control: Some("c".into()),
            input: Some("i".into()),
            schedule_to_close_timeout: Some("4".into()),
            task_list: Some(task_list("tl")),
            task_priority: Some("-3".into()),
            schedule_to_start_timeout: Some("5".into()),
            start_to_close_timeout: Some("6".into()),
            heartbeat_timeout: Some("7".into()),
        })
    );
    assert_eq!(
        Decision::request_cancel_activity("a"),
        Decision::RequestCancelActivityTask(RequestCancelActivityTaskDecisionAttributes {
            activity_id: "a".into()
        })
    );
    assert_eq!(
        Decision::complete(Some("r".into())),
        Decision::CompleteWorkflowExecution(CompleteWorkflowExecutionDecisionAttributes {
            result: Some("r".into())
        })
    );
    assert_eq!(
        Decision::fail("r", Some("d".into())),
        Decision::FailWorkflowExecution(FailWorkflowExecutionDecisionAttributes {
            reason: Some("r".into()),
            details: Some("d".into()),
        })
    );
    assert_eq!(
        Decision::cancel(None),
        Decision::CancelWorkflowExecution(CancelWorkflowExecutionDecisionAttributes {
            details: None
        })
    );
    let again: Decision = Decision::continue_as_new()
        .input("i")
        .execution_start_to_close(1)
        .task_list("tl")
        .task_priority(2)
        .task_start_to_close(3)
        .child_policy(ChildPolicy::Abandon)
        .tags(["x", "y"])
        .workflow_type_version("2")
        .lambda_role("role")
        .into();
    assert_eq!(
        again,
        Decision::ContinueAsNewWorkflowExecution(
            ContinueAsNewWorkflowExecutionDecisionAttributes {
                input: Some("i".into()),
                execution_start_to_close_timeout: Some("1".into()),
                task_list: Some(task_list("tl")),
                task_priority: Some("2".into()),
                task_start_to_close_timeout: Some("3".into()),
                child_policy: Some(ChildPolicy::Abandon),
                tag_list: Some(vec!["x".into(), "y".into()]),
                workflow_type_version: Some("2".into()),
                lambda_role: Some("role".into()),
            }
        )
    );
    assert_eq!(
        Decision::record_marker("m", None),
        Decision::RecordMarker(RecordMarkerDecisionAttributes {
            marker_name: "m".into(),
            details: None,
        })
    );
    let timer: Decision = Decision::start_timer("t", 30).control("c").into();
    assert_eq!(
        timer,
        Decision::StartTimer(StartTimerDecisionAttributes {
            timer_id: "t".into(),
            control: Some("c".into()),
            start_to_fire_timeout: "30".into(),
        })
    );
    assert_eq!(
        Decision::cancel_timer("t"),
        Decision::CancelTimer(CancelTimerDecisionAttributes {
            timer_id: "t".into()
        })
    );
    let signal: Decision = Decision::signal_external("w", "s")
        .run_id("r")
        .input("i")
        .control("c")
        .into();
    assert_eq!(
        signal,
        Decision::SignalExternalWorkflowExecution(
            SignalExternalWorkflowExecutionDecisionAttributes {
                workflow_id: "w".into(),
                run_id: Some("r".into()),
                signal_name: "s".into(),
                input: Some("i".into()),
                control: Some("c".into()),
            }
        )
    );
    let cancel: Decision = Decision::request_cancel_external("w")
        .run_id("r")
        .control("c")
        .into();
    assert_eq!(
        cancel,
        Decision::RequestCancelExternalWorkflowExecution(
            RequestCancelExternalWorkflowExecutionDecisionAttributes {
                workflow_id: "w".into(),
                run_id: Some("r".into()),
                control: Some("c".into()),
            }
        )
    );
    let child: Decision = Decision::start_child("c", "Order", "1")
        .input("i")
        .control("k")
        .execution_start_to_close(1)
        .task_list("tl")
        .task_priority(2)
        .task_start_to_close(3)
        .child_policy(ChildPolicy::RequestCancel)
        .tags(["t"])
        .lambda_role("role")
        .into();
    assert_eq!(
        child,
        Decision::StartChildWorkflowExecution(StartChildWorkflowExecutionDecisionAttributes {
            workflow_type: workflow_type(),
            workflow_id: "c".into(),
            control: Some("k".into()),
            input: Some("i".into()),
            execution_start_to_close_timeout: Some("1".into()),
            task_list: Some(task_list("tl")),
            task_priority: Some("2".into()),
            task_start_to_close_timeout: Some("3".into()),
            child_policy: Some(ChildPolicy::RequestCancel),
            tag_list: Some(vec!["t".into()]),
            lambda_role: Some("role".into()),
        })
    );
    let lambda = Decision::schedule_lambda("f", "price")
        .input("i")
        .control("c")
        .start_to_close(9);
    assert_eq!(lambda.attributes().name, "price");
    assert_eq!(
        Decision::from(lambda),
        Decision::ScheduleLambdaFunction(ScheduleLambdaFunctionDecisionAttributes {
            id: "f".into(),
            name: "price".into(),
            control: Some("c".into()),
            input: Some("i".into()),
            start_to_close_timeout: Some("9".into()),
        })
    );
}

#[test]
fn responses_outcomes_and_failures_convert() {
    let response = Response::from(vec![Decision::complete(None)])
        .execution_context("ctx")
        .task_list("urgent", 5);
    assert_eq!(response.decisions.len(), 1);
    assert_eq!(response.execution_context.as_deref(), Some("ctx"));
    assert_eq!(response.task_list, Some(task_list("urgent")));
    assert_eq!(
        response.task_list_schedule_to_start_timeout.as_deref(),
        Some("5")
    );

    assert_eq!(
        Outcome::from(Ok::<_, Failure>(Some("r".to_string()))),
        Outcome::Completed(Some("r".into()))
    );
    assert_eq!(
        Outcome::from(Err::<Option<String>, _>("no")),
        Outcome::Failed(Failure {
            reason: Some("no".into()),
            details: None
        })
    );
    assert_eq!(Failure::from("x".to_string()), Failure::new("x"));
}

#[test]
fn the_entry_points_convert_what_guests_answer() {
    let task = history(0, first_decision()).into_task();
    let response = crate::__private::decide(task.clone(), |h: &History| {
        Ok::<_, String>(vec![Decision::complete(h.input().map(str::to_owned))])
    });
    assert_eq!(
        response.unwrap().decisions,
        vec![Decision::complete(Some("order".into()))]
    );
    let error = crate::__private::decide(task, |_: &History| Err::<Vec<Decision>, _>(42));
    assert_eq!(error, Err("42".to_string()));
    assert_eq!(
        crate::__private::invoke(Some("in".into()), |input| Err::<Option<String>, _>(
            format!("bad {}", input.unwrap())
        )),
        Err(Failure::new("bad in"))
    );
    // Outside a component there is no host: heartbeats never report a cancellation.
    assert!(!crate::heartbeat(Some("tick")));
}

/// Typed results: a `Json` value is written compactly, keys sorted; one that cannot be
/// written as JSON fails the task rather than the guest.
#[cfg(feature = "serde")]
#[test]
fn json_results_are_written_or_fail_the_task() {
    use std::collections::BTreeMap;

    use crate::Json;

    let answer = crate::__private::invoke(None, |_| {
        Ok::<_, Failure>(Json(serde_json::json!({"z": 1, "a": null})))
    });
    assert_eq!(answer, Ok(Some(r#"{"a":null,"z":1}"#.into())));
    let unwritable = BTreeMap::from([((1, 2), "pair keys are not JSON")]);
    let outcome = Outcome::from(Ok::<_, Failure>(Json(unwritable)));
    let Outcome::Failed(failure) = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(
        failure.reason.as_deref(),
        Some("the result cannot be written as JSON")
    );
    assert_eq!(failure.details.as_deref(), Some("key must be a string"));
}
