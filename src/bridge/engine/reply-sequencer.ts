/**
 * Puts a task's numbered replies in order (binding §4.3): each is applied once, in seq order; one that comes ahead
 * of a missing one waits for it, at most `reorderWaitMs`, after which the task carries on from the next it has. The
 * sequencer owns `lastSeq` and the held replies of a live task; what a reply does is the engine's (`apply`).
 */
import type { AgentEnvelope } from '../../logos/envelope.ts';
import type { LiveTask } from '../live-task.ts';
import type { LiveTasks } from './live-tasks.ts';

export interface ReplySequencerOptions {
  tasks: LiveTasks;
  /** How long a reply that arrived ahead of a missing one waits for the gap to fill. */
  reorderWaitMs: number;
  /** Applies the next reply in sequence (`lastSeq` is its seq already). Runs on the task's chain. */
  apply: (live: LiveTask, envelope: AgentEnvelope) => Promise<void>;
  log: (message: string) => void;
}

export class ReplySequencer {
  readonly #options: ReplySequencerOptions;

  constructor(options: ReplySequencerOptions) {
    this.#options = options;
  }

  /** Whether the reply was had before (applied, or held for a gap): a repeat, to be dropped. */
  isRepeat(live: LiveTask, envelope: AgentEnvelope): boolean {
    return envelope.seq <= live.lastSeq || live.pending?.has(envelope.seq) === true;
  }

  /**
   * A new reply: applied with every held one it lets through, or held until the gap before it fills or expires.
   * Answers with the drain's own promise: one per reply is enough.
   */
  offer(live: LiveTask, envelope: AgentEnvelope): Promise<void> {
    live.holdReply(envelope.seq, envelope);
    return this.drain(live);
  }

  /** A reply that must apply whatever its seq: it is taken as the next one. */
  offerAsNext(live: LiveTask, envelope: AgentEnvelope): Promise<void> {
    return this.offer(live, { ...envelope, seq: live.lastSeq + 1 });
  }

  /**
   * Applies held replies while they continue the sequence; a gap left starts the wait for it. The usual case, the
   * one reply held and no wait running, is its application's promise as it is: nothing can be held meanwhile (every
   * offer runs on the task's chain), so nothing is left to drain or to wait for after it.
   */
  private drain(live: LiveTask): Promise<void> {
    const next = live.pending?.get(live.lastSeq + 1);
    if (!next || live.pending?.size !== 1 || live.gapTimer || !this.#options.tasks.holds(live))
      return this.drainAll(live);
    try {
      live.dropReply(next.seq);
      live.lastSeq = next.seq;
      return this.#options.apply(live, next);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** Every held reply that continues the sequence, in turn; then the wait for a gap left, if any. */
  private async drainAll(live: LiveTask): Promise<void> {
    const { tasks } = this.#options;
    let next = live.pending?.get(live.lastSeq + 1);
    while (next && tasks.holds(live)) {
      live.dropReply(next.seq);
      live.lastSeq = next.seq;
      await this.#options.apply(live, next);
      next = live.pending?.get(live.lastSeq + 1);
    }
    if (!live.pending) {
      clearTimeout(live.gapTimer);
      live.gapTimer = undefined;
    } else if (!live.gapTimer && tasks.holds(live)) {
      // Replies wait for a missing one; if it has not come when the timer fires, carry on without it.
      live.gapTimer = setTimeout(() => {
        live.gapTimer = undefined;
        tasks.enqueue(live, 'skipping a missing reply', () => this.skipGap(live));
      }, this.#options.reorderWaitMs);
      live.gapTimer.unref();
    }
  }

  /** A missing reply never came: carry on from the next one held. */
  private async skipGap(live: LiveTask): Promise<void> {
    if (!live.pending || !this.#options.tasks.holds(live)) return;
    const lowest = Math.min(...live.pending.keys());
    this.#options.log(`task ${live.task.id}: replies ${live.lastSeq + 1}..${lowest - 1} never arrived; skipping them`);
    live.lastSeq = lowest - 1;
    await this.drainAll(live);
  }
}
