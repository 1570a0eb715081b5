"""The Greeting workflow, as ordinary async code: run ``Greet``, wait a second, complete with
the greeting. Weft replays it over the run's history on every decision task: each awaited
activity or timer is a decision the first time the code reaches it, and is answered from the
history on every replay after."""

from weft_guest import workflow


@workflow.workflow
async def greeting(wf):
    # A failed Greet raises ActivityError here, which fails the run with its reason.
    greeting = await wf.activity("Greet", "1", input=wf.input() or "world")
    await wf.sleep(1)
    return greeting
