// Workflows as async functions: compiled for workflows (src/transform.js) by the `--import
// ./src/register.js` this suite runs with, as weft-js-build compiles them in a component; the
// mistakes JavaScript lets pass silently, reported with the line; and the places a component's
// stack names.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Decision, first, runWorkflow, workflow } from '../src/index.js';
import { sourceLines } from '../src/host.js';
import { lineTable } from '../src/source-lines.js';
import { TransformError, transformAsync } from '../src/transform.js';
import { HistoryBuilder } from '../src/testing/index.js';

/** The line of this file that called it. */
function here() {
  return Number(new Error().stack.split('\n')[2].match(/async\.test\.js:(\d+)/)[1]);
}

test('an async function is compiled in place: every line stays where it was', async () => {
  const source = [
    'export async function greet(wf) {',
    '  const g = await wf.activity("Greet", "1.0");',
    '  const twice = async (x) => (await x) + (await x);',
    '  return g;',
    '}',
    'const top = await Promise.resolve(1);',
  ].join('\n');
  const out = await transformAsync(source, 'greet.js', '/sdk/async.js');
  const lines = out.split('\n');
  assert.equal(lines.length, 6);
  assert.match(lines[0], /^import \{ __weftAsync \} from "\/sdk\/async\.js";export {2}function greet/);
  assert.match(lines[1], /= \(yield wf\.activity\("Greet", "1\.0"\)\);$/);
  assert.match(lines[2], /\(\(\(yield x\)\) \+ \(\(yield x\)\)\); \}\);$/);
  assert.equal(lines[5], 'const top = await Promise.resolve(1);', 'a module\'s own top-level await stays');
  assert.equal(await transformAsync('export const x = 1;', 'plain.js'), undefined);
});

test('what a workflow cannot do is refused with its file, line and column', async () => {
  const refused = async (source) => {
    const error = await transformAsync(source, 'bad.js').then(() => undefined, (e) => e);
    assert.ok(error instanceof TransformError, `accepted: ${source}`);
    return error.message;
  };
  assert.equal(await refused('async function f(y) {\n  for await (const x of y) {}\n}'),
    'bad.js:2:3: `for await` cannot run in a workflow: await each item instead');
  assert.match(await refused('async function* g() {}'), /^bad\.js:1:1: an async generator/);
  assert.match(await refused('class B extends A { async m() { super.m(); } }'), /^bad\.js:1:33: `super`/);
  assert.match(await refused('const f = async () => arguments[0];'), /^bad\.js:1:11: `arguments`/);
  assert.match(await refused('async function f() { await }'), /^bad\.js:1:28: Unexpected token/);
});

test('an async workflow and its generator decide the same; `return activity` returns its result', () => {
  async function viaAsync(wf) {
    const greeting = await wf.activity('Greet', '1.0');
    await wf.sleep(1);
    return wf.activity('Shout', '1.0', { input: greeting });
  }
  function* viaGenerator(wf) {
    const greeting = yield wf.activity('Greet', '1.0');
    yield wf.sleep(1);
    return yield wf.activity('Shout', '1.0', { input: greeting });
  }
  for (const fn of [viaAsync, viaGenerator]) {
    const h = new HistoryBuilder('Hello', '1.0');
    const decide = () => h.decide(workflow(fn));
    assert.deepEqual(decide(), [Decision.scheduleActivity('Greet-1', 'Greet', '1.0')]);
    h.activityCompleted('Greet-1', 'hi');
    assert.equal(decide()[0].decisionType, 'StartTimer');
    h.timerFired('timer-1');
    assert.equal(decide()[0].scheduleActivityTaskDecisionAttributes.input, 'hi');
    h.activityCompleted('Shout-2', 'HI');
    assert.deepEqual(decide(), [Decision.complete('HI')], fn.name);
  }
});

test('a command neither awaited nor yielded fails the task, naming its call and line', () => {
  let line;
  async function forgetful(wf) {
    line = here() + 1;
    wf.activity('Greet', '1.0');
    return 'done';
  }
  const h = new HistoryBuilder('Hello', '1.0');
  assert.throws(() => runWorkflow(h.decisionTask(), forgetful), (e) => {
    assert.match(e.message, new RegExp(`^wf\\.activity\\("Greet"\\) at .*async\\.test\\.js:${line} was neither awaited nor yielded$`));
    return true;
  });

  function* returnsUnyielded(wf) {
    return wf.activity('Greet', '1.0');
  }
  const h2 = new HistoryBuilder('Hello', '1.0');
  assert.throws(() => runWorkflow(h2.decisionTask(), returnsUnyielded),
    /^TypeError: the workflow returned what it did not await or yield at .*async\.test\.js:\d+$/);
});

test('a command given to first is awaited, even when first never polls it', () => {
  async function early(wf) {
    const [index] = await first(wf.signal('go'), wf.sleep(60));
    return index;
  }
  const h = new HistoryBuilder('Hello', '1.0');
  h.signal('go');
  assert.deepEqual(runWorkflow(h.decisionTask(), early), [Decision.complete('0')]);
});

test('a promise awaited in a workflow fails the task, a plain value is taken as it is', () => {
  async function awaitsAPromise(wf) {
    const n = await 2;
    await new Promise((resolve) => setTimeout(resolve, 1));
    return `${wf.input()} ${n}`;
  }
  const h = new HistoryBuilder('Hello', '1.0', 'x');
  assert.throws(() => runWorkflow(h.decisionTask(), awaitsAPromise),
    /a workflow awaits only what its Workflow, gather, first, settled and waitUntil answer/);
});

test('an async function outside a workflow is still an async function', async () => {
  async function fetchTwice(get) {
    const a = await get();
    const b = await Promise.resolve(get());
    return a + b;
  }
  let calls = 0;
  const got = fetchTwice(async () => ++calls);
  assert.equal(calls, 1, 'it ran to its first await at once');
  assert.equal(await got, 3);
  async function fails() {
    await null;
    throw new Error('boom');
  }
  await assert.rejects(fails(), /boom/);
});

test('a failure\'s stack names the workflow\'s file and line', () => {
  let line;
  async function broken(wf) {
    await wf.sleep(1);
    line = here() + 1;
    throw new Error('broken');
  }
  const h = new HistoryBuilder('Hello', '1.0');
  h.decide(workflow(broken));
  h.timerFired('timer-1');
  assert.throws(() => runWorkflow(h.decisionTask(), broken), (e) => {
    assert.match(e.stack, new RegExp(`async\\.test\\.js:${line}:`));
    return true;
  });
});

test('a component\'s stack names the source lines its bundle was built from', () => {
  // Two generated lines: the first from a.js line 3, the second from b.js line 7 ("AAEA": the
  // same column, source +0, line +2; "ACIA": source +1, line +4).
  const table = lineTable({ sources: ['../a.js', '../b.js'], mappings: 'AAEA;ACIA;' }, (s) => s.slice(3));
  assert.deepEqual(table, { files: ['a.js', 'b.js'], at: [0, 3, 1, 7, -1, 0] });
  globalThis.__weftSourceLines = table;
  try {
    assert.equal(sourceLines('greet@/tmp/weft-js-1/bundle.js:2:14\nx@bundle.js:1\ny@bundle.js:3:1'),
      'greet@b.js:7\nx@a.js:3\ny@bundle.js:3:1');
  } finally {
    delete globalThis.__weftSourceLines;
  }
});
