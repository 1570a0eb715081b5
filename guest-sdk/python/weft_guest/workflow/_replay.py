"""Runs workflow code over a history as its decision tasks saw it: the events up to each
``DecisionTaskStarted`` are applied, then the code runs as far as it goes, and what it issues is
matched with the decisions the history recorded for that task; what it issues at the task being
decided now is the answer. Events that came while a decision task ran are applied after its
recorded decisions, as the next task saw them. The workflow core's ``replay/`` (``guest-sdk/core``),
in Python, until this SDK runs on the core; held to it by the scenarios of
``guest-sdk/workflows.json``."""

from .. import decisions as d
from ..activity import Cancel, Failure
from ..events import attributes, event_type
from . import _shape

PENDING = object()
"""What an await not yet resolved yields to the driver."""


class NondeterminismError(Exception):
    """The workflow code issued other commands than the history recorded: it fails the
    decision task, which decides nothing."""


class ActivityError(Exception):
    """An activity, Lambda function or child workflow that did not complete, raised at its
    await. ``kind`` is ``failed``, ``timed_out``, ``canceled``, ``terminated`` or
    ``not_started``; ``reason`` is the failure's reason, the timeout type or SWF's cause. Its
    message says how it ended in words, as every SDK words it: ``REASON: DETAILS`` (or
    ``REASON``, or ``failed``), ``timed out (TYPE)``, ``could not be scheduled (CAUSE)``,
    ``canceled``, ``terminated``."""

    def __init__(self, kind, reason=None, details=None):
        super().__init__(_in_words(kind, reason, details))
        self.kind, self.reason, self.details = kind, reason, details


def _in_words(kind, reason, details):
    if kind == "failed":
        reason = "failed" if reason is None else reason
        return reason if details is None else f"{reason}: {details}"
    if kind == "timed_out":
        return f"timed out ({reason})"
    if kind == "not_started":
        return f"could not be scheduled ({reason})"
    return kind


class ContinueAsNew(Exception):
    """Raised by the workflow (``raise wf.continue_as_new(...)``): the run continues as new."""

    def __init__(self, decision):
        super().__init__("continue as new")
        self.decision = decision


class State:
    """One replay's state, shared by the workflow handle and every await."""

    def __init__(self, task):
        started = next((e for e in task.get("events", [])
                        if e["eventType"] == "WorkflowExecutionStarted"), None)
        self.input = attributes(started).get("input") if started else None
        self.execution = task.get("workflowExecution") or {"workflowId": "", "runId": ""}
        self.now = 0.0
        self.replaying = True
        self.task_patches = []
        self.patches = {}
        self.issued = []          # [(decision, slot or None)], not yet matched
        self.slots = []           # per awaited command: None, or (ok, value)
        self.children = {}        # slot -> the child run it started
        self.timers = {}          # timer id -> [slot, cancel issued]
        self.counters = {}
        self.signals = {}         # name -> [inputs]
        self.cancel_requested = False
        seed = 0xCBF29CE484222325
        for byte in self.execution.get("runId", "").encode():
            seed = ((seed ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        self._rng = seed

    def next(self, kind):
        self.counters[kind] = self.counters.get(kind, 0) + 1
        return self.counters[kind]

    def issue(self, decision, awaited):
        slot = None
        if awaited:
            self.slots.append(None)
            slot = len(self.slots) - 1
            if decision["decisionType"] == "StartTimer":
                self.timers[decision["startTimerDecisionAttributes"]["timerId"]] = [slot, False]
        self.issued.append((decision, slot))
        return slot

    def resolve(self, slot, ok, value):
        if self.slots[slot] is None:
            self.slots[slot] = (ok, value)

    def cancel_timer(self, timer_id):
        entry = self.timers.get(timer_id)
        if entry and not entry[1] and self.slots[entry[0]] is None:
            entry[1] = True
            self.issue(d.cancel_timer(timer_id), False)

    def random(self):
        """splitmix64, as the Rust SDK draws it."""
        mask = 0xFFFFFFFFFFFFFFFF
        self._rng = (self._rng + 0x9E3779B97F4A7C15) & mask
        z = self._rng
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)


_CLOSE_REFUSED = {
    "CompleteWorkflowExecutionFailed", "FailWorkflowExecutionFailed",
    "CancelWorkflowExecutionFailed", "ContinueAsNewWorkflowExecutionFailed",
}


def run(history, state, coroutine):
    """Replays ``coroutine`` (the workflow's, not yet started, over ``state``) over
    ``history`` and answers the decisions of the task being decided now."""
    replay = _Replay(state, coroutine, history.events)
    current = history.started_event_id
    matching, unseen, task_running = None, [], False
    for event in history.events:
        kind = event["eventType"]
        if matching is not None:
            found = _shape.recorded(event)
            if found and found[0] == matching:
                replay.matched(event["eventId"], found[1])
                unseen.append(event)
                continue
            replay.task_done(matching, event["eventId"])
            matching, task_running = None, False
            for e in unseen:
                replay.outside(e)
            unseen = []
        if kind == "DecisionTaskStarted" and event["eventId"] == current:
            # The task being decided: it saw what came before its start, and nothing after.
            replay.poll(event, True)
            break
        if kind == "DecisionTaskStarted":
            task_running = True
            replay.poll(event, False)
        elif kind == "DecisionTaskCompleted":
            matching = event["eventId"]
        elif kind == "DecisionTaskTimedOut":
            task_running = False
            for e in unseen:
                replay.outside(e)
            unseen = []
        elif task_running:
            unseen.append(event)
        else:
            replay.outside(event)
    if matching is not None:
        replay.task_done(matching, history.events[-1]["eventId"] if history.events else 0)
    decisions = [decision for decision, _ in state.issued]
    state.issued = []
    return decisions


class _Replay:
    def __init__(self, state, coroutine, events):
        self.state, self.coroutine = state, coroutine
        self.close, self.close_refused = None, False
        self.by_event = {}
        self.patches = _patches_by_task(events)

    def poll(self, started, current):
        state = self.state
        state.now = started.get("eventTimestamp", 0)
        state.replaying = not current
        state.task_patches = self.patches.pop(started["eventId"], [])
        if self.coroutine is not None:
            close = None
            try:
                self.coroutine.send(None)
            except StopIteration as done:
                close = d.complete(done.value)
            except ContinueAsNew as again:
                close = again.decision
            except Cancel as canceled:
                close = d.cancel(canceled.details)
            except Failure as failure:
                close = d.fail(failure.reason, failure.details)
            except ActivityError as error:
                close = (d.cancel(error.details) if error.kind == "canceled"
                         else d.fail(error.reason or error.kind, error.details))
            if close is not None:
                self.coroutine, self.close = None, close
                state.issue(close, False)
        elif self.close_refused and self.close is not None:
            self.close_refused = False
            state.issue(self.close, False)

    def matched(self, event_id, shape):
        state = self.state
        nxt = _shape.of_decision(state.issued[0][0]) if state.issued else None
        if nxt == shape:
            _, slot = state.issued.pop(0)
            if slot is not None:
                self.by_event[event_id] = slot
            return
        if shape[0] == "RecordMarker" and shape[1] == _shape.PATCH_MARKER:
            return  # a change the code no longer asks about: its marker stays in old histories
        if nxt is not None:
            raise NondeterminismError(
                f"nondeterminism at event {event_id}: the history has {_shape.show(shape)} "
                f"where the workflow code now decides {_shape.show(nxt)}")
        raise NondeterminismError(
            f"nondeterminism at event {event_id}: the history has {_shape.show(shape)}, which "
            "the workflow code no longer decides there")

    def task_done(self, task, event_id):
        if self.state.issued:
            extra = _shape.show(_shape.of_decision(self.state.issued[0][0]))
            raise NondeterminismError(
                f"nondeterminism at event {event_id}: the workflow code decides {extra} at the "
                f"decision task completed at event {task}, which the history does not have")

    def outside(self, event):
        state, kind, a, own = self.state, event["eventType"], attributes(event), event["eventId"]
        if kind == "WorkflowExecutionSignaled":
            state.signals.setdefault(a.get("signalName"), []).append(a.get("input"))
            return
        if kind == "WorkflowExecutionCancelRequested":
            state.cancel_requested = True
            return
        if kind in _CLOSE_REFUSED:
            self.close_refused = True
            return
        if kind == "ChildWorkflowExecutionStarted":
            slot = self.by_event.get(a.get("initiatedEventId"))
            if slot is not None:
                state.children.setdefault(slot, a.get("workflowExecution"))
            return
        found = _outcome(kind, a, own)
        if found is not None:
            by, ok, value = found
            slot = self.by_event.get(by)
            if slot is not None:
                state.resolve(slot, ok, value)


def _outcome(kind, a, own):
    """``(event that started the command, ok, value)`` if ``kind`` ends a command."""
    failed = lambda: ActivityError("failed", a.get("reason"), a.get("details"))  # noqa: E731
    timed_out = lambda: ActivityError("timed_out", a.get("timeoutType"), a.get("details"))  # noqa: E731
    canceled = lambda: ActivityError("canceled", None, a.get("details"))  # noqa: E731
    not_started = lambda: ActivityError("not_started", a.get("cause"))  # noqa: E731
    initiated = a.get("initiatedEventId") or own
    table = {
        "ActivityTaskCompleted": (a.get("scheduledEventId"), True, a.get("result")),
        "ActivityTaskFailed": (a.get("scheduledEventId"), False, failed),
        "ActivityTaskTimedOut": (a.get("scheduledEventId"), False, timed_out),
        "ActivityTaskCanceled": (a.get("scheduledEventId"), False, canceled),
        "ScheduleActivityTaskFailed": (own, False, not_started),
        "TimerFired": (a.get("startedEventId"), True, None),
        "TimerCanceled": (a.get("startedEventId"), False, canceled),
        "StartTimerFailed": (own, False, not_started),
        "ChildWorkflowExecutionCompleted": (a.get("initiatedEventId"), True, a.get("result")),
        "ChildWorkflowExecutionFailed": (a.get("initiatedEventId"), False, failed),
        "ChildWorkflowExecutionTimedOut": (a.get("initiatedEventId"), False, timed_out),
        "ChildWorkflowExecutionCanceled": (a.get("initiatedEventId"), False, canceled),
        "ChildWorkflowExecutionTerminated": (
            a.get("initiatedEventId"), False, lambda: ActivityError("terminated")),
        "StartChildWorkflowExecutionFailed": (initiated, False, not_started),
        "LambdaFunctionCompleted": (a.get("scheduledEventId"), True, a.get("result")),
        "LambdaFunctionFailed": (a.get("scheduledEventId"), False, failed),
        "LambdaFunctionTimedOut": (a.get("scheduledEventId"), False, timed_out),
        "ScheduleLambdaFunctionFailed": (own, False, not_started),
        "StartLambdaFunctionFailed": (a.get("scheduledEventId"), False, not_started),
        "ExternalWorkflowExecutionSignaled": (a.get("initiatedEventId"), True, None),
        "SignalExternalWorkflowExecutionFailed": (initiated, False, not_started),
        "ExternalWorkflowExecutionCancelRequested": (a.get("initiatedEventId"), True, None),
        "RequestCancelExternalWorkflowExecutionFailed": (initiated, False, not_started),
    }
    found = table.get(kind)
    if found is None:
        return None
    by, ok, value = found
    return by, ok, (value if ok else value())


def _patches_by_task(events):
    started_of, patches = {}, {}
    for event in events:
        kind, a = event_type(event), attributes(event)
        if kind == "DecisionTaskCompleted":
            started_of[event["eventId"]] = a.get("startedEventId")
        elif kind == "MarkerRecorded" and a.get("markerName") == _shape.PATCH_MARKER:
            started = started_of.get(a.get("decisionTaskCompletedEventId"))
            if started is not None:
                patches.setdefault(started, []).append(a.get("details") or "")
    return patches
