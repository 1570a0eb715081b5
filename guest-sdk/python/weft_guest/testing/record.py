"""The events SWF records for a decider's decisions, in wire JSON."""

from ..events import CLOSE_DECISIONS, OUTCOMES, decision_attributes

__all__ = ["recorded_event", "close_failed_event", "is_close", "DEFAULT_TASK_LIST", "OUTCOMES"]

#: The task list recorded where a decision names none (SWF would take the type's default).
DEFAULT_TASK_LIST = "default"


def is_close(decision):
    """Whether ``decision`` closes the execution."""
    return decision["decisionType"] in CLOSE_DECISIONS


def recorded_event(decision, completed, workflow_type, run_id, timer_started=None):
    """``(event type, attributes)`` SWF records for an accepted ``decision`` made in the
    decision task completed by event ``completed``, in an execution of ``workflow_type`` (a
    wire dict) and run ``run_id``. ``timer_started(id)`` finds a timer's ``TimerStarted``
    event, for ``CancelTimer``."""
    kind = decision["decisionType"]
    if kind not in OUTCOMES:
        raise ValueError(f"unknown decisionType {kind!r}")
    a = dict(decision_attributes(decision))
    a["decisionTaskCompletedEventId"] = completed
    if kind in ("ScheduleActivityTask", "StartChildWorkflowExecution",
                "ContinueAsNewWorkflowExecution"):
        a.setdefault("taskList", {"name": DEFAULT_TASK_LIST})
    if kind in ("StartChildWorkflowExecution", "ContinueAsNewWorkflowExecution"):
        a.setdefault("childPolicy", "TERMINATE")
    if kind == "ContinueAsNewWorkflowExecution":
        # The new run keeps this execution's type name, at the version the decision names.
        version = a.pop("workflowTypeVersion", None) or workflow_type["version"]
        a["workflowType"] = {"name": workflow_type["name"], "version": version}
        a["newExecutionRunId"] = f"{run_id}-next"
    if kind == "CancelTimer":
        if timer_started is None:
            raise ValueError("CancelTimer needs the timer's TimerStarted event")
        a["startedEventId"] = timer_started(a["timerId"])
    return OUTCOMES[kind][0], a


def close_failed_event(decision, completed):
    """``(event type, attributes)`` SWF records for a close decision made while a decision
    task was scheduled after the decider's own: ``UNHANDLED_DECISION``."""
    kind = decision["decisionType"]
    if kind not in CLOSE_DECISIONS:
        raise ValueError(f"{kind} does not close the execution")
    return OUTCOMES[kind][1], {
        "cause": "UNHANDLED_DECISION",
        "decisionTaskCompletedEventId": completed,
    }
