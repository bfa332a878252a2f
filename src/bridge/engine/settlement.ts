/**
 * The money of ended tasks, settled with the chain: payments left in doubt when their task ended, and refunds
 * recorded missing that landed late, written to the tasks' receipts. Checked at start and, when asked, again every
 * so often while the gateway runs.
 */
import { isDeepStrictEqual } from 'node:util';
import type { TaskStore } from '../../store/task-store.ts';
import { isTerminal } from '../mapping.ts';
import type { PaidTasks } from '../paid-tasks.ts';
import { receiptOf, withReceipt, type TaskReceipt } from '../task-metadata.ts';

export interface SettlementOptions {
  paid: PaidTasks;
  store: Pick<TaskStore, 'get' | 'correctEnded' | 'listActive'>;
  /** Whether a task is live on this replica. */
  isLive: (taskId: string) => boolean;
  /** The tasks other live replicas hold (absent: no replicas). */
  leasedElsewhere?: () => Promise<Set<string>>;
  log: (message: string) => void;
}

/** A pending payment record untouched this long belongs to no running payment (in doubt for 60 s, then its block). */
const STRANDED_AFTER_MS = 180_000;

export class Settlement {
  readonly #options: SettlementOptions;
  #rechecker?: NodeJS.Timeout;

  constructor(options: SettlementOptions) {
    this.#options = options;
  }

  /** Settles now, in the background, and then every `everyMs` (absent: only now). */
  start(everyMs: number | undefined): void {
    // In the background: a sequencer that is slow to answer must not hold the gateway's start.
    void this.settle();
    if (!everyMs) return;
    const next = () => {
      this.#rechecker = setTimeout(
        () => void this.settle(STRANDED_AFTER_MS).finally(() => this.#rechecker && next()),
        everyMs,
      );
      this.#rechecker.unref();
    };
    next();
  }

  stop(): void {
    clearTimeout(this.#rechecker);
    this.#rechecker = undefined;
  }

  /**
   * What the chain says of ended tasks' money, written to their receipts: payments left in doubt when their task
   * ended (settled once the chain tells), and refunds recorded missing that landed late. While running, only payment
   * records untouched for `untouchedForMs` are taken: a task live on another replica is still paying its own.
   */
  async settle(untouchedForMs = 0): Promise<void> {
    const { paid, store, isLive, log } = this.#options;
    try {
      const elsewhere = (await this.#options.leasedElsewhere?.()) ?? new Set<string>();
      // Read after the leases: a task that has not ended still pays for itself, wherever it runs next. A dead
      // replica's task is, until another takes it over, neither live here nor leased elsewhere.
      const unended = new Set((await store.listActive()).map((stored) => stored.task.id));
      const running = (id: string) => isLive(id) || elsewhere.has(id) || unended.has(id);
      const stranded = await paid.settleStranded(running, untouchedForMs);
      for (const [taskId, { agentId, outcome }] of stranded) {
        if (outcome.kind === 'needs-approval') continue;
        await this.correctReceipt(agentId, taskId, outcome.receipt);
        if (outcome.kind === 'paid') {
          log(
            `task ${taskId} had ended before its payment was confirmed; the payment did land (${outcome.receipt.txHash}): the agent holds ${outcome.receipt.amount} for a task it never received`,
          );
        }
      }
      for (const { taskId, agentId, receipt } of await paid.recheckMissingRefunds(running)) {
        await this.correctReceipt(agentId, taskId, receipt);
        log(`task ${taskId}: the agent's refund was found on chain after all (${receipt.refundTxHash})`);
      }
    } catch (error) {
      log(`settling the money of ended tasks: ${String(error)}`);
    }
  }

  /**
   * An ended task's receipt, as the chain has it now. Written only to a task that has ended, and only over the
   * receipt it corrects (TaskStore.correctEnded): a replica that lost the task, or another settling it at the same
   * moment, neither refuses it (an ended task has no lease) nor writes it twice or over a later correction. One that
   * fails is logged, and the others are still written.
   */
  private async correctReceipt(agentId: string, taskId: string, receipt: TaskReceipt): Promise<void> {
    const { store, log } = this.#options;
    try {
      const stored = await store.get(agentId, taskId);
      if (!stored || !isTerminal(stored.task.status?.state)) return;
      const before = receiptOf(stored.task);
      if (isDeepStrictEqual(before, receipt)) return;
      stored.task.metadata = withReceipt(stored.task.metadata, receipt);
      await store.correctEnded(taskId, stored.task, before?.status ?? null);
    } catch (error) {
      log(`task ${taskId}: correcting its receipt: ${String(error)}`);
    }
  }
}
