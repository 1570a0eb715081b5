"""The order decider's tests (``test_order.py``), run against the order workflow written as
async code (``workflow.py``): the same histories get the same decisions."""

import importlib.util
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent.parent / "guest-sdk" / "python")]

from weft_guest.testing import HistoryBuilder  # noqa: E402

import workflow  # noqa: E402
from catalog import WORKFLOW  # noqa: E402

# test_order.py loaded a second time, as a module of its own whose decider is the workflow.
_spec = importlib.util.spec_from_file_location("order_tests_on_workflow", HERE / "test_order.py")
shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shared)
shared.decide = workflow.order.__weft_decide__


class OrderWorkflowTest(shared.OrderDeciderTest):
    def test_without_an_order_the_decision_task_fails(self):
        # The workflow fails the run instead, saying why.
        h = HistoryBuilder(WORKFLOW.name, WORKFLOW.version, "not json")
        [failed] = h.decide(shared.decide)
        self.assertEqual(failed["decisionType"], "FailWorkflowExecution")
        self.assertIn("not JSON", failed["failWorkflowExecutionDecisionAttributes"]["reason"])


    def test_a_cancel_signal_after_the_window_is_recorded_as_too_late_and_ignored(self):
        # As the state machine's test, but for the marker's details: the workflow's do not name
        # event ids.
        h = shared.order(shared.SAMPLE_ORDER)
        shared.step(h)
        h.activity_completed(shared.VERIFY, "{}")
        shared.step(h)
        h.timer_fired(shared.CANCEL_WINDOW_TIMER)
        self.assertEqual(shared.step(h), [], "the charge still runs")
        h.signal(shared.CANCEL_SIGNAL)
        h.activity_completed(shared.CHARGE, "{}")
        self.assertEqual(shared.step(h), ["marker cancel-too-late", "schedule ship-order"])
        # (Read from the events: h.decision_task() would start the next task now.)
        [marker] = [e["markerRecordedEventAttributes"] for e in h.events
                    if e["eventType"] == "MarkerRecorded"]
        self.assertIn("after the window closed", marker["details"])
        h.activity_completed(shared.SHIP, "{}")
        self.assertEqual(shared.step(h), ["schedule record-completion"])


class OrderWorkflowWholeRunTest(shared.WholeRunTest):
    pass


if __name__ == "__main__":
    unittest.main()
