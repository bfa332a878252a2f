/**
 * A paid agent's own money state, kept beside its keys so that it survives the agent's process: every payment it
 * accepted (a reference seen once is refused ever after, also after a restart), what became of it (earned by a
 * completed task, owed back, or refunded), and the signed refund in flight, so a refund is resumed rather than
 * signed twice.
 */
export type HeldPaymentStatus =
  /** Reserved for a task while its transfer is checked on chain: not known to be money yet. */
  | 'checking'
  /** Checked: the agent holds it while the task runs. */
  | 'held'
  /** The task ended without completing: the money goes back, and is retried until it has. */
  | 'owed'
  | 'earned'
  | 'refunded';

export interface HeldPayment {
  txHash: string;
  /** Who paid: refunds go there. */
  payer: string;
  /** u128 base units, decimal. */
  amount: string;
  status: HeldPaymentStatus;
  /** The task it paid for; undefined for payments taken before this was kept. */
  taskId: string | undefined;
  /** The rail's record of the signed refund, once signed (opaque here); undefined before, or after it failed. */
  refundState: unknown;
}

export interface AgentPaymentStore {
  /** Takes a payment reference for a task (`checking`); false when it was taken before (a replay). */
  reserve(txHash: string, payer: string, amount: string, taskId: string): boolean;
  /** Gives a reservation back: the payment did not verify. */
  release(txHash: string): void;
  get(txHash: string): HeldPayment | undefined;
  setStatus(txHash: string, status: Exclude<HeldPaymentStatus, 'checking'>): void;
  /** Keeps the signed refund; undefined forgets one that can no longer land, so the next attempt signs afresh. */
  setRefundState(txHash: string, state: unknown): void;
  /** The payments in these states. */
  withStatus(...statuses: HeldPaymentStatus[]): HeldPayment[];
  close(): void;
}
