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


class OrderWorkflowWholeRunTest(shared.WholeRunTest):
    pass


if __name__ == "__main__":
    unittest.main()
