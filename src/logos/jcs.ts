/**
 * RFC 8785 JSON Canonicalization Scheme (JCS): the one byte string both sides of a signature hash.
 *
 * - Objects: members sorted by their names compared as arrays of UTF-16 code units (RFC 8785 §3.2.3), which is
 *   what JavaScript's `<` on strings does; no whitespace anywhere.
 * - Numbers: the ECMAScript Number-to-String algorithm (§3.2.2.3), i.e. `String(n)` for a finite n: `-0` is `0`,
 *   `1e21` is `1e+21`, `1e-7` is `1e-7`. NaN and ±Infinity are not JSON and are refused.
 * - Strings: `"` and `\` escaped; U+0008, U+0009, U+000A, U+000C, U+000D as `\b \t \n \f \r`; every other
 *   character below U+0020 as `\u00xx` (lowercase hex); everything else, including U+007F and U+2028, as is.
 *   Lone surrogates are not I-JSON (RFC 7493) and are refused.
 * - Output is UTF-8 (`canonicalBytes`).
 *
 * Input is a JSON value as JSON.parse returns it: null, booleans, finite numbers, strings, arrays and plain
 * objects. An object member whose value is `undefined` is left out, as JSON.stringify leaves it out, so a card
 * built with optional fields canonicalizes to what its JSON text carries. Anything else (functions, bigints,
 * symbols, class instances, `undefined` in an array or at the top, cycles, nesting deeper than `maxDepth`)
 * throws a TypeError naming where it is. Duplicate member names cannot occur in a JavaScript object; text with
 * duplicates must be rejected (or resolved, as JSON.parse does, last one wins) before it gets here.
 */

export const DEFAULT_MAX_DEPTH = 256;

export interface CanonicalizeOptions {
  /** Arrays and objects nested deeper than this are refused (the recursion must not exhaust the stack). */
  maxDepth?: number;
}

export class CanonicalizationError extends TypeError {
  override readonly name = 'CanonicalizationError';
}

/** The RFC 8785 canonical JSON text of a JSON value. Throws CanonicalizationError on anything that is not JSON. */
export function canonicalize(value: unknown, options: CanonicalizeOptions = {}): string {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const parts: string[] = [];
  const open = new Set<object>();

  const write = (v: unknown, path: string, depth: number): void => {
    if (v === null) {
      parts.push('null');
      return;
    }
    switch (typeof v) {
      case 'boolean':
        parts.push(v ? 'true' : 'false');
        return;
      case 'number':
        parts.push(serializeNumber(v, path));
        return;
      case 'string':
        parts.push(serializeString(v, path));
        return;
      case 'object':
        break;
      default:
        throw new CanonicalizationError(`${path}: ${typeof v} is not a JSON value`);
    }
    const container = v as object;
    if (depth >= maxDepth) throw new CanonicalizationError(`${path}: nested deeper than ${maxDepth}`);
    if (open.has(container)) throw new CanonicalizationError(`${path}: circular reference`);
    open.add(container);
    if (Array.isArray(container)) {
      parts.push('[');
      for (let i = 0; i < container.length; i++) {
        if (i > 0) parts.push(',');
        const item: unknown = container[i];
        if (item === undefined) throw new CanonicalizationError(`${path}[${i}]: undefined is not a JSON value`);
        write(item, `${path}[${i}]`, depth + 1);
      }
      parts.push(']');
    } else {
      const proto: unknown = Object.getPrototypeOf(container);
      if (proto !== Object.prototype && proto !== null) {
        throw new CanonicalizationError(`${path}: only plain objects are JSON objects`);
      }
      const record = container as Record<string, unknown>;
      const names = Object.keys(record)
        .filter((name) => record[name] !== undefined)
        .sort(compareCodeUnits);
      parts.push('{');
      names.forEach((name, i) => {
        if (i > 0) parts.push(',');
        parts.push(serializeString(name, `${path} member name`), ':');
        write(record[name], `${path}.${name}`, depth + 1);
      });
      parts.push('}');
    }
    open.delete(container);
  };

  if (value === undefined) throw new CanonicalizationError('(root): undefined is not a JSON value');
  write(value, '(root)', 0);
  return parts.join('');
}

/** The canonical text as UTF-8 bytes: what gets hashed or signed. */
export function canonicalBytes(value: unknown, options: CanonicalizeOptions = {}): Uint8Array {
  return new TextEncoder().encode(canonicalize(value, options));
}

/** Orders strings by UTF-16 code units (RFC 8785 §3.2.3), not by code points or locale. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function serializeNumber(n: number, path: string): string {
  if (!Number.isFinite(n)) throw new CanonicalizationError(`${path}: ${n} is not a JSON number`);
  // ECMAScript Number::toString is exactly RFC 8785's number format; String(-0) is already "0".
  return String(n);
}

const SHORT_ESCAPES: Record<number, string> = {
  0x08: '\\b',
  0x09: '\\t',
  0x0a: '\\n',
  0x0c: '\\f',
  0x0d: '\\r',
  0x22: '\\"',
  0x5c: '\\\\',
};

function serializeString(s: string, path: string): string {
  let out = '"';
  let runStart = 0;
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    let escape: string | undefined;
    if (unit < 0x20 || unit === 0x22 || unit === 0x5c) {
      escape = SHORT_ESCAPES[unit] ?? `\\u${unit.toString(16).padStart(4, '0')}`;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++; // a well-formed pair, copied as is
        continue;
      }
      throw new CanonicalizationError(`${path}: lone surrogate U+${unit.toString(16).toUpperCase()} at index ${i}`);
    }
    if (escape !== undefined) {
      out += s.slice(runStart, i) + escape;
      runStart = i + 1;
    }
  }
  return `${out}${s.slice(runStart)}"`;
}
