"""The recorded histories every history reader is tested against (``tests/fixtures/histories``,
written by the end-to-end suite from the real engine): the queries answer of each what its
fixture expects."""

import json
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from weft_guest import History  # noqa: E402
from weft_guest.status import (  # noqa: E402
    CancelRequested, Canceled, Completed, Failed, NotStarted, Scheduled, Started, Terminated,
    TimedOut, TimerCanceled, TimerFired, TimerStarted, TimerStartFailed,
)
from weft_guest.testing import decision_tasks, read_events  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "histories"


def fixtures():
    """Each fixture's name and document."""
    found = sorted(FIXTURES.glob("*.json"))
    assert len(found) >= 7, f"the fixtures are missing from {FIXTURES}"
    return [(path.stem, json.loads(path.read_text(encoding="utf-8"))) for path in found]


def whole(fixture):
    """The whole history, as a decider would read it if it saw every event."""
    events = read_events(fixture)
    return History({
        "workflowExecution": {"workflowId": fixture["workflowId"], "runId": fixture["runId"]},
        "workflowType": events[0]["workflowExecutionStartedEventAttributes"]["workflowType"],
        "events": events,
        "previousStartedEventId": 0,
        "startedEventId": events[-1]["eventId"],
    })


def _present(**members):
    """The members that have a value, as the fixtures write them."""
    return {k: v for k, v in members.items() if v is not None}


def _object(state, **members):
    return {"state": state, **_present(**members)}


def status(found):
    """A status as the fixtures write it."""
    match found:
        case None:
            return None
        case Scheduled():
            return _object("scheduled")
        case Started():
            return _object("started")
        case CancelRequested():
            return _object("cancelRequested")
        case Completed(result):
            return _object("completed", result=result)
        case Failed(reason, details):
            return _object("failed", reason=reason, details=details)
        case TimedOut(timeout_type):
            return _object("timedOut", timeoutType=timeout_type)
        case Canceled(details):
            return _object("canceled", details=details)
        case Terminated():
            return _object("terminated")
        case NotStarted(cause):
            return _object("notStarted", cause=cause)
    raise AssertionError(f"not a status: {found!r}")


def timer(found):
    match found:
        case None:
            return None
        case TimerStarted():
            return _object("started")
        case TimerFired():
            return _object("fired")
        case TimerCanceled():
            return _object("canceled")
        case TimerStartFailed(_, cause):
            return _object("startFailed", cause=cause)
    raise AssertionError(f"not a timer: {found!r}")


class RecordedHistoriesTest(unittest.TestCase):
    def test_the_queries_answer_what_each_recorded_history_expects(self):
        for name, fixture in fixtures():
            expect, history = fixture["expect"], whole(fixture)

            def each(member, query):
                return {key: query(key) for key in expect[member]}

            answers = {
                "input": history.input(),
                "cancelRequested": history.cancel_requested(),
                "activities": each("activities", lambda i: status(history.activity(i))),
                "timers": each("timers", lambda i: timer(history.timer(i))),
                "children": each("children", lambda i: status(history.child(i))),
                "lambdas": each("lambdas", lambda i: status(history.lambda_function(i))),
                "signals": [_present(name=s.name, input=s.input) for s in history.signals()],
                "markers": [_present(name=m.name, details=m.details) for m in history.markers()],
            }
            for member, answer in answers.items():
                with self.subTest(fixture=name, member=member):
                    self.assertEqual(answer, expect[member])

    def test_each_recorded_history_has_the_decision_tasks_it_expects(self):
        for name, fixture in fixtures():
            tasks = decision_tasks(read_events(fixture), fixture["workflowId"], fixture["runId"])
            completed = [t for t, done in tasks if done is not None]
            with self.subTest(fixture=name):
                self.assertEqual(len(completed), fixture["expect"]["decisionTasks"])
                self.assertEqual(completed[0].previous_started_event_id, 0)


if __name__ == "__main__":
    unittest.main()
