/**
 * The live tasks' silence timers on one timer: each key falls due its time after it was last armed, in that order,
 * and the timer keeps none of the context (log fields, span) of the request that armed it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { SilenceTimers } from '../../src/bridge/silence-timers.ts';
import { currentLogContext, withLogContext } from '../../src/observability/log-context.ts';
import { inSpan, startTracing, type Tracing } from '../../src/observability/tracing.ts';

let tracing: Tracing;
beforeAll(async () => (tracing = await startTracing({ exporter: new InMemorySpanExporter() })));
afterAll(() => tracing.stop());

it('fires each key once, its time after it was last armed, in that order; a disarmed key never', () => {
  // On a fake clock: with real sleeps, a loaded machine that oversleeps the first one lets every key fall due before
  // a is armed again.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  try {
    const fired: string[] = [];
    const timers = new SilenceTimers<string>(40, (key) => fired.push(key));
    timers.arm('a');
    timers.arm('b');
    timers.arm('c');
    vi.advanceTimersByTime(20);
    timers.arm('a'); // armed again: now due after c
    timers.disarm('b');
    vi.advanceTimersByTime(30);
    expect(fired).toEqual(['c']);
    expect(timers.armed('a')).toBe(true);
    vi.advanceTimersByTime(30);
    expect(fired).toEqual(['c', 'a']);
    expect(timers.armed('a')).toBe(false);
  } finally {
    vi.useRealTimers();
  }
});

it('runs what falls due outside the log fields and span of the request that armed it', async () => {
  const seen = await new Promise<{ log: object; span: unknown }>((resolve) => {
    const timers = new SilenceTimers<string>(5, () =>
      resolve({ log: currentLogContext(), span: trace.getSpan(context.active()) }),
    );
    withLogContext({ requestId: 'the-request' }, () => inSpan('the request', {}, async () => timers.arm('task')));
  });
  expect(seen.log).toEqual({});
  expect(seen.span).toBeUndefined();
});

it('fires the keys due after one whose timeout throws, and lets nothing escape the shared timer', async () => {
  const fired: string[] = [];
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.prependListener('uncaughtException', onUncaught);
  const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const timers = new SilenceTimers<string>(5, (key) => {
      if (key === 'bad') throw new Error('this task cannot time out');
      fired.push(key);
    });
    timers.arm('bad');
    timers.arm('good');
    await sleep(40);
    expect(fired).toEqual(['good']);
    expect(uncaught).toEqual([]);
    expect(errors).toHaveBeenCalledOnce();
  } finally {
    process.removeListener('uncaughtException', onUncaught);
    errors.mockRestore();
  }
});
