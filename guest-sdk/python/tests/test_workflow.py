"""The workflow runtime against histories that HistoryBuilder records as SWF would: the same
cases as the Rust SDK's ``workflow/tests.rs``, with the same ids and decisions."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from weft_guest import Cancel, Failure  # noqa: E402
from weft_guest import workflow as w  # noqa: E402
from weft_guest.events import attributes  # noqa: E402
from weft_guest.testing import Environment, HistoryBuilder  # noqa: E402


def decide(h, fn):
    return h.decide(lambda history: w.run(history, fn))


def names(decisions):
    """Each decision in short, as the Rust tests write them."""
    out = []
    for dec in decisions:
        kind = dec["decisionType"]
        a = next(v for k, v in dec.items() if k != "decisionType")
        out.append({
            "ScheduleActivityTask": lambda: f"activity {a['activityId']}",
            "StartTimer": lambda: f"timer {a['timerId']} {a['startToFireTimeout']}s",
            "CancelTimer": lambda: f"cancel timer {a['timerId']}",
            "CompleteWorkflowExecution": lambda: f"complete {a.get('result')}",
            "FailWorkflowExecution": lambda: f"fail {a.get('reason')} {a.get('details')}",
            "CancelWorkflowExecution": lambda: f"cancel {a.get('details')}",
            "RecordMarker": lambda: f"marker {a['markerName']} {a.get('details')}",
            "ScheduleLambdaFunction": lambda: f"lambda {a['id']} {a['name']}",
            "StartChildWorkflowExecution": lambda: f"child {a['workflowId']}",
            "SignalExternalWorkflowExecution": lambda: f"signal {a['workflowId']}",
            "RequestCancelExternalWorkflowExecution": lambda: f"cancel {a['workflowId']}",
            "ContinueAsNewWorkflowExecution": lambda: f"continue {a.get('input')}",
        }[kind]())
    return out


async def greet(wf):
    greeting = await wf.activity("Greet", "1.0", input=wf.input() or "world")
    await wf.sleep(1)
    return greeting


async def before_change(wf):
    await wf.activity("Charge", "1.0")
    return await wf.activity("Ship", "1.0")


async def after_change(wf):
    await wf.activity("Charge", "1.0")
    if wf.patched("fraud-check"):
        await wf.activity("CheckFraud", "1.0")
    return await wf.activity("Ship", "1.0")


class Workflows(unittest.TestCase):
    def test_an_activity_then_a_timer_then_the_result(self):
        h = HistoryBuilder("Hello", "1.0", input="Ada")
        first = decide(h, greet)
        self.assertEqual(names(first), ["activity Greet-1"])
        self.assertEqual(first[0]["scheduleActivityTaskDecisionAttributes"]["input"], "Ada")
        h.activity_completed("Greet-1", "Hello, Ada!")
        self.assertEqual(names(decide(h, greet)), ["timer timer-1 1s"])
        h.timer_fired("timer-1")
        self.assertEqual(names(decide(h, greet)), ["complete Hello, Ada!"])

    def test_a_failure_is_raised_at_its_await_and_can_be_compensated(self):
        async def charge_or_release(wf):
            await wf.activity("Reserve", "1.0")
            try:
                return await wf.activity("Charge", "1.0")
            except w.ActivityError:
                await wf.activity("Release", "1.0")
                raise
        h = HistoryBuilder("Order", "1.0")
        decide(h, charge_or_release)
        h.activity_completed("Reserve-1")
        self.assertEqual(names(decide(h, charge_or_release)), ["activity Charge-2"])
        h.activity_failed("Charge-2", "card declined", "ending 0000")
        self.assertEqual(names(decide(h, charge_or_release)), ["activity Release-3"])
        h.activity_completed("Release-3")
        self.assertEqual(names(decide(h, charge_or_release)),
                         ["fail card declined ending 0000"])

    def test_a_retry_policy_succeeds_on_the_third_attempt(self):
        async def flaky(wf):
            return await wf.activity("Flaky", "1.0",
                                     retry=w.RetryPolicy(5, initial_interval=2))
        h = HistoryBuilder("Retry", "1.0")
        self.assertEqual(names(decide(h, flaky)), ["activity Flaky-1"])
        h.activity_failed("Flaky-1", "busy")
        self.assertEqual(names(decide(h, flaky)), ["timer timer-1 2s"])
        h.timer_fired("timer-1")
        self.assertEqual(names(decide(h, flaky)), ["activity Flaky-2"])
        h.activity_timed_out("Flaky-2")
        self.assertEqual(names(decide(h, flaky)), ["timer timer-2 4s"])
        h.timer_fired("timer-2")
        self.assertEqual(names(decide(h, flaky)), ["activity Flaky-3"])
        h.activity_completed("Flaky-3", "done")
        self.assertEqual(names(decide(h, flaky)), ["complete done"])
        kinds = [e["eventType"] for e in h.events]
        self.assertEqual(kinds.count("ActivityTaskScheduled"), 3)
        self.assertEqual(kinds.count("TimerStarted"), 2)

    def test_a_cancel_request_reaches_the_code_which_cleans_up(self):
        async def job(wf):
            index, result = await w.first(wf.activity("Work", "1.0"), wf.cancellation())
            if index == 0:
                return result
            await wf.activity("Cleanup", "1.0")
            raise Cancel("cleaned up")
        h = HistoryBuilder("Job", "1.0")
        self.assertEqual(names(decide(h, job)), ["activity Work-1"])
        h.cancel_requested()
        self.assertEqual(names(decide(h, job)), ["activity Cleanup-2"])
        h.activity_completed("Cleanup-2")
        self.assertEqual(names(decide(h, job)), ["cancel cleaned up"])

    def test_patched_takes_the_old_branch_on_old_histories_and_the_new_one_on_fresh_runs(self):
        old = HistoryBuilder("Order", "1.0")
        decide(old, before_change)
        old.activity_completed("Charge-1")
        self.assertEqual(names(decide(old, before_change)), ["activity Ship-2"])
        old.activity_completed("Ship-2", "shipped")
        self.assertEqual(names(decide(old, after_change)), ["complete shipped"])

        fresh = HistoryBuilder("Order", "1.0")
        decide(fresh, after_change)
        fresh.activity_completed("Charge-1")
        self.assertEqual(names(decide(fresh, after_change)),
                         ["marker weft-patch fraud-check", "activity CheckFraud-2"])
        fresh.activity_completed("CheckFraud-2")
        self.assertEqual(names(decide(fresh, after_change)), ["activity Ship-3"])

        async def deprecated(wf):
            await wf.activity("Charge", "1.0")
            wf.deprecate_patch("fraud-check")
            await wf.activity("CheckFraud", "1.0")
            return await wf.activity("Ship", "1.0")
        fresh.activity_completed("Ship-3", "shipped")
        self.assertEqual(names(decide(fresh, deprecated)), ["complete shipped"])

    def test_swapped_activities_are_a_nondeterminism_naming_both(self):
        async def swapped(wf):
            await wf.activity("Ship", "1.0")
            return await wf.activity("Charge", "1.0")
        h = HistoryBuilder("Order", "1.0")
        decide(h, before_change)
        h.activity_completed("Charge-1")
        with self.assertRaises(w.NondeterminismError) as caught:
            decide(h, swapped)
        message = str(caught.exception)
        self.assertTrue(message.startswith("nondeterminism at event 5"), message)
        self.assertIn('ScheduleActivityTask "Charge-1" (Charge 1.0)', message)
        self.assertIn('ScheduleActivityTask "Ship-1" (Ship 1.0)', message)

    def test_a_changed_duration_or_input_replays_as_before(self):
        async def longer(wf):
            await wf.activity("Greet", "1.0", input="someone else")
            await wf.sleep(60)
        h = HistoryBuilder("Hello", "1.0")
        decide(h, greet)
        h.activity_completed("Greet-1")
        decide(h, greet)
        h.timer_fired("timer-1")
        self.assertEqual(names(decide(h, longer)), ["complete None"])

    def test_first_takes_what_its_task_saw_first_and_of_two_at_once_the_first_given(self):
        async def race(wf):
            index, result = await w.first(wf.activity("A", "1.0"), wf.activity("B", "1.0"))
            await wf.sleep(1)
            return f"{'AB'[index]} {result}"
        h = HistoryBuilder("Race", "1.0")
        self.assertEqual(names(decide(h, race)), ["activity A-1", "activity B-2"])
        h.activity_completed("B-2", "b")
        self.assertEqual(names(decide(h, race)), ["timer timer-1 1s"])
        h.activity_completed("A-1", "a")
        h.timer_fired("timer-1")
        self.assertEqual(names(decide(h, race)), ["complete B b"])
        for first, second in (("A-1", "B-2"), ("B-2", "A-1")):
            h = HistoryBuilder("Race", "1.0")
            decide(h, race)
            h.activity_completed(first, first[0].lower())
            h.activity_completed(second, second[0].lower())
            decide(h, race)
            h.timer_fired("timer-1")
            self.assertEqual(names(decide(h, race)), ["complete A a"])

    def test_gather_waits_for_every_result_in_the_order_given(self):
        async def fan_out(wf):
            parts = await w.gather(*(wf.activity("Part", "1.0", input=p) for p in "xyz"))
            return ",".join(parts)
        h = HistoryBuilder("Fan", "1.0")
        self.assertEqual(names(decide(h, fan_out)),
                         ["activity Part-1", "activity Part-2", "activity Part-3"])
        h.activity_completed("Part-3", "Z")
        h.activity_completed("Part-1", "X")
        self.assertEqual(decide(h, fan_out), [])
        h.activity_completed("Part-2", "Y")
        self.assertEqual(names(decide(h, fan_out)), ["complete X,Y,Z"])

    def test_settled_answers_each_end_and_an_error_says_it_in_every_sdks_words(self):
        async def ends(wf):
            parts = (w.settled(wf.activity("Part", "1.0")) for _ in range(5))
            child = w.settled(wf.child("Nope", "1.0", id="nope"))
            return " | ".join(str(end) for end in await w.gather(*parts, child))
        h = HistoryBuilder("Ends", "1.0")
        decide(h, ends)
        h.activity_failed("Part-1", "card declined", "ending 0000")
        h.activity_failed("Part-2")
        h.activity_timed_out("Part-3", "HEARTBEAT")
        h.activity_canceled("Part-4", "not needed")
        h.activity_completed("Part-5", "done")
        h.child_start_failed("nope", "WORKFLOW_TYPE_DOES_NOT_EXIST")
        self.assertEqual(names(decide(h, ends)), [
            "complete card declined: ending 0000 | failed | timed out (HEARTBEAT) | canceled"
            " | done | could not be scheduled (WORKFLOW_TYPE_DOES_NOT_EXIST)"])

    def test_a_signal_is_awaited_with_a_timer_as_its_timeout(self):
        async def approval(wf):
            index, by = await w.first(wf.signal("approve"), wf.sleep(3600))
            if index == 1:
                raise Failure("not approved in time")
            return by
        h = HistoryBuilder("Approval", "1.0")
        self.assertEqual(names(decide(h, approval)), ["timer timer-1 3600s"])
        h.signal("approve", "ada")
        self.assertEqual(names(decide(h, approval)), ["complete ada"])
        h = HistoryBuilder("Approval", "1.0")
        decide(h, approval)
        h.timer_fired("timer-1")
        self.assertEqual(names(decide(h, approval)), ["fail not approved in time None"])

    def test_children_functions_signals_cancel_requests_and_markers(self):
        async def everything(wf):
            wf.record_marker("began", "1")
            price = await wf.lambda_function("price", input="sku-1")
            shipped = await wf.child("Ship", "1.0")
            await wf.signal_external("other", "hurry")
            await wf.request_cancel_external("other")
            return f"{price} {shipped}"
        h = HistoryBuilder("All", "1.0")
        h.execution("parent", "run-1")
        self.assertEqual(names(decide(h, everything)), ["marker began 1", "lambda price-1 price"])
        h.lambda_completed("price-1", "9.99")
        self.assertEqual(names(decide(h, everything)), ["child parent-Ship-1"])
        h.child_completed("parent-Ship-1", "shipped")
        self.assertEqual(names(decide(h, everything)), ["signal other"])
        initiated = [e for e in h.events
                     if e["eventType"] == "SignalExternalWorkflowExecutionInitiated"][-1]
        h.event("ExternalWorkflowExecutionSignaled", {
            "workflowExecution": {"workflowId": "other", "runId": "r"},
            "initiatedEventId": initiated["eventId"]})
        self.assertEqual(names(decide(h, everything)), ["cancel other"])

    def test_a_child_started_then_awaited_for_its_result(self):
        async def parent(wf):
            run = await wf.child("Ship", "1.0", id="ship").start()
            wf.record_marker("child", run.execution["runId"])
            return await run.result()
        h = HistoryBuilder("Parent", "1.0")
        self.assertEqual(names(decide(h, parent)), ["child ship"])
        h.child_started("ship")
        started = [e for e in h.events if e["eventType"] == "ChildWorkflowExecutionStarted"][-1]
        run_id = attributes(started)["workflowExecution"]["runId"]
        self.assertEqual(names(decide(h, parent)), [f"marker child {run_id}"])
        h.child_completed("ship", "shipped")
        self.assertEqual(names(decide(h, parent)), ["complete shipped"])

    def test_a_child_that_cannot_start_raises_at_its_start(self):
        async def parent(wf):
            try:
                await wf.child("Nope", "1.0", id="nope").start()
            except w.ActivityError as e:
                return f"{e.kind} {e.reason}"
        h = HistoryBuilder("Parent", "1.0")
        decide(h, parent)
        h.child_start_failed("nope", "WORKFLOW_TYPE_DOES_NOT_EXIST")
        self.assertEqual(names(decide(h, parent)),
                         ["complete not_started WORKFLOW_TYPE_DOES_NOT_EXIST"])

    def test_continue_as_new(self):
        async def again(wf):
            raise wf.continue_as_new(input="next")
        h = HistoryBuilder("Loop", "1.0")
        self.assertEqual(names(decide(h, again)), ["continue next"])

    def test_now_and_random_are_the_same_on_every_replay(self):
        async def stamp(wf):
            first = (wf.now(), wf.random())
            await wf.sleep(5)
            return f"{first} {(wf.now(), wf.random())}"
        h = HistoryBuilder("Stamp", "1.0")
        decide(h, stamp)
        h.advance(5)
        h.timer_fired("timer-1")
        task = h.decision_task()
        once, twice = w.run(task, stamp), w.run(task, stamp)
        self.assertEqual(once, twice)
        result = once[0]["completeWorkflowExecutionDecisionAttributes"]["result"]
        first, second = result.split(") (")
        self.assertNotEqual(first.split(",")[0], second.split(",")[0].lstrip("("))

    def test_random_draws_the_sequence_every_sdk_draws_for_the_run(self):
        async def draw(wf):
            return f"{wf.random()} {wf.random()}"
        [done] = w.run(HistoryBuilder("Draw", "1.0").decision_task(), draw)
        self.assertEqual(done["completeWorkflowExecutionDecisionAttributes"]["result"],
                         "16238719912012046523 1765330518796435643")

    def test_an_environment_runs_a_whole_workflow_skipping_its_timers(self):
        async def month(wf):
            greeting = await wf.activity("Greet", "1.0", input=wf.input())
            await wf.sleep(30 * 24 * 3600)
            return greeting
        run = (Environment("Hello", "1.0", input="Ada")
               .activity("Greet", lambda name: f"Hello, {name}!")
               .run(lambda h: w.run(h, month)))
        self.assertEqual(run.result, "Hello, Ada!")
        self.assertGreaterEqual(run.elapsed, 30 * 24 * 3600)
        self.assertEqual(len(run.of_type("TimerFired")), 1)

    def test_an_environment_delivers_signals_and_answers_failures(self):
        async def approval(wf):
            index, by = await w.first(wf.signal("approve"), wf.sleep(3600))
            if index == 1:
                raise Failure("not approved in time")
            await wf.activity("Charge", "1.0", retry=w.RetryPolicy(2))
            return by

        def declined(_):
            raise Failure("card declined")
        approved = (Environment("Approval", "1.0").signal(600, "approve", "ada")
                    .activity("Charge", lambda _: None).run(lambda h: w.run(h, approval)))
        self.assertEqual(approved.result, "ada")
        late = Environment("Approval", "1.0").signal(7200, "approve").run(
            lambda h: w.run(h, approval))
        self.assertEqual(late.failure, ("not approved in time", None))
        charged = (Environment("Approval", "1.0").signal(1, "approve", "ada")
                   .activity("Charge", declined).run(lambda h: w.run(h, approval)))
        self.assertEqual(charged.failure, ("card declined", None))
        self.assertEqual(len(charged.of_type("ActivityTaskScheduled")), 2, "retried once")

    def test_the_workflow_decorator_makes_a_decider_entry(self):
        marked = w.workflow(greet)
        self.assertIs(marked, greet)
        self.assertEqual(greet.__weft_world__, "decider")
        h = HistoryBuilder("Hello", "1.0", input="Ada")
        self.assertEqual(names(h.decide(greet.__weft_decide__)), ["activity Greet-1"])


if __name__ == "__main__":
    unittest.main()
