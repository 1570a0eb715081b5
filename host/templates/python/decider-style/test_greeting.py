"""The decider on a hand-built history, and the worker on a task, natively."""

import unittest

from weft_guest.testing import HistoryBuilder

import decider
import worker


class GreetingTest(unittest.TestCase):
    def test_greets_waits_then_completes_with_the_greeting(self):
        h = HistoryBuilder("Greeting", "1", input="Ada")
        [schedule] = h.decide(decider.decide)
        self.assertEqual(schedule["scheduleActivityTaskDecisionAttributes"]["input"], "Ada")
        h.activity_completed("greet", "Hello, Ada!")
        [timer] = h.decide(decider.decide)
        self.assertEqual(timer["decisionType"], "StartTimer")
        h.timer_fired("pause")
        [done] = h.decide(decider.decide)
        self.assertEqual(done["completeWorkflowExecutionDecisionAttributes"]["result"], "Hello, Ada!")

    def test_the_worker_greets_by_name(self):
        task = {"activityId": "greet", "activityType": {"name": "Greet", "version": "1"},
                "workflowExecution": {"workflowId": "w", "runId": "r"}, "input": "Ada",
                "startedEventId": 5}
        self.assertEqual(worker.worker.run(task).result, "Hello, Ada!")


if __name__ == "__main__":
    unittest.main()
