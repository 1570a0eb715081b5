"""The boundary between componentize-py's generated WIT values and wire JSON, on the bindings
componentize-py generates from the repo's wit/ (installed on first use, as the build does):
every event type and decision both ways, and the export classes of the three worlds."""

import dataclasses
import enum
import shutil
import sys
import tempfile
import types
import typing
import unittest
from unittest import mock
from pathlib import Path

SDK = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SDK))

import build  # noqa: E402
import weft_guest  # noqa: E402
from weft_guest import _component, _wit  # noqa: E402
from weft_guest import decisions as d  # noqa: E402
from weft_guest.testing import HistoryBuilder  # noqa: E402

BINDINGS = None


def setUpModule():
    global BINDINGS, H, D, T, Err
    BINDINGS = tempfile.mkdtemp(prefix="weft-bindings-")
    try:
        # The activity-worker world's bindings hold every interface the SDK uses.
        build.main(["bindings", "--world", "activity-worker", BINDINGS])
    except (Exception, SystemExit) as e:  # noqa: BLE001 - no toolchain: nothing to test
        raise unittest.SkipTest(f"componentize-py bindings unavailable: {e}")
    sys.path.insert(0, BINDINGS)
    # The decider world also imports the workflow core, which those bindings lack: a component
    # calls it, but outside one the SDK runs the core itself, so an empty module stands in.
    import wit_world.imports
    wit_world.imports.replay = sys.modules["wit_world.imports.replay"] = types.ModuleType("replay")
    from componentize_py_types import Err
    from wit_world.imports import decisions as D
    from wit_world.imports import history as H
    from wit_world.imports import tasks as T


def tearDownModule():
    if BINDINGS:
        shutil.rmtree(BINDINGS, ignore_errors=True)


def sample(hint, optional_present=True):
    """A value of the generated type ``hint`` with every member set (or every optional member
    left out)."""
    origin = typing.get_origin(hint)
    if origin is typing.Union:
        cases = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(cases) == 1:
            return sample(cases[0], optional_present) if optional_present else None
        return sample(cases[0], optional_present)
    if origin is list:
        return [sample(typing.get_args(hint)[0], optional_present)]
    if hint is str:
        return "s"
    if hint is int:
        return 7
    if hint is float:
        return 1.5
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return list(hint)[-1]
    hints = typing.get_type_hints(hint)
    return hint(**{f.name: sample(hints[f.name], optional_present)
                   for f in dataclasses.fields(hint)})


def cases(union):
    return typing.get_args(union)


class BoundaryTest(unittest.TestCase):
    def test_every_event_type_both_ways_with_and_without_its_optional_members(self):
        self.assertEqual(len(cases(H.EventAttributes)), 54)
        for case in cases(H.EventAttributes):
            attrs_type = typing.get_type_hints(case)["value"]
            for present in (True, False):
                event = H.HistoryEvent(5, 1700000000.5, case(sample(attrs_type, present)))
                wire = _wit.to_wire(event)
                kind = case.__name__.split("_", 1)[1]
                self.assertEqual(wire["eventType"], kind)
                self.assertEqual(set(wire), {"eventId", "eventTimestamp", "eventType",
                                             kind[0].lower() + kind[1:] + "EventAttributes"})
                self.assertEqual(_wit.from_wire(H.HistoryEvent, wire), event, kind)

    def test_names_and_enums_are_swf_s(self):
        started = sample(typing.get_type_hints(H.EventAttributes_WorkflowExecutionStarted)
                         ["value"])
        wire = _wit.to_wire(H.HistoryEvent(1, 0.0, H.EventAttributes_WorkflowExecutionStarted(
            dataclasses.replace(started, child_policy=H.types.ChildPolicy.REQUEST_CANCEL))))
        attrs = wire["workflowExecutionStartedEventAttributes"]
        self.assertEqual(attrs["childPolicy"], "REQUEST_CANCEL")
        self.assertEqual(attrs["parentWorkflowExecution"], {"workflowId": "s", "runId": "s"})
        self.assertIn("continuedExecutionRunId", attrs)

    def test_every_decision_both_ways(self):
        self.assertEqual(len(cases(D.Decision)), 13)
        for case in cases(D.Decision):
            decision = case(sample(typing.get_type_hints(case)["value"]))
            response = T.DecisionResponse([decision], "ctx", None, None)
            wire = _wit.to_wire(response)
            self.assertEqual(wire["decisions"][0]["decisionType"], case.__name__.split("_")[1])
            self.assertEqual(_wit.from_wire(T.DecisionResponse, wire), response)

    def test_the_sdk_s_decisions_and_the_builder_s_events_fit_the_wit_types(self):
        built = [
            d.schedule_activity("a", "A", "1", input={"x": 1}, task_list="l", heartbeat=30,
                                task_priority=-2),
            d.request_cancel_activity("a"), d.complete("r"), d.fail("f", "g"), d.cancel(),
            d.continue_as_new(child_policy="ABANDON", tags=["t"]), d.record_marker("m"),
            d.start_timer("t", 5), d.cancel_timer("t"), d.signal_external("w", "s"),
            d.request_cancel_external("w", run_id="r"), d.start_child("c", "C", "1"),
            d.schedule_lambda("f", "price", start_to_close=10),
        ]
        answer = d.response(built, execution_context="ctx", task_list="l", schedule_to_start=5)
        self.assertEqual(_wit.to_wire(_wit.from_wire(T.DecisionResponse, answer)), answer)
        h = HistoryBuilder("Order", "1.0", "in")
        h.respond(built[:1] + built[6:8] + built[9:])
        h.activity_completed("a", "r").timer_fired("t").signal("s").cancel_requested()
        h.respond([d.continue_as_new(workflow_type_version="2")])
        task = h.decision_task().task
        self.assertEqual(_wit.to_wire(_wit.from_wire(T.DecisionTask, task)), task)

    def test_what_does_not_fit_is_named_by_its_path(self):
        with self.assertRaisesRegex(TypeError, r"response\.decisions\[0\]\."
                                    r"startTimerDecisionAttributes\.timerId: expected a string"):
            _wit.from_wire(T.DecisionResponse, {"decisions": [{
                "decisionType": "StartTimer",
                "startTimerDecisionAttributes": {"startToFireTimeout": "5"}}]}, "response")
        with self.assertRaisesRegex(ValueError, "unknown decisionType 'Sleep'"):
            _wit.from_wire(T.DecisionResponse, {"decisions": [{"decisionType": "Sleep"}]})
        with self.assertRaisesRegex(ValueError, "'SOMETIMES' is not one of TERMINATE"):
            _wit.from_wire(T.DecisionResponse, {"decisions": [d.start_child(
                "c", "C", "1", child_policy="SOMETIMES")]})
        self.assertEqual(_wit.from_wire(T.DecisionResponse, {"decisions": [{
            "decisionType": "StartTimer", "startTimerDecisionAttributes": {
                "timerId": "t", "startToFireTimeout": 5}}]}).decisions[0].value
            .start_to_fire_timeout, "5", "a number where SWF has a string of digits")


class WorldClassTest(unittest.TestCase):
    def module(self, **entries):
        module = type(sys)("guest")
        vars(module).update(entries)
        return module

    def test_the_decider_export(self):
        def decide(history):
            if history.input() == "fail":
                raise ValueError("asked to fail")
            return [d.complete(history.input())]

        world = _component.world_class("decider", self.module(decide=weft_guest.decider(decide)))
        task = _wit.from_wire(T.DecisionTask, HistoryBuilder("W", "1", "hi").decision_task().task)
        answer = world().decide(task)
        self.assertEqual(answer, T.DecisionResponse(
            [D.Decision_CompleteWorkflowExecution(
                D.CompleteWorkflowExecutionDecisionAttributes("hi"))], None, None, None))
        failing = _wit.from_wire(T.DecisionTask,
                                 HistoryBuilder("W", "1", "fail").decision_task().task)
        with self.assertRaises(Err) as raised, mock.patch("weft_guest.log.write"):
            world().decide(failing)
        self.assertEqual(raised.exception.value, "asked to fail")

    def test_the_activity_worker_export(self):
        worker = weft_guest.ActivityWorker()
        worker.activity("Echo")(lambda task: task.input)
        world = _component.world_class("activity-worker", self.module(worker=worker))
        task = T.ActivityTask("a", H.types.ActivityType("Echo", "1"),
                              H.types.WorkflowExecution("w", "r"), "x", 5)
        self.assertEqual(world().run(task), T.ActivityOutcome_Completed("x"))
        task.activity_type.name = "Nope"
        self.assertEqual(world().run(task), T.ActivityOutcome_Failed(
            T.Failure("unknown activity type Nope", None)))

    def test_the_function_export(self):
        @weft_guest.function
        def price(input):
            if input is None:
                raise weft_guest.Failure("no input", "give a sku")
            return {"sku": input}

        world = _component.world_class("function", self.module(price=price))
        self.assertEqual(world().invoke("tea"), '{"sku":"tea"}')
        with self.assertRaises(Err) as raised:
            world().invoke(None)
        self.assertEqual(raised.exception.value, T.Failure("no input", "give a sku"))

    def test_a_module_without_its_entry_point_is_refused(self):
        with self.assertRaisesRegex(LookupError, "one function decorated @weft_guest.decider"):
            _component.world_class("decider", self.module())
        with self.assertRaisesRegex(ValueError, "unknown world"):
            _component.world_class("poller", self.module())


if __name__ == "__main__":
    unittest.main()
