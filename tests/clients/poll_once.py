"""One boto3 long poll against Weft, for tests/tests/e2e/pauses.rs.

Usage: poll_once.py ENDPOINT DOMAIN KIND LIST, KIND being `activity` or `decision`, with
AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_DEFAULT_REGION in the environment. Prints the
activity id (or the workflow id) of the task handed out, or an empty line if the poll came back
empty. On an error the service answers, prints its code and exits with 1.
"""

import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

endpoint, domain, kind, task_list = sys.argv[1:]
swf = boto3.client("swf", endpoint_url=endpoint,
                   config=Config(retries={"total_max_attempts": 1}, read_timeout=120))
try:
    if kind == "activity":
        task = swf.poll_for_activity_task(domain=domain, taskList={"name": task_list},
                                          identity="boto3")
        print(task.get("activityId", ""))
    else:
        task = swf.poll_for_decision_task(domain=domain, taskList={"name": task_list},
                                          identity="boto3")
        print(task.get("workflowExecution", {}).get("workflowId", ""))
except ClientError as e:
    print(e.response["Error"]["Code"])
    print(e, file=sys.stderr)
    sys.exit(1)
