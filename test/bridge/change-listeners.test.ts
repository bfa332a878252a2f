/** A live task's listeners: one held as it is, a set for more, with the set's rules either way. */
import { expect, it } from 'vitest';
import { ChangeListeners } from '../../src/bridge/live-task.ts';
import type { ChangeListener } from '../../src/bridge/task-change.ts';

const listener = (): ChangeListener => () => undefined;

it('adds a listener once, removes it, and goes from one to many and back', () => {
  const [a, b, c] = [listener(), listener(), listener()];
  const listeners = new ChangeListeners();
  listeners.add(a);
  listeners.add(a);
  expect([...listeners]).toEqual([a]);
  expect(listeners.delete(b)).toBe(false);
  listeners.add(b);
  listeners.add(c);
  expect([...listeners]).toEqual([a, b, c]);
  expect(listeners.size).toBe(3);
  expect(listeners.delete(a)).toBe(true);
  expect(listeners.delete(a)).toBe(false);
  expect([...listeners]).toEqual([b, c]);
  listeners.delete(b);
  listeners.delete(c);
  expect(listeners.size).toBe(0);
  expect([...listeners]).toEqual([]);
});

it('iterates over the listeners as they were, so that one may leave while they are told', () => {
  const told: string[] = [];
  const listeners = new ChangeListeners();
  const first: ChangeListener = () => {
    told.push('first');
    listeners.delete(first);
    listeners.delete(second);
  };
  const second: ChangeListener = () => told.push('second');
  listeners.add(first);
  listeners.add(second);
  for (const each of listeners) each({ events: [], task: {} as never });
  expect(told).toEqual(['first', 'second']);
  expect(listeners.size).toBe(0);
});
