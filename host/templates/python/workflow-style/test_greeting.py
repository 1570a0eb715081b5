"""The whole workflow, run natively in the SDK's testing ``Environment`` (``Greet`` answered by
a function, time skipped rather than waited), and the worker on a task."""

import unittest

from weft_guest import Failure
from weft_guest.testing import Environment

import decider
import worker


def greeting_for_ada():
    return Environment("Greeting", "1", input="Ada")


class GreetingTest(unittest.TestCase):
    def test_greets_waits_a_second_then_completes_with_the_greeting(self):
        run = (greeting_for_ada()
               .activity("Greet", lambda name: f"Hello, {name}!")
               .run(decider.greeting.__weft_decide__))
        self.assertEqual(run.result, "Hello, Ada!")
        [started] = run.of_type("TimerStarted")
        [fired] = run.of_type("TimerFired")
        self.assertGreaterEqual(fired["eventTimestamp"] - started["eventTimestamp"], 1)
        self.assertGreaterEqual(run.elapsed, 1)

    def test_a_failed_greet_fails_the_run_without_waiting(self):
        def greet(name):
            raise Failure("no greeting today", f"not for {name}")
        run = greeting_for_ada().activity("Greet", greet).run(decider.greeting.__weft_decide__)
        self.assertEqual(run.failure, ("no greeting today", "not for Ada"))
        self.assertEqual(run.of_type("TimerStarted"), [], "no timer after a failure")

    def test_a_termination_while_greet_runs_ends_the_run_ungreeted(self):
        hour = 3600
        run = (greeting_for_ada()
               .activity("Greet", lambda name: f"Hello, {name}!", seconds=hour)
               .terminate(60, "enough")
               .run(decider.greeting.__weft_decide__))
        self.assertTrue(run.terminated)
        self.assertIsNone(run.result)
        self.assertEqual(run.of_type("ActivityTaskCompleted"), [])
        self.assertLess(run.elapsed, hour)

    def test_the_worker_greets_by_name(self):
        task = {"activityId": "greet", "activityType": {"name": "Greet", "version": "1"},
                "workflowExecution": {"workflowId": "w", "runId": "r"}, "input": "Ada",
                "startedEventId": 5}
        self.assertEqual(worker.worker.run(task).result, "Hello, Ada!")


if __name__ == "__main__":
    unittest.main()
