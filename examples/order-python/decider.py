"""The decider of the SWF developer guide's e-commerce order workflow: the Python port of
``order-decider`` (examples/order-decider/src/lib.rs), deciding exactly as it does and writing
the same bytes.

The input is the order, as JSON (``catalog.SAMPLE_ORDER``). The workflow:

1. starts the cancellation window (a timer) and verifies the order;
2. charges the credit card;
3. once the window has closed, ships the order;
4. records the completion, and completes with ``{"charge", "order_id", "shipment"}``.

If the charge fails, it cancels the order and emails the customer, then fails the workflow
(``payment declined``). A ``cancel`` signal (or a cancellation request) that arrives before the
window's timer fires cancels the order: once no activity is running, it cancels the order
(refunding the charge, if any), emails the customer, and closes the workflow as canceled. A
``cancel`` signal after the timer fired is recorded as a ``cancel-too-late`` marker and
otherwise ignored. Any other failure fails the workflow.

The decider is a pure function of the history: each decision task recomputes where the order
stands from the events, so a decision that SWF rejected is simply decided again.
"""

import weft_guest
from weft_guest import Status, Timer
from weft_guest import decisions as d
from weft_guest.events import attributes
from weft_guest.payload import as_u64, dumps, get, loads, parse

from catalog import (
    ACTIVITY_SCHEDULE_TIMEOUT_SECS, ACTIVITY_TASK_LIST, ACTIVITY_TIMEOUT_SECS, CANCEL_ORDER,
    CANCEL_SIGNAL, CANCEL_TOO_LATE_DETAILS, CANCEL_TOO_LATE_MARKER, CANCEL_WINDOW_TIMER,
    CHARGE_CREDIT_CARD, DEFAULT_CANCEL_WINDOW_SECS, EMAIL_CUSTOMER, RECORD_COMPLETION, SHIP_ORDER,
    VERIFY_ORDER,
)

# The activity ids this decider gives its activities (one activity of each type per run).
VERIFY = "verify-order"
CHARGE = "charge-credit-card"
SHIP = "ship-order"
RECORD = "record-completion"
CANCEL = "cancel-order"
EMAIL = "email-customer"


@weft_guest.decider
def decide(history):
    """Decides the order workflow's next step."""
    text = history.input()
    if text is None:
        raise ValueError("the order workflow needs the order as input")
    order = loads(text, "the order")
    decisions = too_late_cancels(history)

    # The first decision task: open the window and verify the order.
    if history.activity(VERIFY) is None:
        window = as_u64(get(order, "cancel_window_seconds"))
        decisions.append(d.start_timer(
            CANCEL_WINDOW_TIMER, DEFAULT_CANCEL_WINDOW_SECS if window is None else window))
        decisions.append(activity(VERIFY, VERIFY_ORDER, text))
        return decisions

    charge = history.activity(CHARGE)
    if isinstance(charge, (Status.Failed, Status.TimedOut, Status.Canceled)):
        why = describe(charge)
        wind_down(history, order, None, decisions, lambda: d.fail("payment declined", why))
        return decisions

    if cancel_accepted(history):
        if any(s is not None and s.is_open for s in map(history.activity, (VERIFY, CHARGE))):
            # Let the running activity finish: cancelling the order must know whether the
            # card was charged.
            if window_open(history):
                decisions.append(d.cancel_timer(CANCEL_WINDOW_TIMER))
            return decisions
        refund = None if charge is None else charge.result
        wind_down(history, order, refund, decisions,
                  lambda: d.cancel("canceled by the customer"))
        return decisions

    verify = history.activity(VERIFY)
    if verify.is_completed:
        step = next_after_verify(history, text, charge)
    elif verify.is_open:
        step = None
    else:
        step = ("invalid order", describe(verify))
    if isinstance(step, tuple):
        reason, details = step
        if window_open(history):
            decisions.append(d.cancel_timer(CANCEL_WINDOW_TIMER))
        decisions.append(d.fail(reason, details))
    elif step is not None:
        decisions.append(step)
    return decisions


def next_after_verify(history, order, charge):
    """The happy path after the order was verified: charge, ship once the window closed,
    record, complete. Answers the decision to make, ``None`` to wait, or a ``(reason,
    details)`` failure."""
    if charge is None:
        return activity(CHARGE, CHARGE_CREDIT_CARD, order)
    if not charge.is_completed:
        return None
    receipt = "null" if charge.result is None else charge.result
    ship = history.activity(SHIP)
    if ship is None:
        # Ship once the window is over (it fired, or its timer could not even start).
        return None if window_open(history) else activity(SHIP, SHIP_ORDER, order)
    if ship.is_open:
        return None
    if not ship.is_completed:
        return ("shipping failed", describe(ship))
    shipment = "null" if ship.result is None else ship.result
    summary = {"order": parse(order), "charge": parse(receipt), "shipment": parse(shipment)}
    record = history.activity(RECORD)
    if record is None:
        return activity(RECORD, RECORD_COMPLETION, dumps(summary))
    if record.is_completed:
        return d.complete(dumps({
            "order_id": get(summary, "order", "order_id"),
            "charge": summary["charge"],
            "shipment": summary["shipment"],
        }))
    if record.is_open:
        return None
    return ("recording the order failed", describe(record))


def wind_down(history, order, refund, decisions, close):
    """Cancels the order (refunding ``refund``, the charge's receipt, if any) and emails the
    customer; once both are done, closes the workflow with ``close()`` (or fails it if the
    order could not be canceled)."""
    if window_open(history):
        decisions.append(d.cancel_timer(CANCEL_WINDOW_TIMER))
    cancel = history.activity(CANCEL)
    email = history.activity(EMAIL)
    if cancel is None:
        refunded = None if refund is None else parse(refund)
        decisions.append(activity(CANCEL, CANCEL_ORDER, dumps({"order": order,
                                                               "refund": refunded})))
    if email is None:
        decisions.append(activity(EMAIL, EMAIL_CUSTOMER, dumps(
            {"order": order, "subject": "Your order was canceled"})))
    if cancel is not None and email is not None and not email.is_open:
        if cancel.is_completed:
            decisions.append(close())
        elif not cancel.is_open:
            decisions.append(d.fail("the order could not be canceled", describe(cancel)))


def cancel_accepted(history):
    """Whether a cancellation (the ``cancel`` signal, or a cancellation request) arrived
    before the cancellation window's timer fired."""
    timer = history.timer(CANCEL_WINDOW_TIMER)
    closed_at = timer.event_id if isinstance(timer, Timer.Fired) else float("inf")
    for e in history.events:
        if e["eventId"] >= closed_at:
            continue
        if e["eventType"] == "WorkflowExecutionCancelRequested":
            return True
        if e["eventType"] == "WorkflowExecutionSignaled" and \
                attributes(e).get("signalName") == CANCEL_SIGNAL:
            return True
    return False


def too_late_cancels(history):
    """A ``cancel-too-late`` marker for each new ``cancel`` signal that arrived after the
    window closed."""
    timer = history.timer(CANCEL_WINDOW_TIMER)
    if not isinstance(timer, Timer.Fired):
        return []
    return [
        d.record_marker(CANCEL_TOO_LATE_MARKER, CANCEL_TOO_LATE_DETAILS)
        for s in history.new_signals()
        if s.name == CANCEL_SIGNAL and s.event_id > timer.event_id
    ]


def window_open(history):
    """Whether the cancellation window's timer is running."""
    timer = history.timer(CANCEL_WINDOW_TIMER)
    return timer is not None and timer.is_open


def activity(activity_id, activity_type, input):
    """A ``ScheduleActivityTask`` decision with this decider's task list and timeouts."""
    return d.schedule_activity(
        activity_id, activity_type.name, activity_type.version, input=input,
        task_list=ACTIVITY_TASK_LIST, schedule_to_start=ACTIVITY_SCHEDULE_TIMEOUT_SECS,
        schedule_to_close=ACTIVITY_SCHEDULE_TIMEOUT_SECS, start_to_close=ACTIVITY_TIMEOUT_SECS,
        heartbeat=ACTIVITY_TIMEOUT_SECS)


def describe(status):
    """A closed activity's end, in words, for a failure's details."""
    if isinstance(status, Status.Failed):
        reason = "failed" if status.reason is None else status.reason
        return reason if status.details is None else f"{reason}: {status.details}"
    if isinstance(status, Status.TimedOut):
        return f"timed out ({status.timeout_type})"
    if isinstance(status, Status.Canceled):
        return "canceled"
    if isinstance(status, Status.NotStarted):
        return f"could not be scheduled ({status.cause})"
    return type(status).__name__  # Unreachable: only closed, not completed, activities.
