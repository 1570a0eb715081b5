// The boundary's generic conversion rests on facts about wit/*.wit; check them there, and the
// conversion itself both ways.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as wit from '../src/wit.js';

const witDir = fileURLToPath(new URL('../../../wit/', import.meta.url));
const source = readdirSync(witDir).filter((f) => f.endsWith('.wit'))
  .map((f) => readFileSync(witDir + f, 'utf8')).join('\n');
const camel = (kebab) => kebab.replace(/^%/, '').replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase());
const enums = new Set([...source.matchAll(/^\s*enum ([a-z0-9-]+)/gm)].map((m) => m[1]));
const fields = [...source.matchAll(/^\s*(%?[a-z0-9-]+): ([a-z0-9<>-]+),$/gm)]
  .map(([, name, type]) => ({ name: camel(name), type: type.replace(/^option<(.*)>$/, '$1') }));

test('the enum-typed fields are the ones wit.js converts', () => {
  const enumFields = new Set(fields.filter((f) => enums.has(f.type)).map((f) => f.name));
  assert.deepEqual([...enumFields].sort(), [...wit.ENUM_FIELDS].sort());
  for (const f of fields.filter((f) => wit.ENUM_FIELDS.has(f.name))) assert.ok(enums.has(f.type), f.name);
});

test('the u64 fields are exactly the event ids', () => {
  for (const f of fields) assert.equal(wit.isU64Field(f.name), f.type === 'u64', f.name);
  assert.ok(!source.match(/: (option<)?(s64|u32|s32)/), 'no other integer types');
});

test('every variant case converts to the SWF name its doc comment gives', () => {
  const cases = [...source.matchAll(/\/\/\/ `([A-Za-z]+)`\.\n\s*([a-z-]+)\(/g)];
  assert.equal(cases.length, 54 + 13);
  for (const [, swf, kebab] of cases) {
    assert.equal(wit.kebabToPascal(kebab), swf);
    assert.equal(wit.pascalToKebab(swf), kebab);
  }
});

test('an event converts from jco to the wire and back', () => {
  const jco = {
    eventId: 7n,
    eventTimestamp: 1700000000.5,
    attributes: {
      tag: 'activity-task-timed-out',
      val: { timeoutType: 'schedule-to-close', scheduledEventId: 5n, startedEventId: 6n, details: undefined },
    },
  };
  const wire = {
    eventId: 7,
    eventTimestamp: 1700000000.5,
    eventType: 'ActivityTaskTimedOut',
    activityTaskTimedOutEventAttributes: { timeoutType: 'SCHEDULE_TO_CLOSE', scheduledEventId: 5, startedEventId: 6 },
  };
  assert.deepEqual(wit.eventToWire(jco), wire);
  const back = wit.eventFromWire(wire);
  assert.deepEqual(back, { ...jco, attributes: { ...jco.attributes, val: { timeoutType: 'schedule-to-close', scheduledEventId: 5n, startedEventId: 6n } } });
});

test('a decision converts from the wire to jco and back', () => {
  const wire = {
    decisionType: 'StartChildWorkflowExecution',
    startChildWorkflowExecutionDecisionAttributes: {
      workflowType: { name: 'PriceItem', version: '1.0' }, workflowId: 'c', childPolicy: 'REQUEST_CANCEL', tagList: ['a'],
    },
  };
  const jco = wit.decisionFromWire(wire);
  assert.deepEqual(jco, {
    tag: 'start-child-workflow-execution',
    val: { workflowType: { name: 'PriceItem', version: '1.0' }, workflowId: 'c', childPolicy: 'request-cancel', tagList: ['a'] },
  });
  assert.deepEqual(wit.decisionToWire(jco), wire);
  assert.deepEqual(wit.responseFromWire({ decisions: [], executionContext: 'x', taskList: { name: 'l' }, taskListScheduleToStartTimeout: '5' }),
    { decisions: [], executionContext: 'x', taskList: { name: 'l' }, taskListScheduleToStartTimeout: '5' });
});
