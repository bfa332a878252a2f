/**
 * Timers of one duration for many tasks, on one timer: every live task's silence timer, and each request's first
 * resend. A timer per task, with its callback and the scope that runs it, cost some 550 bytes per open stream
 * (bench/streams.ts, heap snapshots); here a task costs an entry in a map. The timer runs outside any caller's
 * context: what fires must enter its task's own.
 * Every timer runs for the same time, so they fall due in the order they were last armed: the map, in insertion
 * order, is the queue, and arming a task again moves it to the end.
 */
import { outsideAnyCaller } from '../outside-callers.ts';

export class SilenceTimers<K> {
  /** When each armed key falls due (`performance.now()`, a monotonic clock), earliest first. */
  private readonly due = new Map<K, number>();
  private timer: NodeJS.Timeout | undefined;
  private readonly ms: number;
  private readonly expire: (key: K) => void;

  constructor(ms: number, expire: (key: K) => void) {
    this.ms = ms;
    this.expire = expire;
  }

  /** `key` falls due after the timers' time, unless armed again or disarmed before. */
  arm(key: K): void {
    this.due.delete(key);
    this.due.set(key, performance.now() + this.ms);
    if (this.timer === undefined) this.schedule();
  }

  /** The timer, if it finds nothing due, sleeps until the next key's turn. */
  disarm(key: K): void {
    this.due.delete(key);
  }

  armed(key: K): boolean {
    return this.due.has(key);
  }

  private schedule(): void {
    for (const deadline of this.due.values()) {
      // Set outside the caller's log fields and trace: the one timer outlives every request that arms it.
      const timer = outsideAnyCaller(() => setTimeout(() => this.fire(), Math.max(0, deadline - performance.now())));
      timer.unref();
      this.timer = timer;
      return;
    }
  }

  private fire(): void {
    this.timer = undefined;
    const now = performance.now();
    try {
      for (const [key, deadline] of this.due) {
        if (deadline > now) break;
        this.due.delete(key);
        // One task's failure must not end the others' timeouts, nor escape this timer (it would end the process).
        try {
          this.expire(key);
        } catch (error) {
          console.error('a silence timeout failed', error);
        }
      }
    } finally {
      if (this.timer === undefined) this.schedule();
    }
  }
}
