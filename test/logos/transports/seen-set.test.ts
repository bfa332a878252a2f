import { expect, it } from 'vitest';
import { SeenSet } from '../../../src/logos/transports/waku/seen-set.ts';

it('forgets the oldest key first once past its capacity, and a repeat does not count as new', () => {
  const seen = new SeenSet(3);
  for (const key of ['a', 'b', 'c', 'a', 'd', 'e']) seen.add(key);
  expect(seen.size).toBe(3);
  expect(['a', 'b', 'c', 'd', 'e'].map((key) => seen.has(key))).toEqual([false, false, true, true, true]);
  seen.add('b');
  expect(['b', 'c', 'd', 'e'].map((key) => seen.has(key))).toEqual([true, false, true, true]);
});
