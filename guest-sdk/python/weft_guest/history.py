"""A decision task's history, with the queries a decider needs."""

import bisect

from . import payload
from .events import DECISION_TASK_EVENTS, attributes
from .status import (
    CancelRequested, Canceled, Completed, Failed, Marker, NotStarted, Scheduled, Signal, Started,
    Terminated, TimedOut, TimerCanceled, TimerFired, TimerStarted, TimerStartFailed,
)

__all__ = ["History"]


class History:
    """A decision task, with queries over its execution's history.

    ``task`` is the decision task in wire JSON, as ``PollForDecisionTask`` answers it:
    ``events`` (oldest first, ending with this task's ``DecisionTaskStarted``),
    ``previousStartedEventId``, ``startedEventId``, ``workflowExecution`` and
    ``workflowType``. Queries about one activity, child, function or timer follow the latest
    one with that id (an id may be reused once its previous holder has closed).
    """

    def __init__(self, task):
        self.task = task
        self._ids = [e["eventId"] for e in self.events]

    def __repr__(self):
        return f"History({len(self.events)} events, started {self.started_event_id})"

    def __eq__(self, other):
        return isinstance(other, History) and self.task == other.task

    @property
    def events(self):
        """Every event so far, oldest first (wire dicts)."""
        return self.task.get("events", [])

    @property
    def workflow_type(self):
        """The execution's workflow type: ``{"name": ..., "version": ...}``."""
        return self.task.get("workflowType") or self.started().get("workflowType")

    @property
    def workflow_execution(self):
        """The execution: ``{"workflowId": ..., "runId": ...}``."""
        return self.task.get("workflowExecution")

    @property
    def started_event_id(self):
        """This task's ``DecisionTaskStarted`` event."""
        return self.task.get("startedEventId", 0)

    @property
    def previous_started_event_id(self):
        """The ``DecisionTaskStarted`` event of the previous decision task this decider
        completed, 0 if none."""
        return self.task.get("previousStartedEventId") or 0

    def new_events(self):
        """The events since the previous decision task this decider completed (all of them on
        the first decision task)."""
        return self.events[bisect.bisect_right(self._ids, self.previous_started_event_id):]

    def is_new(self, event_id):
        """Whether ``event_id`` is one of the :meth:`new_events`."""
        return event_id > self.previous_started_event_id

    def is_first_decision(self):
        """Whether this is the execution's first decision task."""
        return self.previous_started_event_id == 0

    def started(self):
        """The ``WorkflowExecutionStarted`` event's attributes: input, timeouts, task list,
        parent, Lambda role (an empty dict if the history lacks it)."""
        for e in self.events:
            if e["eventType"] == "WorkflowExecutionStarted":
                return attributes(e)
        return {}

    def input(self):
        """The execution's input, or ``None``."""
        return self.started().get("input")

    def input_json(self, default=None):
        """The execution's input decoded from JSON, or ``default`` if it has none. Raises
        :class:`~weft_guest.payload.PayloadError` if it is not JSON."""
        text = self.input()
        return default if text is None else payload.loads(text, "the input")

    def last_event(self):
        """The latest event other than the decision tasks' own: usually what this decision
        task was scheduled for."""
        for e in reversed(self.events):
            if e["eventType"] not in DECISION_TASK_EVENTS:
                return e
        return None

    def cancel_requested(self):
        """Whether cancellation of the execution was requested
        (``WorkflowExecutionCancelRequested``)."""
        return any(e["eventType"] == "WorkflowExecutionCancelRequested" for e in self.events)

    def signals(self):
        """Every signal received, oldest first: a list of :class:`~weft_guest.Signal`."""
        return _signals(self.events)

    def new_signals(self):
        """The signals received since the previous decision task."""
        return _signals(self.new_events())

    def markers(self):
        """Every marker recorded, oldest first: a list of :class:`~weft_guest.Marker`."""
        return [
            Marker(a.get("markerName"), a.get("details"), e["eventId"])
            for e in self.events
            if e["eventType"] == "MarkerRecorded"
            for a in (attributes(e),)
        ]

    def marker(self, name):
        """The latest marker named ``name``, or ``None``."""
        return next((m for m in reversed(self.markers()) if m.name == name), None)

    def activity(self, activity_id):
        """Where the latest activity with this id stands (a :class:`~weft_guest.Status`);
        ``None`` if none was ever scheduled."""
        found = self._latest(
            ("ActivityTaskScheduled", "ScheduleActivityTaskFailed"), "activityId", activity_id)
        if found is None:
            return None
        start, scheduled = found
        if scheduled["eventType"] == "ScheduleActivityTaskFailed":
            return NotStarted(attributes(scheduled).get("cause"))
        sid = scheduled["eventId"]
        status = Scheduled()
        for e in self.events[start + 1:]:
            kind, a = e["eventType"], attributes(e)
            if kind == "ActivityTaskCancelRequested":
                if a.get("activityId") == activity_id:
                    status = CancelRequested()
                continue
            if a.get("scheduledEventId") != sid:
                continue
            if kind == "ActivityTaskStarted" and status == Scheduled():
                status = Started()
            elif kind == "ActivityTaskCompleted":
                return Completed(a.get("result"))
            elif kind == "ActivityTaskFailed":
                return Failed(a.get("reason"), a.get("details"))
            elif kind == "ActivityTaskTimedOut":
                return TimedOut(a.get("timeoutType"))
            elif kind == "ActivityTaskCanceled":
                return Canceled(a.get("details"))
        return status

    def child(self, workflow_id):
        """Where the latest child execution with this workflow id stands; ``None`` if none was
        ever initiated."""
        found = self._latest(
            ("StartChildWorkflowExecutionInitiated", "StartChildWorkflowExecutionFailed"),
            "workflowId", workflow_id)
        if found is None:
            return None
        start, initiated = found
        if initiated["eventType"] == "StartChildWorkflowExecutionFailed":
            return NotStarted(attributes(initiated).get("cause"))
        iid = initiated["eventId"]
        status = Scheduled()
        for e in self.events[start + 1:]:
            kind, a = e["eventType"], attributes(e)
            if a.get("initiatedEventId") != iid:
                continue
            if kind == "StartChildWorkflowExecutionFailed":
                return NotStarted(a.get("cause"))
            if kind == "ChildWorkflowExecutionStarted":
                status = Started()
            elif kind == "ChildWorkflowExecutionCompleted":
                return Completed(a.get("result"))
            elif kind == "ChildWorkflowExecutionFailed":
                return Failed(a.get("reason"), a.get("details"))
            elif kind == "ChildWorkflowExecutionTimedOut":
                return TimedOut(a.get("timeoutType") or "START_TO_CLOSE")
            elif kind == "ChildWorkflowExecutionCanceled":
                return Canceled(a.get("details"))
            elif kind == "ChildWorkflowExecutionTerminated":
                return Terminated()
        return status

    def lambda_function(self, function_id):
        """Where the latest Lambda function with this id stands; ``None`` if none was ever
        scheduled. (``lambda`` is a Python keyword, hence the name.)"""
        found = self._latest(
            ("LambdaFunctionScheduled", "ScheduleLambdaFunctionFailed"), "id", function_id)
        if found is None:
            return None
        start, scheduled = found
        if scheduled["eventType"] == "ScheduleLambdaFunctionFailed":
            return NotStarted(attributes(scheduled).get("cause"))
        sid = scheduled["eventId"]
        status = Scheduled()
        for e in self.events[start + 1:]:
            kind, a = e["eventType"], attributes(e)
            if a.get("scheduledEventId") != sid:
                continue
            if kind == "LambdaFunctionStarted":
                status = Started()
            elif kind == "StartLambdaFunctionFailed":
                return NotStarted(a.get("cause") or "UNKNOWN")
            elif kind == "LambdaFunctionCompleted":
                return Completed(a.get("result"))
            elif kind == "LambdaFunctionFailed":
                return Failed(a.get("reason"), a.get("details"))
            elif kind == "LambdaFunctionTimedOut":
                return TimedOut(a.get("timeoutType") or "START_TO_CLOSE")
        return status

    def timer(self, timer_id):
        """Where the latest timer with this id stands (a :class:`~weft_guest.Timer`); ``None``
        if none was ever started."""
        found = self._latest(("TimerStarted", "StartTimerFailed"), "timerId", timer_id)
        if found is None:
            return None
        start, started = found
        sid = started["eventId"]
        if started["eventType"] == "StartTimerFailed":
            return TimerStartFailed(sid, attributes(started).get("cause"))
        for e in self.events[start + 1:]:
            kind = e["eventType"]
            if kind in ("TimerFired", "TimerCanceled") and \
                    attributes(e).get("startedEventId") == sid:
                return (TimerFired if kind == "TimerFired" else TimerCanceled)(e["eventId"])
        return TimerStarted(sid)

    def _latest(self, kinds, key, value):
        """The index and event of the latest event of one of ``kinds`` whose attribute ``key``
        is ``value``."""
        for index in range(len(self.events) - 1, -1, -1):
            e = self.events[index]
            if e["eventType"] in kinds and attributes(e).get(key) == value:
                return index, e
        return None


def _signals(events):
    return [
        Signal(a.get("signalName"), a.get("input"), e["eventId"])
        for e in events
        if e["eventType"] == "WorkflowExecutionSignaled"
        for a in (attributes(e),)
    ]
