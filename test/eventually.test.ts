/** The tests' polling helper says what it waited for when it gives up. */
import { expect, it } from 'vitest';
import { eventually } from './support/eventually.ts';

it('returns the first value the check gives, and names the check when none comes in time', async () => {
  let calls = 0;
  expect(await eventually(() => (++calls === 3 ? 'ready' : undefined))).toBe('ready');
  const queue: string[] = [];
  await expect(eventually(() => queue.length === 2 || undefined, 60)).rejects.toThrow(
    'waited 60 ms in vain for () => queue.length === 2 || undefined',
  );
});
