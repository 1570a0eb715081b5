// The TypeScript declarations (src/index.d.ts, src/testing/index.d.ts), checked by tsc as a
// project that imports `@weft/guest` would: the typed example test/types/workflow.ts must
// type-check (strict), and test/types/misuse.ts must fail with exactly the errors its lines mark
// (`// error TS2345`), so that the types are seen to reject something.
//
// tsc is installed on first use (TypeScript, pinned; it has no dependencies) with npm into the
// user's cache, beside weft-js-build's toolchain ($WEFT_GUEST_TOOLCHAINS, else
// $XDG_CACHE_HOME/weft/toolchains, else ~/.cache/weft/toolchains), never into the checkout. It
// needs the npm registry the first time, so it runs only when WEFT_GUEST_LANG_TESTS is set.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cached, installOnce } from '../src/toolchain.js';

const TYPESCRIPT = '5.9.3';
const types = fileURLToPath(new URL('types/', import.meta.url));
const src = fileURLToPath(new URL('../src/', import.meta.url));
const skip = process.env.WEFT_GUEST_LANG_TESTS
  ? false
  : 'set WEFT_GUEST_LANG_TESTS to type-check the declarations (installs TypeScript from npm on first use)';

/** tsc, installed on first use into the toolchains' cache, named by its version. */
function ensureTsc() {
  const dir = installOnce(cached(`typescript-${TYPESCRIPT}`), `TypeScript ${TYPESCRIPT}`, (staging) => [
    'install', '--prefix', staging, '--no-save', '--no-package-lock', `typescript@${TYPESCRIPT}`,
  ]);
  return join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
}

/** Runs tsc on the project `config` of test/types: its exit status and diagnostics. */
function tsc(config, ...args) {
  const run = spawnSync(process.execPath, [ensureTsc(), '-p', join(types, config), '--pretty', 'false', ...args], {
    cwd: types,
    encoding: 'utf8',
  });
  if (run.error) throw run.error;
  return { status: run.status, output: run.stdout + run.stderr };
}

/** tsc's errors as `FILE:LINE TSnnnn`. */
function errorsOf(output) {
  return [...output.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+): /gm)]
    .map(([, file, line, code]) => `${file}:${line} ${code}`);
}

test('the typed example type-checks against the declarations', { skip }, () => {
  const { status, output } = tsc('tsconfig.json', '--listFiles');
  const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));
  assert.deepEqual(errors, [], output);
  assert.equal(status, 0, output);
  // `@weft/guest` and `@weft/guest/testing` resolved to the package's own declarations.
  const files = output.split('\n').map((f) => f.trim()).filter(Boolean);
  for (const declarations of ['index.d.ts', 'testing/index.d.ts']) {
    assert.ok(files.some((f) => f === join(src, declarations)), `tsc did not read src/${declarations}:\n${output}`);
  }
});

test('misuse fails to type-check, with the errors it marks', { skip }, () => {
  const file = join(types, 'misuse.ts');
  const expected = readFileSync(file, 'utf8').split('\n').flatMap((line, i) =>
    [...(line.match(/\/\/ error (TS\d+(?:, TS\d+)*)/)?.[1].split(', ') ?? [])].map((code) => `misuse.ts:${i + 1} ${code}`));
  assert.ok(expected.length >= 10, 'misuse.ts marks its errors');
  const { status, output } = tsc('tsconfig.misuse.json');
  assert.notEqual(status, 0, output);
  const found = errorsOf(output).map((e) => e.replace(/^[^:]*misuse\.ts:/, 'misuse.ts:'));
  assert.deepEqual(found.sort(), expected.sort(), `tsc's errors (${relative(process.cwd(), file)}):\n${output}`);
});
