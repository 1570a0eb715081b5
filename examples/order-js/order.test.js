// The order decider on hand-built histories (a port of examples/order-decider/src/tests.rs),
// the worker (a port of order-activities' tests), and both together, checking that every
// payload is byte for byte what the Rust guests write.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HistoryBuilder, task } from '../../guest-sdk/js/src/testing/index.js';
import { attributes, canonicalJson } from '../../guest-sdk/js/src/index.js';
import { decide, ids, parse } from './decider.js';
import { worker } from './activities.js';
import { runOrder } from './whole-run.js';
import {
  ACTIVITY_TASK_LIST, CANCEL_ORDER, CANCEL_SIGNAL, CANCEL_TOO_LATE_DETAILS, CANCEL_TOO_LATE_MARKER,
  CANCEL_WINDOW_TIMER, CHARGE_CREDIT_CARD, DEFAULT_CANCEL_WINDOW_SECS, EMAIL_CUSTOMER,
  RECORD_COMPLETION, SAMPLE_DECLINED_ORDER, SAMPLE_ORDER, SHIP_ORDER, VERIFY_ORDER, WORKFLOW,
} from './catalog.js';

/** A decision in a few words: its type and what it is about. */
function summary(d) {
  const a = d[d.decisionType[0].toLowerCase() + d.decisionType.slice(1) + 'DecisionAttributes'];
  switch (d.decisionType) {
    case 'ScheduleActivityTask': return `schedule ${a.activityId}`;
    case 'StartTimer': return `start timer ${a.timerId} ${a.startToFireTimeout}s`;
    case 'CancelTimer': return `cancel timer ${a.timerId}`;
    case 'RecordMarker': return `marker ${a.markerName}`;
    case 'CompleteWorkflowExecution': return 'complete';
    case 'FailWorkflowExecution': return `fail: ${a.reason ?? ''}`;
    case 'CancelWorkflowExecution': return 'cancel workflow';
    default: return JSON.stringify(d);
  }
}

/** Runs the decider on the next decision task and answers its decisions in a few words. */
const step = (h) => h.decide(decide).map(summary);
const order = (input) => new HistoryBuilder(WORKFLOW.name, WORKFLOW.version, input);

/** The input of the activity `id`'s latest `ActivityTaskScheduled` event, as recorded. */
function scheduledInput(h, id) {
  const e = h.events.findLast((e) => e.eventType === 'ActivityTaskScheduled' && attributes(e).activityId === id);
  assert.ok(e, `${id} was never scheduled`);
  return attributes(e).input;
}

/** The close decision's result, or reason and details. */
function closeDetails(decisions) {
  const d = decisions.at(-1);
  switch (d.decisionType) {
    case 'CompleteWorkflowExecution': return [d.completeWorkflowExecutionDecisionAttributes.result, undefined];
    case 'FailWorkflowExecution': return [d.failWorkflowExecutionDecisionAttributes.reason, d.failWorkflowExecutionDecisionAttributes.details];
    case 'CancelWorkflowExecution': return [d.cancelWorkflowExecutionDecisionAttributes.details, undefined];
    default: assert.fail(`not a close decision: ${JSON.stringify(d)}`);
  }
}

/** SAMPLE_ORDER as serde_json writes it back: keys sorted. */
const SORTED_ORDER = '{"amount_cents":4200,"cancel_window_seconds":1,"card":"4111111111111111","customer":"ada@example.com","items":["teapot","tea"],"order_id":"order-1"}';

test('the happy path verifies, charges, waits for the window, ships and records', () => {
  const h = order(SAMPLE_ORDER);
  assert.deepEqual(step(h), ['start timer cancel-window 1s', 'schedule verify-order']);
  assert.equal(scheduledInput(h, ids.VERIFY), SAMPLE_ORDER, 'the order is passed on as it came');

  h.activityCompleted(ids.VERIFY, '{"verified":true}');
  assert.deepEqual(step(h), ['schedule charge-credit-card']);
  assert.equal(scheduledInput(h, ids.CHARGE), SAMPLE_ORDER);

  h.activityCompleted(ids.CHARGE, '{"charge_id":"CH-1"}');
  assert.deepEqual(step(h), [], 'ships only once the window is over');

  h.timerFired(CANCEL_WINDOW_TIMER);
  assert.deepEqual(step(h), ['schedule ship-order']);

  h.activityCompleted(ids.SHIP, '{"tracking":"TRK-1"}');
  assert.deepEqual(step(h), ['schedule record-completion']);
  assert.equal(scheduledInput(h, ids.RECORD),
    `{"charge":{"charge_id":"CH-1"},"order":${SORTED_ORDER},"shipment":{"tracking":"TRK-1"}}`);

  h.activityCompleted(ids.RECORD, '{}');
  const [result] = closeDetails(h.decide(decide));
  assert.equal(result, '{"charge":{"charge_id":"CH-1"},"order_id":"order-1","shipment":{"tracking":"TRK-1"}}');
});

test('every activity gets the task list and timeouts the host registers nothing for', () => {
  const verify = order(SAMPLE_ORDER).decide(decide).at(-1).scheduleActivityTaskDecisionAttributes;
  assert.deepEqual(verify.activityType, VERIFY_ORDER);
  assert.deepEqual(verify.taskList, { name: ACTIVITY_TASK_LIST });
  assert.deepEqual([verify.scheduleToStartTimeout, verify.scheduleToCloseTimeout, verify.startToCloseTimeout, verify.heartbeatTimeout],
    ['60', '60', '30', '30']);
});

test('the window defaults when the order does not give one', () => {
  assert.equal(step(order('{"order_id":"o"}'))[0], `start timer cancel-window ${DEFAULT_CANCEL_WINDOW_SECS}s`);
  assert.equal(step(order('{"cancel_window_seconds":-1}'))[0], 'start timer cancel-window 5s');
  assert.equal(step(order('{"cancel_window_seconds":2.5}'))[0], 'start timer cancel-window 5s');
  assert.equal(step(order('[1]'))[0], 'start timer cancel-window 5s');
});

test('a declined card cancels the order, emails the customer and fails', () => {
  const h = order(SAMPLE_DECLINED_ORDER);
  step(h);
  h.activityCompleted(ids.VERIFY, '{}');
  step(h);
  h.activityFailed(ids.CHARGE, 'card declined', 'card ending 0000');
  assert.deepEqual(step(h), ['cancel timer cancel-window', 'schedule cancel-order', 'schedule email-customer']);
  const sorted = '{"amount_cents":1500,"cancel_window_seconds":1,"card":"4111111111110000","customer":"bob@example.com","items":["mug"],"order_id":"order-2"}';
  assert.equal(scheduledInput(h, ids.CANCEL), `{"order":${sorted},"refund":null}`);
  assert.equal(scheduledInput(h, ids.EMAIL), `{"order":${sorted},"subject":"Your order was canceled"}`);

  h.activityCompleted(ids.CANCEL, '{}');
  assert.deepEqual(step(h), [], 'waits for the email');
  h.activityCompleted(ids.EMAIL, '{}');
  assert.deepEqual(closeDetails(h.decide(decide)), ['payment declined', 'card declined: card ending 0000']);
});

test('a cancel signal inside the window waits for the running activity, then cancels', () => {
  const h = order(SAMPLE_ORDER);
  step(h);
  h.signal(CANCEL_SIGNAL);
  assert.deepEqual(step(h), ['cancel timer cancel-window'], 'the verification still runs');

  h.activityCompleted(ids.VERIFY, '{}');
  assert.deepEqual(step(h), ['schedule cancel-order', 'schedule email-customer']);
  h.activityCompleted(ids.CANCEL, '{}');
  h.activityCompleted(ids.EMAIL, '{}');
  assert.deepEqual(closeDetails(h.decide(decide)), ['canceled by the customer', undefined]);
  assert.equal(h.decisionTask().activity(ids.CHARGE), undefined, 'the card was never charged');
});

test('a cancel inside the window after the charge refunds it', () => {
  const h = order(SAMPLE_ORDER);
  step(h);
  h.activityCompleted(ids.VERIFY, '{}');
  step(h);
  h.activityCompleted(ids.CHARGE, '{"charge_id":"CH-1"}');
  step(h);
  h.signal(CANCEL_SIGNAL, 'changed my mind');
  assert.deepEqual(step(h), ['cancel timer cancel-window', 'schedule cancel-order', 'schedule email-customer']);
  assert.equal(scheduledInput(h, ids.CANCEL), `{"order":${SORTED_ORDER},"refund":{"charge_id":"CH-1"}}`);
});

test('a cancellation request counts as a cancel inside the window', () => {
  const h = order(SAMPLE_ORDER);
  step(h);
  h.activityCompleted(ids.VERIFY, '{}');
  h.cancelRequested();
  assert.deepEqual(step(h), ['cancel timer cancel-window', 'schedule cancel-order', 'schedule email-customer']);
});

test('a cancel signal after the window is recorded as too late and ignored', () => {
  const h = order(SAMPLE_ORDER);
  step(h);
  h.activityCompleted(ids.VERIFY, '{}');
  step(h);
  h.timerFired(CANCEL_WINDOW_TIMER);
  assert.deepEqual(step(h), [], 'the charge still runs');

  h.signal(CANCEL_SIGNAL);
  h.activityCompleted(ids.CHARGE, '{}');
  assert.deepEqual(step(h), ['marker cancel-too-late', 'schedule ship-order']);
  const marker = h.decisionTask().marker(CANCEL_TOO_LATE_MARKER);
  assert.equal(marker.details, CANCEL_TOO_LATE_DETAILS);

  h.activityCompleted(ids.SHIP, '{}');
  assert.deepEqual(step(h), ['schedule record-completion'], 'the marker is not repeated');
});

test('an invalid order fails the workflow and closes the window', () => {
  const h = order('{"order_id":"o"}');
  step(h);
  h.activityFailed(ids.VERIFY, 'invalid order', 'no items');
  const decisions = h.decide(decide);
  assert.deepEqual(decisions.map(summary), ['cancel timer cancel-window', 'fail: invalid order']);
  assert.deepEqual(closeDetails(decisions), ['invalid order', 'invalid order: no items']);
});

test('a failed shipment fails the workflow', () => {
  const h = order(SAMPLE_ORDER);
  step(h);
  h.activityCompleted(ids.VERIFY, '{}');
  step(h);
  h.activityCompleted(ids.CHARGE, '{}');
  h.timerFired(CANCEL_WINDOW_TIMER);
  step(h);
  h.activityTimedOut(ids.SHIP, 'START_TO_CLOSE');
  assert.deepEqual(closeDetails(h.decide(decide)), ['shipping failed', 'timed out (START_TO_CLOSE)']);
});

test('without an order the decision task fails', () => {
  assert.throws(() => new HistoryBuilder(WORKFLOW.name, WORKFLOW.version).decide(decide), /needs the order/);
  assert.throws(() => order('not json').decide(decide), { message: 'the order is not JSON: expected ident at line 1 column 2' });
});

/** The activity's result text. */
function result(type, input) {
  const o = worker.perform(task(type.name, type.version, input));
  assert.equal(o.outcome, 'completed', JSON.stringify(o));
  return o.result;
}

test('a good order is verified and charged', () => {
  assert.equal(result(VERIFY_ORDER, SAMPLE_ORDER), '{"order_id":"order-1","verified":true}');
  assert.equal(result(CHARGE_CREDIT_CARD, SAMPLE_ORDER), '{"amount_cents":4200,"charge_id":"CH-order-1"}');
  assert.equal(result(SHIP_ORDER, SAMPLE_ORDER), '{"tracking":"TRK-order-1"}');
});

test('a card ending in 0000 is declined', () => {
  assert.deepEqual(worker.perform(task(CHARGE_CREDIT_CARD.name, '1.0', SAMPLE_DECLINED_ORDER)),
    { outcome: 'failed', reason: 'card declined', details: 'card ending 0000' });
});

test('an order without items or amount is invalid', () => {
  assert.deepEqual(worker.perform(task(VERIFY_ORDER.name, '1.0', '{"order_id":"o","customer":"c","card":"1"}')),
    { outcome: 'failed', reason: 'invalid order', details: 'no amount_cents, no items' });
});

test('cancel refunds the charge and email names the customer', () => {
  assert.equal(result(CANCEL_ORDER, `{"order":${SAMPLE_ORDER},"refund":{"charge_id":"CH-order-1"}}`),
    '{"canceled":"order-1","refunded":"CH-order-1"}');
  assert.equal(result(CANCEL_ORDER, `{"order":${SAMPLE_ORDER},"refund":null}`), '{"canceled":"order-1","refunded":null}');
  assert.equal(result(EMAIL_CUSTOMER, `{"order":${SAMPLE_ORDER},"subject":"Canceled"}`),
    '{"sent_to":"ada@example.com","subject":"Canceled"}');
  assert.equal(result(RECORD_COMPLETION, '{"order":{"order_id":"o"}}'), '{"recorded":"o"}');
});

test('unknown types and bad input fail', () => {
  assert.equal(worker.perform(task('Teleport', '1.0', '{}')).reason, 'unknown activity type Teleport');
  assert.deepEqual(worker.perform(task(SHIP_ORDER.name, '1.0', 'not json')),
    { outcome: 'failed', reason: 'the input is not JSON', details: 'expected ident at line 1 column 2' });
});

const run = (input, options) => runOrder(decide, input, options);

test('decider and worker together give the results the Rust guests give', () => {
  assert.equal(canonicalJson(parse(run(SAMPLE_ORDER).completeWorkflowExecutionDecisionAttributes.result)),
    '{"charge":{"amount_cents":4200,"charge_id":"CH-order-1"},"order_id":"order-1","shipment":{"tracking":"TRK-order-1"}}');
  assert.equal(run(SAMPLE_ORDER).completeWorkflowExecutionDecisionAttributes.result,
    '{"charge":{"amount_cents":4200,"charge_id":"CH-order-1"},"order_id":"order-1","shipment":{"tracking":"TRK-order-1"}}');
  assert.deepEqual(run(SAMPLE_DECLINED_ORDER).failWorkflowExecutionDecisionAttributes,
    { reason: 'payment declined', details: 'card declined: card ending 0000' });
  assert.deepEqual(run(SAMPLE_ORDER, { signalAfter: ids.VERIFY }).cancelWorkflowExecutionDecisionAttributes,
    { details: 'canceled by the customer' });
});
