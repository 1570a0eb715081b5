// The recorded histories every history reader is tested against (tests/fixtures/histories,
// written by the end-to-end suite from the real engine): the queries answer of each what its
// fixture expects.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { History } from '../src/index.js';
import { loadHistory } from '../src/testing/index.js';
import { fixtures } from './recorded-fixtures.js';

/** The whole history, as a decider would read it if it saw every event. */
function whole(fixture) {
  const { events, workflowType } = loadHistory(fixture);
  return new History({
    workflowExecution: { workflowId: fixture.workflowId, runId: fixture.runId },
    workflowType,
    events,
    previousStartedEventId: 0,
    startedEventId: events.at(-1).eventId,
  });
}

/** The members that have a value, as the fixtures write them. */
const present = (members) =>
  Object.fromEntries(Object.entries(members).filter(([, v]) => v !== undefined && v !== null));

/** A status or timer as the fixtures write it: `kind` camel-cased, and its details. */
function answer(found) {
  if (!found) return null;
  const state = found.kind.replace(/-(\w)/g, (_, c) => c.toUpperCase());
  const { result, reason, details, timeoutType, cause } = found;
  return { state, ...present({ result, reason, details, timeoutType, cause }) };
}

test('the queries answer what each recorded history expects', () => {
  for (const [name, fixture] of fixtures()) {
    const { expect } = fixture;
    const history = whole(fixture);
    const each = (member, query) =>
      Object.fromEntries(Object.keys(expect[member]).map((id) => [id, answer(query(id))]));
    const answers = {
      input: history.input() ?? null,
      cancelRequested: history.cancelRequested(),
      activities: each('activities', (id) => history.activity(id)),
      timers: each('timers', (id) => history.timer(id)),
      children: each('children', (id) => history.child(id)),
      lambdas: each('lambdas', (id) => history.lambda(id)),
      signals: history.signals().map(({ name, input }) => present({ name, input })),
      markers: history.markers().map(({ name, details }) => present({ name, details })),
    };
    for (const [member, value] of Object.entries(answers)) {
      assert.deepEqual(value, expect[member], `${name}: ${member}`);
    }
  }
});

test('each recorded history has the decision tasks it expects', () => {
  for (const [name, fixture] of fixtures()) {
    const tasks = loadHistory(fixture).completedTasks();
    assert.equal(tasks.length, fixture.expect.decisionTasks, name);
    assert.equal(tasks[0].history.task.previousStartedEventId, 0, name);
  }
});
