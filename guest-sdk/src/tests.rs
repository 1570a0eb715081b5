//! The History queries on histories built from the generated types directly, and every
//! decision builder against the attributes it should produce.

use crate::decisions::*;
use crate::events::{EventAttributes as E, *};
use crate::tasks::DecisionTask;
use crate::types::{
    ActivityTaskTimeoutType, ActivityType, ChildPolicy, LambdaFunctionTimeoutType,
    ScheduleActivityTaskFailedCause, ScheduleLambdaFunctionFailedCause,
    StartChildWorkflowExecutionFailedCause, StartLambdaFunctionFailedCause, StartTimerFailedCause,
    TaskList, WorkflowExecution, WorkflowExecutionTimeoutType, WorkflowType,
};
use crate::{Decision, Failure, History, Marker, Outcome, Response, Signal, Status, Timer};

fn task_list(name: &str) -> TaskList {
    TaskList { name: name.into() }
}

fn activity_type() -> ActivityType {
    ActivityType {
        name: "Charge".into(),
        version: "1".into(),
    }
}

fn workflow_type() -> WorkflowType {
    WorkflowType {
        name: "Order".into(),
        version: "1".into(),
    }
}

fn execution(id: &str) -> WorkflowExecution {
    WorkflowExecution {
        workflow_id: id.into(),
        run_id: "run".into(),
    }
}

/// A history of these events, numbered from 1, whose previous decision task started at
/// `previous`.
fn history(previous: u64, events: Vec<E>) -> History {
    let events: Vec<HistoryEvent> = events
        .into_iter()
        .enumerate()
        .map(|(n, attributes)| HistoryEvent {
            event_id: n as u64 + 1,
            event_timestamp: n as f64,
            attributes,
        })
        .collect();
    History::new(DecisionTask {
        workflow_execution: execution("w"),
        workflow_type: workflow_type(),
        started_event_id: events.len() as u64,
        events,
        previous_started_event_id: previous,
    })
}

fn started(input: Option<&str>) -> E {
    E::WorkflowExecutionStarted(WorkflowExecutionStartedEventAttributes {
        input: input.map(Into::into),
        execution_start_to_close_timeout: Some("60".into()),
        task_start_to_close_timeout: Some("10".into()),
        child_policy: ChildPolicy::Terminate,
        task_list: task_list("d"),
        task_priority: None,
        workflow_type: workflow_type(),
        tag_list: None,
        continued_execution_run_id: None,
        parent_workflow_execution: None,
        parent_initiated_event_id: None,
        lambda_role: None,
    })
}

fn decision_scheduled() -> E {
    E::DecisionTaskScheduled(DecisionTaskScheduledEventAttributes {
        task_list: task_list("d"),
        task_priority: None,
        start_to_close_timeout: Some("10".into()),
        schedule_to_start_timeout: None,
    })
}

fn decision_started(scheduled: u64) -> E {
    E::DecisionTaskStarted(DecisionTaskStartedEventAttributes {
        identity: None,
        scheduled_event_id: scheduled,
    })
}

fn decision_completed(scheduled: u64) -> E {
    E::DecisionTaskCompleted(DecisionTaskCompletedEventAttributes {
        execution_context: None,
        scheduled_event_id: scheduled,
        started_event_id: scheduled + 1,
        task_list: None,
        task_list_schedule_to_start_timeout: None,
    })
}

fn signaled(name: &str, input: Option<&str>) -> E {
    E::WorkflowExecutionSignaled(WorkflowExecutionSignaledEventAttributes {
        signal_name: name.into(),
        input: input.map(Into::into),
        external_workflow_execution: None,
        external_initiated_event_id: None,
    })
}

fn activity_scheduled(id: &str) -> E {
    E::ActivityTaskScheduled(ActivityTaskScheduledEventAttributes {
        activity_type: activity_type(),
        activity_id: id.into(),
        input: None,
        control: None,
        schedule_to_start_timeout: None,
        schedule_to_close_timeout: None,
        start_to_close_timeout: None,
        task_list: task_list("a"),
        task_priority: None,
        decision_task_completed_event_id: 4,
        heartbeat_timeout: None,
    })
}

fn activity_started(scheduled: u64) -> E {
    E::ActivityTaskStarted(ActivityTaskStartedEventAttributes {
        identity: None,
        scheduled_event_id: scheduled,
    })
}

/// The first decision task's events: started (1), scheduled (2), started (3), completed (4).
fn first_decision() -> Vec<E> {
    vec![
        started(Some("order")),
        decision_scheduled(),
        decision_started(2),
        decision_completed(2),
    ]
}

#[test]
fn new_events_are_those_after_the_previous_decision_task() {
    let mut events = first_decision();
    events.extend([
        signaled("a", None),
        decision_scheduled(),
        decision_started(6),
    ]);
    let h = history(3, events.clone());
    assert_eq!(
        h.new_events()
            .iter()
            .map(|e| e.event_id)
            .collect::<Vec<_>>(),
        [4, 5, 6, 7]
    );
    assert!(h.is_new(4) && !h.is_new(3));
    assert!(!h.is_first_decision());

    let first = history(0, events);
    assert_eq!(first.new_events().len(), 7);
    assert!(first.is_first_decision());
}

#[test]
fn input_and_started_come_from_the_first_event() {
    let h = history(0, first_decision());
    assert_eq!(h.input(), Some("order"));
    assert_eq!(h.started().unwrap().task_list.name, "d");
    assert_eq!(h.workflow_type().name, "Order");
    assert_eq!(h.workflow_execution().workflow_id, "w");
    assert_eq!(history(0, vec![]).input(), None);
}

#[test]
fn the_last_event_skips_decision_task_bookkeeping() {
    let mut events = first_decision();
    events.extend([
        signaled("go", None),
        decision_scheduled(),
        decision_started(6),
    ]);
    let h = history(3, events);
    assert_eq!(h.last_event().map(|e| e.event_id), Some(5));
    assert_eq!(h.events().last().map(|e| e.event_id), Some(7));
    let only_start = history(
        0,
        vec![started(None), decision_scheduled(), decision_started(2)],
    );
    assert_eq!(only_start.last_event().map(|e| e.event_id), Some(1));
}

#[test]
fn signals_and_new_signals() {
    let mut events = vec![started(None), signaled("early", Some("1"))];
    events.extend([
        decision_scheduled(),
        decision_started(3),
        decision_completed(3),
    ]);
    events.extend([
        signaled("late", None),
        decision_scheduled(),
        decision_started(7),
    ]);
    let h = history(4, events);
    assert_eq!(
        h.signals().collect::<Vec<_>>(),
        [
            Signal {
                name: "early",
                input: Some("1"),
                event_id: 2
            },
            Signal {
                name: "late",
                input: None,
                event_id: 6
            },
        ]
    );
    assert_eq!(
        h.new_signals().map(|s| s.name).collect::<Vec<_>>(),
        ["late"]
    );
}

#[test]
fn markers_and_the_latest_by_name() {
    let marker = |name: &str, details: &str| {
        E::MarkerRecorded(MarkerRecordedEventAttributes {
            marker_name: name.into(),
            details: Some(details.into()),
            decision_task_completed_event_id: 4,
        })
    };
    let mut events = first_decision();
    events.extend([
        marker("step", "1"),
        marker("other", "x"),
        marker("step", "2"),
    ]);
    let h = history(3, events);
    assert_eq!(h.markers().count(), 3);
    assert_eq!(
        h.marker("step"),
        Some(Marker {
            name: "step",
            details: Some("2"),
            event_id: 7
        })
    );
    assert_eq!(h.marker("none"), None);
}

#[test]
fn cancel_requested() {
    let mut events = first_decision();
    assert!(!history(3, events.clone()).cancel_requested());
    events.push(E::WorkflowExecutionCancelRequested(
        WorkflowExecutionCancelRequestedEventAttributes {
            external_workflow_execution: None,
            external_initiated_event_id: None,
            cause: None,
        },
    ));
    assert!(history(3, events).cancel_requested());
}

#[test]
fn an_activity_goes_from_scheduled_to_started_to_cancel_requested() {
    let mut events = first_decision();
    events.push(activity_scheduled("a")); // 5
    assert_eq!(
        history(3, events.clone()).activity("a"),
        Some(Status::Scheduled)
    );
    events.push(activity_started(5)); // 6
    assert_eq!(
        history(3, events.clone()).activity("a"),
        Some(Status::Started)
    );
    events.push(E::ActivityTaskCancelRequested(
        ActivityTaskCancelRequestedEventAttributes {
            decision_task_completed_event_id: 4,
            activity_id: "a".into(),
        },
    ));
    let h = history(3, events);
    assert_eq!(h.activity("a"), Some(Status::CancelRequested));
    assert!(h.activity("a").unwrap().is_open());
    assert_eq!(h.activity("b"), None);
}

#[test]
fn every_way_an_activity_closes() {
    let close = |end: E| {
        let mut events = first_decision();
        events.extend([activity_scheduled("a"), activity_started(5), end]);
        history(3, events)
    };
    assert_eq!(
        close(E::ActivityTaskCompleted(
            ActivityTaskCompletedEventAttributes {
                result: Some("r".into()),
                scheduled_event_id: 5,
                started_event_id: 6,
            }
        ))
        .activity("a"),
        Some(Status::Completed(Some("r")))
    );
    assert_eq!(
        close(E::ActivityTaskFailed(ActivityTaskFailedEventAttributes {
            reason: Some("why".into()),
            details: Some("more".into()),
            scheduled_event_id: 5,
            started_event_id: 6,
        }))
        .activity("a"),
        Some(Status::Failed {
            reason: Some("why"),
            details: Some("more")
        })
    );
    assert_eq!(
        close(E::ActivityTaskTimedOut(
            ActivityTaskTimedOutEventAttributes {
                timeout_type: ActivityTaskTimeoutType::ScheduleToClose,
                scheduled_event_id: 5,
                started_event_id: 6,
                details: None,
            }
        ))
        .activity("a"),
        Some(Status::TimedOut("SCHEDULE_TO_CLOSE"))
    );
    assert_eq!(
        close(E::ActivityTaskCanceled(
            ActivityTaskCanceledEventAttributes {
                details: Some("stopped".into()),
                scheduled_event_id: 5,
                started_event_id: 6,
                latest_cancel_requested_event_id: None,
            }
        ))
        .activity("a"),
        Some(Status::Canceled(Some("stopped")))
    );
    // An event of another activity does not close this one.
    assert_eq!(
        close(E::ActivityTaskCompleted(
            ActivityTaskCompletedEventAttributes {
                result: None,
                scheduled_event_id: 99,
                started_event_id: 98,
            }
        ))
        .activity("a"),
        Some(Status::Started)
    );
}

#[test]
fn an_activity_that_could_not_be_scheduled_and_a_reused_id() {
    let failed = E::ScheduleActivityTaskFailed(ScheduleActivityTaskFailedEventAttributes {
        activity_type: activity_type(),
        activity_id: "a".into(),
        cause: ScheduleActivityTaskFailedCause::ActivityTypeDoesNotExist,
        decision_task_completed_event_id: 4,
    });
    let mut events = first_decision();
    events.push(failed);
    assert_eq!(
        history(3, events.clone()).activity("a"),
        Some(Status::NotStarted("ACTIVITY_TYPE_DOES_NOT_EXIST"))
    );
    // Scheduled again later: the latest counts.
    events.push(activity_scheduled("a"));
    assert_eq!(history(3, events).activity("a"), Some(Status::Scheduled));
}

fn child_initiated(id: &str) -> E {
    E::StartChildWorkflowExecutionInitiated(StartChildWorkflowExecutionInitiatedEventAttributes {
        workflow_id: id.into(),
        workflow_type: workflow_type(),
        control: None,
        input: None,
        execution_start_to_close_timeout: None,
        task_list: task_list("d"),
        task_priority: None,
        decision_task_completed_event_id: 4,
        child_policy: ChildPolicy::Terminate,
        task_start_to_close_timeout: None,
        tag_list: None,
        lambda_role: None,
    })
}

#[test]
fn every_way_a_child_goes() {
    let child = |more: Vec<E>| {
        let mut events = first_decision();
        events.push(child_initiated("c")); // 5
        events.extend(more);
        history(3, events)
    };
    let started = || {
        E::ChildWorkflowExecutionStarted(ChildWorkflowExecutionStartedEventAttributes {
            workflow_execution: execution("c"),
            workflow_type: workflow_type(),
            initiated_event_id: 5,
        })
    };
    assert_eq!(child(vec![]).child("c"), Some(Status::Scheduled));
    assert_eq!(child(vec![started()]).child("c"), Some(Status::Started));
    let completed =
        E::ChildWorkflowExecutionCompleted(ChildWorkflowExecutionCompletedEventAttributes {
            workflow_execution: execution("c"),
            workflow_type: workflow_type(),
            result: Some("done".into()),
            initiated_event_id: 5,
            started_event_id: 6,
        });
    assert_eq!(
        child(vec![started(), completed]).child("c"),
        Some(Status::Completed(Some("done")))
    );
    let failed = E::ChildWorkflowExecutionFailed(ChildWorkflowExecutionFailedEventAttributes {
        workflow_execution: execution("c"),
        workflow_type: workflow_type(),
        reason: Some("r".into()),
        details: None,
        initiated_event_id: 5,
        started_event_id: 6,
    });
    assert_eq!(
        child(vec![started(), failed]).child("c"),
        Some(Status::Failed {
            reason: Some("r"),
            details: None
        })
    );
    let timed_out =
        E::ChildWorkflowExecutionTimedOut(ChildWorkflowExecutionTimedOutEventAttributes {
            workflow_execution: execution("c"),
            workflow_type: workflow_type(),
            timeout_type: WorkflowExecutionTimeoutType::StartToClose,
            initiated_event_id: 5,
            started_event_id: 6,
        });
    assert_eq!(
        child(vec![started(), timed_out]).child("c"),
        Some(Status::TimedOut("START_TO_CLOSE"))
    );
    let canceled =
        E::ChildWorkflowExecutionCanceled(ChildWorkflowExecutionCanceledEventAttributes {
            workflow_execution: execution("c"),
            workflow_type: workflow_type(),
            details: Some("d".into()),
            initiated_event_id: 5,
            started_event_id: 6,
        });
    assert_eq!(
        child(vec![started(), canceled]).child("c"),
        Some(Status::Canceled(Some("d")))
    );
    let terminated =
        E::ChildWorkflowExecutionTerminated(ChildWorkflowExecutionTerminatedEventAttributes {
            workflow_execution: execution("c"),
            workflow_type: workflow_type(),
            initiated_event_id: 5,
            started_event_id: 6,
        });
    assert_eq!(
        child(vec![started(), terminated]).child("c"),
        Some(Status::Terminated)
    );
    let start_failed = |initiated: u64| {
        E::StartChildWorkflowExecutionFailed(StartChildWorkflowExecutionFailedEventAttributes {
            workflow_type: workflow_type(),
            cause: StartChildWorkflowExecutionFailedCause::WorkflowAlreadyRunning,
            workflow_id: "c".into(),
            initiated_event_id: initiated,
            decision_task_completed_event_id: 4,
            control: None,
        })
    };
    assert_eq!(
        child(vec![start_failed(5)]).child("c"),
        Some(Status::NotStarted("WORKFLOW_ALREADY_RUNNING"))
    );
    // Failed before anything was initiated.
    let mut events = first_decision();
    events.push(start_failed(0));
    assert_eq!(
        history(3, events).child("c"),
        Some(Status::NotStarted("WORKFLOW_ALREADY_RUNNING"))
    );
}

#[test]
fn every_way_a_lambda_function_goes() {
    let lambda = |more: Vec<E>| {
        let mut events = first_decision();
        events.push(E::LambdaFunctionScheduled(
            LambdaFunctionScheduledEventAttributes {
                id: "f".into(),
                name: "price".into(),
                control: None,
                input: None,
                start_to_close_timeout: None,
                decision_task_completed_event_id: 4,
            },
        )); // 5
        events.extend(more);
        history(3, events)
    };
    let started = || {
        E::LambdaFunctionStarted(LambdaFunctionStartedEventAttributes {
            scheduled_event_id: 5,
        })
    };
    assert_eq!(lambda(vec![]).lambda("f"), Some(Status::Scheduled));
    assert_eq!(lambda(vec![started()]).lambda("f"), Some(Status::Started));
    let completed = E::LambdaFunctionCompleted(LambdaFunctionCompletedEventAttributes {
        scheduled_event_id: 5,
        started_event_id: 6,
        result: Some("42".into()),
    });
    assert_eq!(
        lambda(vec![started(), completed]).lambda("f"),
        Some(Status::Completed(Some("42")))
    );
    let failed = E::LambdaFunctionFailed(LambdaFunctionFailedEventAttributes {
        scheduled_event_id: 5,
        started_event_id: 6,
        reason: None,
        details: Some("d".into()),
    });
    assert_eq!(
        lambda(vec![started(), failed]).lambda("f"),
        Some(Status::Failed {
            reason: None,
            details: Some("d")
        })
    );
    let timed_out = E::LambdaFunctionTimedOut(LambdaFunctionTimedOutEventAttributes {
        scheduled_event_id: 5,
        started_event_id: 6,
        timeout_type: Some(LambdaFunctionTimeoutType::StartToClose),
    });
    assert_eq!(
        lambda(vec![started(), timed_out]).lambda("f"),
        Some(Status::TimedOut("START_TO_CLOSE"))
    );
    let start_failed = E::StartLambdaFunctionFailed(StartLambdaFunctionFailedEventAttributes {
        scheduled_event_id: Some(5),
        cause: Some(StartLambdaFunctionFailedCause::AssumeRoleFailed),
        message: None,
    });
    assert_eq!(
        lambda(vec![start_failed]).lambda("f"),
        Some(Status::NotStarted("ASSUME_ROLE_FAILED"))
    );

    let mut events = first_decision();
    events.push(E::ScheduleLambdaFunctionFailed(
        ScheduleLambdaFunctionFailedEventAttributes {
            id: "f".into(),
            name: "price".into(),
            cause: ScheduleLambdaFunctionFailedCause::LambdaServiceNotAvailableInRegion,
            decision_task_completed_event_id: 4,
        },
    ));
    let h = history(3, events);
    assert_eq!(
        h.lambda("f"),
        Some(Status::NotStarted("LAMBDA_SERVICE_NOT_AVAILABLE_IN_REGION"))
    );
    assert_eq!(h.lambda("g"), None);
}

#[test]
fn every_way_a_timer_goes() {
    let timer_started = E::TimerStarted(TimerStartedEventAttributes {
        timer_id: "t".into(),
        control: None,
        start_to_fire_timeout: "5".into(),
        decision_task_completed_event_id: 4,
    });
    let mut events = first_decision();
    events.push(timer_started.clone()); // 5
    assert_eq!(
        history(3, events.clone()).timer("t"),
        Some(Timer::Started { event_id: 5 })
    );

    let mut fired = events.clone();
    fired.push(E::TimerFired(TimerFiredEventAttributes {
        timer_id: "t".into(),
        started_event_id: 5,
    }));
    let timer = history(3, fired).timer("t").unwrap();
    assert_eq!(timer, Timer::Fired { event_id: 6 });
    assert!(!timer.is_open());

    let mut canceled = events.clone();
    canceled.push(E::TimerCanceled(TimerCanceledEventAttributes {
        timer_id: "t".into(),
        started_event_id: 5,
        decision_task_completed_event_id: 4,
    }));
    assert_eq!(
        history(3, canceled).timer("t"),
        Some(Timer::Canceled { event_id: 6 })
    );

    events.push(E::StartTimerFailed(StartTimerFailedEventAttributes {
        timer_id: "t".into(),
        cause: StartTimerFailedCause::TimerIdAlreadyInUse,
        decision_task_completed_event_id: 4,
    }));
    assert_eq!(
        history(3, events).timer("t"),
        Some(Timer::StartFailed {
            event_id: 6,
            cause: "TIMER_ID_ALREADY_IN_USE"
        })
    );
    assert_eq!(history(3, first_decision()).timer("t"), None);
}

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

#[test]
fn the_history_builder_records_an_event_for_every_decision() {
    use crate::testing::HistoryBuilder;
    let mut h = HistoryBuilder::new("Order", "1", None);
    h.respond(&[
        Decision::schedule_activity("a", "Charge", "1").into(),
        Decision::start_timer("t", 5).into(),
        Decision::record_marker("m", None),
        Decision::signal_external("w", "s").into(),
        Decision::request_cancel_external("w").into(),
        Decision::start_child("c", "Order", "1").into(),
        Decision::schedule_lambda("f", "price").into(),
    ]);
    h.respond(&[
        Decision::request_cancel_activity("a"),
        Decision::cancel_timer("t"),
        Decision::continue_as_new().into(),
    ]);
    let names: Vec<&str> = h
        .events()
        .iter()
        .map(|e| match &e.attributes {
            E::WorkflowExecutionStarted(_) => "started",
            E::DecisionTaskScheduled(_) => "scheduled",
            E::DecisionTaskStarted(_) => "task started",
            E::DecisionTaskCompleted(_) => "completed",
            E::ActivityTaskScheduled(_) => "activity",
            E::TimerStarted(_) => "timer",
            E::MarkerRecorded(_) => "marker",
            E::SignalExternalWorkflowExecutionInitiated(_) => "signal",
            E::RequestCancelExternalWorkflowExecutionInitiated(_) => "cancel external",
            E::StartChildWorkflowExecutionInitiated(_) => "child",
            E::LambdaFunctionScheduled(_) => "lambda",
            E::ActivityTaskCancelRequested(_) => "cancel activity",
            E::TimerCanceled(_) => "timer canceled",
            E::WorkflowExecutionContinuedAsNew(_) => "continued",
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        names,
        [
            "started",
            "scheduled",
            "task started",
            "completed",
            "activity",
            "timer",
            "marker",
            "signal",
            "cancel external",
            "child",
            "lambda",
            "scheduled",
            "task started",
            "completed",
            "cancel activity",
            "timer canceled",
            "continued",
        ]
    );
    let history = h.decision_task();
    assert_eq!(history.timer("t"), Some(Timer::Canceled { event_id: 16 }));
    assert_eq!(history.activity("a"), Some(Status::CancelRequested));
}

/// As SWF records it (spec §8.2 rule 4): a change while a decision task is started is followed
/// at once by the next `DecisionTaskScheduled`, which is handed out once the started task
/// completes; a close decision in that completion fails, as unhandled.
#[test]
fn the_history_builder_schedules_the_next_task_while_one_is_started() {
    use crate::testing::HistoryBuilder;
    let mut h = HistoryBuilder::new("Order", "1", None);
    h.respond(&[Decision::schedule_activity("a", "Charge", "1").into()]);
    let seen = h.decision_task();
    h.activity_completed("a", Some("ok")).signal("s", None);
    h.respond(&[Decision::complete(None)]);
    let next = h.decision_task();
    let names: Vec<(u64, &str)> = h
        .events()
        .iter()
        .map(|e| {
            let name = match &e.attributes {
                E::WorkflowExecutionStarted(_) => "started",
                E::DecisionTaskScheduled(_) => "scheduled",
                E::DecisionTaskStarted(_) => "task started",
                E::DecisionTaskCompleted(_) => "completed",
                E::ActivityTaskScheduled(_) => "activity",
                E::ActivityTaskStarted(_) => "activity started",
                E::ActivityTaskCompleted(_) => "activity completed",
                E::WorkflowExecutionSignaled(_) => "signaled",
                E::CompleteWorkflowExecutionFailed(_) => "complete failed",
                other => panic!("unexpected {other:?}"),
            };
            (e.event_id, name)
        })
        .collect();
    assert_eq!(
        names,
        [
            (1, "started"),
            (2, "scheduled"),
            (3, "task started"),
            (4, "completed"),
            (5, "activity"),
            (6, "scheduled"),
            (7, "task started"),
            (8, "activity started"),
            (9, "activity completed"),
            (10, "scheduled"),
            (11, "signaled"),
            (12, "completed"),
            (13, "complete failed"),
            (14, "task started"),
        ]
    );
    assert_eq!(seen.task().started_event_id, 7);
    assert!(matches!(
        &h.events()[13].attributes,
        E::DecisionTaskStarted(a) if a.scheduled_event_id == 10
    ));
    assert_eq!(next.task().previous_started_event_id, 7);
    assert_eq!(next.new_signals().count(), 1);
}
