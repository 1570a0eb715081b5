"""The order's three ends, run in the testing ``Environment``."""

import json
import unittest

from weft_guest.testing import Environment

import decider


def an_order():
    order = json.dumps({"id": "o-1", "sku": "sku-1", "card": "visa"})
    return (Environment("Order", "1.0", order)
            .activity("Reserve", lambda _: "reserved")
            .activity("Charge", lambda _: "receipt-1")
            .activity("Refund", lambda _: "refunded")
            .child("Ship", lambda _: "tracking-1"))


class OrderTest(unittest.TestCase):
    def test_unconfirmed_it_ships_a_day_later(self):
        run = an_order().run(decider.decider)
        self.assertEqual(json.loads(run.result),
                         {"confirmed": False, "receipt": "receipt-1", "tracking": "tracking-1"})
        self.assertGreaterEqual(run.elapsed, 24 * 3600)

    def test_a_signal_confirms_it(self):
        run = an_order().signal(60, "confirm", None).run(decider.decider)
        self.assertEqual(json.loads(run.result),
                         {"confirmed": True, "receipt": "receipt-1", "tracking": "tracking-1"})
        self.assertLess(run.elapsed, 3600)

    def test_a_cancel_in_the_wait_refunds_the_charge(self):
        run = an_order().request_cancel(3600).run(decider.decider)
        self.assertEqual(run.close["decisionType"], "CancelWorkflowExecution", run.close)
        self.assertEqual(run.close["cancelWorkflowExecutionDecisionAttributes"]["details"],
                         "refunded")
        # Reserve, Charge and Refund; no shipping.
        self.assertEqual(len(run.of_type("ActivityTaskCompleted")), 3)
        self.assertEqual(run.of_type("ChildWorkflowExecutionCompleted"), [])


if __name__ == "__main__":
    unittest.main()
