"""The Python clock decider: natively with a stopped clock and seeded randomness, and (with
``WEFT_PY_COMPONENT_TESTS=1``) built and run as a component under Wasmtime 48, where it reads
the WASI clock and randomness (wasmtime-py's real ones; Weft's deterministic ones are the host
tests' to check).

Run from the repository root: ``python3 -m unittest discover -s tests/guests/clock-python``.
"""

import json
import os
import random
import sys
import unittest
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
sys.path[:0] = [str(HERE), str(REPO / "guest-sdk" / "python"),
                str(REPO / "guest-sdk" / "python" / "tests")]

from weft_guest.events import decision_attributes  # noqa: E402
from weft_guest.testing import HistoryBuilder, replay  # noqa: E402

import clock  # noqa: E402


class ClockDeciderTest(unittest.TestCase):
    def test_marks_the_time_waits_a_second_and_completes_with_the_time_again(self):
        h = HistoryBuilder("Clock", "1.0")
        random.seed(7)
        with mock.patch("time.time", return_value=1700000003.25):
            first = h.decide(clock.decide)
        self.assertEqual([d["decisionType"] for d in first], ["RecordMarker", "StartTimer"])
        marker = decision_attributes(first[0])
        self.assertEqual(marker["markerName"], "clock")
        self.assertRegex(marker["details"], r'^\{"now":1700000003\.25,"random":0\.\d+\}$')
        self.assertEqual(decision_attributes(first[1]),
                         {"timerId": "t", "startToFireTimeout": "1"})
        self.assertEqual(h.decide(clock.decide), [], "nothing until the timer fires")

        h.timer_fired("t")
        with mock.patch("time.time", return_value=1700000009.0):
            last = h.decide(clock.decide)
        self.assertEqual(last[0]["decisionType"], "CompleteWorkflowExecution")
        self.assertEqual(json.loads(decision_attributes(last[0])["result"])["now"], 1700000009.0)

    def test_with_the_same_clock_and_seed_it_replays(self):
        h = HistoryBuilder("Clock", "1.0")
        random.seed(1)
        with mock.patch("time.time", return_value=5.0):
            h.decide(clock.decide)
            h.timer_fired("t")
            h.decide(clock.decide)
            random.seed(1)
            replay(clock.decide, {"events": h.events})


@unittest.skipUnless(os.environ.get("WEFT_PY_COMPONENT_TESTS") == "1",
                     "set WEFT_PY_COMPONENT_TESTS=1 to build and run the component")
class ClockComponentTest(unittest.TestCase):
    def test_the_component_reads_the_wasi_clock_and_reseeds_its_random_per_instance(self):
        import time

        import build
        from component_host import ComponentHost
        out = REPO / "target" / "python-guests" / "clock_python.wasm"
        build.build("decider", HERE / "clock.py", out, quiet=True)
        host = ComponentHost(out)
        h = HistoryBuilder("Clock", "1.0")
        task = h.decision_task().task
        before = time.time()
        readings = [json.loads(decision_attributes(host.call("decide", task)["decisions"][0])
                               ["details"]) for _ in range(2)]
        self.assertTrue(all(before - 1 <= r["now"] <= time.time() + 1 for r in readings))
        self.assertNotEqual(readings[0]["random"], readings[1]["random"],
                            "random is seeded from WASI in each instance, not at build time")
        h.respond(host.call("decide", task))
        h.timer_fired("t")
        completed = host.call("decide", h.decision_task().task)["decisions"]
        self.assertEqual(completed[0]["decisionType"], "CompleteWorkflowExecution")
        self.assertEqual(set(json.loads(decision_attributes(completed[0])["result"])),
                         {"now", "random"})


if __name__ == "__main__":
    unittest.main()
