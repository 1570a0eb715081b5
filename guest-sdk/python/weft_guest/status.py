"""What a history says of one activity, child workflow, Lambda function or timer, and of the
signals and markers it holds: the answers of :class:`~weft_guest.History`'s queries.

Each state is a small frozen dataclass, so a decider can ``match`` on them::

    match history.activity("charge"):
        case None: ...                       # not scheduled yet
        case Status.Completed(result): ...   # go on with the receipt
        case status if status.is_open: ...   # wait
        case Status.Failed(reason, details): ...
"""

from dataclasses import dataclass
from typing import Optional

from . import payload

__all__ = [
    "Status", "Scheduled", "Started", "CancelRequested", "Completed", "Failed", "TimedOut",
    "Canceled", "Terminated", "NotStarted",
    "Timer", "TimerStarted", "TimerFired", "TimerCanceled", "TimerStartFailed",
    "Signal", "Marker",
]


class Status:
    """Where an activity, a child workflow or a Lambda function stands. Its states are the
    subclasses below, also reachable as ``Status.Scheduled``, ``Status.Completed``, ..."""

    __slots__ = ()

    @property
    def is_open(self):
        """Whether it may still make progress: scheduled, started or asked to cancel."""
        return isinstance(self, (Scheduled, Started, CancelRequested))

    @property
    def is_completed(self):
        """Whether it completed (with or without a result)."""
        return isinstance(self, Completed)

    @property
    def result(self):
        """The result, if it completed with one; else ``None``."""
        return None

    def result_json(self, default=None):
        """The result decoded from JSON, if it completed with one; else ``default``. Raises
        :class:`~weft_guest.payload.PayloadError` if the result is not JSON."""
        result = self.result
        return default if result is None else payload.loads(result, "the result")


@dataclass(frozen=True)
class Scheduled(Status):
    """Scheduled (or, for a child, initiated), not started yet."""


@dataclass(frozen=True)
class Started(Status):
    """Running."""


@dataclass(frozen=True)
class CancelRequested(Status):
    """Running, and the decider asked it to cancel (activities only)."""


@dataclass(frozen=True)
class Completed(Status):
    """Completed, with its result."""

    result: Optional[str] = None


@dataclass(frozen=True)
class Failed(Status):
    """Failed: why in short, and more detail."""

    reason: Optional[str] = None
    details: Optional[str] = None


@dataclass(frozen=True)
class TimedOut(Status):
    """Timed out; the SWF timeout type, e.g. ``START_TO_CLOSE`` or ``HEARTBEAT``."""

    timeout_type: str = "START_TO_CLOSE"


@dataclass(frozen=True)
class Canceled(Status):
    """Canceled, with optional details."""

    details: Optional[str] = None


@dataclass(frozen=True)
class Terminated(Status):
    """Terminated (children only)."""


@dataclass(frozen=True)
class NotStarted(Status):
    """The decision to schedule or start it failed; the SWF cause, e.g.
    ``ACTIVITY_TYPE_DOES_NOT_EXIST``."""

    cause: str


for _state in (Scheduled, Started, CancelRequested, Completed, Failed, TimedOut, Canceled,
               Terminated, NotStarted):
    setattr(Status, _state.__name__, _state)


class Timer:
    """Where a timer stands, with the event that put it there. Its states are the subclasses
    below, also reachable as ``Timer.Started``, ``Timer.Fired``, ``Timer.Canceled`` and
    ``Timer.StartFailed``."""

    __slots__ = ()

    @property
    def is_open(self):
        """Whether it is still running."""
        return isinstance(self, TimerStarted)


@dataclass(frozen=True)
class TimerStarted(Timer):
    """Started, not fired yet; ``event_id`` is its ``TimerStarted`` event."""

    event_id: int


@dataclass(frozen=True)
class TimerFired(Timer):
    """Fired; ``event_id`` is its ``TimerFired`` event."""

    event_id: int


@dataclass(frozen=True)
class TimerCanceled(Timer):
    """Canceled by the decider; ``event_id`` is its ``TimerCanceled`` event."""

    event_id: int


@dataclass(frozen=True)
class TimerStartFailed(Timer):
    """The decision to start it failed (``StartTimerFailed``), with the SWF cause."""

    event_id: int
    cause: str


Timer.Started = TimerStarted
Timer.Fired = TimerFired
Timer.Canceled = TimerCanceled
Timer.StartFailed = TimerStartFailed


@dataclass(frozen=True)
class Signal:
    """A signal the execution received (``WorkflowExecutionSignaled``)."""

    name: str
    input: Optional[str]
    event_id: int

    def input_json(self, default=None):
        """The input decoded from JSON, or ``default`` if there is none."""
        return default if self.input is None else payload.loads(self.input, "the signal's input")


@dataclass(frozen=True)
class Marker:
    """A marker the decider recorded (``MarkerRecorded``)."""

    name: str
    details: Optional[str]
    event_id: int

    def details_json(self, default=None):
        """The details decoded from JSON, or ``default`` if there are none."""
        if self.details is None:
            return default
        return payload.loads(self.details, "the marker's details")
