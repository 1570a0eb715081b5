"""Runs a whole workflow natively, without a server: activities, functions and children
replaced by functions, timers fired by skipping time, signals delivered at chosen times. The
Rust SDK's ``testing::Environment``, in Python."""

from ..activity import Failure
from ..events import CLOSE_DECISIONS, decision_attributes
from ..payload import encode
from .builder import HistoryBuilder

__all__ = ["Environment", "Finished"]


class Finished:
    """How a run in an :class:`Environment` ended: ``close`` (the closing decision, or ``None``
    if nothing was left to happen), ``events`` (its whole history) and ``elapsed`` (seconds of
    history time, time skipped included)."""

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

    def of_type(self, event_type):
        """The events of ``event_type``, in order."""
        return [e for e in self.events if e["eventType"] == event_type]


class Environment:
    """A workflow run from start to close on a :class:`HistoryBuilder`, in no real time: each
    activity (Lambda function, child workflow) is answered at once by the function given for
    its type (a result, or raise :class:`weft_guest.Failure`); when nothing else can happen, time
    skips to the next signal or timer, so a 30-day timer takes no time::

        run = (Environment("Hello", "1.0", input="Ada")
               .activity("Greet", lambda name: f"Hello, {name}!")
               .run(greet.__weft_decide__))
        assert run.result == "Hello, Ada!"
    """

    def __init__(self, name, version, input=None):
        self.history = HistoryBuilder(name, version, input)
        self._stand_ins = {}
        self._signals = []
        self.max_tasks = 1000

    def activity(self, name, run):
        """Answers every activity of type ``name`` with ``run(input)``."""
        self._stand_ins[("activity", name)] = run
        return self

    def lambda_function(self, name, run):
        """Answers every call of the Lambda function ``name`` with ``run(input)``."""
        self._stand_ins[("lambda", name)] = run
        return self

    def child(self, name, run):
        """Runs every child workflow of type ``name`` as ``run(input)``."""
        self._stand_ins[("child", name)] = run
        return self

    def signal(self, after, name, input=None):
        """Sends the signal ``name`` ``after`` seconds into the run."""
        self._signals.append((after, name, input))
        return self

    def run(self, decide):
        """Runs the run with ``decide`` (a workflow's ``__weft_decide__``, or any decider)
        until it closes or nothing is left to happen. A decider's exception (such as a
        :class:`NondeterminismError`) propagates."""
        h = self.history
        start = h.events[0]["eventTimestamp"]
        signals = sorted(self._signals, key=lambda s: s[0])
        timers = {}
        for _ in range(self.max_tasks):
            decisions = h.decide(decide)
            now = h.events[-1]["eventTimestamp"]
            answered = False
            for decision in decisions:
                kind, a = decision["decisionType"], decision_attributes(decision)
                if kind == "StartTimer":
                    timers[a["timerId"]] = now + float(a["startToFireTimeout"])
                elif kind == "CancelTimer":
                    timers.pop(a["timerId"], None)
                else:
                    answered |= self._answer(kind, a)
                if kind in CLOSE_DECISIONS:
                    return Finished(decision, h.events, h.events[-1]["eventTimestamp"] - start)
            if answered:
                continue
            timer = min(timers.items(), key=lambda t: t[1]) if timers else None
            now = h.events[-1]["eventTimestamp"]
            if signals and (timer is None or start + signals[0][0] <= timer[1]):
                after, name, input = signals.pop(0)
                h.advance(max(start + after - now, 0))
                h.signal(name, input)
            elif timer is not None:
                del timers[timer[0]]
                h.advance(max(timer[1] - now, 0))
                h.timer_fired(timer[0])
            else:
                return Finished(None, h.events, h.events[-1]["eventTimestamp"] - start)
        raise AssertionError(f"the run did not close in {self.max_tasks} decision tasks")

    def _answer(self, kind, a):
        what = {
            "ScheduleActivityTask": ("activity", lambda: a["activityType"]["name"], "activityId"),
            "ScheduleLambdaFunction": ("lambda", lambda: a["name"], "id"),
            "StartChildWorkflowExecution": ("child", lambda: a["workflowType"]["name"], "workflowId"),
        }.get(kind)
        if what is None:
            return False
        stand_in, name, id_key = what[0], what[1](), what[2]
        run = self._stand_ins.get((stand_in, name))
        if run is None:
            raise AssertionError(f"no stand-in for the {stand_in} {name}: give one to the Environment")
        h, id_ = self.history, a[id_key]
        try:
            result = encode(run(a.get("input")))
        except Failure as f:
            getattr(h, f"{stand_in}_failed")(id_, f.reason, f.details)
        else:
            getattr(h, f"{stand_in}_completed")(id_, result)
        return True
