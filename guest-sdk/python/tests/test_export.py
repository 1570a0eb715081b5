"""Histories exported from GetWorkflowExecutionHistory: the decision task at an event, and a
decider replayed through every recorded decision task."""

import io
import json
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from weft_guest import decisions as d  # noqa: E402
from weft_guest.testing import (  # noqa: E402
    HistoryBuilder, ReplayMismatch, load_history, read_events, replay,
)


def greeter(history):
    """Greets once, then completes with the greeting."""
    greet = history.activity("greet")
    if greet is None:
        return [d.schedule_activity("greet", "Greet", "1.0", input=history.input())]
    if greet.is_open:
        return []
    return [d.complete(greet.result)]


def exported_run():
    """A finished run of ``greeter``, exported as the AWS CLI would print it (ISO 8601
    timestamps) and in decision-task order."""
    h = HistoryBuilder("Hello", "1.0", "world")
    h.decide(greeter)
    h.signal("poke")
    h.decide(greeter)
    h.activity_completed("greet", "hello world")
    h.decide(greeter)
    events = [dict(e) for e in h.events]
    events[0]["eventTimestamp"] = "2023-11-14T22:13:21Z"
    return {"events": list(reversed(events))}


class ExportTest(unittest.TestCase):
    def test_events_are_read_from_a_path_text_a_file_or_a_document(self):
        doc = exported_run()
        text = json.dumps(doc)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "run.json"
            path.write_text(text)
            for source in (path, str(path), text, io.StringIO(text), doc, doc["events"]):
                events = read_events(source)
                self.assertEqual([e["eventId"] for e in events], list(range(1, len(events) + 1)))
                self.assertEqual(events[0]["eventTimestamp"], 1700000001.0)

    def test_the_decision_task_at_an_event(self):
        doc = exported_run()
        latest = load_history(doc)
        self.assertEqual(latest.events[-1]["eventType"], "DecisionTaskStarted")
        self.assertEqual(latest.workflow_type, {"name": "Hello", "version": "1.0"})
        self.assertEqual(greeter(latest), [d.complete("hello world")])
        first = load_history(doc, started_event_id=3)
        self.assertEqual((first.started_event_id, first.previous_started_event_id), (3, 0))
        self.assertTrue(first.is_first_decision())
        second = load_history(doc, 8, workflow_id="order-17")
        self.assertEqual((second.previous_started_event_id, len(second.new_signals())), (3, 1))
        self.assertEqual(second.workflow_execution["workflowId"], "order-17")
        with self.assertRaises(LookupError):
            load_history(doc, 4)

    def test_the_decider_replays_its_history(self):
        steps = replay(greeter, exported_run())
        self.assertEqual([len(s.decisions) for s in steps], [1, 0, 1])
        self.assertEqual([e["eventType"] for e in steps[-1].recorded],
                         ["WorkflowExecutionCompleted"])

    def test_a_changed_decider_does_not(self):
        def changed(history):
            answer = greeter(history)
            if history.is_first_decision():
                return [d.schedule_activity("greet", "Greet", "2.0", input="x")]
            if answer:
                return answer + [d.record_marker("done")]
            return answer

        with self.assertRaises(ReplayMismatch) as raised:
            replay(changed, exported_run())
        message = str(raised.exception)
        self.assertIn("decision task started at event 3: decision 0 (ScheduleActivityTask) "
                      "has activityType {'name': 'Greet', 'version': '2.0'}", message)
        self.assertIn("input 'x', event 5 has 'world'", message)
        self.assertIn("2 decisions ['CompleteWorkflowExecution', 'RecordMarker'], but 1 were "
                      "recorded", message)
        self.assertEqual(len(raised.exception.steps), 2)

    def test_a_refused_decision_replays_as_its_failure_event(self):
        h = HistoryBuilder("Hello", "1.0")
        h.respond([d.start_timer("t", 5)])
        events = [dict(e) for e in h.events]
        events[-1] = {"eventId": 5, "eventTimestamp": 1.0, "eventType": "StartTimerFailed",
                      "startTimerFailedEventAttributes": {
                          "timerId": "t", "cause": "OPEN_TIMERS_LIMIT_EXCEEDED",
                          "decisionTaskCompletedEventId": 4}}
        replay(lambda history: [d.start_timer("t", 5)], {"events": events})
        with self.assertRaises(ReplayMismatch):
            replay(lambda history: [d.start_timer("u", 5)], {"events": events})


if __name__ == "__main__":
    unittest.main()
