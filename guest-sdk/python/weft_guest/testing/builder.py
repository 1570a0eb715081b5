"""Hand-built histories that play SWF's part, to unit-test deciders natively."""

import copy

from ..decisions import as_response
from ..events import CLOSE_EVENTS, attributes_key
from ..history import History
from .outcomes import Outcomes
from .record import DEFAULT_TASK_LIST, close_failed_event, is_close, recorded_event

__all__ = ["HistoryBuilder"]


class HistoryBuilder(Outcomes):
    """Builds a workflow execution's history event by event, and the decision tasks over it.

    It plays SWF's part: it records the decider's decisions as the events SWF would record for
    them (as if every decision were accepted, but for a close decision made while events the
    decider has not seen are waiting), and the events from the outside world that a test
    chooses (:class:`Outcomes`). It schedules decision tasks as SWF does: an event from the
    outside world schedules one unless one is scheduled already, even while another is
    started; the next one is then handed out when the started one completes.

    An outcome recorded between :meth:`decision_task` and :meth:`respond` arrives while the
    decider works, as in SWF: the next ``DecisionTaskScheduled`` follows it at once, and a
    close decision in that response fails with ``UNHANDLED_DECISION``.
    """

    def __init__(self, name, version, input=None):
        """A history that starts the execution ``workflow-1``/``run-1`` of the workflow type
        ``name``/``version`` with this input: ``WorkflowExecutionStarted``, then
        ``DecisionTaskScheduled``."""
        self.workflow_type = {"name": name, "version": version}
        self.execution_ids = {"workflowId": "workflow-1", "runId": "run-1"}
        self.events = []
        self._scheduled_task = None  # The DecisionTaskScheduled not yet started.
        self._started_task = None  # (DecisionTaskScheduled, DecisionTaskStarted) in progress.
        self._previous_started = 0  # DecisionTaskStarted of the latest completed task.
        self._clock = 1_700_000_000.0
        self.event("WorkflowExecutionStarted", {
            "input": input,
            "executionStartToCloseTimeout": "3600",
            "taskStartToCloseTimeout": "30",
            "childPolicy": "TERMINATE",
            "taskList": {"name": DEFAULT_TASK_LIST},
            "workflowType": dict(self.workflow_type),
        })
        self._schedule_decision_task()

    def execution(self, workflow_id, run_id):
        """Names the execution ``workflow_id``/``run_id`` instead of ``workflow-1``/``run-1``."""
        self.execution_ids = {"workflowId": workflow_id, "runId": run_id}
        return self

    def started_with(self, change):
        """Changes the ``WorkflowExecutionStarted`` event's attributes (a dict) with
        ``change(attributes)``, e.g. to give a Lambda role or a parent."""
        change(self.events[0][attributes_key("WorkflowExecutionStarted")])
        return self

    def advance(self, seconds):
        """Lets ``seconds`` pass before the next event (events are otherwise one second
        apart)."""
        self._clock += seconds
        return self

    def event(self, event_type, attributes=None):
        """Appends an event of this type with these attributes (``None`` members left out)
        and answers its id."""
        event_id = len(self.events) + 1
        self._clock += 1.0
        present = {k: v for k, v in (attributes or {}).items() if v is not None}
        self.events.append({
            "eventId": event_id,
            "eventTimestamp": self._clock,
            "eventType": event_type,
            attributes_key(event_type): present,
        })
        return event_id

    def decision_task(self):
        """The decision task a decider would get now, as a :class:`~weft_guest.History`: the
        started one, or else the scheduled one (scheduling one if none is), started. Once the
        execution is closed, its history as it ends."""
        if self.closed() and self._started_task is None:
            started = self._previous_started
        else:
            started = self._start_decision_task()
        return History({
            "workflowExecution": dict(self.execution_ids),
            "workflowType": dict(self.workflow_type),
            "events": copy.deepcopy(self.events),
            "previousStartedEventId": self._previous_started,
            "startedEventId": started,
        })

    def respond(self, answer):
        """Completes the open decision task (starting one first if needed) with ``answer`` (a
        list of decisions or a response): ``DecisionTaskCompleted``, then the events SWF
        records for each decision."""
        response = as_response(answer)
        started = self._start_decision_task()
        scheduled, _ = self._started_task
        self._started_task = None
        # A task scheduled while this one was started: its events are unhandled.
        unhandled = self._scheduled_task is not None
        completed = self.event("DecisionTaskCompleted", {
            "executionContext": response.get("executionContext"),
            "scheduledEventId": scheduled,
            "startedEventId": started,
            "taskList": response.get("taskList"),
            "taskListScheduleToStartTimeout": response.get("taskListScheduleToStartTimeout"),
        })
        self._previous_started = started
        for decision in response["decisions"]:
            if unhandled and is_close(decision):
                self.event(*close_failed_event(decision, completed))
            else:
                self.event(*recorded_event(
                    decision, completed, self.workflow_type, self.execution_ids["runId"],
                    self._timer_started))
        return self

    def decide(self, decider):
        """Runs ``decider`` on the decision task it would get now, records its answer with
        :meth:`respond`, and answers its decisions. An exception from the decider propagates
        (the decision task stays started)."""
        response = as_response(decider(self.decision_task()))
        self.respond(response)
        return response["decisions"]

    def closed(self):
        """Whether a decision closed the execution."""
        return any(e["eventType"] in CLOSE_EVENTS for e in self.events)

    def _schedule_decision_task(self):
        """Schedules a decision task unless one is scheduled and not yet started: after an
        event the decider must hear about."""
        if self._scheduled_task is None and not self.closed():
            self._scheduled_task = self.event("DecisionTaskScheduled", {
                "taskList": {"name": DEFAULT_TASK_LIST},
                "startToCloseTimeout": "30",
            })

    def _start_decision_task(self):
        """Starts the scheduled decision task (scheduling one first if none is) unless one is
        started already; answers the started task's ``DecisionTaskStarted`` event."""
        if self._started_task is not None:
            return self._started_task[1]
        self._schedule_decision_task()
        scheduled = self._scheduled_task
        if scheduled is None:
            raise AssertionError("the execution is closed: it gets no more decision tasks")
        self._scheduled_task = None
        started = self.event("DecisionTaskStarted", {
            "identity": "test", "scheduledEventId": scheduled})
        self._started_task = (scheduled, started)
        return started
