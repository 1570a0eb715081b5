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
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const TYPESCRIPT = '5.9.3';
const types = fileURLToPath(new URL('types/', import.meta.url));
const src = fileURLToPath(new URL('../src/', import.meta.url));
const skip = process.env.WEFT_GUEST_LANG_TESTS
  ? false
  : 'set WEFT_GUEST_LANG_TESTS to type-check the declarations (installs TypeScript from npm on first use)';

/** Where the pinned TypeScript lives: in the toolchains' cache, named by its version. */
function typescriptDir() {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const tools = process.env.WEFT_GUEST_TOOLCHAINS || join(cache, 'weft', 'toolchains');
  return join(tools, `typescript-${TYPESCRIPT}`);
}

/** tsc, installed on first use; concurrent first uses each install into a directory of their
 * own, renamed into place (as src/toolchain.js installs the build's tools). */
function ensureTsc() {
  const dir = typescriptDir();
  const tsc = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
  if (existsSync(join(dir, '.installed'))) return tsc;
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.staging-`);
  console.error(`types.test.js: installing TypeScript ${TYPESCRIPT} into ${dir} (npm install)...`);
  try {
    // stdout is the test runner's: npm's goes to stderr.
    execFileSync('npm', [
      'install', '--prefix', staging, '--no-save', '--no-package-lock', '--no-audit', '--no-fund',
      '--loglevel=error', `typescript@${TYPESCRIPT}`,
    ], { stdio: ['ignore', process.stderr, 'inherit'] });
    writeFileSync(join(staging, '.installed'), '');
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(staging, dir);
    } catch (e) {
      if (!existsSync(join(dir, '.installed'))) throw e; // Another install finished meanwhile.
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return tsc;
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
