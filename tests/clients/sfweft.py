"""simpleflow workflows that tests/clients/simpleflow_runs.py runs against Weft (imported by
simpleflow's decider and worker as `sfweft`)."""

import time

from simpleflow import Workflow, activity, futures

DECISIONS = "sf-decisions"
ACTIVITIES = "sf-activities"


@activity.with_attributes(task_list=ACTIVITIES, version="1.0", start_to_close_timeout=30)
def add(x, y):
    return x + y


class AddWorkflow(Workflow):
    """One activity: x + y."""

    name = "sfweft.AddWorkflow"
    version = "1.0"
    task_list = DECISIONS

    def run(self, x, y):
        return self.submit(add, x, y).result


@activity.with_attributes(
    task_list=ACTIVITIES,
    version="1.0",
    heartbeat_timeout=3600,
    start_to_close_timeout=2 * 86400,
    schedule_to_close_timeout=2 * 86400,
)
def stall():
    """Takes the task and is never heard from again, as a crashed worker."""
    time.sleep(10**6)


class WeekWorkflow(Workflow):
    """A week-long timer beside an activity whose worker never heartbeats (one-hour timeout)."""

    name = "sfweft.WeekWorkflow"
    version = "1.0"
    task_list = DECISIONS

    def run(self):
        timer = self.submit(self.start_timer("week", 7 * 86400))
        stalled = self.submit(stall)
        futures.wait(timer, stalled)
        return {"stalled": "failed" if stalled.exception else "completed"}
