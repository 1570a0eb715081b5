"""Echo's worker: answers the value its input's JSON holds, which the SDK's payload rule turns
back into the result's text (a string as is, nothing as no result, the rest as JSON)."""

import weft_guest
from weft_guest.payload import loads

worker = weft_guest.ActivityWorker()


@worker.activity("Echo", "1")
def echo(task):
    return loads(task.input)
