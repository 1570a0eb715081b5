"""The 13 decisions, and the response that carries them, in wire JSON.

Each function answers a dict exactly as ``RespondDecisionTaskCompleted`` takes it, e.g.
``start_timer("t", 30)`` is ``{"decisionType": "StartTimer", "startTimerDecisionAttributes":
{"timerId": "t", "startToFireTimeout": "30"}}``. Optional parts are keyword arguments; what is
left out is left out of the dict (SWF then takes the type's registered default).

Durations are whole seconds (an ``int``, or a string such as ``"NONE"``). Payloads (``input``,
``result``, ``details``, ``control``) are strings as they are, or anything else encoded as JSON
by :func:`weft_guest.payload.encode`.
"""

from .events import decision_attributes_key
from .payload import encode

__all__ = [
    "schedule_activity", "request_cancel_activity", "complete", "fail", "cancel",
    "continue_as_new", "record_marker", "start_timer", "cancel_timer", "signal_external",
    "request_cancel_external", "start_child", "schedule_lambda", "response",
]


def _decision(decision_type, **attributes):
    """A decision of this type with these attributes, leaving out those that are ``None``."""
    present = {k: v for k, v in attributes.items() if v is not None}
    return {"decisionType": decision_type, decision_attributes_key(decision_type): present}


def _secs(seconds):
    return None if seconds is None else str(seconds)


def _task_list(name):
    return None if name is None else {"name": name}


def _tags(tags):
    return None if tags is None else list(tags)


def schedule_activity(activity_id, name, version, *, input=None, control=None, task_list=None,
                      task_priority=None, schedule_to_close=None, schedule_to_start=None,
                      start_to_close=None, heartbeat=None):
    """``ScheduleActivityTask``: runs an activity of type ``name``/``version`` under the id
    ``activity_id``, which names it in the history (see :meth:`History.activity`)."""
    return _decision(
        "ScheduleActivityTask",
        activityType={"name": name, "version": version},
        activityId=activity_id,
        control=encode(control),
        input=encode(input),
        scheduleToCloseTimeout=_secs(schedule_to_close),
        taskList=_task_list(task_list),
        taskPriority=_secs(task_priority),
        scheduleToStartTimeout=_secs(schedule_to_start),
        startToCloseTimeout=_secs(start_to_close),
        heartbeatTimeout=_secs(heartbeat),
    )


def request_cancel_activity(activity_id):
    """``RequestCancelActivityTask``: asks the activity to stop (its worker learns it from its
    next heartbeat)."""
    return _decision("RequestCancelActivityTask", activityId=activity_id)


def complete(result=None):
    """``CompleteWorkflowExecution``: closes the execution as completed, with an optional
    result."""
    return _decision("CompleteWorkflowExecution", result=encode(result))


def fail(reason, details=None):
    """``FailWorkflowExecution``: closes the execution as failed, with a reason and optional
    details."""
    return _decision("FailWorkflowExecution", reason=reason, details=encode(details))


def cancel(details=None):
    """``CancelWorkflowExecution``: closes the execution as canceled, with optional details."""
    return _decision("CancelWorkflowExecution", details=encode(details))


def continue_as_new(*, input=None, execution_start_to_close=None, task_list=None,
                    task_priority=None, task_start_to_close=None, child_policy=None, tags=None,
                    workflow_type_version=None, lambda_role=None):
    """``ContinueAsNewWorkflowExecution``: closes this run and starts a new run of the same
    execution, by default with the same settings and no input. ``child_policy`` is SWF's
    value, e.g. ``"TERMINATE"``."""
    return _decision(
        "ContinueAsNewWorkflowExecution",
        input=encode(input),
        executionStartToCloseTimeout=_secs(execution_start_to_close),
        taskList=_task_list(task_list),
        taskPriority=_secs(task_priority),
        taskStartToCloseTimeout=_secs(task_start_to_close),
        childPolicy=child_policy,
        tagList=_tags(tags),
        workflowTypeVersion=workflow_type_version,
        lambdaRole=lambda_role,
    )


def record_marker(name, details=None):
    """``RecordMarker``: writes a marker into the history, for the decider's later turns or for
    people reading it (see :meth:`History.markers`)."""
    return _decision("RecordMarker", markerName=name, details=encode(details))


def start_timer(timer_id, seconds, *, control=None):
    """``StartTimer``: starts the timer ``timer_id``, which fires after ``seconds`` (see
    :meth:`History.timer`)."""
    return _decision(
        "StartTimer", timerId=timer_id, control=encode(control), startToFireTimeout=str(seconds))


def cancel_timer(timer_id):
    """``CancelTimer``: cancels the open timer ``timer_id``."""
    return _decision("CancelTimer", timerId=timer_id)


def signal_external(workflow_id, signal_name, *, run_id=None, input=None, control=None):
    """``SignalExternalWorkflowExecution``: sends the signal to the execution ``workflow_id``
    (its current run unless ``run_id`` is given)."""
    return _decision(
        "SignalExternalWorkflowExecution",
        workflowId=workflow_id,
        runId=run_id,
        signalName=signal_name,
        input=encode(input),
        control=encode(control),
    )


def request_cancel_external(workflow_id, *, run_id=None, control=None):
    """``RequestCancelExternalWorkflowExecution``: asks the execution ``workflow_id`` to
    cancel."""
    return _decision(
        "RequestCancelExternalWorkflowExecution",
        workflowId=workflow_id,
        runId=run_id,
        control=encode(control),
    )


def start_child(workflow_id, name, version, *, input=None, control=None,
                execution_start_to_close=None, task_list=None, task_priority=None,
                task_start_to_close=None, child_policy=None, tags=None, lambda_role=None):
    """``StartChildWorkflowExecution``: starts a child execution ``workflow_id`` of the
    workflow type ``name``/``version`` (see :meth:`History.child`)."""
    return _decision(
        "StartChildWorkflowExecution",
        workflowType={"name": name, "version": version},
        workflowId=workflow_id,
        control=encode(control),
        input=encode(input),
        executionStartToCloseTimeout=_secs(execution_start_to_close),
        taskList=_task_list(task_list),
        taskPriority=_secs(task_priority),
        taskStartToCloseTimeout=_secs(task_start_to_close),
        childPolicy=child_policy,
        tagList=_tags(tags),
        lambdaRole=lambda_role,
    )


def schedule_lambda(function_id, name, *, input=None, control=None, start_to_close=None):
    """``ScheduleLambdaFunction``: runs the function ``name`` under the id ``function_id`` (see
    :meth:`History.lambda_function`)."""
    return _decision(
        "ScheduleLambdaFunction",
        id=function_id,
        name=name,
        control=encode(control),
        input=encode(input),
        startToCloseTimeout=_secs(start_to_close),
    )


def response(decisions, *, execution_context=None, task_list=None, schedule_to_start=None):
    """A decider's whole answer (``RespondDecisionTaskCompleted`` less its token): the
    decisions, an optional execution context kept with the execution, and optionally a task
    list for the next decision tasks, which go back to the execution's own list if one waits
    there longer than ``schedule_to_start`` seconds."""
    answer = {"decisions": list(decisions)}
    if execution_context is not None:
        answer["executionContext"] = encode(execution_context)
    if task_list is not None:
        answer["taskList"] = {"name": task_list}
    if schedule_to_start is not None:
        answer["taskListScheduleToStartTimeout"] = str(schedule_to_start)
    return answer


def as_response(answer):
    """A decider's return value as a response: a response dict as it is, a list (or any
    iterable) of decisions in a response, ``None`` as no decisions."""
    if answer is None:
        return response([])
    if isinstance(answer, dict):
        if "decisions" not in answer:
            raise TypeError("a decider answers a list of decisions or a response "
                            "(a dict with \"decisions\"), not a single decision")
        return answer
    return response(answer)
