"""Workflows as ordinary ``async def`` code, replayed over the history on every decision task.

::

    from weft_guest import workflow

    @workflow.workflow
    async def greet(wf):
        greeting = await wf.activity("Greet", "1.0", input=wf.input() or "world")
        await wf.sleep(1)
        return greeting

Each ``await`` on an activity, timer, function or child issues its decision the first time it
is reached, and resumes once the history records how it ended: with its result, or raising
:class:`ActivityError`. Cancelling one (:meth:`Workflow.cancel_activity`,
:meth:`Workflow.cancel_child`, :meth:`Workflow.cancel_timer`, or ``cancel()`` on the one held)
asks SWF to; its await still ends as the history says. On every decision task the workflow
runs from the start against the whole history as each decision task saw it (the events up to
the task's start, then the code runs as far as it can), and what it issues for each earlier
task must be what the history recorded: the same decision types, ids and types run, in order
(inputs and durations may differ). Anything else raises :class:`NondeterminismError`, which
fails the decision task.

The runtime drives the coroutine itself, without asyncio's event loop: await only what
:class:`Workflow` answers and this module's :func:`gather`, :func:`first`, :func:`settled` and
:func:`wait_until` (``asyncio.gather`` and ``asyncio.sleep`` need asyncio's loop, and a loop's
timing is not a history's). Use :meth:`Workflow.now` and :meth:`Workflow.random` rather than clocks
and random sources of your own, and :meth:`Workflow.patched` to change a running workflow. The run
closes when the coroutine returns (completed, with its value as the result), raises
:class:`weft_guest.Failure` or an uncaught :class:`ActivityError` (failed, with reason and details;
canceled, if the activity was canceled), raises :class:`weft_guest.Cancel` (canceled), or raises
:meth:`Workflow.continue_as_new`. Any other exception fails the decision task, as a decider's does.
The Rust SDK's ``weft_guest::workflow`` works the same way.
"""

from .. import decisions as d
from .. import payload
from .._component import mark as _mark
from ..activity import Failure
from ..history import History
from . import _replay
from ._replay import PENDING, ActivityError, ContinueAsNew, NondeterminismError, State

__all__ = [
    "workflow", "workflows", "run", "Workflow", "RetryPolicy", "ActivityError", "NondeterminismError",
    "ContinueAsNew", "gather", "first", "settled", "wait_until",
]


def run(history, workflow_fn):
    """Replays ``workflow_fn`` (an ``async def`` taking a :class:`Workflow`) over the decision
    task ``history`` (a :class:`History` or its wire dict) and answers its decisions."""
    if not isinstance(history, History):
        history = History(history)
    return _run(State(history.task), workflow_fn)


def _run(state, workflow_fn):
    return _replay.run(state, workflow_fn(Workflow(state)))


def workflow(workflow_fn):
    """Marks ``workflow_fn`` (``async def f(wf)``) as the workflow of a decider component,
    whose ``decide`` runs it with :func:`run`; the function is answered unchanged, to be tested
    natively with :func:`run`."""
    def decide(history):
        return run(history, workflow_fn)
    workflow_fn.__weft_decide__ = decide
    # In a component: the task being decided, as the host hands it to the workflow core,
    # without reading it into Python first.
    workflow_fn.__weft_decide_current__ = lambda: _run(State(), workflow_fn)
    return _mark(workflow_fn, "decider")


def workflows(by_type):
    """Makes one decider of several workflows (``async def f(wf)``, not marked
    :func:`workflow`), each serving the workflow type its key names: ``decider =
    workflows({"Order": order, "Ship": ship})`` serves a parent and its child bound to one module.
    A type it does not name fails the decision task, saying which it serves."""
    def choose(state):
        name = state.workflow_type.get("name")
        if name not in by_type:
            raise LookupError(f"this module serves no workflow type {name}: it serves "
                              f"{', '.join(by_type)}")
        return by_type[name]

    def replay(state):
        return _replay.run(state, choose(state)(Workflow(state)))

    def decide(history):
        if not isinstance(history, History):
            history = History(history)
        return replay(State(history.task))
    decide.__weft_decide__ = decide
    decide.__weft_decide_current__ = lambda: replay(State())
    return _mark(decide, "decider")


class Command:
    """An operation being awaited: it issues its decision when first awaited (with a default
    id if it names none), then resumes with the outcome the history records for it."""

    def __init__(self, state, decision):
        self._state, self.decision, self.slot = state, decision, None

    def _issue(self):
        if self.slot is None:
            self.slot = self._state.issue(self.decision, True)
        return self.slot

    def __await__(self):
        slot = self._issue()
        while (outcome := self._state.outcome(slot)) is None:
            yield PENDING
        ok, value = outcome
        if ok:
            return value
        raise value

    def cancel(self):
        """Cancels it if it was issued and has not ended, once: a timer's ``CancelTimer``, a
        child's ``RequestCancelExternalWorkflowExecution``. Its await then ends as the history
        says: :class:`ActivityError` (``canceled``), or as it ended anyway. A Lambda function
        cannot be canceled (SWF has no decision for it): ``TypeError``."""
        if self.decision["decisionType"] == "ScheduleLambdaFunction":
            raise TypeError("a Lambda function cannot be canceled: SWF has no decision for it")
        if self.slot is not None:
            self._state.cancel({"slot": self.slot})


class Timer(Command):
    """A timer: ``await`` it, or :meth:`cancel` it."""


class Activity:
    """An activity, retried by its policy if it has one: ``await`` it for its result (again
    after :func:`first` dropped it, from one place at a time), or :meth:`cancel` it."""

    def __init__(self, workflow, schedule, id, retry):
        # schedule(attempt_id): the decision that schedules an attempt.
        self._workflow, self._schedule, self._id, self._retry = workflow, schedule, id, retry
        self._attempt, self._wait, self._canceled = 1, None, False
        self._command = Command(workflow._state, schedule(id or ""))

    def __await__(self):
        # Where it stands (the attempt, the wait before the next) lives here, not in the
        # generator, so that a second await resumes where the first was dropped.
        while True:
            if self._wait is None:
                if self._canceled and self._command.slot is None:
                    raise ActivityError("canceled")
                try:
                    return (yield from self._command.__await__())
                except ActivityError as error:
                    retries = self._retry is not None and self._retry.retries(self._attempt, error)
                    if not retries or self._canceled:
                        raise
                self._wait = self._workflow.sleep(self._retry.interval(self._attempt))
            if self._canceled:
                raise ActivityError("canceled")
            try:
                yield from self._wait.__await__()
            except ActivityError:
                pass  # the wait cancelled (or refused): the next attempt at once
            if self._canceled:
                raise ActivityError("canceled")
            self._attempt += 1
            attempt_id = "" if self._id is None else f"{self._id}-{self._attempt}"
            self._command = Command(self._workflow._state, self._schedule(attempt_id))
            self._wait = None

    def cancel(self):
        """Asks SWF to cancel its current attempt (``RequestCancelActivityTask``) if it was
        scheduled and has not ended, once, as :meth:`Workflow.cancel_activity`; it is not
        retried. Canceled while it waits to retry, or before it was first awaited, its await
        raises :class:`ActivityError` (``canceled``) at once."""
        self._canceled = True
        (self._command if self._wait is None else self._wait).cancel()


class Child(Command):
    """A child workflow: ``await`` it for its result, or ``await child.start()`` for the
    started run and await its result later."""

    async def start(self):
        """Starts it: answers the started run (a :class:`ChildRun`), or raises
        :class:`ActivityError` (``not_started``) if it could not start."""
        slot = self._issue()

        def ready():
            execution = self._state.child(slot)
            if execution is not None:
                return ChildRun(execution, self)
            outcome = self._state.outcome(slot)
            if outcome is not None and not outcome[0]:
                raise outcome[1]
            return PENDING
        return await _Poll(ready)


class ChildRun:
    """A started child run: its ``execution`` (``workflowId``, ``runId``), and its result."""

    def __init__(self, execution, child):
        self.execution, self._child = execution, child

    async def result(self):
        """Its result, once it closes; raises :class:`ActivityError` if it did not complete."""
        return await self._child


class _Poll:
    """An awaitable that resumes once ``ready()`` answers something other than ``PENDING``."""

    def __init__(self, ready):
        self._ready = ready

    def __await__(self):
        while (value := self._ready()) is PENDING:
            yield PENDING
        return value


class RetryPolicy:
    """How often and how soon to retry an activity that failed or timed out: at most
    ``maximum_attempts`` attempts (0: no limit), waits from ``initial_interval`` seconds
    multiplied by ``backoff`` each time up to ``maximum_interval``, never for a reason in
    ``non_retryable``. Each attempt is a new activity, each wait a timer."""

    def __init__(self, maximum_attempts, initial_interval=1, backoff=2.0, maximum_interval=None,
                 non_retryable=()):
        self.maximum_attempts, self.initial_interval = maximum_attempts, initial_interval
        self.backoff, self.maximum_interval = max(backoff, 1.0), maximum_interval
        self.non_retryable = list(non_retryable)

    def interval(self, attempt):
        """The wait in seconds after attempt ``attempt`` (from 1) failed."""
        wait = self.initial_interval * self.backoff ** (attempt - 1)
        return wait if self.maximum_interval is None else min(wait, self.maximum_interval)

    def retries(self, attempt, error):
        """Whether to try again after attempt ``attempt`` ended with ``error``."""
        retryable = (error.kind == "timed_out" or
                     (error.kind == "failed" and error.reason not in self.non_retryable))
        return retryable and (self.maximum_attempts == 0 or attempt < self.maximum_attempts)


class Workflow:
    """The running workflow: its input, clock and randomness, and what it awaits."""

    def __init__(self, state):
        self._state = state

    def input(self):
        """The run's input."""
        return self._state.input

    def input_json(self):
        """The run's input read as JSON (:class:`weft_guest.Failure` if it is not)."""
        try:
            return payload.loads(self._state.input, "the workflow's input")
        except payload.PayloadError as e:
            raise Failure(str(e)) from e

    @property
    def execution(self):
        """The run: ``{"workflowId": ..., "runId": ...}``."""
        return self._state.execution

    def now(self):
        """The time of the decision task being replayed, in seconds: the same on every replay."""
        return self._state.now

    def random(self):
        """The next number (64 bits) of a sequence seeded by the run: the same on every replay
        and the same as the Rust SDK draws."""
        return self._state.random()

    def is_replaying(self):
        """Whether the code is running through a decision task the history already recorded."""
        return self._state.replaying

    def activity(self, name, version, *, id=None, retry=None, **options):
        """An activity of type ``name``/``version`` (an :class:`Activity`), scheduled when
        first awaited: await it for its result. ``options`` are
        :func:`weft_guest.decisions.schedule_activity`'s (``input``, ``task_list``,
        ``start_to_close``, ...). With ``retry`` (a :class:`RetryPolicy`), failed attempts are
        retried after a timer; an explicit ``id`` gets ``-2``, ``-3``, ... on retries."""
        def schedule(attempt_id):
            return d.schedule_activity(attempt_id, name, version, **options)
        return Activity(self, schedule, id, retry)

    def lambda_function(self, name, *, id=None, **options):
        """Runs the Lambda function ``name`` (``input``, ``start_to_close``); await its
        result."""
        return Command(self._state, d.schedule_lambda(id or "", name, **options))

    def sleep(self, seconds, *, id=None):
        """A timer of ``seconds`` (whole seconds, rounded up, as SWF counts), started when first
        awaited; await it, or keep it to :meth:`Timer.cancel`."""
        whole = int(seconds) + (1 if seconds != int(seconds) else 0)
        return Timer(self._state, d.start_timer(id or "", whole))

    def cancel_timer(self, timer_id):
        """Cancels the timer ``timer_id`` if it was started and has neither fired nor been
        cancelled."""
        self._state.cancel_timer(timer_id)

    def cancel_activity(self, activity_id):
        """Asks SWF to cancel the activity ``activity_id`` (``RequestCancelActivityTask``) if
        it was scheduled and has not ended, once. Its await then ends as the history says:
        :class:`ActivityError` (``canceled``) once the worker reports it canceled, or the
        activity's result if it completed anyway (a worker learns of the request from its
        heartbeat's answer). An activity retried by a :class:`RetryPolicy` is canceled by its
        current attempt's id (``ID``, ``ID-2``, ...); a canceled attempt is not retried. A
        Lambda function cannot be canceled: SWF has no decision for it."""
        self._state.cancel({"activityId": activity_id})

    def cancel_child(self, workflow_id):
        """Asks the child workflow ``workflow_id`` to cancel
        (``RequestCancelExternalWorkflowExecution``) if this run started it and it has not
        closed, once. Its await then ends as the child closes: :class:`ActivityError`
        (``canceled``) if the child's code closes it as canceled."""
        self._state.cancel({"childWorkflowId": workflow_id})

    def child(self, name, version, *, id=None, **options):
        """Starts a child workflow of type ``name``/``version`` (options as
        :func:`weft_guest.decisions.start_child` takes them); await its result, or
        :meth:`Child.start` it."""
        return Child(self._state, d.start_child(id or "", name, version, **options))

    async def signal_external(self, workflow_id, name, **options):
        """Sends the signal ``name`` to the workflow ``workflow_id`` (``run_id``, ``input``)."""
        await Command(self._state, d.signal_external(workflow_id, name, **options))

    async def request_cancel_external(self, workflow_id, **options):
        """Asks the workflow ``workflow_id`` (``run_id``) to cancel."""
        await Command(self._state, d.request_cancel_external(workflow_id, **options))

    def signal(self, name):
        """Awaits the input of the next signal ``name`` (each signal is taken once)."""
        return _Poll(lambda: self._state.take_signal(name))

    def cancellation(self):
        """Resumes once the run is asked to cancel."""
        return _Poll(lambda: None if self._state.cancel_requested else PENDING)

    def cancel_requested(self):
        """Whether the run has been asked to cancel, as of the decision task being replayed."""
        return self._state.cancel_requested

    def record_marker(self, name, details=None):
        """Records a marker in the history."""
        self._state.issue(d.record_marker(name, details), False)

    def patched(self, change):
        """Whether the run takes the code of change ``change``: ``True`` where a run reaches this
        point for the first time with the change deployed (a marker records it), and on replays
        of those runs; ``False`` on replays of runs that passed it before. Stable for the run."""
        return self._state.patched(change)

    def deprecate_patch(self, change):
        """Every open run took change ``change``: always the new path; old markers are
        accepted without being asked for."""
        self._state.deprecate_patch(change)

    def continue_as_new(self, **options):
        """The exception that, raised by the workflow, continues the run as a new one
        (:func:`weft_guest.decisions.continue_as_new`'s options)."""
        return ContinueAsNew(d.continue_as_new(**options))


class _Task:
    """An awaitable stepped by :func:`gather` and :func:`first`."""

    def __init__(self, awaitable):
        self._steps = awaitable.__await__()
        self.done, self.ok, self.value = False, True, None

    def step(self):
        if not self.done:
            try:
                self._steps.send(None)
            except StopIteration as finished:
                self.done, self.value = True, finished.value
            except Exception as error:  # noqa: BLE001 - handed to the awaiting code
                self.done, self.ok, self.value = True, False, error


def gather(*awaitables):
    """Awaits all of ``awaitables``, started in the order given, and answers their results in
    that order; the first to raise (in that order) raises."""
    tasks = [_Task(a) for a in awaitables]

    def ready():
        for task in tasks:
            task.step()
        for task in tasks:
            if task.done and not task.ok:
                raise task.value
        return [t.value for t in tasks] if all(t.done for t in tasks) else PENDING
    return _Poll(ready)


def first(*awaitables):
    """Awaits whichever of ``awaitables`` ends first (of several at one decision task, the
    earliest given) and answers ``(index, result)``; raises if that one raised. The others are
    dropped: a timer or activity they started stays open unless cancelled, and one held (an
    :class:`Activity`, a timer, a child) can be awaited again."""
    tasks = [_Task(a) for a in awaitables]

    def ready():
        for index, task in enumerate(tasks):
            task.step()
            if task.done:
                if not task.ok:
                    raise task.value
                return index, task.value
        return PENDING
    return _Poll(ready)


async def settled(awaitable):
    """Awaits ``awaitable`` and answers its result, or the :class:`ActivityError` it raised (as
    ``asyncio.gather(..., return_exceptions=True)`` does): for what may end either way."""
    try:
        return await awaitable
    except ActivityError as error:
        return error


def wait_until(condition):
    """Resumes once ``condition()`` is true: the workflow's own state, changed by its other
    awaits."""
    return _Poll(lambda: None if condition() else PENDING)
