"""The order activities on sample inputs: the port of the Rust worker's tests, with the exact
bytes each result must have (what serde_json writes)."""

import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent.parent / "guest-sdk" / "python")]

from weft_guest import Failure  # noqa: E402
from weft_guest.testing import activity_task  # noqa: E402

from activities import worker  # noqa: E402
from catalog import (  # noqa: E402
    CANCEL_ORDER, CHARGE_CREDIT_CARD, EMAIL_CUSTOMER, RECORD_COMPLETION, SAMPLE_DECLINED_ORDER,
    SAMPLE_ORDER, SHIP_ORDER, VERIFY_ORDER, TypeName,
)


def run(activity, input):
    return worker.run(activity_task(activity.name, input, activity.version, workflow_id="w"))


def result(activity, input):
    outcome = run(activity, input)
    assert outcome.kind == "completed", outcome
    return outcome.result


class OrderActivitiesTest(unittest.TestCase):
    def test_a_good_order_is_verified_and_charged(self):
        self.assertEqual(result(VERIFY_ORDER, SAMPLE_ORDER),
                         '{"order_id":"order-1","verified":true}')
        self.assertEqual(result(CHARGE_CREDIT_CARD, SAMPLE_ORDER),
                         '{"amount_cents":4200,"charge_id":"CH-order-1"}')

    def test_shipping_and_recording_answer_the_order_id(self):
        self.assertEqual(result(SHIP_ORDER, SAMPLE_ORDER), '{"tracking":"TRK-order-1"}')
        self.assertEqual(result(RECORD_COMPLETION, f'{{"order":{SAMPLE_ORDER}}}'),
                         '{"recorded":"order-1"}')
        self.assertEqual(result(SHIP_ORDER, '{"order_id":7}'), '{"tracking":"TRK-unknown"}')

    def test_a_card_ending_in_0000_is_declined(self):
        self.assertEqual(run(CHARGE_CREDIT_CARD, SAMPLE_DECLINED_ORDER).failure,
                         Failure("card declined", "card ending 0000"))

    def test_an_order_without_items_or_amount_is_invalid(self):
        self.assertEqual(
            run(VERIFY_ORDER, '{"order_id":"o","customer":"c","card":"1"}').failure,
            Failure("invalid order", "no amount_cents, no items"))
        self.assertEqual(
            run(VERIFY_ORDER, '{"order_id":"","customer":"c","card":"1","amount_cents":4.5,'
                              '"items":[]}').failure,
            Failure("invalid order", "no order_id, no amount_cents, no items"))

    def test_cancel_refunds_the_charge_and_email_names_the_customer(self):
        cancel = f'{{"order":{SAMPLE_ORDER},"refund":{{"charge_id":"CH-order-1"}}}}'
        self.assertEqual(result(CANCEL_ORDER, cancel),
                         '{"canceled":"order-1","refunded":"CH-order-1"}')
        self.assertEqual(result(CANCEL_ORDER, f'{{"order":{SAMPLE_ORDER},"refund":null}}'),
                         '{"canceled":"order-1","refunded":null}')
        email = f'{{"order":{SAMPLE_ORDER},"subject":"Canceled"}}'
        self.assertEqual(result(EMAIL_CUSTOMER, email),
                         '{"sent_to":"ada@example.com","subject":"Canceled"}')

    def test_unknown_types_and_bad_input_fail(self):
        self.assertEqual(run(TypeName("Teleport", "1.0"), "{}").failure.reason,
                         "unknown activity type Teleport")
        self.assertEqual(run(SHIP_ORDER, "not json").failure.reason, "the input is not JSON")
        self.assertEqual(run(SHIP_ORDER, None).failure.reason, "the activity needs an input")


if __name__ == "__main__":
    unittest.main()
