// The README's worked example and its test, run as written: the code a reader copies works.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The first ```js block after `heading` (a line of the README). */
function blockAfter(heading) {
  const from = README.indexOf(heading);
  assert.ok(from >= 0, `no "${heading}" in the README`);
  return README.slice(from).match(/```js\n([\s\S]*?)```/)[1];
}

test('the worked example and its Environment test run as the README shows them', async () => {
  const example = blockAfter('The worked example every SDK\'s README shows');
  const check = blockAfter('Its test, with the testing `Environment`');
  const sdk = (path) => pathToFileURL(join(import.meta.dirname, '../src', path)).href;
  const module = [
    example.replace("from '@weft/guest';", `from '${sdk('index.js')}';`),
    `import { Environment } from '${sdk('testing/index.js')}';`,
    "import assert from 'node:assert/strict';",
    `export function check() {\n${check}}`,
  ].join('\n');
  const dir = mkdtempSync(join(tmpdir(), 'weft-readme-'));
  try {
    const file = join(dir, 'example.mjs');
    writeFileSync(file, module);
    const { check: run } = await import(pathToFileURL(file).href);
    run();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
