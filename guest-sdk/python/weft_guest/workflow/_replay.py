"""Runs workflow code over a history on the workflow core (``weft_guest._core``), which walks
the history task by task, matches what the code issues with what the history recorded, and
keeps what the code shares: its commands' outcomes, signals, the clock, randomness and patches.
Here is only what is Python's: driving the coroutine at each task the core begins, and the
errors an await raises."""

from .. import decisions as d
from .._core import ask
from ..activity import Cancel, Failure

PENDING = object()
"""What an await not yet resolved yields to the driver."""


class NondeterminismError(Exception):
    """The workflow code issued other commands than the history recorded: it fails the
    decision task, which decides nothing."""


class ActivityError(Exception):
    """An activity, Lambda function or child workflow that did not complete, raised at its
    await. ``kind`` is ``failed``, ``timed_out``, ``canceled``, ``terminated`` or
    ``not_started``; ``reason`` is the failure's reason, the timeout type or SWF's cause. Its
    message says how it ended in the words every SDK uses (the core's): ``REASON: DETAILS`` (or
    ``REASON``, or ``failed``), ``timed out (TYPE)``, ``could not be scheduled (CAUSE)``,
    ``canceled``, ``terminated``."""

    def __init__(self, kind, reason=None, details=None, words=None):
        super().__init__(kind if words is None else words)
        self.kind, self.reason, self.details = kind, reason, details


class ContinueAsNew(Exception):
    """Raised by the workflow (``raise wf.continue_as_new(...)``): the run continues as new."""

    def __init__(self, decision):
        super().__init__("continue as new")
        self.decision = decision


class State:
    """One replay on the core: what the workflow handle and every await ask. What the code reads
    (outcomes, started children, signals) the core hands over at each task; what it does goes to
    the core in the batch of the next request, so that a task costs few crossings."""

    def __init__(self, task=None):
        # Without a task (in a component): the task being decided, which the host holds.
        begin = {"op": "begin"}
        if task is not None:
            begin["task"] = {
                "events": task.get("events", []),
                "workflowExecution": task.get("workflowExecution"),
                "startedEventId": task.get("startedEventId"),
            }
        begun = ask(begin)
        self.input = begun["input"]
        self.execution = {"workflowId": begun["workflowId"], "runId": begun["runId"]}
        self.workflow_type = begun.get("workflowType") or {}
        self.now, self.replaying, self.cancel_requested = 0.0, True, False
        self.batch, self.slots = [], 0
        self.outcomes, self.children, self.signals = {}, {}, {}

    def ask(self, request, nondeterminism=RuntimeError):
        """Asks the core, after it applies the batch."""
        if self.batch:
            request, self.batch = dict(request, batch=self.batch), []
        return ask(request, nondeterminism)

    def issue(self, decision, awaited):
        """Issues ``decision`` (with a default id if it names none): its slot if ``awaited``."""
        self.batch.append({"op": "issue", "decision": decision, "awaited": awaited})
        if not awaited:
            return None
        self.slots += 1
        return self.slots - 1

    def outcome(self, slot):
        """How the command of ``slot`` ended, ``(ok, result or ActivityError)``, or ``None``."""
        return self.outcomes.get(slot)

    def child(self, slot):
        """The child run the command of ``slot`` started, once it has."""
        return self.children.get(slot)

    def take_signal(self, name):
        """The input of the oldest signal ``name`` not taken yet, or ``PENDING``."""
        queue = self.signals.get(name)
        return queue.pop(0) if queue else PENDING

    def cancel_timer(self, timer_id):
        """Cancels the timer ``timer_id``."""
        self.batch.append({"op": "cancelTimer", "id": timer_id})

    def cancel(self, target):
        """Asks to cancel a command, once and only while it has not ended: ``target`` names it,
        ``{"slot": N}``, ``{"activityId": ID}`` or ``{"childWorkflowId": ID}``."""
        self.batch.append({"op": "cancel", **target})

    def patched(self, change):
        return self.ask({"op": "patched", "change": change})

    def deprecate_patch(self, change):
        self.batch.append({"op": "deprecatePatch", "change": change})

    def random(self):
        """The next number (64 bits) of the run's seeded sequence."""
        return int(self.ask({"op": "random"}))

    def next(self):
        """Begins the next decision task, taking what the core hands over; false once done."""
        begun = self.ask({"op": "next"}, NondeterminismError)
        if begun is None:
            return False
        self.now = begun["now"]
        self.replaying, self.cancel_requested = begun["replaying"], begun["cancelRequested"]
        for slot, outcome in begun["outcomes"]:
            self.outcomes[slot] = _settled(outcome)
        for slot, run in begun["children"]:
            self.children[slot] = run
        for name, signal_input in begun["signals"]:
            self.signals.setdefault(name, []).append(signal_input)
        return True


def _settled(outcome):
    """An outcome as the core says it: ``(ok, result or ActivityError)``."""
    if "result" in outcome:
        return True, outcome["result"]
    f = outcome["failure"]
    return False, ActivityError(f["ending"], f["reason"], f["details"], f["words"])


def run(state, coroutine):
    """Replays ``coroutine`` (the workflow's, not yet started, over ``state``) and answers the
    decisions of the task being decided now."""
    while state.next():
        close = _step(coroutine)
        if close is not None:
            state.batch.append({"op": "close", "decision": close})
    return state.ask({"op": "answer"})


def _step(coroutine):
    """Runs ``coroutine`` until it waits; the decision that closes the run if it ended."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return d.complete(done.value)
    except ContinueAsNew as again:
        return again.decision
    except Cancel as canceled:
        return d.cancel(canceled.details)
    except Failure as failure:
        return d.fail(failure.reason, failure.details)
    except ActivityError as error:
        return (d.cancel(error.details) if error.kind == "canceled"
                else d.fail(error.reason or error.kind, error.details))
    return None
