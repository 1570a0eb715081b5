"""A Python decider that reads the wall clock and draws random numbers, as language runtimes
do (the Python twin of ``clock-decider``). The host gives deciders a virtual clock (the
decision task's ``DecisionTaskStarted`` time) and randomness seeded by the run and the task, so
replaying its history gives the same decisions.

First task: a ``clock`` marker with ``{"now", "random"}`` and a one-second timer ``t``. Once
the timer fired: it completes with ``{"now", "random"}`` read in that task.
"""

import random
import time

import weft_guest
from weft_guest import Timer
from weft_guest import decisions as d
from weft_guest.payload import dumps


def read():
    """``{"now": seconds since the epoch, "random": a number in [0, 1)}``, compact, keys
    sorted."""
    # time.time() computes float(ns) / 1e9, which can miss the millisecond timestamp by one
    # ulp: the host's test allows for that. A replay reads the same, to the bit.
    now = time.time()
    return dumps({"now": now, "random": random.random()})


@weft_guest.decider
def decide(history):
    """Marks the time and a random number, waits a second, completes with them again."""
    reading = read()
    timer = history.timer("t")
    if timer is None:
        return [d.record_marker("clock", reading), d.start_timer("t", 1)]
    if isinstance(timer, Timer.Fired):
        return [d.complete(reading)]
    return []
