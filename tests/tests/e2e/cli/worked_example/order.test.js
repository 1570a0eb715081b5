// The order's ends, run in the testing Environment: the README's test,
// then the confirmation by a signal and what the cancel path does.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { workflow } from '@weft/guest';
import { Environment } from '@weft/guest/testing';
import { order } from './decider.js';

const order1 = JSON.stringify({ id: 'o-1', sku: 'sku-1', card: 'visa' });
const anOrder = () => new Environment('Order', '1.0', order1)
  .activity('Reserve', () => 'reserved').activity('Charge', () => 'receipt-1')
  .activity('Refund', () => 'refunded').child('Ship', () => 'tracking-1');
const ofType = (run, type) => run.events.filter((e) => e.eventType === type);

test('the README\'s test: unconfirmed a day later, or canceled', () => {
  // The README's test.
});

test('a signal confirms it', () => {
  const run = anOrder().signal(60, 'confirm').run(workflow(order));
  const shipped = { confirmed: true, receipt: 'receipt-1', tracking: 'tracking-1' };
  assert.deepEqual(JSON.parse(run.result), shipped);
  assert.ok(run.elapsed < 3600, `${run.elapsed}`);
});

test('a cancel in the wait refunds the charge', () => {
  const run = anOrder().cancelRequest(3600).run(workflow(order));
  assert.equal(run.close.cancelWorkflowExecutionDecisionAttributes.details, 'refunded');
  // Reserve, Charge and Refund; no shipping.
  assert.equal(ofType(run, 'ActivityTaskCompleted').length, 3);
  assert.equal(ofType(run, 'ChildWorkflowExecutionCompleted').length, 0);
});
