"""boto3 against Weft: the wire fidelity scenarios of tests/tests/e2e/fidelity/boto3.rs.

Usage: fidelity.py ENDPOINT SCENARIO, with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
AWS_DEFAULT_REGION in the environment. Each scenario registers what it needs in a fresh domain,
drives Weft as an SWF client would, and prints one JSON object of what it saw; the Rust test
asserts it. An unexpected error from the service fails the scenario with its code.
"""

import json
import sys
import time

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

endpoint, scenario = sys.argv[1:]
swf = boto3.client(
    "swf",
    endpoint_url=endpoint,
    config=Config(retries={"total_max_attempts": 1}, read_timeout=70),
)
DOMAIN = "fidelity"
DECIDERS = "deciders"
WORKERS = "workers"


def setup():
    swf.register_domain(name=DOMAIN, workflowExecutionRetentionPeriodInDays="1")
    swf.register_workflow_type(
        domain=DOMAIN, name="w", version="1",
        defaultTaskList={"name": DECIDERS},
        defaultExecutionStartToCloseTimeout="3600",
        defaultTaskStartToCloseTimeout="60",
        defaultChildPolicy="TERMINATE",
    )
    swf.register_activity_type(
        domain=DOMAIN, name="a", version="1",
        defaultTaskList={"name": WORKERS},
        defaultTaskScheduleToCloseTimeout="60",
        defaultTaskScheduleToStartTimeout="30",
        defaultTaskStartToCloseTimeout="15",
        defaultTaskHeartbeatTimeout="10",
    )


def start(workflow_id, **extra):
    return swf.start_workflow_execution(
        domain=DOMAIN, workflowId=workflow_id,
        workflowType={"name": "w", "version": "1"}, **extra)["runId"]


def decision_task(task_list=DECIDERS):
    task = swf.poll_for_decision_task(domain=DOMAIN, taskList={"name": task_list})
    assert task.get("taskToken"), "no decision task came"
    return task


def respond(task, decisions):
    swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=decisions)


def history(workflow_id, run_id):
    pages = swf.get_paginator("get_workflow_execution_history").paginate(
        domain=DOMAIN, execution={"workflowId": workflow_id, "runId": run_id})
    return [event for page in pages for event in page["events"]]


def types(events):
    return [e["eventType"] for e in events]


def attributes(event):
    member = event["eventType"][0].lower() + event["eventType"][1:] + "EventAttributes"
    return event[member]


def first(events, event_type):
    return next(e for e in events if e["eventType"] == event_type)


def fault(call):
    """The code and message of the fault `call` raises."""
    try:
        call()
    except ClientError as e:
        return {"code": e.response["Error"]["Code"], "message": e.response["Error"]["Message"]}
    raise AssertionError("no fault")


def without_metadata(response):
    return {k: v for k, v in response.items() if k != "ResponseMetadata"}


def scheduling():
    """Signals while a decision task is started: the next is scheduled at once and held."""
    run = start("job")
    task = decision_task()
    swf.signal_workflow_execution(domain=DOMAIN, workflowId="job", signalName="one")
    swf.signal_workflow_execution(domain=DOMAIN, workflowId="job", signalName="two")
    held = {
        "types": types(history("job", run)),
        "pending": swf.count_pending_decision_tasks(
            domain=DOMAIN, taskList={"name": DECIDERS})["count"],
        "openDecisionTasks": swf.describe_workflow_execution(
            domain=DOMAIN, execution={"workflowId": "job", "runId": run})
        ["openCounts"]["openDecisionTasks"],
    }
    respond(task, [{"decisionType": "CompleteWorkflowExecution"}])
    after = types(history("job", run))
    task = decision_task()
    return {
        "held": held,
        "after": after,
        "next": {
            "startedEventId": task["startedEventId"],
            "scheduledEventId": attributes(task["events"][-1])["scheduledEventId"],
            "previousStartedEventId": task["previousStartedEventId"],
        },
    }


def members():
    """Which optional members events and answers carry when nobody set them."""
    run = start("job")
    task = decision_task()
    respond(task, [{"decisionType": "ScheduleActivityTask",
                    "scheduleActivityTaskDecisionAttributes": {
                        "activityId": "a1", "activityType": {"name": "a", "version": "1"}}}])
    swf.signal_workflow_execution(domain=DOMAIN, workflowId="job", signalName="s")
    swf.request_cancel_workflow_execution(domain=DOMAIN, workflowId="job")
    pending = swf.count_pending_activity_tasks(domain=DOMAIN, taskList={"name": WORKERS})
    count = swf.count_open_workflow_executions(
        domain=DOMAIN, startTimeFilter={"oldestDate": 0})
    swf.terminate_workflow_execution(domain=DOMAIN, workflowId="job", reason="done")
    events = history("job", run)
    describe = swf.describe_workflow_execution(
        domain=DOMAIN, execution={"workflowId": "job", "runId": run})
    return {
        "started": attributes(first(events, "WorkflowExecutionStarted")),
        "decisionScheduled": attributes(first(events, "DecisionTaskScheduled")),
        "activityScheduled": attributes(first(events, "ActivityTaskScheduled")),
        "signaled": attributes(first(events, "WorkflowExecutionSignaled")),
        "cancelRequested": attributes(first(events, "WorkflowExecutionCancelRequested")),
        "terminated": attributes(first(events, "WorkflowExecutionTerminated")),
        "pendingActivities": without_metadata(pending),
        "openCount": without_metadata(count),
        "configuration": describe["executionConfiguration"],
    }


def faults():
    """AWS's fault codes and messages for tokens and names."""
    run = start("job")
    task = decision_task()
    respond(task, [{"decisionType": "ScheduleActivityTask",
                    "scheduleActivityTaskDecisionAttributes": {
                        "activityId": "a1", "activityType": {"name": "a", "version": "1"}}}])
    activity = swf.poll_for_activity_task(domain=DOMAIN, taskList={"name": WORKERS})
    swf.respond_activity_task_completed(taskToken=activity["taskToken"], result="ok")
    out = {
        "staleDecision": fault(lambda: respond(task, [])),
        "staleActivity": fault(lambda: swf.respond_activity_task_completed(
            taskToken=activity["taskToken"])),
        "notAToken": fault(lambda: swf.respond_activity_task_completed(taskToken="x" * 40)),
        "invalidName": fault(lambda: swf.register_workflow_type(
            domain=DOMAIN, name="Test::HelloWorldWorkflow.hello_workflow", version="1")),
        "typeExists": fault(lambda: swf.register_activity_type(
            domain=DOMAIN, name="a", version="1")),
    }
    # A task of a run that has closed since.
    task = decision_task()
    swf.terminate_workflow_execution(domain=DOMAIN, workflowId="job")
    out["closedRun"] = fault(lambda: respond(task, []))
    out["runId"] = run
    return out


def acceptance():
    """What AWS accepts beyond the documentation's letter."""
    run = start("job")
    task = decision_task()
    respond(task, [
        {"decisionType": "StartTimer",
         "startTimerDecisionAttributes": {"timerId": "delayed_task-0-0:t",
                                          "startToFireTimeout": "0"}},
        {"decisionType": "ScheduleActivityTask",
         "scheduleActivityTaskDecisionAttributes": {
             "activityId": "task:0/1", "activityType": {"name": "a", "version": "1"}}},
        {"decisionType": "StartChildWorkflowExecution",
         "startChildWorkflowExecutionDecisionAttributes": {
             "workflowId": run + ":1", "workflowType": {"name": "w", "version": "1"},
             "taskList": {"name": "children"}}},
    ])
    deadline = time.time() + 30
    while "TimerFired" not in types(history("job", run)):
        assert time.time() < deadline, "the timer never fired"
        time.sleep(0.05)
    child = decision_task("children")
    respond(child, [{"decisionType": "CompleteWorkflowExecution"}])
    events = history("job", run)
    return {
        "types": types(events),
        "child": child["workflowExecution"]["workflowId"],
        "activityId": attributes(first(events, "ActivityTaskScheduled"))["activityId"],
        "timerId": attributes(first(events, "TimerFired"))["timerId"],
    }


def pages():
    """A decision task's history comes in pages of 100 whatever is asked; the paginator joins
    them."""
    run = start("job")
    for i in range(120):
        swf.signal_workflow_execution(domain=DOMAIN, workflowId="job", signalName=f"s{i}")
    paginated = swf.get_paginator("poll_for_decision_task").paginate(
        domain=DOMAIN, taskList={"name": DECIDERS}, PaginationConfig={"PageSize": 1000})
    pages = [page["events"] for page in paginated]
    describe = swf.describe_workflow_execution(
        domain=DOMAIN, execution={"workflowId": "job", "runId": run})
    return {
        "pageSizes": [len(page) for page in pages],
        "lastType": pages[-1][-1]["eventType"],
        "openDecisionTasks": describe["openCounts"]["openDecisionTasks"],
    }


def refusals():
    """Task-list names no task could have are refused at once, not waited on."""
    out = {}
    for name in ["a:b", " lead", "arn", "tab\there"]:
        out[name] = fault(
            lambda: swf.poll_for_decision_task(domain=DOMAIN, taskList={"name": name}))
    out["activity"] = fault(
        lambda: swf.poll_for_activity_task(domain=DOMAIN, taskList={"name": "x|y"}))
    return out


def closing():
    """A run its decider cancels after a cancel request, and one terminated through the API."""
    run = start("job")
    task = decision_task()
    respond(task, [])
    swf.request_cancel_workflow_execution(domain=DOMAIN, workflowId="job")
    before = swf.describe_workflow_execution(
        domain=DOMAIN, execution={"workflowId": "job", "runId": run})["executionInfo"]
    task = decision_task()
    respond(task, [{"decisionType": "CancelWorkflowExecution",
                    "cancelWorkflowExecutionDecisionAttributes": {"details": "bye"}}])
    after = swf.describe_workflow_execution(
        domain=DOMAIN, execution={"workflowId": "job", "runId": run})
    canceled = history("job", run)[-1]
    other = start("other")
    swf.terminate_workflow_execution(
        domain=DOMAIN, workflowId="other", reason="why", details="how")
    terminated = history("other", other)[-1]
    return {
        "cancelRequestedOpen": before["cancelRequested"],
        "cancelRequestedClosed": after["executionInfo"]["cancelRequested"],
        "closeStatus": after["executionInfo"]["closeStatus"],
        "canceled": attributes(canceled),
        "terminated": attributes(terminated),
    }


def long_polls():
    """Two polls at once where the server allows one: the second is refused at once with
    LimitExceededFault while the first waits."""
    import threading

    answers = []

    def poll():
        try:
            swf.poll_for_activity_task(domain=DOMAIN, taskList={"name": WORKERS})
            answers.append("empty")
        except ClientError as e:
            answers.append(e.response["Error"]["Code"])

    threads = [threading.Thread(target=poll) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"answers": sorted(answers)}


SCENARIOS = {f.__name__: f for f in
             [scheduling, members, faults, acceptance, pages, refusals, closing, long_polls]}

try:
    setup()
    result = SCENARIOS[scenario]()
except ClientError as e:
    print(json.dumps({"unexpected": e.response["Error"]["Code"],
                      "message": e.response["Error"]["Message"]}))
    sys.exit(1)
print(json.dumps(result, default=str))
