"""Unit-testing guests natively, under plain CPython, without a host.

- :class:`HistoryBuilder` builds a history event by event, playing SWF's part: it records a
  decider's decisions as SWF would, and the outside world's events a test chooses::

      h = HistoryBuilder("Order", "1.0", input='{"card":"4111"}')
      assert h.decide(decide) == [d.schedule_activity("verify", "VerifyOrder", "1.0")]
      h.activity_completed("verify", '{"verified":true}').signal("cancel")
      history = h.decision_task()

- :func:`load_history` and :func:`replay` read a history exported from
  ``GetWorkflowExecutionHistory``: the decision task at some event, or every decision task
  replayed through a decider and checked against the decisions recorded then.
- :class:`Environment` runs a whole workflow with activities answered by functions, skipping
  time to the next timer or signal.
- :func:`activity_task` makes an activity task for an activity worker.

The component never imports this package.
"""

from ..activity import ActivityTask
from ..payload import encode
from .builder import HistoryBuilder
from .environment import Environment, Finished
from .export import ReplayMismatch, ReplayStep, decision_tasks, load_history, read_events, replay

__all__ = [
    "HistoryBuilder", "Environment", "Finished", "activity_task", "load_history", "read_events", "decision_tasks",
    "replay", "ReplayMismatch", "ReplayStep",
]


def activity_task(name, input=None, version="1.0", activity_id="a", workflow_id="w",
                  run_id="r", started_event_id=5):
    """An :class:`~weft_guest.ActivityTask` of type ``name``/``version`` with this input (a
    string as it is, anything else as JSON)."""
    return ActivityTask(activity_id, {"name": name, "version": version},
                        {"workflowId": workflow_id, "runId": run_id}, encode(input),
                        started_event_id)
