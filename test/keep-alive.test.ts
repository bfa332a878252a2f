/** The shared keep-alive timer: nothing it keeps stays quiet longer than one interval, as with a timer each. */
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { keepAlive, stopKeepingAlive } from '../src/keep-alive.ts';

beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] }));
afterEach(() => vi.useRealTimers());

/** A member that records when it sent anything: on its own (`send`) or when beaten. */
function member() {
  const sentAt: number[] = [];
  const kept: { lastSentAt: number; send(): void; beat(): void } = {
    lastSentAt: 0,
    send() {
      this.lastSentAt = performance.now();
      sentAt.push(this.lastSentAt);
    },
    beat() {
      this.send();
    },
  };
  return { kept, sentAt };
}

it('beats whatever has been quiet, so that no gap between sends exceeds the interval', () => {
  const interval = 40_000;
  const early = member();
  const late = member();
  keepAlive(early.kept, interval);
  early.kept.send();
  // Joins, and speaks, a little after the shared timer started: the case a tick every interval would miss.
  vi.advanceTimersByTime(4_500);
  keepAlive(late.kept, interval);
  late.kept.send();
  vi.advanceTimersByTime(10 * interval);
  for (const { sentAt } of [early, late]) {
    const gaps = sentAt.slice(1).map((at, i) => at - sentAt[i]!);
    expect(gaps.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(interval);
  }
  stopKeepingAlive(early.kept, interval);
  stopKeepingAlive(late.kept, interval);
  const beats = early.sentAt.length + late.sentAt.length;
  vi.advanceTimersByTime(5 * interval);
  expect(early.sentAt.length + late.sentAt.length).toBe(beats);
});

it('does not beat what speaks on its own often enough', () => {
  const interval = 1_000;
  const chatty = member();
  keepAlive(chatty.kept, interval);
  for (let i = 0; i < 20; i++) {
    chatty.kept.send();
    vi.advanceTimersByTime(interval / 2);
  }
  // Twenty sends of its own, and no beat in between.
  expect(chatty.sentAt).toHaveLength(20);
  stopKeepingAlive(chatty.kept, interval);
});

it('beats outside the async context of whoever started the shared timer', async () => {
  vi.useRealTimers();
  const requestContext = new AsyncLocalStorage<string>();
  const seen = await new Promise<string | undefined>((resolve) => {
    const kept = {
      lastSentAt: 0,
      beat() {
        stopKeepingAlive(kept, 40);
        resolve(requestContext.getStore());
      },
    };
    requestContext.run('the first request', () => keepAlive(kept, 40));
  });
  expect(seen).toBeUndefined();
});
