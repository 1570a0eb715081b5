// Async functions as workflows: a workflow's `await` must resume within the one synchronous call
// that decides a task, but StarlingMonkey (the JavaScript engine of a component) and node run
// promise jobs only after that call returns. So each `async` function of a guest's own modules
// becomes a generator driven by `__weftAsync` (workflow.js), which resumes it at once when it
// awaits what a Workflow answers, and through promises when it awaits a promise (activity code).
// `weft-js-build` applies this to the guest's files; `node --import @weft/guest/register` to the
// files tests import.
//
// Edits keep every line where it was, so stack traces name the user's lines:
//   async function f(a) { ... await x ... }
//   function f(a) { return __weftAsync(this, arguments, function* () { ... (yield x) ... }); }

import { ensureToolchain, importFrom } from './toolchain.js';

let parser;

/** acorn: the project's own (a dependency of @weft/guest), else the build toolchain's. */
async function acorn() {
  if (!parser) {
    try {
      parser = await import('acorn');
    } catch {
      parser = await importFrom(ensureToolchain(), 'acorn');
    }
  }
  return parser;
}

/** An error in the guest's code, naming where. */
export class TransformError extends Error {
  constructor(file, source, at, message) {
    const before = source.slice(0, at).split('\n');
    super(`${file}:${before.length}:${before.at(-1).length + 1}: ${message}`);
    this.name = 'TransformError';
  }
}

/** The module that exports `__weftAsync`, as transformed modules import it: by its path, so
 * that it is the very module the guest's imports of the SDK load. */
export const ASYNC_MODULE = new URL('./workflow.js', import.meta.url).href;

/**
 * The ES module `source` (of `file`) with its async functions as `__weftAsync` generators;
 * `undefined` if it has none. Throws a {@link TransformError} for what a workflow cannot do
 * (`for await`, async generators, `super` in an async method).
 */
export async function transformAsync(source, file, from = ASYNC_MODULE) {
  const { parse } = await acorn();
  let ast;
  try {
    ast = parse(source, { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true });
  } catch (e) {
    throw new TransformError(file, source, e.pos ?? 0, e.message.replace(/ \(\d+:\d+\)$/, ''));
  }
  const edits = [];
  walk(ast, null, (node, fn) => edit(node, fn, source, edits, (at, message) => {
    throw new TransformError(file, source, at, message);
  }));
  if (edits.length === 0) return undefined;
  // Later positions first, so that earlier ones stay valid. At one position the edit made
  // first ends up last: openers inner first (the outer's text before), closers outer first (the
  // inner's `)` before the outer's), and closers after openers (what ends before what begins).
  edits.sort((a, b) => b.at - a.at || a.close - b.close || (a.close ? a.order - b.order : b.order - a.order));
  let out = source;
  for (const e of edits) out = out.slice(0, e.at) + e.text + out.slice(e.at + e.remove);
  // On the first line, so that no line moves (after a hashbang, which must stay first).
  const head = out.startsWith('#!') ? out.indexOf('\n') + 1 : 0;
  const imported = `import { __weftAsync } from ${JSON.stringify(from)};`;
  return out.slice(0, head) + imported + out.slice(head);
}

/** Calls `visit(node, fn)` for every node, `fn` being the innermost function around it. */
function walk(node, fn, visit) {
  visit(node, fn);
  const inner = /Function/.test(node.type) ? node : fn;
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child.type === 'string') walk(child, inner, visit);
    } else if (value && typeof value.type === 'string' && key !== 'type') {
      walk(value, inner, visit);
    }
  }
}

/** Records the edits `node` (of `source`) needs; `fn` is the function around it. */
function edit(node, fn, source, edits, fail) {
  const add = (at, remove, text, close = false) => edits.push({ at, remove, text, close, order: edits.length });
  if ((node.type === 'MethodDefinition' || node.type === 'Property') && node.value.async) {
    // A method's function starts at its parameters; its `async` is before its key.
    node.value.asyncAt = source.lastIndexOf('async', node.key.start);
  } else if (node.type === 'AwaitExpression') {
    if (!fn?.async) return; // top-level await: a module's own, left as it is
    add(node.start, 'await'.length, '(yield');
    add(node.end, 0, ')', true);
  } else if (node.type === 'ForOfStatement' && node.await) {
    fail(node.start, '`for await` cannot run in a workflow: await each item instead');
  } else if (/Function/.test(node.type) && node.async) {
    if (node.generator) fail(node.start, 'an async generator cannot run in a workflow');
    asyncFunction(node, add, fail);
  } else if (node.type === 'Super' && fn?.async) {
    fail(node.start, '`super` in an async method: call it from a method that is not async');
  }
}

/** The edits that make the async function `node` a `__weftAsync` generator. */
function asyncFunction(node, add, fail) {
  const arrow = node.type === 'ArrowFunctionExpression';
  // `this` and `arguments` of the function itself; an arrow's are its surroundings', which the
  // generator cannot see, and arrows are rarely workflows' entry points.
  const args = arrow ? 'null' : 'arguments';
  if (arrow && usesArguments(node.body)) {
    fail(node.start, '`arguments` in an async arrow function: give it parameters');
  }
  removeAsync(node, add);
  const body = node.body;
  if (body.type === 'BlockStatement') {
    add(body.start, 1, `{ return __weftAsync(this, ${args}, function* () {`);
    add(body.end - 1, 1, '}); }', true);
  } else {
    add(body.start, 0, `__weftAsync(this, null, function* () { return (`);
    add(body.end, 0, '); })', true);
  }
}

/** Removes the `async` keyword of the function `node`. */
function removeAsync(node, add) {
  add(node.asyncAt ?? node.start, 'async'.length, '');
}

/** Whether `node` (an arrow's body) reads `arguments`, outside functions of its own. */
function usesArguments(node) {
  if (!node || typeof node.type !== 'string') return false;
  if (node.type === 'Identifier') return node.name === 'arguments';
  if (/Function/.test(node.type) && node.type !== 'ArrowFunctionExpression') return false;
  return Object.keys(node).some((key) => {
    const value = node[key];
    if (key === 'type') return false;
    return Array.isArray(value) ? value.some(usesArguments) : usesArguments(value);
  });
}
