// canonicalJson and parseJson against what serde_json writes and says.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { toOutcome } from '../src/activity.js';
import {
  JsonError, canonicalJson, compareUtf8, parseJson, parsePayload, payload,
} from '../src/json.js';

test('objects are written compact with keys sorted, recursively', () => {
  const value = { shipment: { tracking: 'T' }, order_id: 'o', charge: { charge_id: 'C', amount_cents: 4200 } };
  assert.equal(canonicalJson(value),
    '{"charge":{"amount_cents":4200,"charge_id":"C"},"order_id":"o","shipment":{"tracking":"T"}}');
  assert.equal(canonicalJson([{ b: 1, a: [true, null, 'x'] }]), '[{"a":[true,null,"x"],"b":1}]');
  assert.equal(canonicalJson({ a: undefined, b: null }), '{"b":null}');
});

test('keys sort by UTF-8 bytes, as a BTreeMap<String, _> does, not by UTF-16 units', () => {
  // In UTF-16 units U+1F600 (a surrogate pair, 0xD83D...) sorts before U+FF61; in bytes, after.
  const keys = ['\u{1F600}', '\uFF61', 'b', 'a', 'B', 'é'];
  assert.deepEqual([...keys].sort(compareUtf8), ['B', 'a', 'b', 'é', '\uFF61', '\u{1F600}']);
  assert.deepEqual([...keys].sort(), ['B', 'a', 'b', 'é', '\u{1F600}', '\uFF61']);
});

test('strings are escaped as serde_json escapes them', () => {
  assert.equal(canonicalJson('a"b\\c\n\t\u0001\u007f/é😀'), '"a\\"b\\\\c\\n\\t\\u0001\u007f/é😀"');
});

test('numbers are written as serde_json writes u64, i64 and f64', () => {
  const cases = [
    [0, '0'], [4200, '4200'], [-7, '-7'], [2 ** 53 + 2, '9007199254740994'],
    [18446744073709551615n, '18446744073709551615'], [1e20, '1e+20'],
    [0.1, '0.1'], [-2.5, '-2.5'], [1700000000.123, '1700000000.123'],
    [123456789012.5, '123456789012.5'], [1.5e-7, '1.5e-7'], [0.00001, '0.00001'],
    [0.000001, '1e-6'], [1.25e300, '1.25e+300'], [-0, '-0.0'], [NaN, 'null'],
  ];
  for (const [n, text] of cases) assert.equal(canonicalJson(n), text, `${n}`);
});

test('parseJson reads JSON, keeping big integers exact', () => {
  assert.deepEqual(parseJson(' {"a":[1,2.5,-3,"x\\u00e9\\ud83d\\ude00"],"b":{}} '),
    { a: [1, 2.5, -3, 'xé😀'], b: {} });
  assert.equal(parseJson('18446744073709551615'), 18446744073709551615n);
  assert.equal(parseJson('-9223372036854775808'), -9223372036854775808n);
  assert.equal(parseJson('18446744073709551616'), 18446744073709551616);
  assert.ok(Object.is(parseJson('-0'), -0));
  assert.equal(parseJson('1e2'), 100);
  assert.deepEqual(Object.keys(parseJson('{"__proto__":1}')), ['__proto__']);
});

test('parsePayload reads JSON, and keeps what is not JSON as the text', () => {
  assert.deepEqual(parsePayload('{"id":1}'), { id: 1 });
  assert.equal(parsePayload('null'), null);
  assert.equal(parsePayload('Hello'), 'Hello');
  assert.equal(parsePayload(undefined), undefined);
});

test('parseJson fails with serde_json messages and positions', () => {
  const cases = [
    ['', 'EOF while parsing a value at line 1 column 0'],
    ['not json', 'expected ident at line 1 column 2'],
    ['x', 'expected value at line 1 column 1'],
    ['{', 'EOF while parsing an object at line 1 column 1'],
    ['[1,]', 'trailing comma at line 1 column 4'],
    ['{"a":1,}', 'trailing comma at line 1 column 8'],
    ['{"a":1}x', 'trailing characters at line 1 column 8'],
    ['{"a" 1}', 'expected `:` at line 1 column 6'],
    ['{1:2}', 'key must be a string at line 1 column 2'],
    ['[1 2]', 'expected `,` or `]` at line 1 column 4'],
    ['{"a":1 "b"}', 'expected `,` or `}` at line 1 column 8'],
    ['"abc', 'EOF while parsing a string at line 1 column 4'],
    ['"a\\qb"', 'invalid escape at line 1 column 4'],
    ['"a\u0001"', 'control character (\\u0000-\\u001F) found while parsing a string at line 1 column 3'],
    ['01', 'invalid number at line 1 column 2'],
    ['1.', 'EOF while parsing a value at line 1 column 2'],
    ['1.x', 'invalid number at line 1 column 3'],
    ['-', 'EOF while parsing a value at line 1 column 1'],
    ['1e400', 'number out of range at line 1 column 5'],
    ['[\n  1,\n  trux]', 'expected ident at line 3 column 6'],
    ['"\\udc00"', 'lone leading surrogate in hex escape at line 1 column 7'],
    ['['.repeat(200), 'recursion limit exceeded at line 1 column 128'],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseJson(text), (e) => e instanceof JsonError && e.message === message, JSON.stringify(text));
  }
});

test('payload() follows the rule of every SDK, case by case (guest-sdk/payloads.json)', () => {
  const table = JSON.parse(readFileSync(new URL('../../payloads.json', import.meta.url), 'utf8'));
  for (const { name, value, payload: expected } of table.cases) {
    assert.equal(payload(value), expected ?? undefined, name);
    assert.equal(toOutcome(value).result, expected ?? undefined, `a worker's ${name}`);
  }
});
