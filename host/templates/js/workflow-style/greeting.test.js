// The whole workflow, run under node in the SDK's testing Environment (`Greet` answered by a
// function, time skipped rather than waited), and the worker on a task.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Failure } from '@weft/guest';
import { Environment } from '@weft/guest/testing';
import greeting from './decider.js';
import worker from './worker.js';

const greetingForAda = () => new Environment('Greeting', '1', 'Ada');
const ofType = (run, type) => run.events.filter((e) => e.eventType === type);

test('greets, waits a second, then completes with the greeting', () => {
  const run = greetingForAda().activity('Greet', (name) => `Hello, ${name}!`).run(greeting);
  assert.equal(run.result, 'Hello, Ada!');
  const [[started], [fired]] = [ofType(run, 'TimerStarted'), ofType(run, 'TimerFired')];
  assert.ok(fired.eventTimestamp - started.eventTimestamp >= 1, 'the timer waited a second');
  assert.ok(run.elapsed >= 1);
});

test('a failed Greet fails the run without waiting', () => {
  const run = greetingForAda()
    .activity('Greet', (name) => { throw new Failure('no greeting today', `not for ${name}`); })
    .run(greeting);
  assert.deepEqual(run.failure, ['no greeting today', 'not for Ada']);
  assert.equal(ofType(run, 'TimerStarted').length, 0, 'no timer after a failure');
});

test('a termination while Greet runs ends the run ungreeted', () => {
  const hour = 3600;
  const run = greetingForAda()
    .activity('Greet', (name) => `Hello, ${name}!`, { seconds: hour })
    .terminate(60, 'enough')
    .run(greeting);
  assert.equal(run.terminated, true);
  assert.equal(run.result, undefined);
  assert.equal(ofType(run, 'ActivityTaskCompleted').length, 0);
  assert.ok(run.elapsed < hour);
});

test('the worker greets by name', () => {
  const task = {
    activityId: 'greet', activityType: { name: 'Greet', version: '1' },
    workflowExecution: { workflowId: 'w', runId: 'r' }, input: 'Ada', startedEventId: 5,
  };
  assert.equal(worker.perform(task).result, 'Hello, Ada!');
});
