// The recorded histories of tests/fixtures/histories, for the SDK's tests and the examples'.

import { readFileSync, readdirSync } from 'node:fs';

const dir = new URL('../../../tests/fixtures/histories/', import.meta.url);

/** Each fixture's name and document, by name. */
export function fixtures() {
  const names = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  if (names.length < 7) throw new Error(`the fixtures are missing from ${dir.pathname}`);
  return names.map((f) => [f.slice(0, -5), JSON.parse(readFileSync(new URL(f, dir), 'utf8'))]);
}
