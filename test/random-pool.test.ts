/**
 * The pooled random bytes of the Waku payloads (padding, ephemeral keys, IVs): every draw is fresh, across the
 * pool's refills too, and none is left as zeros (the pool clears what it hands out, so a missed refill would show).
 */
import { expect, it } from 'vitest';
import { fillRandom, randomBytesFromPool } from '../src/random-pool.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

it('hands out fresh bytes at every draw, through several refills of the pool', () => {
  const seen = new Set<string>();
  // 32-byte draws (an ephemeral key's size) and odd sizes, well past the pool's 8 KiB several times.
  for (let i = 0; i < 2_000; i++) {
    const draw = randomBytesFromPool(i % 3 === 0 ? 32 : 16 + (i % 13));
    expect(draw.some((byte) => byte !== 0)).toBe(true);
    const key = hex(draw);
    expect(seen.has(key)).toBe(false);
    seen.add(key);
  }
});

it('fills a view in place, and large draws too', () => {
  const buffer = new Uint8Array(4_096);
  fillRandom(buffer.subarray(100, 356));
  expect(buffer.subarray(0, 100).every((byte) => byte === 0)).toBe(true);
  expect(buffer.subarray(356).every((byte) => byte === 0)).toBe(true);
  expect(buffer.subarray(100, 356).some((byte) => byte !== 0)).toBe(true);
  const large = new Uint8Array(3_000);
  fillRandom(large);
  // 3,000 random bytes hold every byte value with overwhelming probability; zeros alone would not.
  expect(new Set(large).size).toBeGreaterThan(200);
});
