import { expect, it } from 'vitest';
import { SeenSet } from '../../src/logos/seen-set.ts';

it('forgets the oldest key first once past its capacity, and a repeat does not count as new', () => {
  const seen = new SeenSet(3);
  for (const key of ['a', 'b', 'c', 'a', 'd', 'e']) seen.add(key);
  expect(seen.size).toBe(3);
  expect(['a', 'b', 'c', 'd', 'e'].map((key) => seen.has(key))).toEqual([false, false, true, true, true]);
  seen.add('b');
  expect(['b', 'c', 'd', 'e'].map((key) => seen.has(key))).toEqual([true, false, true, true]);
});

it('after clear, holds its capacity again, forgetting only keys added since', () => {
  const seen = new SeenSet(3);
  for (const key of ['a', 'b', 'c']) seen.add(key);
  seen.clear();
  for (const key of ['d', 'e', 'a', 'f', 'g']) seen.add(key);
  expect(seen.size).toBe(3);
  expect(['d', 'e', 'a', 'f', 'g'].map((key) => seen.has(key))).toEqual([false, false, true, true, true]);
});

it('answers whether a key added was new: a repeat, and a key forgotten then added again', () => {
  const seen = new SeenSet(2);
  expect(['a', 'b', 'a', 'c', 'a'].map((key) => seen.add(key))).toEqual([true, true, false, true, true]);
});
