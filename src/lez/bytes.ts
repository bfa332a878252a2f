/**
 * Byte helpers the LEZ codecs share: strict hex parsing for values that arrive from outside (tx hashes, keys),
 * constant-shape comparisons, and the zero-padded 32-byte domain prefixes LEZ hashes under.
 */

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Hex text (no 0x, even length; optionally an exact byte length) to bytes. Never throws. */
export function parseHex(
  text: string,
  length?: number,
): { ok: true; bytes: Uint8Array } | { ok: false; reason: string } {
  if (!HEX.test(text)) return { ok: false, reason: 'not hex (expected an even number of 0-9a-f characters, no 0x)' };
  if (length !== undefined && text.length !== length * 2) {
    return { ok: false, reason: `expected ${length} bytes (${length * 2} hex characters), got ${text.length / 2}` };
  }
  return { ok: true, bytes: Uint8Array.from(Buffer.from(text, 'hex')) };
}

/** Hex for bytes known to be valid, e.g. constants in code; a bad literal is a programming error. */
export function hexToBytes(text: string, length?: number): Uint8Array {
  const parsed = parseHex(text, length);
  if (!parsed.ok) throw new TypeError(`bad hex constant: ${parsed.reason}`);
  return parsed.bytes;
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let diff = 0;
  for (let i = 0; i < a.byteLength; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/**
 * LEZ's domain-separation prefixes are ASCII strings zero-padded to 32 bytes (e.g. Rust's
 * `b"/LEE/v0.3/AccountId/Public/\x00\x00\x00\x00\x00"`), so every hashed preimage starts on a 32-byte block.
 */
export function domainPrefix(ascii: string): Uint8Array {
  const text = new TextEncoder().encode(ascii);
  if (text.byteLength > 32) throw new RangeError(`domain prefix longer than 32 bytes: ${ascii}`);
  const out = new Uint8Array(32);
  out.set(text);
  return out;
}
