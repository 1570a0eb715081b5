"""Activity workers and functions: tasks, outcomes, failures, heartbeats, and the worker that
dispatches a task to the activity registered for its type."""

import sys
import traceback
from dataclasses import dataclass
from typing import Optional

from . import log, payload

__all__ = ["ActivityTask", "Failure", "Cancel", "Outcome", "ActivityWorker", "heartbeat"]

# SWF's limits on a failure's reason and details.
_REASON_LIMIT = 256
_DETAILS_LIMIT = 32768


@dataclass(frozen=True)
class ActivityTask:
    """An activity task: which activity, of which type, for which execution, with what input.
    ``activity_type`` and ``workflow_execution`` are wire dicts, as ``PollForActivityTask``
    answers them."""

    activity_id: str
    activity_type: dict
    workflow_execution: dict
    input: Optional[str] = None
    started_event_id: int = 0

    @classmethod
    def from_wire(cls, task):
        """The task from its wire JSON (``PollForActivityTask``'s answer)."""
        return cls(task["activityId"], task["activityType"], task["workflowExecution"],
                   task.get("input"), task.get("startedEventId", 0))

    @property
    def name(self):
        """The activity type's name."""
        return self.activity_type["name"]

    @property
    def version(self):
        """The activity type's version."""
        return self.activity_type["version"]

    def input_json(self):
        """The input decoded from JSON. Raises :class:`Failure` (which fails the task) with
        reason ``the activity needs an input`` if there is none, or ``the input is not JSON``."""
        if self.input is None:
            raise Failure("the activity needs an input")
        try:
            return payload.loads(self.input)
        except payload.PayloadError as e:
            raise Failure("the input is not JSON", str(e.__cause__ or e)) from None


class Failure(Exception):
    """Why an activity or a function failed: a short reason and optional details. Raise it (or
    return it) to fail the task. Details that are not a string are encoded as JSON."""

    def __init__(self, reason, details=None):
        super().__init__(reason)
        self.reason = reason
        self.details = payload.encode(details)

    def __eq__(self, other):
        return isinstance(other, Failure) and (self.reason, self.details) == \
            (other.reason, other.details)

    def __hash__(self):
        return hash((self.reason, self.details))

    def __repr__(self):
        return f"Failure({self.reason!r}, {self.details!r})"

    @classmethod
    def of(cls, error):
        """The failure an unexpected exception stands for: its type and message, and the
        traceback as details."""
        reason = f"{type(error).__name__}: {error}"[:_REASON_LIMIT]
        details = "".join(traceback.format_exception(error))[-_DETAILS_LIMIT:]
        return cls(reason, details)


class Cancel(Exception):
    """Raise it to end an activity task as canceled (after :func:`heartbeat` answered that
    cancellation was requested), with optional details."""

    def __init__(self, details=None):
        super().__init__(details)
        self.details = payload.encode(details)


@dataclass(frozen=True)
class Outcome:
    """How an activity task ended: ``kind`` is ``completed`` (with ``result``), ``failed``
    (with ``failure``) or ``canceled`` (with ``details``)."""

    kind: str
    result: Optional[str] = None
    failure: Optional[Failure] = None
    details: Optional[str] = None

    @classmethod
    def completed(cls, result=None):
        """Done, with an optional result (a string, or anything else as JSON)."""
        return cls("completed", result=payload.encode(result))

    @classmethod
    def failed(cls, reason, details=None):
        """Failed with this reason and details."""
        return cls("failed", failure=Failure(reason, details))

    @classmethod
    def canceled(cls, details=None):
        """Stopped because cancellation was requested."""
        return cls("canceled", details=payload.encode(details))

    @classmethod
    def of(cls, answer):
        """What an activity's return value means: an :class:`Outcome` as it is, a
        :class:`Failure` fails, anything else completes with it as the result."""
        if isinstance(answer, Outcome):
            return answer
        if isinstance(answer, Failure):
            return cls("failed", failure=answer)
        return cls.completed(answer)


class ActivityWorker:
    """Runs activity tasks, each by the function registered for its activity type::

        worker = weft_guest.ActivityWorker()

        @worker.activity("VerifyOrder", "1.0")
        def verify(task):
            return {"verified": True}   # the result, as JSON

    A function answers its result (a string or ``None`` as they are, anything else as JSON), a
    :class:`Failure` or an :class:`Outcome`, or raises :class:`Failure` or :class:`Cancel`. Any
    other exception fails the task with its type and message as the reason. A task of a type
    with no function fails with reason ``unknown activity type <name>``.
    """

    def __init__(self):
        self._activities = {}

    def activity(self, name, version=None):
        """Registers the decorated function for activity type ``name`` at ``version`` (at any
        version if ``None``)."""
        def register(function):
            self._activities[(name, version)] = function
            return function
        return register

    def function_for(self, name, version):
        """The function registered for this activity type, or ``None``."""
        return self._activities.get((name, version)) or self._activities.get((name, None))

    def run(self, task):
        """Runs ``task`` (an :class:`ActivityTask`, or its wire dict) and answers its
        :class:`Outcome`."""
        if isinstance(task, dict):
            task = ActivityTask.from_wire(task)
        function = self.function_for(task.name, task.version)
        if function is None:
            return Outcome.failed(f"unknown activity type {task.name}")
        try:
            return Outcome.of(function(task))
        except Failure as failure:
            return Outcome("failed", failure=failure)
        except Cancel as cancel:
            return Outcome.canceled(cancel.details)
        except Exception as error:  # noqa: BLE001 - a guest's bug fails its task, not the host
            log.error(f"activity {task.name} ({task.activity_id}) raised: {error!r}")
            return Outcome("failed", failure=Failure.of(error))


def invoke(function, input):
    """Runs a function guest's ``function`` on ``input``: its result as a payload string, or
    the :class:`Failure` it raised (or returned, or an unexpected exception stands for)."""
    try:
        answer = function(input)
    except Failure as failure:
        return failure
    except Exception as error:  # noqa: BLE001 - a guest's bug fails its call, not the host
        log.error(f"the function raised: {error!r}")
        return Failure.of(error)
    return answer if isinstance(answer, Failure) else payload.encode(answer)


def heartbeat(details=None):
    """Tells the service the activity task is alive, with optional progress details (at most
    2,048 characters), which restarts its heartbeat timeout. Answers whether cancellation of
    the task was requested: the worker should then stop, e.g. ``raise weft_guest.Cancel()``.

    Only activity workers may call it. Outside a component (in unit tests) it calls
    :data:`native_heartbeat`, which answers ``False``; a test may replace it.
    """
    details = payload.encode(details)
    if sys.platform == "wasi":
        from wit_world.imports import heartbeat as host  # generated for the activity-worker world
        return host.record_heartbeat(details)
    return native_heartbeat(details)


def native_heartbeat(details):
    """What :func:`heartbeat` does outside a component: nothing, and no cancellation."""
    return False
