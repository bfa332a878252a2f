/**
 * Task ids: RFC 9562 version 7 UUIDs, whose first 48 bits are the creation time, so that the task table's key grows
 * with time (one B-tree leaf per batch of inserts instead of one per task); request ids and the agent runtime's reply
 * ids: random (version 4) ones.
 */
import { describe, expect, it } from 'vitest';
import { uuidV4, uuidV7 } from '../src/uuid.ts';

const SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

it('is a version 7, variant 10 UUID carrying the time in its first 48 bits', () => {
  const at = Date.UTC(2026, 11, 7, 2, 30, 0, 123);
  const id = uuidV7(at);
  expect(id).toMatch(SHAPE);
  expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(at);
  // The largest 48-bit time still fits (the year 10889).
  expect(uuidV7(2 ** 48 - 1).startsWith('ffffffff-ffff-7')).toBe(true);
});

it('sorts by creation time as text, and never repeats', () => {
  const ids = Array.from({ length: 5_000 }, (_, i) => uuidV7(1_700_000_000_000 + Math.floor(i / 10)));
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) expect(id).toMatch(SHAPE);
  const byTime = (id: string) => id.slice(0, 13);
  expect([...ids].sort().map(byTime)).toEqual(ids.map(byTime));
});

it('draws its 74 random bits afresh for each id within the same millisecond', () => {
  const at = Date.now();
  const tails = new Set(Array.from({ length: 1_000 }, () => uuidV7(at).slice(15)));
  expect(tails.size).toBe(1_000);
});

describe('uuidV4', () => {
  it('is a random UUID (version 4, variant 10), in lowercase, each one new', () => {
    const ids = Array.from({ length: 2000 }, uuidV4);
    for (const id of ids) expect(id).toMatch(/^[\da-f]{8}-[\da-f]{4}-4[\da-f]{3}-[89ab][\da-f]{3}-[\da-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws every hex digit in every random position, after a v7 id as before one', () => {
    const seen = Array.from({ length: 36 }, () => new Set<string>());
    for (let n = 0; n < 2000; n++) {
      uuidV7(0); // shares the scratch bytes: nothing of its time part may stay in a v4 id
      [...uuidV4()].forEach((char, at) => seen[at]!.add(char));
    }
    const random = [...Array(36).keys()].filter((at) => ![8, 13, 14, 18, 19, 23].includes(at));
    for (const at of random) expect(seen[at]!.size, `position ${at}`).toBe(16);
    expect([...seen[19]!].sort()).toEqual(['8', '9', 'a', 'b']);
  });
});
