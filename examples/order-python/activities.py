"""The activity worker of the e-commerce order workflow: the Python port of
``order-activities`` (examples/order-activities/src/lib.rs). One component for its six
activity types (``catalog.ACTIVITIES``), each a function registered on the worker.

Nothing here touches the outside world: charging, shipping and emailing are simulated, and
answer small JSON documents derived from the order (byte-identical to the Rust worker's), so
that runs are reproducible whichever worker ran them.
"""

import weft_guest
from weft_guest import Failure, log
from weft_guest.payload import as_u64, get

from catalog import (
    CANCEL_ORDER, CHARGE_CREDIT_CARD, DECLINED_CARD_SUFFIX, EMAIL_CUSTOMER, RECORD_COMPLETION,
    SHIP_ORDER, VERIFY_ORDER,
)

worker = weft_guest.ActivityWorker()


def order_activity(activity_type):
    """Registers ``run(input)`` for ``activity_type``: it gets the task's input decoded from
    JSON and answers the result, which the worker writes as JSON."""
    def register(run):
        @worker.activity(activity_type.name, activity_type.version)
        def perform(task):
            value = task.input_json()
            log.info(f"{task.name} ({task.activity_id}) for "
                     f"{task.workflow_execution['workflowId']}")
            return run(value)
        return run
    return register


@order_activity(VERIFY_ORDER)
def verify(order):
    """Checks that the order has an id, a customer, a card, a positive amount and items."""
    problems = [problem for bad, problem in (
        (not _text(get(order, "order_id")), "no order_id"),
        (not _text(get(order, "customer")), "no customer"),
        (not _text(get(order, "card")), "no card"),
        (not as_u64(get(order, "amount_cents")), "no amount_cents"),
        (not (isinstance(get(order, "items"), list) and get(order, "items")), "no items"),
    ) if bad]
    if problems:
        raise Failure("invalid order", ", ".join(problems))
    return {"order_id": order_id(order), "verified": True}


@order_activity(CHARGE_CREDIT_CARD)
def charge(order):
    """Charges the card, unless its number ends in the declined suffix."""
    card = get(order, "card")
    card = card if isinstance(card, str) else ""
    if card.endswith(DECLINED_CARD_SUFFIX):
        raise Failure("card declined", f"card ending {card[-4:]}")
    return {"charge_id": f"CH-{order_id(order)}", "amount_cents": get(order, "amount_cents")}


@order_activity(SHIP_ORDER)
def ship(order):
    """Ships the order and answers a tracking number."""
    return {"tracking": f"TRK-{order_id(order)}"}


@order_activity(RECORD_COMPLETION)
def record(summary):
    """Records the completed order."""
    return {"recorded": order_id(get(summary, "order"))}


@order_activity(CANCEL_ORDER)
def cancel(request):
    """Cancels the order, refunding the charge if there was one."""
    return {"canceled": order_id(get(request, "order")),
            "refunded": get(request, "refund", "charge_id")}


@order_activity(EMAIL_CUSTOMER)
def email(message):
    """Emails the customer."""
    return {"sent_to": get(message, "order", "customer"), "subject": get(message, "subject")}


def order_id(order):
    """The order's id, or ``unknown``."""
    value = get(order, "order_id")
    return value if isinstance(value, str) else "unknown"


def _text(value):
    """Whether ``value`` is a non-empty string."""
    return isinstance(value, str) and value != ""
