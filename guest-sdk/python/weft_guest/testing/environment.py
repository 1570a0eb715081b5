"""Runs a whole workflow natively, without a server: activities, functions and children
replaced by functions, timers fired by skipping time, signals, cancel requests and termination
at chosen times. The Rust SDK's ``testing::Environment``, in Python."""

from functools import partial

from ..activity import Failure
from ..events import CLOSE_DECISIONS, attributes, decision_attributes
from ..payload import encode
from .builder import HistoryBuilder

__all__ = ["Environment", "Finished"]


class Finished:
    """How a run in an :class:`Environment` ended: ``close`` (the closing decision, or ``None``
    if nothing was left to happen or it was terminated), ``events`` (its whole history) and
    ``elapsed`` (seconds of history time, time skipped included)."""

    def __init__(self, close, events, elapsed):
        self.close, self.events, self.elapsed = close, events, elapsed

    @property
    def result(self):
        """The result it completed with, if it completed."""
        if self.close and self.close["decisionType"] == "CompleteWorkflowExecution":
            return decision_attributes(self.close).get("result")
        return None

    @property
    def failure(self):
        """``(reason, details)`` it failed with, if it failed."""
        if self.close and self.close["decisionType"] == "FailWorkflowExecution":
            a = decision_attributes(self.close)
            return a.get("reason"), a.get("details")
        return None

    @property
    def terminated(self):
        """Whether it was terminated (:meth:`Environment.terminate`)."""
        return bool(self.of_type("WorkflowExecutionTerminated"))

    def of_type(self, event_type):
        """The events of ``event_type``, in order."""
        return [e for e in self.events if e["eventType"] == event_type]


class Environment:
    """A workflow run from start to close on a :class:`HistoryBuilder`, in no real time: each
    activity (Lambda function, child workflow) is answered by the function given for its type
    (a result, or raise :class:`weft_guest.Failure`), at once unless an activity is given
    ``seconds``; when nothing else can happen, time skips to what happens next (a signal, a
    cancel request or termination given, a timer, an activity's end), so a 30-day timer takes
    no time, and what comes due meanwhile happens before the next decision task (each event
    takes a second)::

        run = (Environment("Hello", "1.0", input="Ada")
               .activity("Greet", lambda name: f"Hello, {name}!")
               .run(greet.__weft_decide__))
        assert run.result == "Hello, Ada!"
    """

    def __init__(self, name, version, input=None):
        self.history = HistoryBuilder(name, version, input)
        # (kind, name): (run, seconds it takes, whether it ignores a cancel request)
        self._stand_ins = {}
        self._chosen = []  # (seconds into the run, what it records on the history)
        self.max_tasks = 1000

    def activity(self, name, run, *, seconds=0, ignores_cancel=False):
        """Answers every activity of type ``name`` with ``run(input)``: at once, or, with
        ``seconds``, that long after it is scheduled (started at once, running meanwhile). A
        running activity the workflow cancels (``RequestCancelActivityTask``) ends canceled
        at once (``ActivityTaskCanceled``), unless it ``ignores_cancel`` and ends when it
        would have."""
        self._stand_ins[("activity", name)] = (run, seconds, ignores_cancel)
        return self

    def lambda_function(self, name, run):
        """Answers every call of the Lambda function ``name`` with ``run(input)``."""
        self._stand_ins[("lambda", name)] = (run, 0, False)
        return self

    def child(self, name, run):
        """Runs every child workflow of type ``name`` as ``run(input)``."""
        self._stand_ins[("child", name)] = (run, 0, False)
        return self

    def signal(self, after, name, input=None):
        """Sends the signal ``name`` ``after`` seconds into the run."""
        return self._at(after, partial(self.history.signal, name, input))

    def request_cancel(self, after):
        """Asks the run to cancel ``after`` seconds into it
        (``WorkflowExecutionCancelRequested``), as ``RequestCancelWorkflowExecution`` does:
        the workflow hears it by ``wf.cancellation()``."""
        return self._at(after, self.history.cancel_requested)

    def terminate(self, after, reason=None, details=None):
        """Terminates the run ``after`` seconds into it if it is still open
        (``WorkflowExecutionTerminated``), as ``TerminateWorkflowExecution`` does: it ends
        there, without a decision, and :attr:`Finished.terminated` says so."""
        return self._at(after, partial(self._terminated, reason, details))

    def _at(self, after, record):
        self._chosen.append((after, record))
        return self

    def _terminated(self, reason, details):
        h = self.history
        h.event("WorkflowExecutionTerminated", {
            "reason": reason, "details": details,
            "childPolicy": attributes(h.events[0])["childPolicy"]})

    def run(self, decide):
        """Runs the run with ``decide`` (a workflow's ``__weft_decide__``, or any decider)
        until it closes, is terminated or nothing is left to happen. A decider's exception
        (such as a :class:`NondeterminismError`) propagates."""
        h = self.history
        start = h.events[0]["eventTimestamp"]
        # What is to happen: [time, rank, key, record]. At one time, what was chosen comes
        # first (in the order given), then a timer, then an activity's end. The key, a timer's
        # or an activity's that heeds a cancel request, lets a decision withdraw it.
        coming = [[start + after, 0, None, record]
                  for after, record in sorted(self._chosen, key=lambda c: c[0])]
        for _ in range(self.max_tasks):
            decisions = h.decide(decide)
            now = h.events[-1]["eventTimestamp"]
            answered = False
            for decision in decisions:
                kind, a = decision["decisionType"], decision_attributes(decision)
                if kind == "StartTimer":
                    fires = now + float(a["startToFireTimeout"])
                    coming.append([fires, 1, ("timer", a["timerId"]),
                                   partial(h.timer_fired, a["timerId"])])
                elif kind == "CancelTimer":
                    _withdraw(coming, ("timer", a["timerId"]))
                elif kind == "RequestCancelActivityTask":
                    if _withdraw(coming, ("activity", a["activityId"])):
                        h.activity_canceled(a["activityId"])
                        answered = True
                else:
                    answered |= self._answer(kind, a, now, coming)
                if kind in CLOSE_DECISIONS:
                    return Finished(decision, h.events, h.events[-1]["eventTimestamp"] - start)
            # With nothing answered, time skips to what comes next; either way, what is due by
            # then happens before the next decision task (as the other SDKs' Environments do).
            happened = answered
            while coming:
                happening = min(coming, key=lambda c: c[:2])
                if happened and happening[0] > h.events[-1]["eventTimestamp"]:
                    break
                coming.remove(happening)
                h.advance(max(happening[0] - h.events[-1]["eventTimestamp"], 0))
                happening[3]()
                if h.events[-1]["eventType"] == "WorkflowExecutionTerminated":
                    return Finished(None, h.events, h.events[-1]["eventTimestamp"] - start)
                happened = True
            if not happened:
                return Finished(None, h.events, h.events[-1]["eventTimestamp"] - start)
        raise AssertionError(f"the run did not close in {self.max_tasks} decision tasks")

    def _answer(self, kind, a, now, coming):
        """Answers a decision that runs a stand-in: whether it ended at once."""
        what = {
            "ScheduleActivityTask": ("activity", lambda: a["activityType"]["name"], "activityId"),
            "ScheduleLambdaFunction": ("lambda", lambda: a["name"], "id"),
            "StartChildWorkflowExecution": ("child", lambda: a["workflowType"]["name"], "workflowId"),
        }.get(kind)
        if what is None:
            return False
        stand_in, name, id_key = what[0], what[1](), what[2]
        found = self._stand_ins.get((stand_in, name))
        if found is None:
            raise AssertionError(f"no stand-in for the {stand_in} {name}: give one to the Environment")
        run, seconds, ignores_cancel = found
        end = partial(self._end, stand_in, a[id_key], run, a.get("input"))
        if not seconds:
            end()
            return True
        self.history.activity_started(a[id_key])
        key = None if ignores_cancel else ("activity", a[id_key])
        coming.append([now + seconds, 2, key, end])
        return False

    def _end(self, stand_in, id_, run, input):
        """Records how ``run(input)`` ends the ``stand_in`` ``id_``."""
        h = self.history
        try:
            result = encode(run(input))
        except Failure as f:
            getattr(h, f"{stand_in}_failed")(id_, f.reason, f.details)
        else:
            getattr(h, f"{stand_in}_completed")(id_, result)


def _withdraw(coming, key):
    """Takes what ``key`` names out of ``coming``: whether it was there."""
    for c in coming:
        if c[2] == key:
            coming.remove(c)
            return True
    return False
