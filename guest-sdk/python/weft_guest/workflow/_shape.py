"""What a command is, for matching: the decision's type, the id it names and the type it runs,
read alike from a decision (wire JSON) and from the event that recorded one. Python's reading of
the workflow core's ``replay/shape.rs`` (``guest-sdk/core``)."""

import json

from ..events import OUTCOMES, attributes, decision_attributes, decision_type, event_type

PATCH_MARKER = "weft-patch"

_DECISION_OF = {event: decision for decision, events in OUTCOMES.items() for event in events}
# Failures that, naming their initiating event, end a command rather than record one.
_LATER_FAILURES = {
    "SignalExternalWorkflowExecutionFailed", "RequestCancelExternalWorkflowExecutionFailed",
    "StartChildWorkflowExecutionFailed",
}


def _type(t):
    return f"{t['name']} {t['version']}" if t else ""


def _shape(kind, a):
    """``(decision type, id, what it runs)`` from a decision's or an event's attributes."""
    if kind in ("ScheduleActivityTask",):
        return kind, a.get("activityId", ""), _type(a.get("activityType"))
    if kind == "RequestCancelActivityTask":
        return kind, a.get("activityId", ""), ""
    if kind == "RecordMarker":
        name = a.get("markerName", "")
        return kind, name, (a.get("details") or "") if name == PATCH_MARKER else ""
    if kind in ("StartTimer", "CancelTimer"):
        return kind, a.get("timerId", ""), ""
    if kind in ("SignalExternalWorkflowExecution", "RequestCancelExternalWorkflowExecution"):
        return kind, a.get("workflowId", ""), ""
    if kind == "StartChildWorkflowExecution":
        return kind, a.get("workflowId", ""), _type(a.get("workflowType"))
    if kind == "ScheduleLambdaFunction":
        return kind, a.get("id", ""), a.get("name", "")
    return kind, "", ""


def of_decision(decision):
    """The shape of a decision."""
    return _shape(decision_type(decision), decision_attributes(decision))


def recorded(event):
    """``(DecisionTaskCompleted id, shape)`` if ``event`` records a decision (accepted, or
    refused at once), else ``None``."""
    kind = _DECISION_OF.get(event_type(event))
    if kind is None:
        return None
    a = attributes(event)
    if event_type(event) in _LATER_FAILURES and a.get("initiatedEventId"):
        return None
    return a.get("decisionTaskCompletedEventId", 0), _shape(kind, a)


def show(shape):
    """A shape in words: ``ScheduleActivityTask "charge" (Charge 1.0)``."""
    kind, id_, what = shape
    # Quoted as the core's Rust `{:?}` quotes: quotes and backslashes escaped.
    text = kind + (f" {json.dumps(id_, ensure_ascii=False)}" if id_ else "")
    return text + (f" ({what})" if what else "")
