"""The SWF developer guide's order workflow as ordinary async code: the same behaviour as the
state machine in ``decider.py`` (see its docstring), replayed by ``weft_guest.workflow``."""

from weft_guest import Cancel, Failure
from weft_guest import workflow as w
from weft_guest.payload import as_u64, dumps, get, parse

from catalog import (
    ACTIVITY_SCHEDULE_TIMEOUT_SECS as QUEUED, ACTIVITY_TASK_LIST, ACTIVITY_TIMEOUT_SECS as RUN,
    CANCEL_ORDER, CANCEL_SIGNAL, CANCEL_TOO_LATE_DETAILS, CANCEL_TOO_LATE_MARKER,
    CANCEL_WINDOW_TIMER, CHARGE_CREDIT_CARD, DEFAULT_CANCEL_WINDOW_SECS, EMAIL_CUSTOMER,
    RECORD_COMPLETION, SHIP_ORDER, VERIFY_ORDER,
)


@w.workflow
async def order(wf):
    """Verifies, charges, ships once the cancellation window closed, records, and completes
    with ``{"charge", "order_id", "shipment"}``; a cancel within the window (once no activity
    runs), or a declined card, cancels the order and emails the customer."""
    text, order = wf.input(), wf.input_json()
    seconds = as_u64(get(order, "cancel_window_seconds")) or DEFAULT_CANCEL_WINDOW_SECS
    window = wf.sleep(seconds, id=CANCEL_WINDOW_TIMER)
    state = {"closed": False, "canceled": False}
    by_customer = Cancel("canceled by the customer")

    async def watch():
        cancel = w.first(wf.signal(CANCEL_SIGNAL), wf.cancellation())
        index, _ = await w.first(w.settled(window), cancel)
        state["closed" if index == 0 else "canceled"] = True
        if index == 1:
            window.cancel()
        while True:
            await wf.signal(CANCEL_SIGNAL)
            wf.record_marker(CANCEL_TOO_LATE_MARKER, CANCEL_TOO_LATE_DETAILS)

    async def steps():
        verified = await w.settled(activity(wf, "verify-order", VERIFY_ORDER, text))
        if state["canceled"]:
            return await wind_down(wf, order, None, by_customer)
        if isinstance(verified, w.ActivityError):
            raise Failure("invalid order", str(verified))
        receipt = await w.settled(activity(wf, "charge-credit-card", CHARGE_CREDIT_CARD, text))
        if isinstance(receipt, w.ActivityError):
            return await wind_down(wf, order, None, Failure("payment declined", str(receipt)))
        charge = parse(receipt or "null")
        await w.wait_until(lambda: state["closed"] or state["canceled"])
        if state["canceled"]:
            return await wind_down(wf, order, charge, by_customer)
        shipment = parse(await step(wf, "ship-order", SHIP_ORDER, text, "shipping failed") or "null")
        summary = dumps({"order": order, "charge": charge, "shipment": shipment})
        await step(wf, "record-completion", RECORD_COMPLETION, summary, "recording the order failed")
        return dumps({"order_id": get(order, "order_id"), "charge": charge, "shipment": shipment})

    try:
        _, result = await w.first(watch(), steps())  # the window's timer first, as decided then
        return result
    finally:
        wf.cancel_timer(CANCEL_WINDOW_TIMER)


async def wind_down(wf, order, charge, end):
    """Closes the window, cancels the order (refunding ``charge``) and emails the customer,
    then ends the run with ``end``."""
    wf.cancel_timer(CANCEL_WINDOW_TIMER)
    cancel = dumps({"order": order, "refund": charge})
    email = dumps({"order": order, "subject": "Your order was canceled"})
    canceled, _ = await w.gather(w.settled(activity(wf, "cancel-order", CANCEL_ORDER, cancel)),
                                 w.settled(activity(wf, "email-customer", EMAIL_CUSTOMER, email)))
    if isinstance(canceled, w.ActivityError):
        raise Failure("the order could not be canceled", str(canceled))
    raise end


async def step(wf, activity_id, kind, input, why):
    """Runs an activity of the order's to its result; a failure fails the run for ``why``."""
    try:
        return await activity(wf, activity_id, kind, input)
    except w.ActivityError as e:
        raise Failure(why, str(e)) from e


def activity(wf, activity_id, kind, input):
    return wf.activity(*kind, id=activity_id, input=input, task_list=ACTIVITY_TASK_LIST,
                       schedule_to_start=QUEUED, schedule_to_close=QUEUED,
                       start_to_close=RUN, heartbeat=RUN)
