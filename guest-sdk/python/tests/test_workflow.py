"""The workflow runtime against histories that HistoryBuilder records as SWF would: every
scenario of ``guest-sdk/workflows.json``, which the Rust and JavaScript SDKs' tests play too,
with the workflows it names written here; then what only this SDK has (the decorator, the
Environment)."""

import json
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from weft_guest import Cancel, Failure  # noqa: E402
from weft_guest import workflow as w  # noqa: E402
from weft_guest.events import attributes, decision_attributes  # noqa: E402
from weft_guest.testing import Environment, HistoryBuilder  # noqa: E402

SCENARIOS = Path(__file__).resolve().parents[2] / "workflows.json"


# The workflows the scenarios name.

async def greet(wf):
    greeting = await wf.activity("Greet", "1.0", input=wf.input() or "world")
    await wf.sleep(1)
    return greeting


async def longer(wf):
    await wf.activity("Greet", "1.0", input="someone else")
    await wf.sleep(60)


async def charge_or_release(wf):
    await wf.activity("Reserve", "1.0")
    try:
        return await wf.activity("Charge", "1.0")
    except w.ActivityError:
        await wf.activity("Release", "1.0")
        raise


async def flaky(wf):
    return await wf.activity("Flaky", "1.0", retry=w.RetryPolicy(5, initial_interval=2))


async def strict(wf):
    policy = w.RetryPolicy(0, non_retryable=["card declined"])
    return await wf.activity("Charge", "1.0", retry=policy)


async def backoff(wf):
    policy = w.RetryPolicy(4, initial_interval=2, backoff=1.5, maximum_interval=4)
    return await wf.activity("Charge", "1.0", id="charge", retry=policy)


async def hurried_retry(wf):
    async def hurry():
        await wf.signal("hurry")
        wf.cancel_timer("timer-1")
    policy = w.RetryPolicy(2, initial_interval=60)
    charged, _ = await w.gather(wf.activity("Charge", "1.0", retry=policy), hurry())
    return charged


async def uncaught(wf):
    await wf.activity("Part", "1.0")
    return await wf.child("Item", "1.0")


async def cancellable(wf):
    index, result = await w.first(wf.activity("Work", "1.0"), wf.cancellation())
    if index == 0:
        return result
    await wf.activity("Cleanup", "1.0")
    raise Cancel("cleaned up")


async def before_change(wf):
    await wf.activity("Charge", "1.0")
    return await wf.activity("Ship", "1.0")


async def after_change(wf):
    await wf.activity("Charge", "1.0")
    if wf.patched("fraud-check"):
        await wf.activity("CheckFraud", "1.0")
    return await wf.activity("Ship", "1.0")


async def deprecated(wf):
    await wf.activity("Charge", "1.0")
    wf.deprecate_patch("fraud-check")
    await wf.activity("CheckFraud", "1.0")
    return await wf.activity("Ship", "1.0")


async def swapped(wf):
    await wf.activity("Ship", "1.0")
    return await wf.activity("Charge", "1.0")


async def quoted(wf):
    return await wf.activity("Charge", "1.0", id='say "hi"')


async def nothing(wf):
    await w.wait_until(lambda: False)


async def both_at_once(wf):
    return await w.gather(wf.activity("Charge", "1.0"), wf.activity("Ship", "1.0"))


async def race(wf):
    index, result = await w.first(wf.activity("A", "1.0"), wf.activity("B", "1.0"))
    await wf.sleep(1)
    return f"{'AB'[index]} {result}"


async def fan_out(wf):
    parts = await w.gather(*(wf.activity("Part", "1.0", input=p) for p in "xyz"))
    return ",".join(parts)


async def activity_ends(wf):
    parts = (w.settled(wf.activity("Part", "1.0")) for _ in range(5))
    child = w.settled(wf.child("Nope", "1.0", id="nope"))
    return " | ".join(str(end) for end in await w.gather(*parts, child))


async def child_and_function_ends(wf):
    children = [w.settled(wf.child("Item", "1.0")) for _ in range(4)]
    functions = [w.settled(wf.lambda_function("price")) for _ in range(2)]
    return " | ".join(str(end) for end in await w.gather(*children, *functions))


async def approval(wf):
    index, by = await w.first(wf.signal("approve"), wf.sleep(3600))
    if index == 1:
        raise Failure("not approved in time")
    return by


async def two_signals(wf):
    first = await wf.signal("step")
    return f"{first} {await wf.signal('step')}"


async def half(wf):
    await wf.sleep(1.5)


async def reminder(wf):
    timer = wf.sleep(60)
    index, _ = await w.first(wf.signal("done"), timer)
    if index == 1:
        return "reminded"
    timer.cancel()
    await w.wait_until(lambda: False)


async def everything(wf):
    wf.record_marker("began", "1")
    price = await wf.lambda_function("price", input="sku-1")
    child = await wf.child("Ship", "1.0").start()
    await wf.signal_external(child.execution["workflowId"], "hurry")
    shipped = await child.result()
    await wf.request_cancel_external("other")
    return f"{price} {shipped}"


async def child_run(wf):
    run = await wf.child("Ship", "1.0", id="ship").start()
    wf.record_marker("child", run.execution["runId"])
    return await run.result()


async def child_not_started(wf):
    try:
        await wf.child("Nope", "1.0", id="nope").start()
    except w.ActivityError as e:
        return f"{e.kind} {e.reason}"


async def stoppable(wf):
    work = wf.activity("Work", "1.0", id="work")
    try:
        index, result = await w.first(work, wf.signal("stop"))
        if index == 0:
            return result
        wf.cancel_activity("work")
        wf.cancel_activity("work")  # asked already: issues nothing
        return await work
    except w.ActivityError as error:
        if error.kind != "canceled":
            raise
    await wf.activity("Undo", "1.0")
    return "undone"


async def stoppable_child(wf):
    ship = wf.child("Ship", "1.0", id="ship")
    index, result = await w.first(ship, wf.signal("stop"))
    if index == 0:
        return result
    wf.cancel_child("ship")
    try:
        return await ship
    except w.ActivityError as error:
        if error.kind != "canceled":
            raise
        return "stopped"


async def again(wf):
    raise wf.continue_as_new(input="next")


async def quick(wf):
    return "done"


async def stamp(wf):
    first = f"{int(wf.now())} {wf.random()}"
    await wf.sleep(5)
    return f"{first} {int(wf.now())} {wf.random()}"


async def draw(wf):
    return f"{wf.random()} {wf.random()} {wf.random()}"


WORKFLOWS = {fn.__name__: fn for fn in [
    greet, longer, charge_or_release, flaky, strict, backoff, hurried_retry, uncaught,
    cancellable, before_change, after_change, deprecated, swapped, quoted, nothing, both_at_once,
    race, fan_out, activity_ends, child_and_function_ends, approval, two_signals, half, reminder,
    everything, child_run, child_not_started, stoppable, stoppable_child, again, quick, stamp,
    draw,
]}


# The runner.

def short(decision):
    """A decision in the file's words: ids and names as they are, payloads as JSON."""
    kind = decision["decisionType"]
    a = next(v for k, v in decision.items() if k != "decisionType")

    def payload(key):
        return json.dumps(a.get(key), ensure_ascii=False)

    def with_input(words):
        return words if a.get("input") is None else f"{words} {payload('input')}"
    return {
        "ScheduleActivityTask": lambda: with_input(f"activity {a['activityId']}"),
        "ScheduleLambdaFunction": lambda: with_input(f"lambda {a['id']} {a['name']}"),
        "StartTimer": lambda: f"timer {a['timerId']} {a['startToFireTimeout']}s",
        "CancelTimer": lambda: f"cancel timer {a['timerId']}",
        "RequestCancelActivityTask": lambda: f"cancel activity {a['activityId']}",
        "StartChildWorkflowExecution": lambda: f"child {a['workflowId']}",
        "SignalExternalWorkflowExecution": lambda: f"signal {a['workflowId']} {a['signalName']}",
        "RequestCancelExternalWorkflowExecution": lambda: f"cancel external {a['workflowId']}",
        "RecordMarker": lambda: f"marker {a['markerName']} {payload('details')}",
        "CompleteWorkflowExecution": lambda: f"complete {payload('result')}",
        "FailWorkflowExecution": lambda: f"fail {payload('reason')} {payload('details')}",
        "CancelWorkflowExecution": lambda: f"cancel {payload('details')}",
        "ContinueAsNewWorkflowExecution": lambda: f"continue {payload('input')}",
    }[kind]()


def named_workflows(scenario):
    """The workflows a scenario runs: its own, and those its steps decide `with`."""
    return {scenario["workflow"]} | {step["with"] for step in scenario["steps"] if "with" in step}


class Scenarios(unittest.TestCase):
    """Every scenario of the shared file, one subtest each."""

    maxDiff = None

    def test_every_scenario_of_the_shared_file(self):
        scenarios = json.loads(SCENARIOS.read_text(encoding="utf-8"))["scenarios"]
        named = set()
        for scenario in scenarios:
            named |= named_workflows(scenario)
            with self.subTest(scenario["name"]):
                self.play(scenario)
        self.assertEqual(sorted(set(WORKFLOWS) - named), [], "workflows no scenario names")

    def play(self, scenario):
        missing = sorted(named_workflows(scenario) - set(WORKFLOWS))
        self.assertEqual(missing, [], "workflows missing from WORKFLOWS")
        name, version = scenario["start"]["workflow"]
        h = HistoryBuilder(name, version, input=scenario["start"].get("input"))
        if "execution" in scenario:
            h.execution(*scenario["execution"])
        for number, step in enumerate(scenario["steps"], 1):
            try:
                self.step(h, scenario, step)
            except Exception as e:
                raise AssertionError(f"step {number}: {e}") from e

    def step(self, h, scenario, step):
        if "decide" in step:
            self.decide(h, WORKFLOWS[step.get("with", scenario["workflow"])], step)
        elif "count" in step:
            types = [e["eventType"] for e in h.events]
            counted = {name: types.count(name) for name in step["count"]}
            self.assertEqual(counted, step["count"], "events in the history")
        else:
            [(method, args)] = step.items()
            getattr(h, method)(*args)

    def decide(self, h, fn, step):
        task = h.decision_task()
        for arriving in step.get("meanwhile", []):
            self.step(h, None, arriving)
        (decisions, once), (_, twice) = answer(task, fn), answer(task, fn)
        self.assertEqual(once, twice, "the same answer on every replay")
        expected = step["decide"]
        self.assertEqual(once, expected if isinstance(expected, dict) else {"decisions": expected})
        if decisions is not None:
            h.respond(decisions)


def answer(task, fn):
    """The workflow's decisions on ``task``, and in short (or the nondeterminism it fails
    with)."""
    try:
        decisions = w.run(task, fn)
    except w.NondeterminismError as e:
        return None, {"nondeterminism": str(e)}
    return decisions, {"decisions": [short(decision) for decision in decisions]}


# What only this SDK has.

class Workflows(unittest.TestCase):
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
        async def charged_approval(wf):
            by = await approval(wf)
            await wf.activity("Charge", "1.0", retry=w.RetryPolicy(2))
            return by

        def declined(_):
            raise Failure("card declined")
        approved = (Environment("Approval", "1.0").signal(600, "approve", "ada")
                    .activity("Charge", lambda _: None)
                    .run(lambda h: w.run(h, charged_approval)))
        self.assertEqual(approved.result, "ada")
        late = Environment("Approval", "1.0").signal(7200, "approve").run(
            lambda h: w.run(h, charged_approval))
        self.assertEqual(late.failure, ("not approved in time", None))
        charged = (Environment("Approval", "1.0").signal(1, "approve", "ada")
                   .activity("Charge", declined).run(lambda h: w.run(h, charged_approval)))
        self.assertEqual(charged.failure, ("card declined", None))
        self.assertEqual(len(charged.of_type("ActivityTaskScheduled")), 2, "retried once")

    def test_an_environment_asks_the_run_to_cancel_at_a_chosen_time(self):
        def job():
            return (Environment("Job", "1.0").activity("Work", lambda _: "worked", seconds=3600)
                    .activity("Cleanup", lambda _: None))
        run = job().request_cancel(60).run(lambda h: w.run(h, cancellable))
        [requested] = run.of_type("WorkflowExecutionCancelRequested")
        self.assertGreaterEqual(requested["eventTimestamp"] - run.events[0]["eventTimestamp"], 60)
        scheduled = [attributes(e)["activityType"]["name"]
                     for e in run.of_type("ActivityTaskScheduled")]
        self.assertEqual(scheduled, ["Work", "Cleanup"], "compensated")
        self.assertEqual(run.close["decisionType"], "CancelWorkflowExecution")
        self.assertEqual(decision_attributes(run.close)["details"], "cleaned up")
        self.assertLess(run.elapsed, 3600, "closed before the work would have ended")
        # Not asked: the work runs its hour and completes the run.
        worked = job().run(lambda h: w.run(h, cancellable))
        self.assertEqual(worked.result, "worked")
        self.assertGreaterEqual(worked.elapsed, 3600)

    def test_an_environment_terminates_the_run_at_a_chosen_time(self):
        run = Environment("Approval", "1.0").terminate(600, "enough").run(
            lambda h: w.run(h, approval))
        self.assertTrue(run.terminated)
        self.assertEqual((run.close, run.result, run.failure), (None, None, None))
        [terminated] = run.of_type("WorkflowExecutionTerminated")
        self.assertIs(run.events[-1], terminated, "nothing happens after it")
        self.assertEqual(attributes(terminated)["reason"], "enough")
        self.assertEqual(run.of_type("TimerFired"), [], "the hour's timer never fired")
        self.assertTrue(600 <= run.elapsed < 3600)
        # A run that closes first is not terminated.
        approved = (Environment("Approval", "1.0").signal(60, "approve", "ada").terminate(600)
                    .run(lambda h: w.run(h, approval)))
        self.assertEqual(approved.result, "ada")
        self.assertFalse(approved.terminated)

    def test_an_environment_cancels_a_running_activity_the_workflow_cancels(self):
        def stopped(**options):
            return (Environment("Job", "1.0")
                    .activity("Work", lambda _: "done", seconds=3600, **options)
                    .activity("Undo", lambda _: None)
                    .signal(60, "stop").run(lambda h: w.run(h, stoppable)))
        run = stopped()
        self.assertEqual(run.result, "undone", "canceled at its await")
        self.assertEqual(len(run.of_type("ActivityTaskCancelRequested")), 1)
        self.assertEqual(len(run.of_type("ActivityTaskCanceled")), 1)
        self.assertEqual(len(run.of_type("ActivityTaskCompleted")), 1, "Undo's alone")
        self.assertLess(run.elapsed, 3600)
        # One that ignores the request runs its hour and gives its result at the await.
        ignored = stopped(ignores_cancel=True)
        self.assertEqual(ignored.result, "done")
        self.assertEqual(len(ignored.of_type("ActivityTaskCancelRequested")), 1)
        self.assertEqual(ignored.of_type("ActivityTaskCanceled"), [])
        self.assertGreaterEqual(ignored.elapsed, 3600)

    def test_a_held_activity_cancels_its_current_attempt_which_is_not_retried(self):
        async def retried(wf):
            charge = wf.activity("Charge", "1.0", id="charge", retry=w.RetryPolicy(3))
            index, result = await w.first(charge, wf.signal("stop"))
            if index == 1:
                charge.cancel()
                result = await w.settled(charge)
            return str(result)

        def decide():
            return [short(x) for x in h.decide(lambda task: w.run(task, retried))]
        h = HistoryBuilder("Job", "1.0")
        self.assertEqual(decide(), ["activity charge"])
        h.activity_failed("charge", "oops")
        self.assertEqual(decide(), ["timer timer-1 1s"])
        h.timer_fired("timer-1")
        self.assertEqual(decide(), ["activity charge-2"])
        h.activity_started("charge-2").signal("stop")
        self.assertEqual(decide(), ["cancel activity charge-2"])
        h.activity_canceled("charge-2")
        self.assertEqual(decide(), ['complete "canceled"'])

        # Canceled while it waits to retry: the wait is canceled and no attempt follows.
        h = HistoryBuilder("Job", "1.0")
        self.assertEqual(decide(), ["activity charge"])
        h.activity_failed("charge", "oops")
        self.assertEqual(decide(), ["timer timer-1 1s"])
        h.signal("stop")
        self.assertEqual(decide(), ["cancel timer timer-1", 'complete "canceled"'])

    def test_one_module_serves_several_workflow_types_by_the_tasks_type(self):
        async def order(wf):
            return await wf.child("Ship", "1.0", id="ship", input=wf.input())

        async def ship(wf):
            return await wf.activity("Pack", "1.0", input=wf.input())

        decider = w.workflows({"Order": order, "Ship": ship})
        self.assertEqual(decider.__weft_world__, "decider")
        [child] = HistoryBuilder("Order", "1.0", "box").decide(decider)
        self.assertEqual(decision_attributes(child)["workflowId"], "ship")
        [pack] = HistoryBuilder("Ship", "1.0", "box").decide(decider)
        self.assertEqual(decision_attributes(pack)["activityType"]["name"], "Pack")
        with self.assertRaisesRegex(LookupError, "no workflow type Other: it serves Order, Ship"):
            HistoryBuilder("Other", "1.0").decide(decider)

    def test_a_held_child_is_asked_to_cancel_its_run_and_a_function_cannot_be(self):
        async def shipping(wf):
            ship = wf.child("Ship", "1.0", id="ship")
            await w.first(ship, wf.signal("stop"))
            ship.cancel()
            await w.wait_until(lambda: False)

        async def pricing(wf):
            wf.lambda_function("price").cancel()

        h = HistoryBuilder("Job", "1.0")
        h.decide(lambda task: w.run(task, shipping))
        h.child_started("ship").signal("stop")
        [request] = h.decide(lambda task: w.run(task, shipping))
        self.assertEqual(request["decisionType"], "RequestCancelExternalWorkflowExecution")
        [started] = [e for e in h.events if e["eventType"] == "ChildWorkflowExecutionStarted"]
        self.assertEqual(decision_attributes(request), attributes(started)["workflowExecution"],
                         "the started run, by its id")
        with self.assertRaisesRegex(TypeError, "Lambda function cannot be canceled"):
            w.run(HistoryBuilder("Job", "1.0").decision_task(), pricing)

    def test_the_workflow_decorator_makes_a_decider_entry(self):
        async def hello(wf):
            return await greet(wf)
        marked = w.workflow(hello)
        self.assertIs(marked, hello)
        self.assertEqual(hello.__weft_world__, "decider")
        h = HistoryBuilder("Hello", "1.0", input="Ada")
        [scheduled] = h.decide(hello.__weft_decide__)
        self.assertEqual(short(scheduled), 'activity Greet-1 "Ada"')


if __name__ == "__main__":
    unittest.main()
