"""The worked example every SDK's README shows, run: ``guest-sdk/python/README.md`` shows the
code between the markers below, and ``test_the_readme_shows_this_code`` checks that it does."""

import json
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from weft_guest.testing import Environment  # noqa: E402

# README: begin
from weft_guest import Cancel, workflow as w


async def fulfil(wf, order):
    # Two activities at once.
    _, receipt = await w.gather(
        wf.activity("Reserve", "1.0", input=order["sku"]),
        wf.activity("Charge", "1.0", id="charge", input=order["card"], retry=w.RetryPolicy(3)),
    )
    # A signal with a timeout: the customer confirms within a day, or the order ships anyway.
    answered, _ = await w.first(wf.signal("confirm"), wf.sleep(24 * 3600))
    # A child workflow, in the same module (below).
    tracking = await wf.child("Ship", "1.0", id=f"ship-{order['id']}", input=order["sku"])
    return {"receipt": receipt, "tracking": tracking, "confirmed": answered == 0}


async def order(wf):
    order = wf.input_json()
    done, result = await w.first(fulfil(wf, order), wf.cancellation())
    if done == 0:
        return result
    # Asked to cancel: stop the charge if it still runs, and refund it.
    wf.cancel_activity("charge")
    await wf.activity("Refund", "1.0", input=order["card"])
    raise Cancel("refunded")


async def ship(wf):
    return await wf.activity("Pack", "1.0", input=wf.input())


# The component's decider: one module serving both workflow types.
decider = w.workflows({"Order": order, "Ship": ship})
# README: end


def environment():
    order_input = json.dumps({"id": "o-1", "sku": "sku-1", "card": "visa"})
    return (Environment("Order", "1.0", order_input)
            .activity("Reserve", lambda _: "reserved")
            .activity("Charge", lambda _: "receipt-1")
            .activity("Refund", lambda _: "refunded")
            .child("Ship", lambda _: "tracking-1"))


class WorkedExample(unittest.TestCase):
    def test_the_order_ships_a_day_later_unconfirmed_or_refunds_when_asked_to_cancel(self):
        shipped = environment().run(decider)
        self.assertEqual(json.loads(shipped.result),
                         {"confirmed": False, "receipt": "receipt-1", "tracking": "tracking-1"})
        self.assertGreaterEqual(shipped.elapsed, 24 * 3600)
        confirmed = environment().signal(60, "confirm", None).run(decider)
        self.assertTrue(json.loads(confirmed.result)["confirmed"])
        canceled = environment().request_cancel(3600).run(decider)
        self.assertEqual(canceled.close["decisionType"], "CancelWorkflowExecution")
        self.assertEqual(
            [e for e in canceled.events if e["eventType"] == "ChildWorkflowExecutionCompleted"], [])

    def test_the_readme_shows_this_code(self):
        this = Path(__file__).read_text()
        code = this.split("# README: begin\n")[1].split("# README: end")[0]
        readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
        self.assertIn(f"```python\n{code}```", readme,
                      "the README must show the worked example as this file has it")


if __name__ == "__main__":
    unittest.main()
