"""The order decider on hand-built histories: the happy path, a declined card, and cancellation
inside and outside the window (the port of examples/order-decider/src/tests.rs), plus the
exact bytes it writes and a whole run with the Python activity worker.

Run from the repository root: ``python3 -m unittest discover -s examples/order-python``.
"""

import json
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent.parent / "guest-sdk" / "python")]

from weft_guest.events import attributes, decision_attributes  # noqa: E402
from weft_guest.payload import parse  # noqa: E402
from weft_guest.testing import HistoryBuilder, replay  # noqa: E402

import activities  # noqa: E402
from catalog import (  # noqa: E402
    ACTIVITY_TASK_LIST, CANCEL_SIGNAL, CANCEL_TOO_LATE_DETAILS, CANCEL_TOO_LATE_MARKER,
    CANCEL_WINDOW_TIMER, DEFAULT_CANCEL_WINDOW_SECS, SAMPLE_DECLINED_ORDER, SAMPLE_ORDER, VERIFY_ORDER, WORKFLOW,
)
from decider import CANCEL, CHARGE, EMAIL, RECORD, SHIP, VERIFY, decide  # noqa: E402


def summary(decision):
    """A decision in a few words: its type and what it is about."""
    kind, a = decision["decisionType"], decision_attributes(decision)
    return {
        "ScheduleActivityTask": lambda: f"schedule {a['activityId']}",
        "StartTimer": lambda: f"start timer {a['timerId']} {a['startToFireTimeout']}s",
        "CancelTimer": lambda: f"cancel timer {a['timerId']}",
        "RecordMarker": lambda: f"marker {a['markerName']}",
        "CompleteWorkflowExecution": lambda: "complete",
        "FailWorkflowExecution": lambda: f"fail: {a.get('reason', '')}",
        "CancelWorkflowExecution": lambda: "cancel workflow",
    }.get(kind, lambda: repr(decision))()


def step(h):
    """Runs the decider on the next decision task and answers its decisions in a few words."""
    return [summary(decision) for decision in h.decide(decide)]


def order(input):
    return HistoryBuilder(WORKFLOW.name, WORKFLOW.version, input)


def scheduled_input(h, activity_id):
    """The input of the activity's latest ``ActivityTaskScheduled`` event (the raw text)."""
    for e in reversed(h.events):
        if e["eventType"] == "ActivityTaskScheduled" and \
                attributes(e)["activityId"] == activity_id:
            return attributes(e)["input"]
    raise AssertionError(f"{activity_id} was never scheduled")


def close_details(decisions):
    kind, a = decisions[-1]["decisionType"], decision_attributes(decisions[-1])
    if kind == "CompleteWorkflowExecution":
        return a.get("result"), None
    if kind == "FailWorkflowExecution":
        return a.get("reason"), a.get("details")
    if kind == "CancelWorkflowExecution":
        return a.get("details"), None
    raise AssertionError(f"not a close decision: {decisions[-1]}")


class OrderDeciderTest(unittest.TestCase):
    def test_the_happy_path_verifies_charges_waits_for_the_window_ships_and_records(self):
        h = order(SAMPLE_ORDER)
        self.assertEqual(step(h), ["start timer cancel-window 1s", "schedule verify-order"])
        self.assertEqual(scheduled_input(h, VERIFY), SAMPLE_ORDER, "the input as it came")

        h.activity_completed(VERIFY, '{"verified":true}')
        self.assertEqual(step(h), ["schedule charge-credit-card"])
        h.activity_completed(CHARGE, '{"charge_id":"CH-1"}')
        self.assertEqual(step(h), [], "ships only once the window is over")

        h.timer_fired(CANCEL_WINDOW_TIMER)
        self.assertEqual(step(h), ["schedule ship-order"])
        h.activity_completed(SHIP, '{"tracking":"TRK-1"}')
        self.assertEqual(step(h), ["schedule record-completion"])
        # The bytes serde_json writes: compact, keys sorted at every level.
        self.assertEqual(
            scheduled_input(h, RECORD),
            '{"charge":{"charge_id":"CH-1"},"order":{"amount_cents":4200,'
            '"cancel_window_seconds":1,"card":"4111111111111111","customer":"ada@example.com",'
            '"items":["teapot","tea"],"order_id":"order-1"},"shipment":{"tracking":"TRK-1"}}')

        h.activity_completed(RECORD, "{}")
        result, _ = close_details(h.decide(decide))
        self.assertEqual(result, '{"charge":{"charge_id":"CH-1"},"order_id":"order-1",'
                                 '"shipment":{"tracking":"TRK-1"}}')

    def test_every_activity_gets_the_task_list_and_timeouts_the_host_registers_nothing_for(self):
        verify = decision_attributes(order(SAMPLE_ORDER).decide(decide)[-1])
        self.assertEqual(verify["activityType"]["name"], VERIFY_ORDER.name)
        self.assertEqual(verify["taskList"], {"name": ACTIVITY_TASK_LIST})
        self.assertEqual(
            [verify[k] for k in ("scheduleToStartTimeout", "scheduleToCloseTimeout",
                                 "startToCloseTimeout", "heartbeatTimeout")],
            ["60", "60", "30", "30"])

    def test_the_window_defaults_when_the_order_does_not_give_one(self):
        self.assertEqual(step(order('{"order_id":"o"}'))[0],
                         f"start timer cancel-window {DEFAULT_CANCEL_WINDOW_SECS}s")

    def test_a_declined_card_cancels_the_order_emails_the_customer_and_fails(self):
        h = order(SAMPLE_DECLINED_ORDER)
        step(h)
        h.activity_completed(VERIFY, "{}")
        step(h)
        h.activity_failed(CHARGE, "card declined", "card ending 0000")
        self.assertEqual(step(h), ["cancel timer cancel-window", "schedule cancel-order",
                                   "schedule email-customer"])
        self.assertEqual(
            scheduled_input(h, CANCEL),
            '{"order":{"amount_cents":1500,"cancel_window_seconds":1,"card":"4111111111110000",'
            '"customer":"bob@example.com","items":["mug"],"order_id":"order-2"},"refund":null}')
        self.assertEqual(
            scheduled_input(h, EMAIL),
            '{"order":{"amount_cents":1500,"cancel_window_seconds":1,"card":"4111111111110000",'
            '"customer":"bob@example.com","items":["mug"],"order_id":"order-2"},'
            '"subject":"Your order was canceled"}')

        h.activity_completed(CANCEL, "{}")
        self.assertEqual(step(h), [], "waits for the email")
        h.activity_completed(EMAIL, "{}")
        self.assertEqual(close_details(h.decide(decide)),
                         ("payment declined", "card declined: card ending 0000"))

    def test_a_cancel_signal_inside_the_window_waits_for_the_running_activity_then_cancels(self):
        h = order(SAMPLE_ORDER)
        step(h)
        h.signal(CANCEL_SIGNAL)
        self.assertEqual(step(h), ["cancel timer cancel-window"], "the verification still runs")

        h.activity_completed(VERIFY, "{}")
        self.assertEqual(step(h), ["schedule cancel-order", "schedule email-customer"])
        h.activity_completed(CANCEL, "{}")
        h.activity_completed(EMAIL, "{}")
        self.assertEqual(close_details(h.decide(decide)), ("canceled by the customer", None))
        self.assertIsNone(h.decision_task().activity(CHARGE), "the card was never charged")

    def test_a_cancel_inside_the_window_after_the_charge_refunds_it(self):
        h = order(SAMPLE_ORDER)
        step(h)
        h.activity_completed(VERIFY, "{}")
        step(h)
        h.activity_completed(CHARGE, '{"charge_id":"CH-1"}')
        step(h)
        h.signal(CANCEL_SIGNAL, "changed my mind")
        self.assertEqual(step(h), ["cancel timer cancel-window", "schedule cancel-order",
                                   "schedule email-customer"])
        self.assertEqual(parse(scheduled_input(h, CANCEL))["refund"], {"charge_id": "CH-1"})

    def test_a_cancellation_request_counts_as_a_cancel_inside_the_window(self):
        h = order(SAMPLE_ORDER)
        step(h)
        h.activity_completed(VERIFY, "{}")
        h.cancel_requested()
        self.assertEqual(step(h), ["cancel timer cancel-window", "schedule cancel-order",
                                   "schedule email-customer"])

    def test_a_cancel_signal_after_the_window_is_recorded_as_too_late_and_ignored(self):
        h = order(SAMPLE_ORDER)
        step(h)
        h.activity_completed(VERIFY, "{}")
        step(h)
        h.timer_fired(CANCEL_WINDOW_TIMER)
        self.assertEqual(step(h), [], "the charge still runs")

        h.signal(CANCEL_SIGNAL)
        h.activity_completed(CHARGE, "{}")
        self.assertEqual(step(h), ["marker cancel-too-late", "schedule ship-order"])
        # (Read from the events: h.decision_task() would start the next task now.)
        [marker] = [attributes(e) for e in h.events if e["eventType"] == "MarkerRecorded"]
        self.assertEqual((marker["markerName"], marker["details"]),
                         (CANCEL_TOO_LATE_MARKER, CANCEL_TOO_LATE_DETAILS))

        h.activity_completed(SHIP, "{}")
        self.assertEqual(step(h), ["schedule record-completion"], "the marker is not repeated")

    def test_an_invalid_order_fails_the_workflow_and_closes_the_window(self):
        h = order('{"order_id":"o"}')
        step(h)
        h.activity_failed(VERIFY, "invalid order", "no items")
        self.assertEqual(step(h), ["cancel timer cancel-window", "fail: invalid order"])

    def test_a_failed_shipment_fails_the_workflow(self):
        h = order(SAMPLE_ORDER)
        step(h)
        h.activity_completed(VERIFY, "{}")
        step(h)
        h.activity_completed(CHARGE, "{}")
        h.timer_fired(CANCEL_WINDOW_TIMER)
        step(h)
        h.activity_timed_out(SHIP, "START_TO_CLOSE")
        self.assertEqual(close_details(h.decide(decide)),
                         ("shipping failed", "timed out (START_TO_CLOSE)"))

    def test_without_an_order_the_decision_task_fails(self):
        with self.assertRaises(ValueError):
            HistoryBuilder(WORKFLOW.name, WORKFLOW.version).decide(decide)
        with self.assertRaisesRegex(ValueError, "not JSON"):
            order("not json").decide(decide)

    def test_the_recorded_order_histories_replay(self):
        # tests/fixtures/histories, written by the end-to-end suite from the real engine.
        fixtures = HERE.parent.parent / "tests" / "fixtures" / "histories"
        replayed = 0
        for path in sorted(fixtures.glob("*.json")):
            fixture = json.loads(path.read_text(encoding="utf-8"))
            if fixture["expect"].get("decider") != "order":
                continue
            with self.subTest(fixture=path.stem):
                replay(decide, fixture, fixture["workflowId"], fixture["runId"])
            replayed += 1
        self.assertGreaterEqual(replayed, 4)


def run_with_worker(input, signal_after_verify=False):
    """A whole run: the decider decides, the Python worker runs each activity it schedules,
    the window's timer fires when nothing else is left. Answers the builder."""
    h = order(input)
    while not h.closed():
        for decision in h.decide(decide):
            if decision["decisionType"] != "ScheduleActivityTask":
                continue
            a = decision_attributes(decision)
            task = {"activityId": a["activityId"], "activityType": a["activityType"],
                    "workflowExecution": h.execution_ids, "input": a.get("input"),
                    "startedEventId": 0}
            outcome = activities.worker.run(task)
            if outcome.kind == "completed":
                h.activity_completed(a["activityId"], outcome.result)
            else:
                h.activity_failed(a["activityId"], outcome.failure.reason,
                                  outcome.failure.details)
            if signal_after_verify and a["activityId"] == VERIFY:
                h.signal(CANCEL_SIGNAL)
        window = h.decision_task().timer(CANCEL_WINDOW_TIMER)
        if window is not None and window.is_open and not h._scheduled_task:
            h.timer_fired(CANCEL_WINDOW_TIMER)
    return h


class WholeRunTest(unittest.TestCase):
    def test_the_sample_order_completes_with_the_documented_result(self):
        h = run_with_worker(SAMPLE_ORDER)
        closed = h.events[-1]
        self.assertEqual(closed["eventType"], "WorkflowExecutionCompleted")
        self.assertEqual(attributes(closed)["result"],
                         '{"charge":{"amount_cents":4200,"charge_id":"CH-order-1"},'
                         '"order_id":"order-1","shipment":{"tracking":"TRK-order-1"}}')
        replay(decide, {"events": h.events})  # The recorded history replays.

    def test_the_declined_order_fails_after_cancelling_and_emailing(self):
        h = run_with_worker(SAMPLE_DECLINED_ORDER)
        closed = attributes(h.events[-1])
        self.assertEqual((h.events[-1]["eventType"], closed["reason"], closed["details"]),
                         ("WorkflowExecutionFailed", "payment declined",
                          "card declined: card ending 0000"))

    def test_a_cancel_after_verification_closes_the_run_as_canceled(self):
        h = run_with_worker(SAMPLE_ORDER, signal_after_verify=True)
        self.assertEqual(h.events[-1]["eventType"], "WorkflowExecutionCanceled")
        self.assertIsNone(h.decision_task().activity(CHARGE))


if __name__ == "__main__":
    unittest.main()
