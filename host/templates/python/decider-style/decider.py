"""The decider of the Greeting workflow: run ``Greet``, wait a second, complete with the
greeting. Weft calls ``decide`` with the run's whole history on every decision task; it answers
what to do next."""

import weft_guest
from weft_guest import decisions as d


@weft_guest.decider
def decide(history):
    greet = history.activity("greet")
    if greet is None:
        return [d.schedule_activity("greet", "Greet", "1", input=history.input() or "world")]
    if greet.is_open:
        return []
    if not greet.is_completed:
        return [d.fail("greet did not complete")]
    timer = history.timer("pause")
    if timer is None:
        return [d.start_timer("pause", 1)]
    if timer.is_open:
        return []
    return [d.complete(greet.result)]
