"""Activity workers dispatch by registration and end tasks as completed, failed or canceled;
functions answer a result or a failure."""

import sys
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import weft_guest  # noqa: E402
from weft_guest import ActivityWorker, Cancel, Failure, Outcome, heartbeat  # noqa: E402
from weft_guest.activity import invoke  # noqa: E402
from weft_guest.testing import activity_task  # noqa: E402


def quiet():
    """Keeps the SDK's native log lines (stderr) out of the test output."""
    return mock.patch("weft_guest.log.print", create=True)


class WorkerTest(unittest.TestCase):
    def setUp(self):
        self.worker = ActivityWorker()

        @self.worker.activity("Echo", "1.0")
        def echo(task):
            return task.input

        @self.worker.activity("Json")
        def as_json(task):
            return {"got": task.input_json(), "type": [task.name, task.version]}

        @self.worker.activity("Outcome", "1.0")
        def outcome(task):
            return {"fail": Failure("no", {"why": 1}), "cancel": Outcome.canceled("c"),
                    "none": None}[task.input]

        @self.worker.activity("Raise", "1.0")
        def raises(task):
            if task.input == "failure":
                raise Failure("card declined", "card ending 0000")
            if task.input == "cancel":
                raise Cancel({"at": 3})
            return {}["missing"]

    def run_task(self, name, input=None, version="1.0"):
        return self.worker.run(activity_task(name, input, version))

    def test_results_are_strings_as_they_are_and_anything_else_as_json(self):
        self.assertEqual(self.run_task("Echo", "hi"), Outcome("completed", result="hi"))
        self.assertEqual(self.run_task("Json", '{"b":1}', version="7").result,
                         '{"got":{"b":1},"type":["Json","7"]}')
        self.assertEqual(self.run_task("Outcome", "none"), Outcome.completed())

    def test_failures_and_cancellation_returned_or_raised(self):
        self.assertEqual(self.run_task("Outcome", "fail").failure, Failure("no", '{"why":1}'))
        self.assertEqual(self.run_task("Outcome", "cancel"), Outcome.canceled("c"))
        self.assertEqual(self.run_task("Raise", "failure"),
                         Outcome.failed("card declined", "card ending 0000"))
        self.assertEqual(self.run_task("Raise", "cancel"), Outcome.canceled('{"at":3}'))

    def test_an_unexpected_exception_fails_the_task_with_its_traceback(self):
        with quiet():
            failure = self.run_task("Raise", "boom").failure
        self.assertEqual(failure.reason, "KeyError: 'missing'")
        self.assertIn("Traceback", failure.details)

    def test_unknown_types_and_bad_inputs(self):
        self.assertEqual(self.run_task("Teleport").failure.reason,
                         "unknown activity type Teleport")
        self.assertEqual(self.run_task("Echo", version="2.0").failure.reason,
                         "unknown activity type Echo", "Echo is registered at 1.0 only")
        self.assertEqual(self.run_task("Json", "{").failure,
                         Failure("the input is not JSON",
                                 "Expecting property name enclosed in double quotes: "
                                 "line 1 column 2 (char 1)"))
        self.assertEqual(self.run_task("Json").failure.reason, "the activity needs an input")

    def test_tasks_from_wire_json(self):
        outcome = self.worker.run({"activityId": "a", "activityType": {"name": "Echo",
                                                                       "version": "1.0"},
                                   "workflowExecution": {"workflowId": "w", "runId": "r"},
                                   "input": "x", "startedEventId": 5})
        self.assertEqual(outcome.result, "x")

    def test_heartbeat_outside_a_component(self):
        self.assertFalse(heartbeat("step 1"))
        with mock.patch("weft_guest.activity.native_heartbeat", return_value=True) as beat:
            self.assertTrue(heartbeat({"step": 2}))
        beat.assert_called_once_with('{"step":2}')


class FunctionTest(unittest.TestCase):
    def test_a_function_answers_a_result_or_a_failure(self):
        @weft_guest.function
        def shout(input):
            if input is None:
                raise Failure("no input")
            if input == "json":
                return {"a": [1]}
            if input == "bug":
                return 1 / 0
            return input.upper()

        self.assertEqual(shout.__weft_world__, "function")
        self.assertEqual(invoke(shout, "hi"), "HI")
        self.assertEqual(invoke(shout, "json"), '{"a":[1]}')
        self.assertEqual(invoke(shout, None), Failure("no input"))
        with quiet():
            self.assertEqual(invoke(shout, "bug").reason, "ZeroDivisionError: division by zero")


if __name__ == "__main__":
    unittest.main()
