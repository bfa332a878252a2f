/** Status keys: 32 random bytes, sent as 43 base64url characters, turned back into bytes at both ends of a task. */
import { expect, it } from 'vitest';
import { newStatusKey, STATUS_KEY_PATTERN, statusKeyBytes } from '../../src/logos/status-key.ts';

const viaBuffer = (key: string) => new Uint8Array(Buffer.from(key, 'base64url'));

it('decodes a wire-form key into its 32 bytes, as Buffer does, whatever its characters', () => {
  const keys = [
    ...Array.from({ length: 500 }, () => newStatusKey()),
    'A'.repeat(43),
    '_'.repeat(43),
    '-'.repeat(43),
    Buffer.from(Array.from({ length: 32 }, (_, i) => i * 8)).toString('base64url'),
    // The last character's two low bits lie past the 32nd byte: ignored, as Buffer ignores them.
    `${'9'.repeat(42)}B`,
  ];
  for (const key of keys) {
    expect(key).toMatch(STATUS_KEY_PATTERN);
    const bytes = statusKeyBytes(key);
    expect(Object.getPrototypeOf(bytes)).toBe(Uint8Array.prototype);
    expect(bytes).toEqual(viaBuffer(key));
  }
  expect(statusKeyBytes('_'.repeat(43))).toEqual(new Uint8Array(32).fill(255));
});

it('leaves anything but a wire-form key to Buffer’s lenient decoding, as before', () => {
  for (const key of ['', 'abc', `${'A'.repeat(42)}=`, `${'A'.repeat(42)}é`, `${'A'.repeat(20)}+${'A'.repeat(22)}`]) {
    expect(statusKeyBytes(key)).toEqual(viaBuffer(key));
  }
});
