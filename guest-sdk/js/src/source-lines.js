// Where each line of a component's bundle came from, read off esbuild's source map at build
// time, so that a stack in a component (`bundle.js:903`) names the guest's file and line
// (host.js `sourceLines`). Only lines are kept: a failure's line is what a reader needs, and a
// table of lines stays small.

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * For each generated line of the source map `map` (version 3), where it came from: `{files,
 * at}`, `at` holding a file's index and a line (from 1) per generated line, `-1, 0` for a line
 * that maps nowhere. `name(source)` gives each source the name stacks should show.
 *
 * @param {{sources: string[], mappings: string}} map
 * @param {(source: string) => string} name
 */
export function lineTable(map, name) {
  const at = [];
  let [source, line] = [0, 0];
  for (const generated of map.mappings.split(';')) {
    let first;
    for (const segment of generated.split(',')) {
      if (!segment) continue;
      const fields = vlq(segment);
      if (fields.length < 4) continue;
      // Every field is relative to the one before it in the whole map.
      source += fields[1];
      line += fields[2];
      first ??= [source, line + 1];
    }
    at.push(...(first ?? [-1, 0]));
  }
  return { files: map.sources.map(name), at };
}

/** The numbers of a VLQ-encoded segment. */
function vlq(segment) {
  const numbers = [];
  let [value, shift] = [0, 0];
  for (const char of segment) {
    const digit = BASE64.indexOf(char);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
    } else {
      numbers.push(value & 1 ? -(value >>> 1) : value >>> 1);
      [value, shift] = [0, 0];
    }
  }
  return numbers;
}
