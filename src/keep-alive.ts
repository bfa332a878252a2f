/**
 * Keep-alives for many long-lived things at once: one timer per interval instead of one per thing. It ticks four
 * times an interval and beats for each thing quiet for three quarters of one, so that nothing stays quiet longer
 * than an interval, as with a timer each. Open SSE streams write a comment; an agent's running tasks publish their
 * last reply again. Thousands of either are open at once, and a timer each (with the async context it keeps) would
 * cost more than a set entry.
 */
import { outsideAnyCaller } from './outside-callers.ts';

export interface KeptAlive {
  /** When it last sent anything, by `performance.now()` (a monotonic clock: a clock set back stops no beat). */
  readonly lastSentAt: number;
  beat(): void;
}

const byInterval = new Map<number, { timer: NodeJS.Timeout; members: Set<KeptAlive> }>();

export function keepAlive(member: KeptAlive, intervalMs: number): void {
  let group = byInterval.get(intervalMs);
  if (!group) {
    const members = new Set<KeptAlive>();
    const timer = outsideAnyCaller(() =>
      setInterval(() => {
        const quietSince = performance.now() - intervalMs * 0.75;
        for (const quiet of members) if (quiet.lastSentAt <= quietSince) quiet.beat();
      }, intervalMs / 4),
    );
    timer.unref();
    byInterval.set(intervalMs, (group = { timer, members }));
  }
  group.members.add(member);
}

export function stopKeepingAlive(member: KeptAlive, intervalMs: number): void {
  const group = byInterval.get(intervalMs);
  if (!group?.members.delete(member) || group.members.size > 0) return;
  clearInterval(group.timer);
  byInterval.delete(intervalMs);
}
