"""Write Weft deciders, activity workers and Lambda-style functions in Python, built into
WebAssembly components with componentize-py (``guest-sdk/python/weft-componentize``).

A decider is a function of its history, marked ``@weft_guest.decider``::

    import weft_guest
    from weft_guest import decisions as d

    @weft_guest.decider
    def decide(history):
        greet = history.activity("greet")
        if greet is None:
            return [d.schedule_activity("greet", "Greet", "1.0", input=history.input())]
        if greet.is_open:
            return []
        if greet.is_completed:
            return [d.complete(greet.result)]
        return [d.fail("greet did not complete")]

An activity worker registers a function per activity type on an :class:`ActivityWorker`; a
function guest marks its function ``@weft_guest.function``. The same code runs under plain
CPython, so deciders are unit-tested with :mod:`weft_guest.testing`.

Everything works on wire JSON, as SWF's API writes it: a history is a list of event dicts as
``GetWorkflowExecutionHistory`` returns them, and decisions are dicts as
``RespondDecisionTaskCompleted`` takes them (:mod:`weft_guest.decisions` builds them).
JSON payloads written with :func:`weft_guest.payload.dumps` are byte-identical to what the Rust
SDK's guests write with ``serde_json``.
"""

from . import decisions, events, log, payload
from ._component import mark as _mark
from .activity import ActivityTask, ActivityWorker, Cancel, Failure, Outcome, heartbeat
from .history import History
from .payload import PayloadError
from .status import Marker, Signal, Status, Timer

__all__ = [
    "decider", "function", "History", "Status", "Timer", "Signal", "Marker", "ActivityTask",
    "ActivityWorker", "Failure", "Cancel", "Outcome", "heartbeat", "PayloadError",
    "decisions", "events", "log", "payload",
]


def decider(decide):
    """Marks ``decide`` as the decider of a component of the world ``decider``.

    ``decide(history)`` gets a :class:`History` and answers a list of decisions (or a
    :func:`decisions.response`, or ``None`` for no decisions). An exception fails the decision
    task with its message, as an ``Err`` of the Rust SDK does: the host lets it time out and
    retries it later. The function is answered unchanged, to be unit-tested natively.
    """
    return _mark(decide, "decider")


def function(invoke):
    """Marks ``invoke`` as the function of a component of the world ``function`` (what a
    ``ScheduleLambdaFunction`` decision runs).

    ``invoke(input)`` gets the input (a string or ``None``) and answers the result: a string
    or ``None`` as they are, anything else as JSON. It fails by raising (or returning)
    :class:`Failure`; any other exception fails it with its type and message as the reason.
    """
    return _mark(invoke, "function")
