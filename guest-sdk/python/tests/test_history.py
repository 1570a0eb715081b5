"""History's queries and the statuses they derive, on histories of wire events written by
hand: every way an activity, a child, a Lambda function and a timer can go."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from weft_guest import History, Marker, Signal, Status, Timer  # noqa: E402
from weft_guest.events import attributes_key  # noqa: E402


def history(previous, events):
    """A history of these ``(eventType, attributes)``, numbered from 1, whose previous decision
    task started at event ``previous``."""
    wire = [{"eventId": n + 1, "eventTimestamp": float(n), "eventType": kind,
             attributes_key(kind): attrs} for n, (kind, attrs) in enumerate(events)]
    return History({"workflowExecution": {"workflowId": "w", "runId": "run"},
                    "workflowType": {"name": "Order", "version": "1"}, "events": wire,
                    "previousStartedEventId": previous, "startedEventId": len(wire)})


def first_decision(input="order"):
    """Started (1), decision scheduled (2), started (3), completed (4)."""
    return [
        ("WorkflowExecutionStarted", {"input": input, "childPolicy": "TERMINATE",
                                      "taskList": {"name": "d"},
                                      "workflowType": {"name": "Order", "version": "1"}}),
        ("DecisionTaskScheduled", {"taskList": {"name": "d"}}),
        ("DecisionTaskStarted", {"scheduledEventId": 2}),
        ("DecisionTaskCompleted", {"scheduledEventId": 2, "startedEventId": 3}),
    ]


def scheduled(activity_id):
    return ("ActivityTaskScheduled", {"activityId": activity_id,
                                      "activityType": {"name": "Charge", "version": "1"},
                                      "taskList": {"name": "a"},
                                      "decisionTaskCompletedEventId": 4})


def started(scheduled_event_id):
    return ("ActivityTaskStarted", {"scheduledEventId": scheduled_event_id})


def signaled(name, input=None):
    return ("WorkflowExecutionSignaled", {"signalName": name, "input": input})


class QueriesTest(unittest.TestCase):
    def test_input_type_execution_and_first_decision(self):
        h = history(0, first_decision('{"a":1}')[:3])
        self.assertEqual(h.input(), '{"a":1}')
        self.assertEqual(h.input_json(), {"a": 1})
        self.assertEqual(h.workflow_type, {"name": "Order", "version": "1"})
        self.assertEqual(h.workflow_execution["workflowId"], "w")
        self.assertTrue(h.is_first_decision())
        self.assertEqual([e["eventId"] for e in h.new_events()], [1, 2, 3])
        self.assertEqual(h.last_event()["eventType"], "WorkflowExecutionStarted")
        self.assertIsNone(history(0, first_decision(None)).input_json())

    def test_new_events_and_signals_follow_the_previous_decision_task(self):
        events = first_decision() + [signaled("a"), signaled("b", "x"),
                                     ("DecisionTaskScheduled", {}),
                                     ("DecisionTaskStarted", {"scheduledEventId": 7})]
        h = history(3, events)
        self.assertFalse(h.is_first_decision())
        self.assertEqual([e["eventId"] for e in h.new_events()], [4, 5, 6, 7, 8])
        self.assertTrue(h.is_new(4))
        self.assertFalse(h.is_new(3))
        self.assertEqual(h.signals(), [Signal("a", None, 5), Signal("b", "x", 6)])
        self.assertEqual(history(5, events).new_signals(), [Signal("b", "x", 6)])
        self.assertEqual(h.last_event()["eventId"], 6)

    def test_markers_and_cancellation(self):
        events = first_decision() + [
            ("MarkerRecorded", {"markerName": "step", "details": "1"}),
            ("MarkerRecorded", {"markerName": "step", "details": '{"n":2}'}),
            ("MarkerRecorded", {"markerName": "other"}),
        ]
        h = history(3, events)
        self.assertEqual(len(h.markers()), 3)
        self.assertEqual(h.marker("step"), Marker("step", '{"n":2}', 6))
        self.assertEqual(h.marker("step").details_json(), {"n": 2})
        self.assertIsNone(h.marker("none"))
        self.assertFalse(h.cancel_requested())
        self.assertTrue(history(3, events + [("WorkflowExecutionCancelRequested", {})])
                        .cancel_requested())


class ActivityStatusTest(unittest.TestCase):
    def test_an_activity_goes_from_scheduled_to_started_to_cancel_requested(self):
        events = first_decision() + [scheduled("a")]
        self.assertEqual(history(3, events).activity("a"), Status.Scheduled())
        events.append(started(5))
        self.assertEqual(history(3, events).activity("a"), Status.Started())
        events.append(("ActivityTaskCancelRequested", {"activityId": "a"}))
        status = history(3, events).activity("a")
        self.assertEqual(status, Status.CancelRequested())
        self.assertTrue(status.is_open)
        self.assertIsNone(history(3, events).activity("b"))

    def test_every_way_an_activity_closes(self):
        def close(kind, **attrs):
            attrs.setdefault("scheduledEventId", 5)
            events = first_decision() + [scheduled("a"), started(5), (kind, attrs)]
            return history(3, events).activity("a")

        completed = close("ActivityTaskCompleted", result='{"r":1}')
        self.assertEqual(completed, Status.Completed('{"r":1}'))
        self.assertEqual((completed.result, completed.result_json()), ('{"r":1}', {"r": 1}))
        self.assertTrue(completed.is_completed and not completed.is_open)
        self.assertEqual(close("ActivityTaskFailed", reason="why", details="more"),
                         Status.Failed("why", "more"))
        self.assertEqual(close("ActivityTaskTimedOut", timeoutType="SCHEDULE_TO_CLOSE"),
                         Status.TimedOut("SCHEDULE_TO_CLOSE"))
        self.assertEqual(close("ActivityTaskCanceled", details="stopped"),
                         Status.Canceled("stopped"))
        self.assertIsNone(close("ActivityTaskFailed").result)
        # An event of another activity does not close this one.
        self.assertEqual(close("ActivityTaskCompleted", scheduledEventId=99), Status.Started())

    def test_an_activity_that_could_not_be_scheduled_and_a_reused_id(self):
        failed = ("ScheduleActivityTaskFailed", {
            "activityId": "a", "activityType": {"name": "Charge", "version": "1"},
            "cause": "ACTIVITY_TYPE_DOES_NOT_EXIST", "decisionTaskCompletedEventId": 4})
        events = first_decision() + [failed]
        self.assertEqual(history(3, events).activity("a"),
                         Status.NotStarted("ACTIVITY_TYPE_DOES_NOT_EXIST"))
        events += [scheduled("a"), started(6)]
        self.assertEqual(history(3, events).activity("a"), Status.Started(), "the latest wins")


class ChildLambdaTimerTest(unittest.TestCase):
    def child(self, *later):
        initiated = ("StartChildWorkflowExecutionInitiated", {
            "workflowId": "c", "workflowType": {"name": "Price", "version": "1"},
            "taskList": {"name": "d"}, "childPolicy": "TERMINATE",
            "decisionTaskCompletedEventId": 4})
        return history(3, first_decision() + [initiated] + [
            (kind, dict(attrs, initiatedEventId=5)) for kind, attrs in later]).child("c")

    def test_every_way_a_child_goes(self):
        execution = {"workflowExecution": {"workflowId": "c", "runId": "r"}}
        self.assertEqual(self.child(), Status.Scheduled())
        self.assertEqual(self.child(("ChildWorkflowExecutionStarted", execution)),
                         Status.Started())
        for kind, attrs, status in [
            ("ChildWorkflowExecutionCompleted", {"result": "150"}, Status.Completed("150")),
            ("ChildWorkflowExecutionFailed", {"reason": "r"}, Status.Failed("r", None)),
            ("ChildWorkflowExecutionTimedOut", {"timeoutType": "START_TO_CLOSE"},
             Status.TimedOut("START_TO_CLOSE")),
            ("ChildWorkflowExecutionCanceled", {}, Status.Canceled(None)),
            ("ChildWorkflowExecutionTerminated", {}, Status.Terminated()),
            ("StartChildWorkflowExecutionFailed", {"workflowId": "c",
                                                   "cause": "WORKFLOW_TYPE_DOES_NOT_EXIST"},
             Status.NotStarted("WORKFLOW_TYPE_DOES_NOT_EXIST")),
        ]:
            self.assertEqual(self.child(("ChildWorkflowExecutionStarted", execution),
                                        (kind, attrs)), status, kind)
        self.assertIsNone(history(3, first_decision()).child("c"))

    def test_every_way_a_lambda_function_goes(self):
        def function(*later):
            events = first_decision() + [("LambdaFunctionScheduled", {
                "id": "p", "name": "price", "decisionTaskCompletedEventId": 4})]
            events += [(kind, dict(attrs, scheduledEventId=5)) for kind, attrs in later]
            return history(3, events).lambda_function("p")

        self.assertEqual(function(), Status.Scheduled())
        self.assertEqual(function(("LambdaFunctionStarted", {})), Status.Started())
        self.assertEqual(function(("LambdaFunctionStarted", {}),
                                  ("LambdaFunctionCompleted", {"result": "1"})),
                         Status.Completed("1"))
        self.assertEqual(function(("LambdaFunctionFailed", {"reason": "x", "details": "y"})),
                         Status.Failed("x", "y"))
        self.assertEqual(function(("LambdaFunctionTimedOut", {})),
                         Status.TimedOut("START_TO_CLOSE"))
        self.assertEqual(function(("StartLambdaFunctionFailed", {"cause": "ASSUME_ROLE_FAILED"})),
                         Status.NotStarted("ASSUME_ROLE_FAILED"))
        refused = ("ScheduleLambdaFunctionFailed", {"id": "p", "name": "price",
                                                    "cause": "ID_ALREADY_IN_USE"})
        self.assertEqual(history(3, first_decision() + [refused]).lambda_function("p"),
                         Status.NotStarted("ID_ALREADY_IN_USE"))

    def test_every_way_a_timer_goes(self):
        start = ("TimerStarted", {"timerId": "t", "startToFireTimeout": "5"})
        events = first_decision() + [start]
        self.assertEqual(history(3, events).timer("t"), Timer.Started(5))
        self.assertTrue(history(3, events).timer("t").is_open)
        fired = history(3, events + [("TimerFired", {"timerId": "t", "startedEventId": 5})])
        self.assertEqual(fired.timer("t"), Timer.Fired(6))
        self.assertFalse(fired.timer("t").is_open)
        canceled = events + [("TimerCanceled", {"timerId": "t", "startedEventId": 5})]
        self.assertEqual(history(3, canceled).timer("t"), Timer.Canceled(6))
        refused = ("StartTimerFailed", {"timerId": "t", "cause": "TIMER_ID_ALREADY_IN_USE"})
        self.assertEqual(history(3, events + [refused]).timer("t"),
                         Timer.StartFailed(6, "TIMER_ID_ALREADY_IN_USE"))
        self.assertIsNone(history(3, events).timer("other"))

    def test_statuses_match_as_patterns(self):
        match Status.Failed("card declined", None):
            case Status.Completed(result):
                self.fail(result)
            case Status.Failed(reason, details):
                self.assertEqual((reason, details), ("card declined", None))
        match Timer.Fired(9):
            case Timer.Fired(event_id):
                self.assertEqual(event_id, 9)


if __name__ == "__main__":
    unittest.main()
