"""The order workflow run by its two built components under Wasmtime 48 (wasmtime-py, the
Wasmtime Weft embeds): the Python decider component decides, the Python activity worker
component runs each activity, and the testing HistoryBuilder plays SWF in between.

Slow (two ~5 s builds, two ~3 s compiles) and it installs componentize-py and wasmtime-py on
first use, so it runs only with ``WEFT_PY_COMPONENT_TESTS=1``.
"""

import os
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path[:0] = [str(HERE), str(REPO / "guest-sdk" / "python"),
                str(REPO / "guest-sdk" / "python" / "tests")]

from weft_guest.events import attributes, decision_attributes  # noqa: E402
from weft_guest.testing import HistoryBuilder  # noqa: E402

from catalog import (  # noqa: E402
    CANCEL_WINDOW_TIMER, SAMPLE_DECLINED_ORDER, SAMPLE_ORDER, WORKFLOW,
)

OUT = REPO / "target" / "python-guests"


@unittest.skipUnless(os.environ.get("WEFT_PY_COMPONENT_TESTS") == "1",
                     "set WEFT_PY_COMPONENT_TESTS=1 to build and run the components")
class OrderComponentsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import build
        from component_host import ComponentHost
        build.build("decider", HERE / "decider.py", OUT / "order_decider_python.wasm",
                    quiet=True)
        build.build("activity-worker", HERE / "activities.py",
                    OUT / "order_activities_python.wasm", quiet=True)
        # Weft's default guest memory limit.
        cls.decider = ComponentHost(OUT / "order_decider_python.wasm", memory_bytes=64 << 20)
        cls.worker = ComponentHost(OUT / "order_activities_python.wasm", memory_bytes=64 << 20)

    def run_order(self, input):
        h = HistoryBuilder(WORKFLOW.name, WORKFLOW.version, input)
        while not h.closed():
            response = self.decider.call("decide", h.decision_task().task)
            h.respond(response)
            for decision in response["decisions"]:
                if decision["decisionType"] != "ScheduleActivityTask":
                    continue
                a = decision_attributes(decision)
                outcome = self.worker.call("run", {
                    "activityId": a["activityId"], "activityType": a["activityType"],
                    "workflowExecution": h.execution_ids, "input": a.get("input"),
                    "startedEventId": 0})
                if outcome["outcome"] == "completed":
                    h.activity_completed(a["activityId"], outcome.get("value"))
                else:
                    failure = outcome["value"]
                    h.activity_failed(a["activityId"], failure.get("reason"),
                                      failure.get("details"))
            window = h.decision_task().timer(CANCEL_WINDOW_TIMER)
            if window is not None and window.is_open and not h._scheduled_task:
                h.timer_fired(CANCEL_WINDOW_TIMER)
        return h

    def test_the_sample_order_completes_with_the_bytes_the_rust_guests_write(self):
        h = self.run_order(SAMPLE_ORDER)
        self.assertEqual(h.events[-1]["eventType"], "WorkflowExecutionCompleted")
        self.assertEqual(attributes(h.events[-1])["result"],
                         '{"charge":{"amount_cents":4200,"charge_id":"CH-order-1"},'
                         '"order_id":"order-1","shipment":{"tracking":"TRK-order-1"}}')
        self.assertIn(("info", "VerifyOrder (verify-order) for workflow-1"), self.worker.logs)

    def test_the_declined_order_fails(self):
        h = self.run_order(SAMPLE_DECLINED_ORDER)
        closed = attributes(h.events[-1])
        self.assertEqual((h.events[-1]["eventType"], closed["reason"], closed["details"]),
                         ("WorkflowExecutionFailed", "payment declined",
                          "card declined: card ending 0000"))

    def test_a_decider_error_fails_the_decision_task_with_its_message(self):
        from component_host import GuestError
        with self.assertRaisesRegex(GuestError, "^the order is not JSON: "):
            self.decider.call("decide", HistoryBuilder("OrderWorkflow", "1.0", "nope")
                              .decision_task().task)


if __name__ == "__main__":
    unittest.main()
