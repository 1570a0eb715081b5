"""The SWF developer guide's order workflow as ordinary async code: the same behaviour as the
state machine in ``decider.py`` (see its docstring), replayed by ``weft_guest.workflow``."""

from weft_guest import Cancel, Failure
from weft_guest import workflow as w
from weft_guest.payload import as_u64, dumps, get, parse

from catalog import (
    ACTIVITY_SCHEDULE_TIMEOUT_SECS, ACTIVITY_TASK_LIST, ACTIVITY_TIMEOUT_SECS, CANCEL_ORDER,
    CANCEL_SIGNAL, CANCEL_TOO_LATE_DETAILS, CANCEL_TOO_LATE_MARKER, CANCEL_WINDOW_TIMER,
    CHARGE_CREDIT_CARD, DEFAULT_CANCEL_WINDOW_SECS, EMAIL_CUSTOMER, RECORD_COMPLETION, SHIP_ORDER,
    VERIFY_ORDER,
)


@w.workflow
async def order(wf):
    """Verifies, charges, ships once the cancellation window closed, records, and completes
    with ``{"charge", "order_id", "shipment"}``; a cancel within the window (once no activity
    runs), or a declined card, cancels the order and emails the customer."""
    text, order = wf.input(), wf.input_json()
    window = wf.sleep(as_u64(get(order, "cancel_window_seconds")) or DEFAULT_CANCEL_WINDOW_SECS,
                      id=CANCEL_WINDOW_TIMER)
    state = {"closed": False, "canceled": False}

    async def watch():
        index, _ = await w.first(settled(window), w.first(wf.signal(CANCEL_SIGNAL), wf.cancellation()))
        if index == 0:
            state["closed"] = True
        else:
            state["canceled"] = True
            window.cancel()
        while True:
            await wf.signal(CANCEL_SIGNAL)
            wf.record_marker(CANCEL_TOO_LATE_MARKER, CANCEL_TOO_LATE_DETAILS)

    async def steps():
        try:
            await activity(wf, "verify-order", VERIFY_ORDER, text)
        except w.ActivityError as e:
            if not state["canceled"]:
                raise Failure("invalid order", ended(e)) from e
        if state["canceled"]:
            return await wind_down(wf, order, None, Cancel("canceled by the customer"))
        try:
            receipt = await activity(wf, "charge-credit-card", CHARGE_CREDIT_CARD, text) or "null"
        except w.ActivityError as e:
            return await wind_down(wf, order, None, Failure("payment declined", ended(e)))
        await w.wait_until(lambda: state["closed"] or state["canceled"])
        if state["canceled"]:
            return await wind_down(wf, order, receipt, Cancel("canceled by the customer"))
        shipment = await step(wf, "ship-order", SHIP_ORDER, text, "shipping failed")
        charge, shipment = parse(receipt), parse(shipment)
        summary = dumps({"order": order, "charge": charge, "shipment": shipment})
        await step(wf, "record-completion", RECORD_COMPLETION, summary, "recording the order failed")
        return dumps({"order_id": get(order, "order_id"), "charge": charge, "shipment": shipment})

    try:
        _, result = await w.first(watch(), steps())  # the window's timer first, as decided then
        return result
    finally:
        wf.cancel_timer(CANCEL_WINDOW_TIMER)


async def wind_down(wf, order, receipt, end):
    """Closes the window, cancels the order (refunding ``receipt``) and emails the customer,
    then ends the run with ``end``."""
    wf.cancel_timer(CANCEL_WINDOW_TIMER)
    cancel = dumps({"order": order, "refund": None if receipt is None else parse(receipt)})
    email = dumps({"order": order, "subject": "Your order was canceled"})
    canceled, _ = await w.gather(
        settled(activity(wf, "cancel-order", CANCEL_ORDER, cancel)),
        settled(activity(wf, "email-customer", EMAIL_CUSTOMER, email)))
    if isinstance(canceled, w.ActivityError):
        raise Failure("the order could not be canceled", ended(canceled))
    raise end


async def settled(awaitable):
    """The result, or the error it raised."""
    try:
        return await awaitable
    except w.ActivityError as e:
        return e


async def step(wf, activity_id, kind, input, why):
    """Runs an activity of the order's to its result (``null`` if none); a failure fails the
    run for ``why``."""
    try:
        return await activity(wf, activity_id, kind, input) or "null"
    except w.ActivityError as e:
        raise Failure(why, ended(e)) from e


def activity(wf, activity_id, kind, input):
    return wf.activity(kind.name, kind.version, id=activity_id, input=input,
                       task_list=ACTIVITY_TASK_LIST,
                       schedule_to_start=ACTIVITY_SCHEDULE_TIMEOUT_SECS,
                       schedule_to_close=ACTIVITY_SCHEDULE_TIMEOUT_SECS,
                       start_to_close=ACTIVITY_TIMEOUT_SECS, heartbeat=ACTIVITY_TIMEOUT_SECS)


def ended(error):
    """How an activity ended, in words, as the state machine writes it."""
    if error.kind == "failed":
        return f"{error.reason}: {error.details}" if error.details else (error.reason or "failed")
    if error.kind == "timed_out":
        return f"timed out ({error.reason})"
    if error.kind == "not_started":
        return f"could not be scheduled ({error.reason})"
    return "canceled"
