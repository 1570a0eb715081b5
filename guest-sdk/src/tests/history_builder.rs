//! The testing HistoryBuilder: the events it records for decisions, and how it schedules
//! decision tasks.

use crate::events::EventAttributes as E;
use crate::{Decision, Status, Timer};

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

#[test]
fn a_child_ends_as_the_builder_records_it_starting_it_first_if_needed() {
    use crate::testing::HistoryBuilder;
    let mut h = HistoryBuilder::new("Quote", "1", None);
    let start = |id| Decision::start_child(id, "PriceItem", "1").into();
    h.respond(&[start("late"), start("stopped"), start("killed")]);
    h.child_timed_out("late");
    h.child_canceled("stopped", Some("no longer needed"));
    h.child_started("killed").child_terminated("killed");
    let task = h.decision_task();
    assert_eq!(task.child("late"), Some(Status::TimedOut("START_TO_CLOSE")));
    assert_eq!(
        task.child("stopped"),
        Some(Status::Canceled(Some("no longer needed")))
    );
    assert_eq!(task.child("killed"), Some(Status::Terminated));
    let started = (task.events().iter())
        .filter(|e| matches!(e.attributes, E::ChildWorkflowExecutionStarted(_)))
        .count();
    assert_eq!(started, 3, "each child was started once, before it ended");
}
