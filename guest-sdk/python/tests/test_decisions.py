"""Every decision builder writes the wire JSON RespondDecisionTaskCompleted takes."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from weft_guest import decisions as d  # noqa: E402


class DecisionsTest(unittest.TestCase):
    def test_schedule_activity_with_and_without_its_options(self):
        self.assertEqual(d.schedule_activity("ship", "ShipOrder", "1.0"), {
            "decisionType": "ScheduleActivityTask",
            "scheduleActivityTaskDecisionAttributes": {
                "activityType": {"name": "ShipOrder", "version": "1.0"}, "activityId": "ship"}})
        full = d.schedule_activity(
            "ship", "ShipOrder", "1.0", input={"b": 1, "a": 2}, control="attempt 1",
            task_list="order-activities", task_priority=5, schedule_to_close=600,
            schedule_to_start=300, start_to_close=30, heartbeat="NONE")
        self.assertEqual(full["scheduleActivityTaskDecisionAttributes"], {
            "activityType": {"name": "ShipOrder", "version": "1.0"}, "activityId": "ship",
            "input": '{"a":2,"b":1}', "control": "attempt 1",
            "taskList": {"name": "order-activities"}, "taskPriority": "5",
            "scheduleToCloseTimeout": "600", "scheduleToStartTimeout": "300",
            "startToCloseTimeout": "30", "heartbeatTimeout": "NONE"})

    def test_the_decisions_without_options(self):
        self.assertEqual(d.request_cancel_activity("a"), {
            "decisionType": "RequestCancelActivityTask",
            "requestCancelActivityTaskDecisionAttributes": {"activityId": "a"}})
        self.assertEqual(d.complete(), {"decisionType": "CompleteWorkflowExecution",
                                        "completeWorkflowExecutionDecisionAttributes": {}})
        self.assertEqual(d.complete({"n": 1})["completeWorkflowExecutionDecisionAttributes"],
                         {"result": '{"n":1}'})
        self.assertEqual(d.fail("why", "more")["failWorkflowExecutionDecisionAttributes"],
                         {"reason": "why", "details": "more"})
        self.assertEqual(d.cancel("bye"), {
            "decisionType": "CancelWorkflowExecution",
            "cancelWorkflowExecutionDecisionAttributes": {"details": "bye"}})
        self.assertEqual(d.record_marker("m", "x"), {
            "decisionType": "RecordMarker",
            "recordMarkerDecisionAttributes": {"markerName": "m", "details": "x"}})
        self.assertEqual(d.start_timer("t", 30, control="c"), {
            "decisionType": "StartTimer", "startTimerDecisionAttributes": {
                "timerId": "t", "control": "c", "startToFireTimeout": "30"}})
        self.assertEqual(d.cancel_timer("t"), {
            "decisionType": "CancelTimer", "cancelTimerDecisionAttributes": {"timerId": "t"}})

    def test_continue_as_new(self):
        self.assertEqual(d.continue_as_new(
            input="page 2", execution_start_to_close=3600, task_list="l", task_priority=0,
            task_start_to_close=30, child_policy="ABANDON", tags=("batch",),
            workflow_type_version="2.0", lambda_role="weft"), {
            "decisionType": "ContinueAsNewWorkflowExecution",
            "continueAsNewWorkflowExecutionDecisionAttributes": {
                "input": "page 2", "executionStartToCloseTimeout": "3600",
                "taskList": {"name": "l"}, "taskPriority": "0", "taskStartToCloseTimeout": "30",
                "childPolicy": "ABANDON", "tagList": ["batch"], "workflowTypeVersion": "2.0",
                "lambdaRole": "weft"}})

    def test_external_executions_children_and_functions(self):
        self.assertEqual(d.signal_external("o-17", "cancel", run_id="r", input="x", control="c"),
                         {"decisionType": "SignalExternalWorkflowExecution",
                          "signalExternalWorkflowExecutionDecisionAttributes": {
                              "workflowId": "o-17", "runId": "r", "signalName": "cancel",
                              "input": "x", "control": "c"}})
        self.assertEqual(d.request_cancel_external("o-17"), {
            "decisionType": "RequestCancelExternalWorkflowExecution",
            "requestCancelExternalWorkflowExecutionDecisionAttributes": {"workflowId": "o-17"}})
        child = d.start_child("q-1-item-0", "PriceItem", "1.0", input={"sku": "tea"},
                              task_list="q", execution_start_to_close=300,
                              task_start_to_close=10, child_policy="TERMINATE",
                              lambda_role="role", tags=["quote"], control="0", task_priority=1)
        self.assertEqual(child["startChildWorkflowExecutionDecisionAttributes"], {
            "workflowType": {"name": "PriceItem", "version": "1.0"}, "workflowId": "q-1-item-0",
            "control": "0", "input": '{"sku":"tea"}', "executionStartToCloseTimeout": "300",
            "taskList": {"name": "q"}, "taskPriority": "1", "taskStartToCloseTimeout": "10",
            "childPolicy": "TERMINATE", "tagList": ["quote"], "lambdaRole": "role"})
        self.assertEqual(d.schedule_lambda("price", "price", input="{}", start_to_close=10), {
            "decisionType": "ScheduleLambdaFunction",
            "scheduleLambdaFunctionDecisionAttributes": {
                "id": "price", "name": "price", "input": "{}", "startToCloseTimeout": "10"}})

    def test_responses(self):
        self.assertEqual(d.response([d.complete()]), {"decisions": [d.complete()]})
        self.assertEqual(
            d.response([], execution_context="step 2", task_list="urgent", schedule_to_start=10),
            {"decisions": [], "executionContext": "step 2", "taskList": {"name": "urgent"},
             "taskListScheduleToStartTimeout": "10"})
        self.assertEqual(d.as_response(None), {"decisions": []})
        self.assertEqual(d.as_response((x for x in [d.complete()])), {"decisions": [d.complete()]})
        with self.assertRaises(TypeError):
            d.as_response(d.complete())


if __name__ == "__main__":
    unittest.main()
