/**
 * JSON that keeps LEZ's big integers exact.
 *
 * The sequencer (Rust serde_json) writes u64 block ids and u128 balances and nonces as bare JSON numbers, and
 * `JSON.parse` rounds any integer above 2^53 to the nearest double. So the sequencer's answers go through
 * `parseJson` here instead:
 *
 * - an integer literal (no fraction, no exponent) outside ±Number.MAX_SAFE_INTEGER becomes a **bigint**;
 * - every other number (safe integers, fractions, exponents) stays a JS `number`.
 *
 * Consumers validate with `U128`/`U64` (zod) below, which accept either form and always yield a bigint, so a
 * balance of 150 and one of 2^100 come out the same way.
 *
 * Going out, `stringifyJson` writes bigints either as bare numbers (what the sequencer's params expect) or as
 * decimal strings (how this project carries amounts in its own JSON: metadata, stores, APIs), chosen per call.
 */
import { z } from 'zod';

export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

export type JsonParseResult = { ok: true; value: JsonValue } | { ok: false; reason: string };

/** Nesting deeper than this is refused rather than risking the stack on hostile input. */
const MAX_DEPTH = 256;
const MAX_NUMBER_LENGTH = 1024;

/** Thrown only inside the parser and turned into `{ok:false}` before it leaves this module. */
class JsonSyntaxError extends Error {}

/** Parses JSON text, keeping integers beyond 2^53 exact as bigints. Never throws. */
export function parseJson(text: string): JsonParseResult {
  const parser = new JsonParser(text);
  try {
    parser.skipWhitespace();
    const value = parser.value(0);
    parser.skipWhitespace();
    if (!parser.atEnd()) parser.fail('unexpected text after the JSON value');
    return { ok: true, value };
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { ok: false, reason: error.message };
    throw error;
  }
}

class JsonParser {
  readonly text: string;
  pos = 0;

  constructor(text: string) {
    this.text = text;
  }

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  fail(what: string): never {
    throw new JsonSyntaxError(`${what} at offset ${this.pos}`);
  }

  skipWhitespace(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else break;
    }
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH}`);
    const c = this.text[this.pos];
    switch (c) {
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      case undefined:
        return this.fail('unexpected end of input');
      default:
        if (c === '-' || (c >= '0' && c <= '9')) return this.number();
        return this.fail(`unexpected character ${JSON.stringify(c)}`);
    }
  }

  literal<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail('invalid literal');
    this.pos += word.length;
    return value;
  }

  object(depth: number): { [key: string]: JsonValue } {
    // A null-prototype object, so a "__proto__" key is just a key.
    const result: { [key: string]: JsonValue } = Object.create(null) as { [key: string]: JsonValue };
    this.pos++; // {
    this.skipWhitespace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return result;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.fail('expected a string key');
      const key = this.string();
      this.skipWhitespace();
      if (this.text[this.pos] !== ':') this.fail("expected ':'");
      this.pos++;
      this.skipWhitespace();
      result[key] = this.value(depth + 1);
      this.skipWhitespace();
      const next = this.text[this.pos];
      this.pos++;
      if (next === '}') return result;
      if (next !== ',') this.fail("expected ',' or '}'");
    }
  }

  array(depth: number): JsonValue[] {
    const result: JsonValue[] = [];
    this.pos++; // [
    this.skipWhitespace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return result;
    }
    for (;;) {
      this.skipWhitespace();
      result.push(this.value(depth + 1));
      this.skipWhitespace();
      const next = this.text[this.pos];
      this.pos++;
      if (next === ']') return result;
      if (next !== ',') this.fail("expected ',' or ']'");
    }
  }

  string(): string {
    const start = ++this.pos; // opening quote
    // Fast path: no escapes.
    let end = start;
    while (end < this.text.length) {
      const c = this.text.charCodeAt(end);
      if (c === 0x22 || c === 0x5c || c < 0x20) break;
      end++;
    }
    if (this.text.charCodeAt(end) === 0x22) {
      this.pos = end + 1;
      return this.text.slice(start, end);
    }
    // Slow path: let the platform decode the escapes of exactly this (validated) string literal.
    this.pos = end;
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x22) break;
      if (c < 0x20) this.fail('control character in string');
      if (c === 0x5c) {
        const e = this.text[this.pos + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) this.fail('bad \\u escape');
          this.pos += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) this.fail('bad escape');
        this.pos += 2;
        continue;
      }
      this.pos++;
    }
    if (this.pos >= this.text.length) this.fail('unterminated string');
    this.pos++; // closing quote
    return JSON.parse(this.text.slice(start - 1, this.pos)) as string;
  }

  number(): number | bigint {
    const start = this.pos;
    if (this.text[this.pos] === '-') this.pos++;
    if (this.text[this.pos] === '0') this.pos++;
    else if (!this.digits()) this.fail('invalid number');
    let integer = true;
    if (this.text[this.pos] === '.') {
      this.pos++;
      if (!this.digits()) this.fail('invalid fraction');
      integer = false;
    }
    if (this.text[this.pos] === 'e' || this.text[this.pos] === 'E') {
      this.pos++;
      if (this.text[this.pos] === '+' || this.text[this.pos] === '-') this.pos++;
      if (!this.digits()) this.fail('invalid exponent');
      integer = false;
    }
    // No sequencer number comes near this; the cap keeps BigInt() off megabyte-long digit runs.
    if (this.pos - start > MAX_NUMBER_LENGTH) this.fail('number too long');
    const literal = this.text.slice(start, this.pos);
    if (integer) {
      const asNumber = Number(literal);
      return Number.isSafeInteger(asNumber) ? asNumber : BigInt(literal);
    }
    return Number(literal);
  }

  /** Skips a run of decimal digits; false when there was none. */
  digits(): boolean {
    const start = this.pos;
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c < 0x30 || c > 0x39) break;
      this.pos++;
    }
    return this.pos > start;
  }
}

export type BigIntEncoding = 'number' | 'string';

/**
 * Serialises a JSON value (with bigints) to text. `bigints: 'number'` writes them as bare digits, for the
 * sequencer's u64/u128 params; `'string'` writes decimal strings, for everything this project stores or shows.
 * Undefined object members are skipped, as JSON.stringify does. Non-finite numbers are a programming error.
 */
export function stringifyJson(value: unknown, options: { bigints: BigIntEncoding }): string {
  return write(value, options.bigints);
}

function write(value: unknown, bigints: BigIntEncoding): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot write ${value} as JSON`);
      return JSON.stringify(value);
    case 'bigint':
      return bigints === 'number' ? value.toString(10) : `"${value.toString(10)}"`;
    case 'string':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value))
        return `[${value.map((item) => (item === undefined ? 'null' : write(item, bigints))).join(',')}]`;
      const members: string[] = [];
      for (const [key, member] of Object.entries(value)) {
        if (member === undefined) continue;
        members.push(`${JSON.stringify(key)}:${write(member, bigints)}`);
      }
      return `{${members.join(',')}}`;
    }
    default:
      throw new TypeError(`cannot write a ${typeof value} as JSON`);
  }
}

export const U64_MAX = (1n << 64n) - 1n;
export const U128_MAX = (1n << 128n) - 1n;

/** A non-negative JSON integer (number or bigint from `parseJson`) no larger than `max`, as a bigint. */
function unsignedInteger(max: bigint, name: string) {
  return z
    .union([z.bigint(), z.number().int()])
    .transform((n) => BigInt(n))
    .refine((n) => n >= 0n && n <= max, { message: `${name} out of range` });
}

export const U64 = unsignedInteger(U64_MAX, 'u64');
export const U128 = unsignedInteger(U128_MAX, 'u128');

const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

/** A u128 amount in its text form: plain decimal digits, no sign, no fraction, no leading zeros, ≤ 2^128-1. */
export function parseU128Decimal(text: string): { ok: true; value: bigint } | { ok: false; reason: string } {
  if (!DECIMAL.test(text))
    return { ok: false, reason: 'not a plain decimal integer (digits only, no sign, fraction or leading zero)' };
  // 2^128-1 has 39 digits; anything longer is out of range, and this keeps BigInt() off huge strings.
  if (text.length > 39) return { ok: false, reason: 'larger than a u128' };
  const value = BigInt(text);
  if (value > U128_MAX) return { ok: false, reason: 'larger than a u128' };
  return { ok: true, value };
}

/** A u128 amount as the decimal string this project puts in JSON. */
export function formatU128Decimal(value: bigint): string {
  if (value < 0n || value > U128_MAX) throw new RangeError(`not a u128: ${value}`);
  return value.toString(10);
}

/** zod schema for a u128 carried as a decimal string (our own JSON), yielding a bigint. */
export const U128Decimal = z.string().transform((text, ctx) => {
  const parsed = parseU128Decimal(text);
  if (!parsed.ok) {
    ctx.addIssue({ code: 'custom', message: `u128 amount: ${parsed.reason}` });
    return z.NEVER;
  }
  return parsed.value;
});
