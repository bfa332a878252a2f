import { expect, it } from 'vitest';
import { LazyAbort } from '../../../src/logos/agent-runtime/lazy-abort.ts';

it('a signal asked for after the abort is aborted already, with the first reason', () => {
  const abort = new LazyAbort();
  expect(abort.aborted).toBe(false);
  const first = new Error('cancelled');
  abort.abort(first);
  abort.abort(new Error('stopping'));
  expect(abort.aborted).toBe(true);
  expect(abort.signal.aborted).toBe(true);
  expect(abort.signal.reason).toBe(first);
});

it('a signal asked for before the abort is the same signal each time, and hears the abort', () => {
  const abort = new LazyAbort();
  const signal = abort.signal;
  expect(abort.signal).toBe(signal);
  const heard: unknown[] = [];
  signal.addEventListener('abort', () => heard.push(signal.reason));
  const reason = new Error('cancelled');
  abort.abort(reason);
  abort.abort(new Error('again'));
  expect(heard).toEqual([reason]);
});
