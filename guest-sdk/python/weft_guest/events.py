"""History events and decisions in wire JSON, as SWF's API writes them.

An event is a dict as ``GetWorkflowExecutionHistory`` returns it::

    {"eventId": 5, "eventTimestamp": 1700000004.0, "eventType": "ActivityTaskScheduled",
     "activityTaskScheduledEventAttributes": {"activityId": "charge", ...}}

and a decision a dict as ``RespondDecisionTaskCompleted`` takes it::

    {"decisionType": "StartTimer", "startTimerDecisionAttributes": {"timerId": "t", ...}}
"""

import datetime

from ._swf import DECISIONS

__all__ = [
    "attributes_key", "attributes", "event_type", "decision_attributes_key", "decision_type",
    "decision_attributes", "timestamp", "DECISION_TASK_EVENTS", "CLOSE_EVENTS", "CLOSE_DECISIONS",
    "OUTCOMES",
]

#: The decision tasks' own events.
DECISION_TASK_EVENTS = frozenset({
    "DecisionTaskScheduled", "DecisionTaskStarted", "DecisionTaskCompleted",
    "DecisionTaskTimedOut",
})

#: The events a decision records when it closes the execution.
CLOSE_EVENTS = frozenset(recorded for recorded, _, closes in DECISIONS.values() if closes)

#: The decisions that close the execution.
CLOSE_DECISIONS = frozenset(kind for kind, (_, _, closes) in DECISIONS.items() if closes)

#: Each decision type: the event SWF records when it accepts it, and the one when it refuses it
#: (from the one table, ``_swf.py``).
OUTCOMES = {kind: (recorded, refused) for kind, (recorded, refused, _) in DECISIONS.items()}


def _lower_first(name):
    return name[:1].lower() + name[1:]


def attributes_key(event_type):
    """The key of an event's attributes: ``ActivityTaskScheduled`` →
    ``activityTaskScheduledEventAttributes``."""
    return _lower_first(event_type) + "EventAttributes"


def event_type(event):
    """The event's type, e.g. ``ActivityTaskScheduled``."""
    return event["eventType"]


def attributes(event):
    """The event's attributes (an empty dict if it has none)."""
    return event.get(attributes_key(event["eventType"])) or {}


def decision_attributes_key(decision_type):
    """The key of a decision's attributes: ``StartTimer`` → ``startTimerDecisionAttributes``."""
    return _lower_first(decision_type) + "DecisionAttributes"


def decision_type(decision):
    """The decision's type, e.g. ``StartTimer``."""
    return decision["decisionType"]


def decision_attributes(decision):
    """The decision's attributes (an empty dict if it has none)."""
    return decision.get(decision_attributes_key(decision["decisionType"])) or {}


def timestamp(value):
    """An ``eventTimestamp`` as seconds since the epoch: the API's JSON has a number, the AWS
    CLI may print ISO 8601 text instead."""
    if isinstance(value, (int, float)):
        return float(value)
    moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.timestamp()
