"""A boto3 decider and worker against a Weft started with --time-skipping, for
tests/tests/e2e/simpleflow.rs: a week-long timer beside an activity whose worker takes the task
and is never heard from again (one-hour heartbeat timeout).

Usage: week_boto3.py ENDPOINT DOMAIN, with the credentials and region in the environment.
Prints, as JSON, the run's close status, the seconds between the timer's start and firing and
between the activity's start and timeout, and the timeout's type.
"""

import json
import sys
import time

import boto3

endpoint, domain = sys.argv[1:]
swf = boto3.client("swf", endpoint_url=endpoint)
swf.register_domain(name=domain, workflowExecutionRetentionPeriodInDays="1")
swf.register_workflow_type(
    domain=domain, name="week", version="1", defaultTaskList={"name": "deciders"},
    defaultExecutionStartToCloseTimeout=str(10 * 86400), defaultTaskStartToCloseTimeout="60",
    defaultChildPolicy="TERMINATE")
swf.register_activity_type(
    domain=domain, name="stall", version="1", defaultTaskList={"name": "workers"},
    defaultTaskHeartbeatTimeout="3600", defaultTaskScheduleToStartTimeout="NONE",
    defaultTaskStartToCloseTimeout=str(2 * 86400),
    defaultTaskScheduleToCloseTimeout=str(2 * 86400))
run_id = swf.start_workflow_execution(
    domain=domain, workflowId="week", workflowType={"name": "week", "version": "1"})["runId"]


def decision_task():
    while True:
        task = swf.poll_for_decision_task(domain=domain, taskList={"name": "deciders"})
        if task.get("taskToken"):
            return task


def respond(task, decisions):
    swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=decisions)


task = decision_task()
respond(task, [
    {"decisionType": "StartTimer",
     "startTimerDecisionAttributes": {"timerId": "week", "startToFireTimeout": str(7 * 86400)}},
    {"decisionType": "ScheduleActivityTask",
     "scheduleActivityTaskDecisionAttributes": {
         "activityId": "a", "activityType": {"name": "stall", "version": "1"}}},
])
# The worker takes the task and is never heard from again.
while not swf.poll_for_activity_task(domain=domain, taskList={"name": "workers"}).get("taskToken"):
    pass
while True:
    task = decision_task()
    kinds = {event["eventType"] for event in task["events"]}
    if "TimerFired" in kinds:
        respond(task, [{"decisionType": "CompleteWorkflowExecution",
                        "completeWorkflowExecutionDecisionAttributes": {}}])
        break
    respond(task, [])

execution = {"workflowId": "week", "runId": run_id}
while swf.describe_workflow_execution(
        domain=domain, execution=execution)["executionInfo"]["executionStatus"] != "CLOSED":
    time.sleep(0.1)
pages = swf.get_paginator("get_workflow_execution_history")
events = [e for page in pages.paginate(domain=domain, execution=execution) for e in page["events"]]
first = lambda kind: next(e for e in events if e["eventType"] == kind)
seconds = lambda a, b: (first(b)["eventTimestamp"] - first(a)["eventTimestamp"]).total_seconds()
info = swf.describe_workflow_execution(domain=domain, execution=execution)["executionInfo"]
print(json.dumps({
    "closeStatus": info["closeStatus"],
    "timerSeconds": seconds("TimerStarted", "TimerFired"),
    "timeoutSeconds": seconds("ActivityTaskStarted", "ActivityTaskTimedOut"),
    "timeoutType": first("ActivityTaskTimedOut")["activityTaskTimedOutEventAttributes"]["timeoutType"],
}))
