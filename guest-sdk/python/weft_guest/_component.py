"""The class componentize-py exports, built for one world from the guest's module.

componentize-py instantiates the app module's ``WitWorld`` class and calls its method named
after the world's export (``decide``, ``run`` or ``invoke``). ``weft-componentize`` generates
an app module that imports the guest's module and sets ``WitWorld = world_class(world, guest)``.

componentize-py runs that module once, at build time, and snapshots the interpreter: a module
first imported later, while a task runs, is not in the component. So ``world_class`` imports
every generated module the SDK uses for its world now, and the SDK's lazy imports of
``wit_world`` find them already loaded.
"""

import traceback

from . import _wit, decisions, log
from .activity import ActivityTask, ActivityWorker, Failure, invoke
from .history import History

__all__ = ["world_class", "mark"]

WORLDS = ("decider", "activity-worker", "function")


def mark(function, world):
    """Marks ``function`` as the guest's entry point for ``world`` and answers it unchanged."""
    function.__weft_world__ = world
    return function


def world_class(world, module):
    """The ``WitWorld`` class exporting ``module``'s entry point for ``world``: the function
    decorated ``@weft_guest.decider`` or ``@weft_guest.function``, or the module's one
    :class:`ActivityWorker`. A module that defines ``WitWorld`` itself keeps its own."""
    if hasattr(module, "WitWorld"):
        return module.WitWorld
    if world not in WORLDS:
        raise ValueError(f"unknown world {world!r}: one of {', '.join(WORLDS)}")
    entry = _entry(world, module)
    # A `@workflow.workflow` is an async function whose decider replays it on the workflow core,
    # which has the task from the host.
    current = getattr(entry, "__weft_decide_current__", None)
    from componentize_py_types import Err
    from wit_world.imports import log as _log  # noqa: F401 - loaded now for weft_guest.log
    from wit_world.imports import tasks
    if world == "decider":
        from wit_world.imports import replay  # noqa: F401 - loaded now for the workflow core
        return _decider(entry, tasks, Err, current)
    if world == "activity-worker":
        from wit_world.imports import heartbeat  # noqa: F401 - loaded now for heartbeat()
        return _activity_worker(entry, tasks)
    return _function(entry, tasks, Err)


def _entry(world, module):
    if world == "activity-worker":
        found = [v for v in vars(module).values() if isinstance(v, ActivityWorker)]
        what = "one weft_guest.ActivityWorker"
    else:
        found = [v for v in vars(module).values()
                 if callable(v) and getattr(v, "__weft_world__", None) == world]
        what = f"one function decorated @weft_guest.{world}"
    if len(found) != 1:
        raise LookupError(f"{module.__name__} must define {what} (found {len(found)})")
    return found[0]


def _message(error):
    return str(error) or type(error).__name__


def _decider(decide, tasks, Err, current=None):
    class WitWorld:
        """Exports ``decide``: ``decide(history)``, or ``current()`` for a workflow, which the
        workflow core replays over the task without Python reading it."""

        def decide(self, task):
            log.install()
            try:
                decided = current() if current else decide(History(_wit.to_wire(task)))
                answer = decisions.as_response(decided)
                return _wit.from_wire(tasks.DecisionResponse, answer, "response")
            except Exception as error:  # noqa: BLE001 - fails this decision task, as in Rust
                log.error("".join(traceback.format_exception(error)))
                raise Err(_message(error)) from None

    return WitWorld


def _activity_worker(worker, tasks):
    class WitWorld:
        """Exports ``run``."""

        def run(self, task):
            log.install()
            outcome = worker.run(ActivityTask.from_wire(_wit.to_wire(task)))
            if outcome.kind == "completed":
                return tasks.ActivityOutcome_Completed(outcome.result)
            if outcome.kind == "canceled":
                return tasks.ActivityOutcome_Canceled(outcome.details)
            failure = outcome.failure
            return tasks.ActivityOutcome_Failed(tasks.Failure(failure.reason, failure.details))

    return WitWorld


def _function(function, tasks, Err):
    class WitWorld:
        """Exports ``invoke``."""

        def invoke(self, input):
            log.install()
            answer = invoke(function, input)
            if isinstance(answer, Failure):
                raise Err(tasks.Failure(answer.reason, answer.details))
            return answer

    return WitWorld
