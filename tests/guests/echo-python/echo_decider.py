"""Echo's decider: runs the activity ``Echo`` on the workflow's input, then completes with the
activity's result exactly as it came (no result if it had none)."""

import weft_guest
from weft_guest import decisions as d


@weft_guest.decider
def decide(history):
    echo = history.activity("echo")
    if echo is None:
        return [d.schedule_activity("echo", "Echo", "1", input=history.input())]
    if echo.is_open:
        return []
    if echo.is_completed:
        return [d.complete(echo.result)]
    return [d.fail("echo did not complete")]
