//! The Status, Timer and NotStarted answers History derives for activities, children, Lambda
//! functions and timers, through every way each can go.

use crate::events::{EventAttributes as E, *};
use crate::types::{
    ActivityTaskTimeoutType, ChildPolicy, LambdaFunctionTimeoutType,
    ScheduleActivityTaskFailedCause, ScheduleLambdaFunctionFailedCause,
    StartChildWorkflowExecutionFailedCause, StartLambdaFunctionFailedCause, StartTimerFailedCause,
    WorkflowExecutionTimeoutType,
};
use crate::{Status, Timer};

use super::{
    activity_scheduled, activity_started, activity_type, execution, first_decision, history,
    task_list, workflow_type,
};

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
