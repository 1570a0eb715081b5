"""The events of the outside world a test records: activities, timers, signals, cancel
requests, children, Lambda functions, and signals and cancel requests to other workflows
delivered.

Methods that record an outcome find the latest activity, child or function with that id,
record its start first if it has none, and raise ``LookupError`` if there is none: that is a
mistake in the test. Each answers the builder, so calls chain.
"""

from ..events import attributes

__all__ = ["Outcomes"]


class Outcomes:
    """The outcome methods of :class:`~weft_guest.testing.HistoryBuilder`."""

    # Activities.

    def activity_started(self, activity_id):
        """``ActivityTaskStarted`` for the activity."""
        self.event("ActivityTaskStarted", {
            "identity": "test", "scheduledEventId": self._activity_scheduled(activity_id)})
        return self

    def activity_completed(self, activity_id, result=None):
        """``ActivityTaskCompleted`` for the activity, with this result."""
        return self._activity_closed(activity_id, "ActivityTaskCompleted", {"result": result})

    def activity_failed(self, activity_id, reason=None, details=None):
        """``ActivityTaskFailed`` for the activity."""
        return self._activity_closed(
            activity_id, "ActivityTaskFailed", {"reason": reason, "details": details})

    def activity_timed_out(self, activity_id, timeout_type="START_TO_CLOSE"):
        """``ActivityTaskTimedOut`` for the activity (SWF's timeout type, e.g.
        ``HEARTBEAT``)."""
        return self._activity_closed(
            activity_id, "ActivityTaskTimedOut", {"timeoutType": timeout_type})

    def activity_canceled(self, activity_id, details=None):
        """``ActivityTaskCanceled`` for the activity, after its latest cancel request."""
        requested = next(
            (e["eventId"] for e in reversed(self.events)
             if e["eventType"] == "ActivityTaskCancelRequested"
             and attributes(e).get("activityId") == activity_id),
            None)
        return self._activity_closed(activity_id, "ActivityTaskCanceled", {
            "details": details, "latestCancelRequestedEventId": requested})

    def _activity_closed(self, activity_id, event_type, attrs):
        scheduled = self._activity_scheduled(activity_id)
        started = self._started_after(scheduled, "ActivityTaskStarted", "scheduledEventId") or \
            self.event("ActivityTaskStarted", {"identity": "test", "scheduledEventId": scheduled})
        self.event(event_type, {**attrs, "scheduledEventId": scheduled,
                                "startedEventId": started})
        self._schedule_decision_task()
        return self

    def _activity_scheduled(self, activity_id):
        return self._latest("ActivityTaskScheduled", "activityId", activity_id)

    # Signals, cancellation and timers.

    def signal(self, name, input=None):
        """``WorkflowExecutionSignaled``: the signal ``name`` with this input."""
        self.event("WorkflowExecutionSignaled", {"signalName": name, "input": input})
        self._schedule_decision_task()
        return self

    def cancel_requested(self):
        """``WorkflowExecutionCancelRequested``."""
        self.event("WorkflowExecutionCancelRequested", {})
        self._schedule_decision_task()
        return self

    def timer_fired(self, timer_id):
        """``TimerFired`` for the latest timer ``timer_id``."""
        self.event("TimerFired", {
            "timerId": timer_id, "startedEventId": self._timer_started(timer_id)})
        self._schedule_decision_task()
        return self

    def _timer_started(self, timer_id):
        return self._latest("TimerStarted", "timerId", timer_id)

    # Child workflows.

    def child_started(self, workflow_id):
        """``ChildWorkflowExecutionStarted`` for the child ``workflow_id``."""
        initiated = self._child_initiated(workflow_id)
        self.event("ChildWorkflowExecutionStarted", self._child(workflow_id, initiated))
        self._schedule_decision_task()
        return self

    def child_start_failed(self, workflow_id, cause):
        """``StartChildWorkflowExecutionFailed`` for the child ``workflow_id``: it could not
        start."""
        initiated = self._child_initiated(workflow_id)
        a = attributes(self.events[initiated - 1])
        self.event("StartChildWorkflowExecutionFailed", {
            "workflowId": workflow_id, "workflowType": dict(a["workflowType"]), "cause": cause,
            "initiatedEventId": initiated,
            "decisionTaskCompletedEventId": a["decisionTaskCompletedEventId"],
        })
        self._schedule_decision_task()
        return self

    def child_completed(self, workflow_id, result=None):
        """``ChildWorkflowExecutionCompleted`` for the child, with this result."""
        return self._child_closed(workflow_id, "ChildWorkflowExecutionCompleted",
                                  {"result": result})

    def child_failed(self, workflow_id, reason=None, details=None):
        """``ChildWorkflowExecutionFailed`` for the child."""
        return self._child_closed(workflow_id, "ChildWorkflowExecutionFailed",
                                  {"reason": reason, "details": details})

    def child_timed_out(self, workflow_id):
        """``ChildWorkflowExecutionTimedOut`` for the child."""
        return self._child_closed(workflow_id, "ChildWorkflowExecutionTimedOut",
                                  {"timeoutType": "START_TO_CLOSE"})

    def child_canceled(self, workflow_id, details=None):
        """``ChildWorkflowExecutionCanceled`` for the child."""
        return self._child_closed(workflow_id, "ChildWorkflowExecutionCanceled",
                                  {"details": details})

    def child_terminated(self, workflow_id):
        """``ChildWorkflowExecutionTerminated`` for the child."""
        return self._child_closed(workflow_id, "ChildWorkflowExecutionTerminated", {})

    def _child_initiated(self, workflow_id):
        return self._latest("StartChildWorkflowExecutionInitiated", "workflowId", workflow_id)

    def _child(self, workflow_id, initiated):
        """The attributes every child event has: its execution, type and initiated event."""
        workflow_type = attributes(self.events[initiated - 1])["workflowType"]
        return {
            "workflowExecution": {"workflowId": workflow_id, "runId": f"child-run-{initiated}"},
            "workflowType": dict(workflow_type),
            "initiatedEventId": initiated,
        }

    def _child_closed(self, workflow_id, event_type, attrs):
        initiated = self._child_initiated(workflow_id)
        child = self._child(workflow_id, initiated)
        started = self._started_after(
            initiated, "ChildWorkflowExecutionStarted", "initiatedEventId") or \
            self.event("ChildWorkflowExecutionStarted", child)
        self.event(event_type, {**child, **attrs, "startedEventId": started})
        self._schedule_decision_task()
        return self

    # Lambda functions.

    def lambda_started(self, function_id):
        """``LambdaFunctionStarted`` for the function."""
        self.event("LambdaFunctionStarted",
                   {"scheduledEventId": self._lambda_scheduled(function_id)})
        return self

    def lambda_completed(self, function_id, result=None):
        """``LambdaFunctionCompleted`` for the function, with this result."""
        return self._lambda_closed(function_id, "LambdaFunctionCompleted", {"result": result})

    def lambda_failed(self, function_id, reason=None, details=None):
        """``LambdaFunctionFailed`` for the function."""
        return self._lambda_closed(function_id, "LambdaFunctionFailed",
                                   {"reason": reason, "details": details})

    def lambda_timed_out(self, function_id):
        """``LambdaFunctionTimedOut`` for the function."""
        return self._lambda_closed(function_id, "LambdaFunctionTimedOut",
                                   {"timeoutType": "START_TO_CLOSE"})

    def _lambda_scheduled(self, function_id):
        return self._latest("LambdaFunctionScheduled", "id", function_id)

    def _lambda_closed(self, function_id, event_type, attrs):
        scheduled = self._lambda_scheduled(function_id)
        started = self._started_after(scheduled, "LambdaFunctionStarted", "scheduledEventId") \
            or self.event("LambdaFunctionStarted", {"scheduledEventId": scheduled})
        self.event(event_type, {**attrs, "scheduledEventId": scheduled,
                                "startedEventId": started})
        self._schedule_decision_task()
        return self

    # Signals and cancel requests sent to other workflows.

    def external_signaled(self, workflow_id):
        """``ExternalWorkflowExecutionSignaled``: the latest signal sent to the workflow
        ``workflow_id`` was delivered."""
        return self._external_delivered(
            workflow_id, "SignalExternalWorkflowExecutionInitiated",
            "ExternalWorkflowExecutionSignaled")

    def external_cancel_requested(self, workflow_id):
        """``ExternalWorkflowExecutionCancelRequested``: the latest cancel request sent to the
        workflow ``workflow_id`` was delivered."""
        return self._external_delivered(
            workflow_id, "RequestCancelExternalWorkflowExecutionInitiated",
            "ExternalWorkflowExecutionCancelRequested")

    def _external_delivered(self, workflow_id, initiated_type, event_type):
        initiated = self._latest(initiated_type, "workflowId", workflow_id)
        # The run it named, or else the workflow's current run.
        run_id = attributes(self.events[initiated - 1]).get("runId") or f"{workflow_id}-run"
        self.event(event_type, {
            "workflowExecution": {"workflowId": workflow_id, "runId": run_id},
            "initiatedEventId": initiated})
        self._schedule_decision_task()
        return self

    # Lookups.

    def _latest(self, event_type, key, value):
        """The latest event of this type whose attribute ``key`` is ``value``."""
        for e in reversed(self.events):
            if e["eventType"] == event_type and attributes(e).get(key) == value:
                return e["eventId"]
        raise LookupError(f"the history has no {event_type} with {key} {value!r}")

    def _started_after(self, first, event_type, key):
        """The first event of this type after ``first`` whose ``key`` is ``first``, if any."""
        for e in self.events[first:]:
            if e["eventType"] == event_type and attributes(e).get(key) == first:
                return e["eventId"]
        return None
