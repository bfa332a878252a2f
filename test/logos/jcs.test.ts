import { describe, expect, it } from 'vitest';
import { canonicalBytes, canonicalize, CanonicalizationError, compareCodeUnits } from '../../src/logos/jcs.ts';

/** A double from its IEEE 754 bit pattern, as RFC 8785 Appendix B lists them. */
function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('RFC 8785 (JCS)', () => {
  it('canonicalizes the RFC §3.2.2 example: whitespace, number forms and string escapes', () => {
    const input = `{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\"\\/",
      "literals": [null, true, false]
    }`;
    expect(canonicalize(JSON.parse(input))).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts member names by UTF-16 code units (RFC §3.2.3), so an emoji sorts before U+FB33', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // Read the order off the text: JSON.parse would put the integer-like key "1" first again.
    const order = [...canonicalize(input).matchAll(/":"([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
    expect(canonicalize(input).startsWith('{"\\r":"Carriage Return","1":"One","\u0080":"Control"')).toBe(true);
    expect(compareCodeUnits('\ud83d\ude00', '\ufb33')).toBeLessThan(0);
  });

  it('writes numbers as ECMAScript does (RFC Appendix B)', () => {
    const cases: [string, string][] = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'], // -0
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ];
    for (const [bits, text] of cases) expect(canonicalize(fromBits(bits)), bits).toBe(text);
    expect(canonicalize([1e21, 1e20, -0, 0.1, 1e-7, 100])).toBe('[1e+21,100000000000000000000,0,0.1,1e-7,100]');
  });

  it('refuses NaN and infinities (RFC Appendix B: 7fffffffffffffff, 7ff0000000000000)', () => {
    expect(() => canonicalize(fromBits('7fffffffffffffff'))).toThrow(CanonicalizationError);
    expect(() => canonicalize({ a: fromBits('7ff0000000000000') })).toThrow(/\(root\)\.a: Infinity/);
    expect(() => canonicalize(-Infinity)).toThrow(CanonicalizationError);
  });

  it('escapes exactly the control characters, quote and backslash; leaves DEL, U+2028 and non-ASCII alone', () => {
    expect(canonicalize('\u0000\u0001\u001f\b\t\n\f\r"\\/\u007f\u2028\u2029é😀')).toBe(
      '"\\u0000\\u0001\\u001f\\b\\t\\n\\f\\r\\"\\\\/\u007f\u2028\u2029é😀"',
    );
    // Matches JSON.stringify for every well-formed string.
    const sample = 'a\u000bb\u0019c"d\\e\u00a0f\ud800\udc00';
    expect(canonicalize(sample)).toBe(JSON.stringify(sample));
  });

  it('refuses lone surrogates (not I-JSON)', () => {
    expect(() => canonicalize('\ud800')).toThrow(/lone surrogate/);
    expect(() => canonicalize('a\udc00b')).toThrow(/lone surrogate/);
    expect(() => canonicalize({ '\ud83d': 1 })).toThrow(/lone surrogate/);
  });

  it('has no whitespace, keeps array order, sorts nested objects', () => {
    expect(canonicalize({ b: [3, { z: 1, a: [] }, 'x'], a: { d: {}, c: null } })).toBe(
      '{"a":{"c":null,"d":{}},"b":[3,{"a":[],"z":1},"x"]}',
    );
  });

  it('leaves out undefined members as JSON.stringify does, but refuses undefined elsewhere', () => {
    expect(canonicalize({ a: 1, b: undefined })).toBe('{"a":1}');
    expect(() => canonicalize([1, undefined])).toThrow(/\[1\]: undefined/);
    expect(() => canonicalize(undefined)).toThrow(CanonicalizationError);
  });

  it('refuses what is not JSON: bigints, functions, symbols, class instances, cycles, deep nesting', () => {
    expect(() => canonicalize({ n: 1n })).toThrow(/bigint/);
    expect(() => canonicalize({ f: () => 1 })).toThrow(/function/);
    expect(() => canonicalize(Symbol('s'))).toThrow(/symbol/);
    expect(() => canonicalize({ d: new Date(0) })).toThrow(/plain objects/);
    expect(() => canonicalize(new Map())).toThrow(/plain objects/);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => canonicalize(cycle)).toThrow(/circular/);
    let deep: unknown = 1;
    for (let i = 0; i < 300; i++) deep = [deep];
    expect(() => canonicalize(deep)).toThrow(/nested deeper than 256/);
    expect(canonicalize(deep, { maxDepth: 400 })).toBe(`${'['.repeat(300)}1${']'.repeat(300)}`);
    // The same value twice (not a cycle) is fine.
    const shared = { x: 1 };
    expect(canonicalize([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });

  it('keeps a member named __proto__ and accepts null-prototype objects', () => {
    expect(canonicalize(JSON.parse('{"__proto__":{"a":1},"b":2}'))).toBe('{"__proto__":{"a":1},"b":2}');
    const bare = Object.create(null) as Record<string, unknown>;
    bare.k = 'v';
    expect(canonicalize(bare)).toBe('{"k":"v"}');
  });

  it('encodes the canonical text as UTF-8', () => {
    expect(Buffer.from(canonicalBytes({ '€': 'é' })).toString('hex')).toBe('7b22e282ac223a22c3a9227d');
  });

  it('is idempotent and independent of member order', () => {
    const a = { x: [1, 2, { q: 'r', p: 's' }], y: 'z', ä: 0.5 };
    const b = { ä: 0.5, y: 'z', x: [1, 2, { p: 's', q: 'r' }] };
    expect(canonicalize(a)).toBe(canonicalize(b));
    expect(canonicalize(JSON.parse(canonicalize(a)))).toBe(canonicalize(a));
  });
});
