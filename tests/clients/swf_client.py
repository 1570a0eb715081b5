"""boto3 against Weft, for tests/tests/e2e/clients.rs.

Usage: swf_client.py ENDPOINT DOMAIN, with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
AWS_DEFAULT_REGION in the environment. Registers DOMAIN, then prints the names of the registered
domains as a JSON list. On an error the service answers, prints its code (and the message on
stderr) and exits with 1.
"""

import json
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

endpoint, domain = sys.argv[1:]
swf = boto3.client("swf", endpoint_url=endpoint,
                   config=Config(retries={"total_max_attempts": 1}))
try:
    swf.register_domain(name=domain, workflowExecutionRetentionPeriodInDays="1")
    infos = swf.list_domains(registrationStatus="REGISTERED")["domainInfos"]
except ClientError as e:
    print(e.response["Error"]["Code"])
    print(e, file=sys.stderr)
    sys.exit(1)
print(json.dumps(sorted(info["name"] for info in infos)))
