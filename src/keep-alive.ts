/**
 * Keep-alives for many long-lived things at once: one timer per interval instead of one per thing, and at each tick
 * a beat for each of them that has been quiet for most of the interval. Open SSE streams write a comment; an
 * agent's running tasks publish their last reply again. Thousands of either are open at once, and a timer each
 * (with the async context it keeps) would cost more than a set entry.
 */
export interface KeptAlive {
  /** When it last sent anything, in ms since the epoch. */
  readonly lastSentAt: number;
  beat(): void;
}

const byInterval = new Map<number, { timer: NodeJS.Timeout; members: Set<KeptAlive> }>();

export function keepAlive(member: KeptAlive, intervalMs: number): void {
  let group = byInterval.get(intervalMs);
  if (!group) {
    const members = new Set<KeptAlive>();
    const timer = setInterval(() => {
      const quietSince = Date.now() - intervalMs * 0.9;
      for (const quiet of members) if (quiet.lastSentAt <= quietSince) quiet.beat();
    }, intervalMs);
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
