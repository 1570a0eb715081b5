"""The testing HistoryBuilder plays SWF's part: events for decisions, decision task
scheduling, outcomes of activities, timers, signals, children and Lambda functions."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from weft_guest import Status, Timer  # noqa: E402
from weft_guest import decisions as d  # noqa: E402
from weft_guest.events import attributes  # noqa: E402
from weft_guest.testing import HistoryBuilder  # noqa: E402


def kinds(h, first=1):
    return [e["eventType"] for e in h.events[first - 1:]]


class BuilderTest(unittest.TestCase):
    def test_a_new_history_and_its_first_decision_task(self):
        h = HistoryBuilder("Order", "1.0", "{}")
        self.assertEqual(kinds(h), ["WorkflowExecutionStarted", "DecisionTaskScheduled"])
        history = h.decision_task()
        self.assertEqual((history.started_event_id, history.previous_started_event_id), (3, 0))
        self.assertEqual(history.input(), "{}")
        self.assertEqual(history.workflow_execution, {"workflowId": "workflow-1",
                                                      "runId": "run-1"})
        self.assertEqual(h.decision_task(), history, "the started task, again")
        h.execution("order-17", "r1")
        self.assertEqual(h.decision_task().workflow_execution["workflowId"], "order-17")

    def test_decisions_are_recorded_as_swf_records_them(self):
        h = HistoryBuilder("Order", "1.0")
        h.respond(d.response([
            d.schedule_activity("a", "A", "1"), d.start_timer("t", 5), d.record_marker("m", "x"),
            d.start_child("c", "C", "1"), d.schedule_lambda("f", "price"),
            d.signal_external("w", "s"), d.request_cancel_external("w"),
        ], execution_context="ctx"))
        self.assertEqual(kinds(h, 3), [
            "DecisionTaskStarted", "DecisionTaskCompleted", "ActivityTaskScheduled",
            "TimerStarted", "MarkerRecorded", "StartChildWorkflowExecutionInitiated",
            "LambdaFunctionScheduled", "SignalExternalWorkflowExecutionInitiated",
            "RequestCancelExternalWorkflowExecutionInitiated"])
        self.assertEqual(attributes(h.events[3])["executionContext"], "ctx")
        scheduled = attributes(h.events[4])
        self.assertEqual((scheduled["taskList"], scheduled["decisionTaskCompletedEventId"]),
                         ({"name": "default"}, 4))
        self.assertEqual(attributes(h.events[7])["childPolicy"], "TERMINATE")

        h.respond([d.cancel_timer("t"), d.request_cancel_activity("a")])
        canceled = h.events[-2]
        self.assertEqual(attributes(canceled)["startedEventId"], 6)
        history = h.decision_task()
        self.assertEqual(history.timer("t"), Timer.Canceled(canceled["eventId"]))
        self.assertEqual(history.activity("a"), Status.CancelRequested())

    def test_continue_as_new_keeps_the_type_name_at_the_new_version(self):
        h = HistoryBuilder("Order", "1.0")
        h.respond([d.continue_as_new(input="next", workflow_type_version="2.0")])
        event = attributes(h.events[-1])
        self.assertEqual((h.events[-1]["eventType"], event["workflowType"],
                          event["newExecutionRunId"], event["childPolicy"]),
                         ("WorkflowExecutionContinuedAsNew",
                          {"name": "Order", "version": "2.0"}, "run-1-next", "TERMINATE"))
        self.assertTrue(h.closed())

    def test_an_event_during_a_decision_task_makes_its_close_decision_unhandled(self):
        h = HistoryBuilder("Order", "1.0")
        h.decision_task()
        h.signal("cancel")
        h.respond([d.complete()])
        self.assertEqual(attributes(h.events[-1]), {"cause": "UNHANDLED_DECISION",
                                                    "decisionTaskCompletedEventId": 6})
        self.assertEqual(h.events[-1]["eventType"], "CompleteWorkflowExecutionFailed")
        self.assertEqual(len(h.decision_task().new_signals()), 1)
        h.respond([d.complete("done")])
        self.assertTrue(h.closed())
        closed = h.decision_task()
        self.assertEqual(closed.started_event_id, closed.previous_started_event_id)
        with self.assertRaises(AssertionError):
            h.respond([])

    def test_activity_outcomes_record_a_start_first_and_schedule_a_decision_task(self):
        h = HistoryBuilder("Order", "1.0")
        h.respond([d.schedule_activity(i, "A", "1") for i in "abcde"])
        h.activity_started("a")
        self.assertEqual(h.decision_task().activity("a"), Status.Started())
        h.respond([])
        h.activity_completed("a", "r").activity_failed("b", "why", "more")
        h.activity_timed_out("c", "HEARTBEAT")
        h.respond([d.request_cancel_activity("d")])
        h.activity_canceled("d", "stopped")
        history = h.decision_task()
        self.assertEqual([history.activity(i) for i in "abcde"], [
            Status.Completed("r"), Status.Failed("why", "more"), Status.TimedOut("HEARTBEAT"),
            Status.Canceled("stopped"), Status.Scheduled()])
        canceled = next(e for e in h.events if e["eventType"] == "ActivityTaskCanceled")
        self.assertIsNotNone(attributes(canceled)["latestCancelRequestedEventId"])
        self.assertEqual(kinds(h).count("DecisionTaskScheduled"), 4)
        with self.assertRaises(LookupError):
            h.activity_completed("nope")

    def test_timers_signals_and_cancel_requests(self):
        h = HistoryBuilder("Order", "1.0")
        h.respond([d.start_timer("window", 30)])
        h.advance(60).timer_fired("window").signal("cancel", "x").cancel_requested()
        history = h.decision_task()
        self.assertIsInstance(history.timer("window"), Timer.Fired)
        self.assertEqual(h.events[5]["eventTimestamp"] - h.events[4]["eventTimestamp"], 61)
        self.assertEqual(history.new_signals()[0].input, "x")
        self.assertTrue(history.cancel_requested())
        self.assertEqual(kinds(h).count("DecisionTaskScheduled"), 2, "one for all three")

    def test_children_and_lambda_functions(self):
        h = HistoryBuilder("Quote", "1.0")
        h.started_with(lambda started: started.update(lambdaRole="weft"))
        self.assertEqual(h.decision_task().started()["lambdaRole"], "weft")
        h.respond([d.start_child(f"c{n}", "Price", "1") for n in range(5)] +
                  [d.schedule_lambda(f"f{n}", "price") for n in range(4)])
        h.child_started("c0").child_completed("c0", "150").child_failed("c1", "unknown sku")
        h.child_timed_out("c2").child_canceled("c3", "bye").child_terminated("c4")
        h.lambda_started("f0")
        h.lambda_completed("f0", "1").lambda_failed("f1", "x").lambda_timed_out("f2")
        history = h.decision_task()
        self.assertEqual([history.child(f"c{n}") for n in range(5)], [
            Status.Completed("150"), Status.Failed("unknown sku", None),
            Status.TimedOut("START_TO_CLOSE"), Status.Canceled("bye"), Status.Terminated()])
        self.assertEqual([history.lambda_function(f"f{n}") for n in range(4)], [
            Status.Completed("1"), Status.Failed("x", None), Status.TimedOut("START_TO_CLOSE"),
            Status.Scheduled()])
        completed = next(e for e in h.events if e["eventType"] ==
                         "ChildWorkflowExecutionCompleted")
        self.assertEqual(attributes(completed)["workflowExecution"]["workflowId"], "c0")
        self.assertEqual(attributes(completed)["workflowType"], {"name": "Price",
                                                                 "version": "1"})

    def test_decide_runs_a_decider_and_records_its_answer(self):
        h = HistoryBuilder("Order", "1.0", "x")
        self.assertEqual(h.decide(lambda history: [d.complete(history.input())]),
                         [d.complete("x")])
        self.assertEqual(h.events[-1]["eventType"], "WorkflowExecutionCompleted")

        def broken(history):
            raise ValueError("no")
        with self.assertRaises(ValueError):
            HistoryBuilder("Order", "1.0").decide(broken)


if __name__ == "__main__":
    unittest.main()
