"""Recorded histories: a decider unit-tested against what really happened.

``aws swf get-workflow-execution-history ... > run.json`` (or Weft's own API) writes the JSON
these read: ``{"events": [{"eventId": 1, "eventType": "WorkflowExecutionStarted",
"eventTimestamp": 1700000000.123, "workflowExecutionStartedEventAttributes": {...}}, ...]}``.
"""

import json
import os
from dataclasses import dataclass, field

from ..decisions import as_response
from ..events import attributes, decision_attributes, timestamp
from ..history import History
from .record import OUTCOMES

__all__ = ["read_events", "load_history", "decision_tasks", "replay", "ReplayMismatch",
           "ReplayStep"]


def read_events(source):
    """The events of an exported history: ``source`` is a path, an open file, JSON text, or
    the decoded document (a dict with ``events``, or the list of events). Timestamps given as
    ISO 8601 text (as the AWS CLI may print them) become seconds since the epoch."""
    if isinstance(source, (str, os.PathLike)) and not str(source).lstrip().startswith(("{", "[")):
        with open(source, encoding="utf-8") as file:
            source = json.load(file)
    elif isinstance(source, str):
        source = json.loads(source)
    elif hasattr(source, "read"):
        source = json.load(source)
    events = source["events"] if isinstance(source, dict) else source
    events = [dict(e, eventTimestamp=timestamp(e["eventTimestamp"])) for e in events]
    return sorted(events, key=lambda e: e["eventId"])


def decision_tasks(events, workflow_id="workflow-1", run_id="run-1"):
    """Every decision task of the history, as the decider saw it: a
    ``(History, DecisionTaskCompleted event or None)`` pair per ``DecisionTaskStarted``, the
    history ending with that event and, as SWF sets it, ``previousStartedEventId`` the
    ``DecisionTaskStarted`` of the latest decision task completed before it."""
    started_type = next(
        (attributes(e).get("workflowType") for e in events
         if e["eventType"] == "WorkflowExecutionStarted"), None)
    completions = {
        attributes(e).get("startedEventId"): e
        for e in events if e["eventType"] == "DecisionTaskCompleted"
    }
    previous = 0
    tasks = []
    for index, e in enumerate(events):
        if e["eventType"] == "DecisionTaskCompleted":
            previous = attributes(e).get("startedEventId", previous)
        if e["eventType"] != "DecisionTaskStarted":
            continue
        history = History({
            "workflowExecution": {"workflowId": workflow_id, "runId": run_id},
            "workflowType": started_type,
            "events": events[:index + 1],
            "previousStartedEventId": previous,
            "startedEventId": e["eventId"],
        })
        tasks.append((history, completions.get(e["eventId"])))
    return tasks


def load_history(source, started_event_id=None, workflow_id="workflow-1", run_id="run-1"):
    """The decision task of an exported history whose ``DecisionTaskStarted`` is
    ``started_event_id`` (by default the latest), as a :class:`~weft_guest.History` ending
    with that event."""
    tasks = decision_tasks(read_events(source), workflow_id, run_id)
    for history, _ in reversed(tasks):
        if started_event_id in (None, history.started_event_id):
            return history
    raise LookupError(f"the history has no DecisionTaskStarted {started_event_id}")


@dataclass
class ReplayStep:
    """One completed decision task of a replay: what the decider answered now, and the events
    its recorded answer left."""

    history: History
    decisions: list
    recorded: list
    problems: list = field(default_factory=list)


class ReplayMismatch(AssertionError):
    """The decider answered a recorded decision task differently than it was answered then."""

    def __init__(self, steps):
        self.steps = steps
        lines = [f"decision task started at event {s.history.started_event_id}: {p}"
                 for s in steps for p in s.problems]
        super().__init__("the decider does not replay its history:\n  " + "\n  ".join(lines))


def replay(decide, source, workflow_id="workflow-1", run_id="run-1"):
    """Runs ``decide`` on every completed decision task of an exported history and checks that
    it answers the decisions that were recorded: one event per decision, each of the type the
    decision records (or the failure SWF records for it) with the decision's attributes.
    Answers the steps; raises :class:`ReplayMismatch` listing every difference."""
    events = read_events(source)
    steps = []
    for history, completed in decision_tasks(events, workflow_id, run_id):
        if completed is None:
            continue
        answer = as_response(decide(history))
        recorded = _caused_by(events, completed["eventId"])
        step = ReplayStep(history, answer["decisions"], recorded)
        step.problems = _compare(answer, completed, recorded)
        steps.append(step)
    if any(s.problems for s in steps):
        raise ReplayMismatch([s for s in steps if s.problems])
    return steps


def _caused_by(events, completed):
    """The events a decision task's decisions recorded at once: those naming its
    ``DecisionTaskCompleted``, less the later failures of what they initiated."""
    return [
        e for e in events
        if attributes(e).get("decisionTaskCompletedEventId") == completed
        and not attributes(e).get("initiatedEventId")
    ]


def _compare(answer, completed, recorded):
    problems = []
    context = answer.get("executionContext")
    if context is not None and context != attributes(completed).get("executionContext"):
        problems.append(f"execution context {context!r} was "
                        f"{attributes(completed).get('executionContext')!r}")
    decisions = answer["decisions"]
    if len(decisions) != len(recorded):
        kinds = [d["decisionType"] for d in decisions]
        was = [e["eventType"] for e in recorded]
        problems.append(f"{len(decisions)} decisions {kinds}, but {len(recorded)} were "
                        f"recorded: {was}")
    for n, (decision, event) in enumerate(zip(decisions, recorded)):
        kind = decision["decisionType"]
        if event["eventType"] not in OUTCOMES.get(kind, ()):
            problems.append(f"decision {n} is {kind}, but event {event['eventId']} is "
                            f"{event['eventType']}")
            continue
        recorded_attrs = attributes(event)
        for key, value in decision_attributes(decision).items():
            if key in recorded_attrs and recorded_attrs[key] != value:
                problems.append(f"decision {n} ({kind}) has {key} {value!r}, event "
                                f"{event['eventId']} has {recorded_attrs[key]!r}")
    return problems
