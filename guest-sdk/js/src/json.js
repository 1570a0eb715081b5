// JSON exactly as Rust's serde_json (without `preserve_order`) reads and writes it, so that a
// JavaScript guest and a Rust guest produce byte-identical payloads for the same workflow:
// - `canonicalJson` writes compact JSON with object keys sorted by their UTF-8 bytes (serde_json
//   keeps objects in a BTreeMap), and numbers as serde_json writes them;
// - `parseJson` reads JSON with serde_json's rules and error messages ("expected value at line 1
//   column 1"), since those messages end up in failure details.

/** Integers beyond this are kept as BigInt by `parseJson`, so that u64/i64 values survive. */
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const U64_MAX = (1n << 64n) - 1n;
const I64_MIN = -(1n << 63n);

/**
 * Writes `value` as compact JSON with object keys sorted, as serde_json writes a `Value`.
 *
 * Numbers: integral numbers are written as integers (serde's u64/i64), others as serde_json
 * writes an f64 (`0.1`, `1e+16`, `1.5e-7`); BigInts as integers. `undefined` members are
 * dropped, like `JSON.stringify`; objects with a `toJSON` method are written as its result.
 * Limit: an integral float such as `1.0` is written `1` (JavaScript cannot tell it apart).
 *
 * @param {unknown} value
 * @returns {string}
 */
export function canonicalJson(value) {
  const out = write(value);
  if (out === undefined) throw new TypeError('canonicalJson: nothing to write');
  return out;
}

/**
 * The payload rule every Weft SDK follows for what a guest answers (a worker's or function's
 * result, a workflow's result): nothing (`undefined` or `null`) is no payload, a string goes
 * into SWF unchanged, and anything else as canonical JSON ({@link canonicalJson}). So a
 * JavaScript worker answering `'Hello'` gives the same `Hello` a Python or Rust worker does.
 *
 * @param {unknown} value
 * @returns {string|undefined}
 */
export function payload(value) {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : canonicalJson(value);
}

function write(value) {
  if (value !== null && typeof value === 'object' && typeof value.toJSON === 'function') {
    value = value.toJSON();
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value); // the same escapes as serde_json for valid Unicode
    case 'number':
      return number(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    return `[${value.map((v) => write(v) ?? 'null').join(',')}]`;
  }
  const members = [];
  for (const key of Object.keys(value).sort(compareUtf8)) {
    const v = write(value[key]);
    if (v !== undefined) members.push(`${JSON.stringify(key)}:${v}`);
  }
  return `{${members.join(',')}}`;
}

/** Orders strings by their UTF-8 bytes (= code points), as Rust's `String` orders. */
export function compareUtf8(a, b) {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done === y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0) - y.value.codePointAt(0);
    if (d !== 0) return d;
  }
}

function number(n) {
  if (!Number.isFinite(n)) return 'null'; // serde_json's Value has no NaN or infinity either
  if (Number.isInteger(n) && !Object.is(n, -0)) {
    const big = BigInt(n);
    if (big <= U64_MAX && big >= I64_MIN) return big.toString();
  }
  return f64(n);
}

/** An f64 as serde_json (zmij) writes it: fixed notation for exponents -5..=15, else `de±N`. */
function f64(n) {
  const [mantissa, e] = Math.abs(n).toExponential().split('e');
  const exp = Number(e);
  const digits = mantissa.replace('.', '');
  const sign = n < 0 || Object.is(n, -0) ? '-' : '';
  if (exp >= -5 && exp <= 15) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
    return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  const frac = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${frac}e${exp < 0 ? '-' : '+'}${Math.abs(exp)}`;
}

/** A JSON syntax error, with serde_json's message, line and column (of UTF-8 bytes). */
export class JsonError extends SyntaxError {
  constructor(code, line, column) {
    super(`${code} at line ${line} column ${column}`);
    this.name = 'JsonError';
    this.code = code;
    this.line = line;
    this.column = column;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Reads JSON as `serde_json::from_str::<Value>` does: same accepted syntax, same error messages
 * (thrown as {@link JsonError}). Integers outside JavaScript's safe range but within u64/i64
 * come back as BigInt.
 *
 * @param {string} text
 * @returns {any}
 */
export function parseJson(text) {
  const p = new Parser(encoder.encode(text));
  const value = p.value();
  if (p.skipWhitespace() !== undefined) p.fail('trailing characters', true);
  return value;
}

/**
 * `text` read with {@link parseJson}, or `text` itself if it is not JSON: a payload that may
 * be JSON or plain text, as the Python SDK's `payload.parse` reads it.
 *
 * @param {string|undefined} text
 * @returns {any}
 */
export function parsePayload(text) {
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

class Parser {
  constructor(bytes) {
    this.b = bytes;
    this.i = 0;
    this.depth = 128;
  }

  fail(code, peek) {
    const at = peek ? Math.min(this.b.length, this.i + 1) : this.i;
    let start = 0;
    let line = 1;
    for (let k = 0; k < at; k++) {
      if (this.b[k] === 0x0a) {
        line++;
        start = k + 1;
      }
    }
    throw new JsonError(code, line, at - start);
  }

  peek() {
    return this.i < this.b.length ? this.b[this.i] : undefined;
  }

  skipWhitespace() {
    for (;;) {
      const c = this.peek();
      if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d) this.i++;
      else return c;
    }
  }

  value() {
    const c = this.skipWhitespace();
    if (c === undefined) this.fail('EOF while parsing a value', true);
    switch (c) {
      case 0x6e: this.i++; this.ident('ull'); return null;
      case 0x74: this.i++; this.ident('rue'); return true;
      case 0x66: this.i++; this.ident('alse'); return false;
      case 0x2d: this.i++; return this.number(false);
      case 0x22: this.i++; return this.string();
      case 0x5b: return this.nested(() => this.array());
      case 0x7b: return this.nested(() => this.object());
    }
    if (c >= 0x30 && c <= 0x39) return this.number(true);
    this.fail('expected value', true);
  }

  nested(parse) {
    if (--this.depth === 0) this.fail('recursion limit exceeded', true);
    this.i++;
    const v = parse();
    this.depth++;
    return v;
  }

  ident(rest) {
    for (const ch of rest) {
      if (this.i >= this.b.length) this.fail('EOF while parsing a value');
      if (this.b[this.i++] !== ch.charCodeAt(0)) this.fail('expected ident');
    }
  }

  number(positive) {
    const start = this.i;
    if (this.i >= this.b.length) this.fail('EOF while parsing a value');
    const first = this.b[this.i++];
    const digit = (c) => c !== undefined && c >= 0x30 && c <= 0x39;
    if (first === 0x30) {
      if (digit(this.peek())) this.fail('invalid number', true);
    } else if (first >= 0x31 && first <= 0x39) {
      while (digit(this.peek())) this.i++;
    } else {
      this.fail('invalid number');
    }
    let float = false;
    if (this.peek() === 0x2e) {
      float = true;
      this.i++;
      if (!digit(this.peek())) {
        this.fail(this.peek() === undefined ? 'EOF while parsing a value' : 'invalid number', true);
      }
      while (digit(this.peek())) this.i++;
    }
    if (this.peek() === 0x65 || this.peek() === 0x45) {
      float = true;
      this.i++;
      if (this.peek() === 0x2b || this.peek() === 0x2d) this.i++;
      if (this.i >= this.b.length) this.fail('EOF while parsing a value');
      if (!digit(this.b[this.i++])) this.fail('invalid number');
      while (digit(this.peek())) this.i++;
    }
    const lexeme = (positive ? '' : '-') + decoder.decode(this.b.subarray(start, this.i));
    if (!float) {
      const big = BigInt(lexeme);
      if (big === 0n && !positive) return -0; // serde_json reads `-0` as the float -0.0
      if (big <= U64_MAX && big >= I64_MIN) {
        return big > SAFE || big < -SAFE ? big : Number(big);
      }
    }
    const n = Number(lexeme);
    if (!Number.isFinite(n)) this.fail('number out of range');
    return n;
  }

  string() {
    const parts = [];
    let start = this.i;
    for (;;) {
      while (this.i < this.b.length) {
        const c = this.b[this.i];
        if (c === 0x22 || c === 0x5c || c < 0x20) break;
        this.i++;
      }
      if (this.i >= this.b.length) this.fail('EOF while parsing a string');
      const c = this.b[this.i];
      parts.push(decoder.decode(this.b.subarray(start, this.i)));
      this.i++;
      if (c === 0x22) return parts.join('');
      if (c !== 0x5c) this.fail('control character (\\u0000-\\u001F) found while parsing a string');
      parts.push(this.escape());
      start = this.i;
    }
  }

  escape() {
    if (this.i >= this.b.length) this.fail('EOF while parsing a string');
    const c = String.fromCharCode(this.b[this.i++]);
    const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
    if (c in simple) return simple[c];
    if (c !== 'u') this.fail('invalid escape');
    const n = this.hex();
    if (n >= 0xdc00 && n <= 0xdfff) this.fail('lone leading surrogate in hex escape');
    if (n < 0xd800 || n > 0xdbff) return String.fromCharCode(n);
    for (const expected of [0x5c, 0x75]) {
      if (this.i >= this.b.length) this.fail('EOF while parsing a string');
      if (this.b[this.i++] !== expected) this.fail('unexpected end of hex escape');
    }
    const n2 = this.hex();
    if (n2 < 0xdc00 || n2 > 0xdfff) this.fail('lone leading surrogate in hex escape');
    return String.fromCharCode(n, n2);
  }

  hex() {
    if (this.i + 4 > this.b.length) {
      this.i = this.b.length;
      this.fail('EOF while parsing a string');
    }
    const text = String.fromCharCode(...this.b.subarray(this.i, this.i + 4));
    this.i += 4;
    if (!/^[0-9a-fA-F]{4}$/.test(text)) this.fail('invalid escape');
    return parseInt(text, 16);
  }

  array() {
    const out = [];
    for (let first = true; ; first = false) {
      let c = this.skipWhitespace();
      if (c === undefined) this.fail('EOF while parsing a list', true);
      if (c === 0x5d) break;
      if (!first) {
        if (c !== 0x2c) this.fail('expected `,` or `]`', true);
        this.i++;
        c = this.skipWhitespace();
        if (c === 0x5d) this.fail('trailing comma', true);
        if (c === undefined) this.fail('EOF while parsing a value', true);
      }
      out.push(this.value());
    }
    this.i++; // the `]` just seen
    return out;
  }

  object() {
    const out = {};
    for (let first = true; ; first = false) {
      let c = this.skipWhitespace();
      if (c === undefined) this.fail('EOF while parsing an object', true);
      if (c === 0x7d) break;
      if (!first) {
        if (c !== 0x2c) this.fail('expected `,` or `}`', true);
        this.i++;
        c = this.skipWhitespace();
        if (c === 0x7d) this.fail('trailing comma', true);
        if (c === undefined) this.fail('EOF while parsing a value', true);
      }
      if (c !== 0x22) this.fail('key must be a string', true);
      this.i++;
      const key = this.string();
      c = this.skipWhitespace();
      if (c === undefined) this.fail('EOF while parsing an object', true);
      if (c !== 0x3a) this.fail('expected `:`', true);
      this.i++;
      // defineProperty: a key named `__proto__` is an ordinary member, as in JSON.parse.
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
    }
    this.i++; // the `}` just seen
    return out;
  }
}
