// The order workflow written as a generator (workflow.js), against the state machine it
// replaces (decider.js): the same decisions on the same histories, and the same results with
// the worker.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HistoryBuilder } from '../../guest-sdk/js/src/testing/index.js';
import { decide } from './decider.js';
import { runOrder } from './whole-run.js';
import orderWorkflow from './workflow.js';
import {
  CANCEL_SIGNAL, CANCEL_TOO_LATE_MARKER, CANCEL_WINDOW_TIMER, SAMPLE_DECLINED_ORDER, SAMPLE_ORDER,
  WORKFLOW,
} from './catalog.js';

const order = (input) => new HistoryBuilder(WORKFLOW.name, WORKFLOW.version, input);

/**
 * Plays `script` (steps of outside events between decision tasks) twice, once with each decider
 * deciding, and checks they decide the same at every task.
 */
function same(input, script) {
  const builders = [order(input), order(input)];
  const deciders = [decide, orderWorkflow];
  const turns = [];
  for (const events of [[], ...script]) {
    const answers = builders.map((h, i) => {
      events.forEach((e) => e(h));
      return h.decide(deciders[i]);
    });
    assert.deepEqual(answers[1], answers[0], `after ${turns.length} turns`);
    turns.push(answers[0]);
  }
  return turns;
}

const completed = (id, result = '{}') => (h) => h.activityCompleted(id, result);

test('the happy path decides as the state machine does', () => {
  same(SAMPLE_ORDER, [
    [completed('verify-order')],
    [completed('charge-credit-card', '{"charge_id":"CH-1"}'), (h) => h.timerFired(CANCEL_WINDOW_TIMER)],
    [completed('ship-order', '{"tracking":"T"}')],
    [completed('record-completion')],
  ]);
});

test('a declined card decides as the state machine does', () => {
  same(SAMPLE_DECLINED_ORDER, [
    [completed('verify-order')],
    [(h) => h.activityFailed('charge-credit-card', 'card declined', 'card ending 0000')],
    [completed('cancel-order')],
    [completed('email-customer')],
  ]);
});

test('cancels inside the window decide as the state machine does', () => {
  same(SAMPLE_ORDER, [
    [(h) => h.signal(CANCEL_SIGNAL)],
    [completed('verify-order')],
    [completed('cancel-order'), completed('email-customer')],
  ]);
  same(SAMPLE_ORDER, [
    [completed('verify-order'), (h) => h.cancelRequested()],
    [completed('cancel-order'), completed('email-customer')],
  ]);
});

test('a cancel after the window is marked too late, as the state machine marks it', () => {
  const last = same(SAMPLE_ORDER, [
    [completed('verify-order')],
    [(h) => h.timerFired(CANCEL_WINDOW_TIMER)],
    [(h) => h.signal(CANCEL_SIGNAL), completed('charge-credit-card')],
    [completed('ship-order')],
  ]);
  assert.equal(last.at(-2)[0].recordMarkerDecisionAttributes.markerName, CANCEL_TOO_LATE_MARKER);
  assert.equal(last.at(-1)[0].scheduleActivityTaskDecisionAttributes.activityId, 'record-completion');
});

test('with the worker, the workflow ends every order as the Rust guests do', () => {
  const run = (input, signalAfter) => runOrder(orderWorkflow, input, { signalAfter });
  assert.equal(run(SAMPLE_ORDER).completeWorkflowExecutionDecisionAttributes.result,
    '{"charge":{"amount_cents":4200,"charge_id":"CH-order-1"},"order_id":"order-1","shipment":{"tracking":"TRK-order-1"}}');
  assert.deepEqual(run(SAMPLE_DECLINED_ORDER).failWorkflowExecutionDecisionAttributes,
    { reason: 'payment declined', details: 'card declined: card ending 0000' });
  assert.deepEqual(run(SAMPLE_ORDER, 'verify-order').cancelWorkflowExecutionDecisionAttributes,
    { details: 'canceled by the customer' });
});
