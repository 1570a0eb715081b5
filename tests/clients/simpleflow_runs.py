"""simpleflow's production mode against Weft, for tests/tests/e2e/simpleflow.rs: its decider and
worker (`simpleflow decider.start` and `worker.start`, which fork their pollers) as simpleflow's
users run them, unchanged.

Usage: simpleflow_runs.py add|week DOMAIN PROCESSES. simpleflow reads the endpoint, the CA it
trusts and the credentials from the environment (AWS_ENDPOINT_URL_SWF, AWS_CA_BUNDLE,
AWS_ACCESS_KEY_ID, ...); so does this script.

Registers DOMAIN, starts the decider and the worker with PROCESSES pollers each, waits until
their polls wait on both task lists (asking Weft's /v1 API), then:
- add: starts three AddWorkflow runs and prints their close statuses and results, as JSON;
- week: starts a WeekWorkflow run and prints, as JSON, its close status and result, the seconds
  between its timer's start and firing, and between its activity's start and timeout, and the
  timeout's type.
Stops the decider and the worker (SIGTERM to their process groups) before it exits.
"""

import json
import os
import signal
import ssl
import subprocess
import sys
import time
import urllib.request

import boto3

import sfweft

mode, domain, processes = sys.argv[1], sys.argv[2], sys.argv[3]
endpoint = os.environ["AWS_ENDPOINT_URL_SWF"]
swf = boto3.client("swf")
here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, PYTHONPATH=here)
simpleflow = os.path.join(os.path.dirname(sys.executable), "simpleflow")


def started(*args):
    """A simpleflow command, in a process group of its own so that all its forks stop with it."""
    return subprocess.Popen([simpleflow, *args], env=env, start_new_session=True)


def pollers():
    """How many polls wait on each of the two task lists, by name."""
    context = ssl.create_default_context(cafile=os.environ.get("AWS_CA_BUNDLE"))
    url = f"{endpoint}/v1/domains/{domain}/task-lists"
    with urllib.request.urlopen(url, context=context) as answer:
        lists = json.load(answer)["taskLists"]
    return {info["name"]: info["pollers"] for info in lists}


def wait_closed(workflow_id, run_id, within=120):
    execution = {"workflowId": workflow_id, "runId": run_id}
    deadline = time.time() + within
    while True:
        info = swf.describe_workflow_execution(domain=domain, execution=execution)
        if info["executionInfo"]["executionStatus"] == "CLOSED":
            break
        if time.time() > deadline:
            sys.exit(f"{workflow_id} still open after {within} s")
        time.sleep(0.2)
    pages = swf.get_paginator("get_workflow_execution_history")
    events = [e for page in pages.paginate(domain=domain, execution=execution) for e in page["events"]]
    closing = events[-1]
    attributes = next((v for k, v in closing.items() if k.endswith("EventAttributes")), {})
    return info["executionInfo"]["closeStatus"], attributes.get("result"), events


def start(workflow, workflow_id, workflow_input, execution_timeout):
    out = subprocess.run(
        [simpleflow, "workflow.start", "--domain", domain, "--workflow-id", workflow_id,
         "--execution-timeout", str(execution_timeout), "--decision-tasks-timeout", "10",
         "--input", json.dumps(workflow_input), workflow],
        env=env, check=True, capture_output=True, text=True)
    return out.stdout.split()[-1]


def first(events, kind):
    return next(e for e in events if e["eventType"] == kind)


def seconds(start_event, end_event):
    return (end_event["eventTimestamp"] - start_event["eventTimestamp"]).total_seconds()


swf.register_domain(name=domain, workflowExecutionRetentionPeriodInDays="1")
workflow = {"add": "sfweft.AddWorkflow", "week": "sfweft.WeekWorkflow"}[mode]
decider = started("decider.start", "--domain", domain, "--task-list", sfweft.DECISIONS,
                  "--nb-processes", processes, workflow)
worker = started("worker.start", "--domain", domain, "--task-list", sfweft.ACTIVITIES,
                 "--nb-processes", processes, "--heartbeat", "0")
try:
    deadline = time.time() + 60
    while True:
        waiting = pollers()
        if all(waiting.get(name, 0) >= int(processes)
               for name in (sfweft.DECISIONS, sfweft.ACTIVITIES)):
            break
        if time.time() > deadline:
            sys.exit(f"simpleflow's pollers did not come: {waiting}")
        time.sleep(0.2)
    if mode == "add":
        runs = [(f"add-{n}", start(workflow, f"add-{n}", [n, 100], 120)) for n in range(3)]
        print(json.dumps([wait_closed(*run)[:2] for run in runs]))
    else:
        run_id = start(workflow, "week", [], 10 * 86400)
        status, result, events = wait_closed("week", run_id)
        timed_out = first(events, "ActivityTaskTimedOut")
        print(json.dumps({
            "closeStatus": status,
            "result": result,
            "timerSeconds": seconds(first(events, "TimerStarted"), first(events, "TimerFired")),
            "timeoutSeconds": seconds(first(events, "ActivityTaskStarted"), timed_out),
            "timeoutType": timed_out["activityTaskTimedOutEventAttributes"]["timeoutType"],
        }))
finally:
    for process in (decider, worker):
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
