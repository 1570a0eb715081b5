// What npm does with the package: its commands run as they are, without npm having to change
// their mode (which, for an SDK installed from a checkout, would write into the checkout).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);

test('every command the package declares is executable as committed', () => {
  const { bin } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  assert.ok(Object.keys(bin).length > 0);
  for (const [name, file] of Object.entries(bin)) {
    const mode = statSync(new URL(file, root)).mode;
    assert.equal(mode & 0o111, 0o111, `${name} (${file}) is not executable`);
    assert.match(readFileSync(new URL(file, root), 'utf8'), /^#!\/usr\/bin\/env node\n/);
  }
});
