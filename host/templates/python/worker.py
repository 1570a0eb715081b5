"""The activity worker of the Greeting workflow: ``Greet`` answers a greeting for its input."""

import weft_guest

worker = weft_guest.ActivityWorker()


@worker.activity("Greet", "1")
def greet(task):
    return f"Hello, {task.input or 'world'}!"
