/**
 * keccak-256 of the Waku payload signatures: the `keccak` addon where it loads, @noble/hashes elsewhere. Both must
 * give the original Keccak's digests (not SHA3-256's): the published test vectors, and the same bytes as each other
 * around the sponge's block size (136 bytes), where padding spills into one more block.
 */
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { keccak_256 as keccak256InJavaScript } from '@noble/hashes/sha3.js';
import { keccak256, keccak256Backend } from '../../../src/logos/transports/waku/keccak256.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const utf8 = (text: string) => new TextEncoder().encode(text);

// Keccak-256 as Ethereum and the Waku payload spec use it (the Keccak team's submission, padding 0x01).
const VECTORS: [string, string][] = [
  ['', 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470'],
  ['abc', '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45'],
  ['The quick brown fox jumps over the lazy dog', '4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15'],
];

it('the addon loads where the package ships a prebuilt one', () => {
  if (process.platform === 'linux' && process.arch === 'x64') expect(keccak256Backend()).toBe('native');
});

it.each(VECTORS)('hashes %j to the published digest', (text, digest) => {
  expect(hex(keccak256(utf8(text)))).toBe(digest);
  expect(hex(keccak256InJavaScript(utf8(text)))).toBe(digest);
});

it('agrees with the JavaScript implementation at every length across the block boundaries', () => {
  const data = Uint8Array.from(randomBytes(3 * 136 + 2));
  for (let length = 0; length <= data.length; length++) {
    const input = data.subarray(3, 3 + Math.max(0, length - 3));
    expect(hex(keccak256(input))).toBe(hex(keccak256InJavaScript(input)));
  }
});

it('returns a 32-byte Uint8Array of its own, whatever the input is a view of', () => {
  const buffer = Uint8Array.from(randomBytes(1_000));
  const digest = keccak256(buffer.subarray(100, 900));
  expect(digest).toBeInstanceOf(Uint8Array);
  expect(digest.length).toBe(32);
  expect(hex(digest)).toBe(hex(keccak256InJavaScript(buffer.slice(100, 900))));
});
