import { describe, expect, it } from 'vitest';
import {
  formatU128Decimal,
  parseJson,
  parseU128Decimal,
  stringifyJson,
  U128,
  U128_MAX,
  U128Decimal,
  U64,
} from '../../src/lez/json.ts';

describe('parseJson', () => {
  it('keeps integers above 2^53 exact as bigints and leaves safe integers as numbers', () => {
    // docs/lez.md §2: serde_json writes u128 balances and nonces as bare numbers.
    const text =
      '{"balance":340282366920938463463374607431768211455,"nonce":9007199254740993,"small":150,"neg":-9007199254740993}';
    const parsed = parseJson(text);
    expect(parsed).toEqual({
      ok: true,
      value: { balance: U128_MAX, nonce: 9007199254740993n, small: 150, neg: -9007199254740993n },
    });
    // JSON.parse would have rounded these.
    expect(JSON.parse(text).nonce).toBe(9007199254740992);
  });

  it('keeps fractions and exponents as numbers, and MAX_SAFE_INTEGER as a number', () => {
    expect(parseJson('[1.5, 1e3, -0, 9007199254740991, 1E+400]')).toEqual({
      ok: true,
      value: [1.5, 1000, -0, 9007199254740991, Infinity],
    });
  });

  it('parses strings with every escape, nested structures and literals', () => {
    const text = String.raw`{"s":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00","a":[true,false,null,{}],"e":[]}`;
    expect(parseJson(text)).toEqual({ ok: true, value: JSON.parse(text) });
  });

  it('treats "__proto__" as an ordinary key', () => {
    const parsed = parseJson('{"__proto__":{"polluted":1}}');
    expect(parsed.ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    if (parsed.ok) expect(Object.keys(parsed.value as object)).toEqual(['__proto__']);
  });

  it.each([
    ['', 'end of input'],
    ['{', 'string key'],
    ['[1,]', 'unexpected character'],
    ['01', 'after the JSON value'],
    ['1.', 'fraction'],
    ['1e', 'exponent'],
    ['-', 'invalid number'],
    ['"abc', 'unterminated'],
    ['"a\nb"', 'control character'],
    ['"\\x"', 'bad escape'],
    ['"\\u12"', 'bad \\u escape'],
    ['tru', 'literal'],
    ['{"a" 1}', "expected ':'"],
    ['[1 2]', "expected ','"],
    ['<html>', 'unexpected character'],
  ])('rejects %j with a reason', (text, reason) => {
    const parsed = parseJson(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain(reason);
  });

  it('refuses absurd nesting and number lengths instead of overflowing', () => {
    expect(parseJson('['.repeat(10_000) + ']'.repeat(10_000))).toMatchObject({ ok: false });
    expect(parseJson('1'.repeat(5000))).toMatchObject({ ok: false, reason: expect.stringContaining('too long') });
  });
});

describe('stringifyJson', () => {
  const value = { amount: 2n ** 100n, id: 7, list: [1n, 'x', null, true], skipped: undefined };

  it('writes bigints as bare numbers for the sequencer', () => {
    expect(stringifyJson(value, { bigints: 'number' })).toBe(
      '{"amount":1267650600228229401496703205376,"id":7,"list":[1,"x",null,true]}',
    );
  });

  it('writes bigints as decimal strings for our own JSON', () => {
    expect(stringifyJson(value, { bigints: 'string' })).toBe(
      '{"amount":"1267650600228229401496703205376","id":7,"list":["1","x",null,true]}',
    );
  });

  it('round-trips big numbers through parseJson exactly', () => {
    const text = stringifyJson({ b: U128_MAX, n: [0n, 2n ** 64n] }, { bigints: 'number' });
    expect(parseJson(text)).toEqual({ ok: true, value: { b: U128_MAX, n: [0, 2n ** 64n] } });
  });

  it('refuses non-finite numbers (a programming error)', () => {
    expect(() => stringifyJson({ x: NaN }, { bigints: 'string' })).toThrow(TypeError);
  });
});

describe('u64/u128 schemas and decimal amounts', () => {
  it('accept numbers and bigints and yield bigints', () => {
    expect(U128.parse(150)).toBe(150n);
    expect(U128.parse(U128_MAX)).toBe(U128_MAX);
    expect(U64.parse(2n ** 64n - 1n)).toBe(2n ** 64n - 1n);
  });

  it('reject negatives, fractions, out-of-range values and strings', () => {
    expect(U128.safeParse(-1).success).toBe(false);
    expect(U128.safeParse(1.5).success).toBe(false);
    expect(U128.safeParse(U128_MAX + 1n).success).toBe(false);
    expect(U64.safeParse(2n ** 64n).success).toBe(false);
    expect(U128.safeParse('5').success).toBe(false);
  });

  it('parse and format u128 decimal strings strictly', () => {
    expect(parseU128Decimal('0')).toEqual({ ok: true, value: 0n });
    expect(parseU128Decimal('340282366920938463463374607431768211455')).toEqual({ ok: true, value: U128_MAX });
    for (const bad of [
      '',
      '-1',
      '1.0',
      '01',
      '1e3',
      ' 1',
      '0x10',
      '340282366920938463463374607431768211456',
      '9'.repeat(100),
    ]) {
      expect(parseU128Decimal(bad).ok, bad).toBe(false);
    }
    expect(formatU128Decimal(2n ** 100n)).toBe('1267650600228229401496703205376');
    expect(() => formatU128Decimal(-1n)).toThrow(RangeError);
    expect(U128Decimal.parse('42')).toBe(42n);
    expect(U128Decimal.safeParse('4.2').success).toBe(false);
  });
});
