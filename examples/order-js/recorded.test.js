// The order's recorded histories (tests/fixtures/histories, written by the end-to-end suite from
// the real engine) replay without a difference under both JavaScript order deciders.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadHistory } from '../../guest-sdk/js/src/testing/index.js';
import { fixtures } from '../../guest-sdk/js/test/recorded-fixtures.js';
import { decide } from './decider.js';
import orderWorkflow from './workflow.js';

for (const [name, decider] of [['the state machine', decide], ['the workflow', orderWorkflow]]) {
  test(`${name} replays the recorded order histories`, () => {
    const orders = fixtures().filter(([, f]) => f.expect.decider === 'order');
    assert.ok(orders.length >= 4, `${orders.length} order histories`);
    for (const [fixture, exported] of orders) {
      const { workflowId, runId } = exported;
      const recorded = loadHistory(exported, { workflowExecution: { workflowId, runId } });
      assert.deepEqual(recorded.replay(decider), [], fixture);
    }
  });
}
