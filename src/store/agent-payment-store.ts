/**
 * A paid agent's own money state, kept beside its keys so that it survives the agent's process: every payment it
 * accepted (a reference seen once is refused ever after, also after a restart), what became of it (earned by a
 * completed task, or refunded), and the signed refund in flight, so a refund is resumed rather than signed twice.
 */
export type HeldPaymentStatus = 'held' | 'earned' | 'refunded';

export interface HeldPayment {
  txHash: string;
  /** Who paid: refunds go there. */
  payer: string;
  /** u128 base units, decimal. */
  amount: string;
  status: HeldPaymentStatus;
  /** The rail's record of the signed refund, once signed (opaque here). */
  refundState: unknown;
}

export interface AgentPaymentStore {
  /** Takes a payment reference for a task; false when it was taken before (a replay). */
  reserve(txHash: string, payer: string, amount: string): boolean;
  /** Gives a reservation back: the payment did not verify. */
  release(txHash: string): void;
  get(txHash: string): HeldPayment | undefined;
  setStatus(txHash: string, status: Exclude<HeldPaymentStatus, 'held'>): void;
  setRefundState(txHash: string, state: unknown): void;
  /** Payments neither earned nor refunded: after a restart, owed back. */
  held(): HeldPayment[];
  close(): void;
}
